package ai.edgeranker.core;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The core from a command line, for desktop JVM apps and scripts:
 * <pre>
 * rank FEED.jsonl [--query Q] [--history HISTORY.json] [--top N] [--models DIR] [--duplicates fold|keep]
 *         [--reacted sink|leave_out|keep] [--diversity W]
 *     documents (JSONL: id, text, published) ranked, one JSON line each, as `edge-ranker rank` prints them;
 *     HISTORY.json ({"likes": [{"text": ...}], "dislikes": [...]}, as edge_ranker/demo/history.json) is
 *     replayed a day ago, as `edge-ranker demo` does, since the JVM core keeps no preference database;
 *     --duplicates (default fold), --reacted (default sink without a query, keep with one) and --diversity
 *     (default Constants.DIVERSITY; 0: the scores' order) as Ranker.rank's
 * bench [--runs N] [--models DIR] [--feed FEED.jsonl]
 *     p50/p90 of the forward pass, one thread, for a 16- and a 128-token input of each model, cut from the feed's
 *     texts (default edge_ranker/demo/feed.jsonl, from the repository root)
 * </pre>
 * DIR holds the model folders semantic/ and relevance/ (default edge_ranker/models, from the repository root).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !(args[0].equals("rank") || args[0].equals("bench"))) {
            System.err.println("edge-ranker-core: usage: rank FEED.jsonl [--query Q] [--history HISTORY.json] "
                    + "[--top N] [--models DIR] [--duplicates fold|keep] [--reacted sink|leave_out|keep] "
                    + "[--diversity W] | bench [--runs N] [--models DIR] [--feed FEED.jsonl]");
            System.exit(2);
        }
        try {
            List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
            Path models = Path.of(option(rest, "--models", "edge_ranker/models"));
            if (args[0].equals("rank")) {
                rank(rest, models);
            } else {
                int runs = count(option(rest, "--runs", "500"), "--runs", 1);
                String feed = option(rest, "--feed", "edge_ranker/demo/feed.jsonl");
                if (!rest.isEmpty()) {
                    throw new IllegalArgumentException("bench takes only --runs, --models and --feed, got " + rest);
                }
                bench(runs, models, benchTexts(feed));
            }
        } catch (Exception | StackOverflowError e) {  // one line, never a stack trace
            System.err.println("edge-ranker-core: error: " + describe(e));
            System.exit(2);
        }
    }

    /** What went wrong, in one line: the message, or for an error without one (a file) its kind and subject. */
    static String describe(Throwable e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return e.getMessage() + " is not found";
        }
        if (e instanceof StackOverflowError) {
            return "a JSON document nested too deep to read";
        }
        String message = e.getMessage() == null ? "" : e.getMessage().replaceAll("\\s+", " ").strip();
        String kind = e.getClass().getSimpleName();
        return message.isEmpty() ? kind : (e instanceof IllegalArgumentException ? message : kind + ": " + message);
    }

    /** A file's text, or standard input's for "-": UTF-8, invalid bytes replaced and a BOM dropped. */
    static String text(String path) throws IOException {
        byte[] bytes = path.equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(path));
        String s = new String(bytes, StandardCharsets.UTF_8);
        return s.startsWith("\uFEFF") ? s.substring(1) : s;
    }

    /** A whole-number option of at least min, or an error that names it. */
    static int count(String value, String name, int min) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what is wanted
        }
        throw new IllegalArgumentException(name + " must be a whole number >= " + min + ", got " + value);
    }

    /** A number option (fallback when not given), or an error that names it; its range is the caller's to check. */
    static double weight(String value, String name, double fallback) {
        if (value == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a finite number >= 0, got " + value);
        }
    }

    private static String option(List<String> args, String name, String fallback) {
        int i = args.indexOf(name);
        if (i < 0) {
            return fallback;
        }
        if (i + 1 >= args.size()) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        String v = args.get(i + 1);
        args.subList(i, i + 2).clear();
        return v;
    }

    private static void rank(List<String> args, Path models) throws Exception {
        String query = option(args, "--query", null);
        String history = option(args, "--history", null);
        int top = count(option(args, "--top", "0"), "--top", 0);
        String duplicates = option(args, "--duplicates", Duplicates.FOLD);
        String reacted = option(args, "--reacted", null);
        double diversity = weight(option(args, "--diversity", null), "--diversity", Diversity.WEIGHT);
        Ranker.checkDiversity(diversity);  // before the models load, as the others
        Duplicates.check("duplicates", Duplicates.FOLDS, duplicates);
        if (reacted != null) {
            Duplicates.check("reacted", Duplicates.REACTED, reacted);
        }
        if (args.size() != 1) {
            throw new IllegalArgumentException("rank needs one JSONL file of documents, got " + args);
        }
        List<Ranker.Document> docs = feed(args.get(0));
        Ranker ranker = new Ranker(Encoder.load(models.resolve("semantic")), Encoder.load(models.resolve("relevance")),
                new Interests(new Interests.Config()));
        double now = System.currentTimeMillis() / 1000.0;
        if (history != null) {
            replay(ranker, history, now - Constants.DAY);
        }
        List<Ranker.Ranked> ranked = ranker.rank(docs, query, now, ranker.personalWeight, duplicates, reacted,
                diversity);
        StringBuilder out = new StringBuilder();
        for (Ranker.Ranked r : ranked.subList(0, top > 0 ? Math.min(top, ranked.size()) : ranked.size())) {
            out.append(Json.write(r.toMap())).append('\n');
        }
        System.out.write(out.toString().getBytes(StandardCharsets.UTF_8));
        System.out.flush();
    }

    /** The documents of a JSONL file, one a line (line feeds only; blank lines skipped), each id once. */
    static List<Ranker.Document> feed(String path) throws IOException {
        List<Ranker.Document> docs = new ArrayList<>();
        Map<String, Integer> firstLine = new HashMap<>();
        int line = 0;
        for (String s : text(path).split("\n", -1)) {
            line++;
            if (s.isBlank()) {
                continue;
            }
            try {
                docs.add(document(Json.object(s), line, firstLine));
            } catch (IllegalArgumentException | ClassCastException e) {
                throw new IllegalArgumentException("documents line " + line + ": " + describe(e), e);
            }
        }
        return docs;
    }

    /** One feed line's document; a null text is an empty document. firstLine: the line each id came on. */
    private static Ranker.Document document(Map<String, Object> d, int line, Map<String, Integer> firstLine) {
        if (!d.containsKey("id") || !d.containsKey("text")
                || !(d.get("text") == null || d.get("text") instanceof String)) {
            throw new IllegalArgumentException("a document needs an 'id' and a 'text' (a string or null)");
        }
        String id = Documents.docId(d.get("id"));
        Integer seen = firstLine.putIfAbsent(id, line);
        if (seen != null) {
            throw new IllegalArgumentException("id '" + id + "' was already given on line " + seen);
        }
        return new Ranker.Document(id, (String) d.get("text"), published(d.get("published")));
    }

    /** A history file's likes and dislikes, fed to the ranker at unix time ts; a fault names the file and item. */
    @SuppressWarnings("unchecked")
    private static void replay(Ranker ranker, String history, double ts) throws IOException {
        Map<String, Object> h = Json.object(text(history));
        for (String key : new String[] {"likes", "dislikes"}) {
            Object list = h.getOrDefault(key, List.of());
            int i = 0;
            for (Object o : list instanceof List ? (List<Object>) list : List.of((Object) "not a list")) {
                i++;
                Object text = o instanceof Map ? ((Map<String, Object>) o).get("text") : null;
                if (!(text instanceof String)) {
                    throw new IllegalArgumentException(history + ": '" + key + "' must be a list of objects with "
                            + "a 'text' string; item " + i + " is not");
                }
                try {
                    ranker.feedback((String) text, key.equals("likes"), ts);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(history + ": " + key + " item " + i + ": " + e.getMessage());
                }
            }
        }
    }

    /** A feed line's publication time: ISO-8601 (a date-time without offset is local time) or unix seconds. */
    static Double published(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException("'published' must be ISO-8601 or unix seconds, got " + Json.write(v));
        }
        try {
            OffsetDateTime t = OffsetDateTime.parse(s);
            return t.toEpochSecond() + t.getNano() / 1e9;
        } catch (DateTimeParseException e) {
            try {
                LocalDateTime t = LocalDateTime.parse(s);
                return t.atZone(ZoneId.systemDefault()).toEpochSecond() + t.getNano() / 1e9;
            } catch (DateTimeParseException e2) {
                try {
                    return (double) LocalDate.parse(s).atStartOfDay(ZoneId.systemDefault()).toEpochSecond();
                } catch (DateTimeParseException e3) {
                    throw new IllegalArgumentException("'published' is not ISO-8601: " + Json.write(v));
                }
            }
        }
    }

    /** The texts of a feed to benchmark on, read once (it may be standard input), each line checked as rank does. */
    static List<String> benchTexts(String feed) throws IOException {
        List<String> texts = new ArrayList<>();
        int line = 0;
        for (String s : text(feed).split("\n", -1)) {
            line++;
            if (s.isBlank()) {
                continue;
            }
            try {
                if (!(Json.object(s).get("text") instanceof String t)) {
                    throw new IllegalArgumentException("a document needs a 'text' (a string)");
                }
                texts.add(t);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(feed + " line " + line + ": " + describe(e), e);
            }
        }
        if (texts.isEmpty()) {
            throw new IllegalArgumentException(feed + " holds no document to benchmark on");
        }
        return texts;
    }

    /**
     * Token ids of the texts joined by spaces, cut to length tokens (at most the model's max_length) and closed
     * with [SEP]: for the demo feed, the inputs android_demo/core/bench_onnxruntime.py gives onnxruntime.
     */
    static int[] benchIds(Encoder enc, List<String> texts, int length) {
        int[] ids = enc.tokenize(String.join(" ", texts), null);
        int n = Math.min(Math.min(length, enc.maxLength), ids.length);
        int[] out = Arrays.copyOf(ids, n);
        out[n - 1] = ids[ids.length - 1];
        return out;
    }

    private static void bench(int runs, Path models, List<String> texts) throws Exception {
        System.out.println("model      tokens  p50_ms  p90_ms  (java " + System.getProperty("java.version") + ", "
                + runs + " runs after as many warm-up runs)");
        for (String name : new String[] {"semantic", "relevance"}) {
            Encoder enc = Encoder.load(models.resolve(name));
            for (int length : new int[] {16, 128}) {
                int[] ids = benchIds(enc, texts, length);
                double[] ms = new double[runs];
                for (int i = 0; i < runs; i++) {
                    enc.forward(ids);
                }
                for (int i = 0; i < runs; i++) {
                    long t0 = System.nanoTime();
                    enc.forward(ids);
                    ms[i] = (System.nanoTime() - t0) / 1e6;
                }
                Arrays.sort(ms);
                System.out.printf("%-10s %6d  %6.3f  %6.3f%n", name, ids.length, ms[runs / 2], ms[runs * 9 / 10]);
            }
        }
    }
}
