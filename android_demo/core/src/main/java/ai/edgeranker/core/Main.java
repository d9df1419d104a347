package ai.edgeranker.core;

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
import java.util.List;
import java.util.Map;

/**
 * The core from a command line, for desktop JVM apps and scripts:
 * <pre>
 * rank FEED.jsonl [--query Q] [--history HISTORY.json] [--top N] [--models DIR]
 *     documents (JSONL: id, text, published) ranked, one JSON line each, as `edge-ranker rank` prints them;
 *     HISTORY.json ({"likes": [{"text": ...}], "dislikes": [...]}, as edge_ranker/demo/history.json) is
 *     replayed a day ago, as `edge-ranker demo` does, since the JVM core keeps no preference database
 * bench [--runs N] [--models DIR]
 *     p50/p90 of the forward pass, one thread, for a 16- and a 128-token input of each model
 * </pre>
 * DIR holds the model folders semantic/ and relevance/ (default edge_ranker/models, from the repository root).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !(args[0].equals("rank") || args[0].equals("bench"))) {
            System.err.println("usage: Main rank FEED.jsonl [--query Q] [--history HISTORY.json] [--top N] "
                    + "[--models DIR]\n       Main bench [--runs N] [--models DIR]");
            System.exit(2);
        }
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        Path models = Path.of(option(rest, "--models", "edge_ranker/models"));
        if (args[0].equals("rank")) {
            rank(rest, models);
        } else {
            bench(Integer.parseInt(option(rest, "--runs", "500")), models);
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

    @SuppressWarnings("unchecked")
    private static void rank(List<String> args, Path models) throws Exception {
        String query = option(args, "--query", null);
        String history = option(args, "--history", null);
        int top = Integer.parseInt(option(args, "--top", "0"));
        if (args.size() != 1) {
            throw new IllegalArgumentException("rank needs one JSONL file of documents, got " + args);
        }
        List<Ranker.Document> docs = new ArrayList<>();
        int line = 0;
        for (String s : Files.readAllLines(Path.of(args.get(0)), StandardCharsets.UTF_8)) {
            line++;
            if (s.isBlank()) {
                continue;
            }
            Map<String, Object> d = Json.object(s);
            if (!d.containsKey("id")) {
                throw new IllegalArgumentException("documents line " + line + " has no 'id'");
            }
            Object id = d.get("id");
            try {
                docs.add(new Ranker.Document(id instanceof Double ? Json.write(id) : String.valueOf(id),
                        (String) d.get("text"), published(d.get("published"))));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("documents line " + line + ": " + e.getMessage(), e);
            }
        }
        Ranker ranker = new Ranker(Encoder.load(models.resolve("semantic")), Encoder.load(models.resolve("relevance")),
                new Interests(new Interests.Config()));
        double now = System.currentTimeMillis() / 1000.0;
        if (history != null) {
            Map<String, Object> h = Json.object(Files.readString(Path.of(history), StandardCharsets.UTF_8));
            for (String key : new String[] {"likes", "dislikes"}) {
                for (Object o : (List<Object>) h.getOrDefault(key, List.of())) {
                    ranker.feedback((String) ((Map<String, Object>) o).get("text"), key.equals("likes"),
                            now - Interests.DAY);
                }
            }
        }
        List<Ranker.Ranked> ranked = ranker.rank(docs, query, now);
        StringBuilder out = new StringBuilder();
        for (Ranker.Ranked r : ranked.subList(0, top > 0 ? Math.min(top, ranked.size()) : ranked.size())) {
            out.append(Json.write(r.toMap())).append('\n');
        }
        System.out.write(out.toString().getBytes(StandardCharsets.UTF_8));
        System.out.flush();
    }

    /** ISO-8601 (a date-time without offset is local time, as Python's fromisoformat) or unix seconds. */
    static Double published(Object v) {
        if (v == null || v instanceof Double) {
            return (Double) v;
        }
        String s = (String) v;
        try {
            OffsetDateTime t = OffsetDateTime.parse(s);
            return t.toEpochSecond() + t.getNano() / 1e9;
        } catch (DateTimeParseException e) {
            try {
                return (double) LocalDateTime.parse(s).atZone(ZoneId.systemDefault()).toEpochSecond();
            } catch (DateTimeParseException e2) {
                return (double) LocalDate.parse(s).atStartOfDay(ZoneId.systemDefault()).toEpochSecond();
            }
        }
    }

    /**
     * Token ids of the demo feed's texts joined by spaces, cut to length tokens (at most the model's
     * max_length) and closed with [SEP]: the inputs android_demo/core/bench_onnxruntime.py gives onnxruntime.
     */
    static int[] benchIds(Encoder enc, int length) throws Exception {
        List<String> texts = new ArrayList<>();
        for (String s : Files.readAllLines(Path.of("edge_ranker/demo/feed.jsonl"), StandardCharsets.UTF_8)) {
            if (!s.isBlank()) {
                texts.add((String) Json.object(s).get("text"));
            }
        }
        int[] ids = enc.tokenize(String.join(" ", texts), null);
        int n = Math.min(Math.min(length, enc.maxLength), ids.length);
        int[] out = Arrays.copyOf(ids, n);
        out[n - 1] = ids[ids.length - 1];
        return out;
    }

    private static void bench(int runs, Path models) throws Exception {
        System.out.println("model      tokens  p50_ms  p90_ms  (java " + System.getProperty("java.version") + ", "
                + runs + " runs after as many warm-up runs)");
        for (String name : new String[] {"semantic", "relevance"}) {
            Encoder enc = Encoder.load(models.resolve(name));
            for (int length : new int[] {16, 128}) {
                int[] ids = benchIds(enc, length);
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
