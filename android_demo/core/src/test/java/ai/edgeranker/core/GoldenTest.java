package ai.edgeranker.core;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * Checks the JVM core against golden vectors written by the Python runtime
 * (python -m spec.tools.golden): token ids identical for every input and role; the
 * JVM forward pass within 1e-5 per coordinate of onnxruntime's vector for every input and role, both models and a
 * tiny model whose layer is wider than its vectors (golden/wide);
 * rankings identical and scores (fused, personal, cosine, BM25, semantic query cosine) within 1e-4 for a
 * scripted like/dislike history, without a query, with one, with one partly in another language than its
 * documents and with one in a script the vocabulary lacks, once from the Python runtime's vectors and once end to end
 * from the texts (Ranker over the JVM forward pass); each text's share of words the vocabulary cannot spell.
 * Needs no JUnit (plain javac/java); prints "N passed, N failed" and exits non-zero on any failure.
 * Usage: GoldenTest GOLDEN_DIR MODELS_DIR
 */
public final class GoldenTest {
    static final double VECTOR_TOL = 1e-5;
    // no query, the demo's, another language, a script the vocabulary lacks (with and without a document's word)
    static final String[] QUERIES = {"personal", "search", "alone", "crossing", "script", "blind", "sinking"};
    private static int passed;
    private static int failed;
    private static int forwardChecks;

    private static void check(boolean ok, String what) {
        if (ok) {
            passed++;
        } else {
            failed++;
            System.out.println("FAIL " + what);
        }
    }

    static List<String[]> rows(Path p) throws Exception {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(p, StandardCharsets.US_ASCII)) {
            if (!line.isEmpty()) {
                out.add(line.split("\t", -1));
            }
        }
        return out;
    }

    /**
     * The scores with each golden document that has no word last, and with unreadToo each the models cannot read
     * (Python's decision, documents.tsv), as the Ranker puts them for the interests.
     */
    static double[] wordlessLast(double[] scores, List<String[]> docs, boolean unreadToo) {
        boolean[] last = new boolean[docs.size()];
        for (int i = 0; i < last.length; i++) {
            last[i] = !Lexical.hasWord(b64(docs.get(i)[3])) || unreadToo && unread(docs)[i];
        }
        return Fusion.wordlessLast(scores, last);
    }

    /** Which golden documents the Python runtime found the models cannot read. */
    static boolean[] unread(List<String[]> docs) {
        boolean[] out = new boolean[docs.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = docs.get(i)[4].equals("1");
        }
        return out;
    }

    /** Each golden text's share of words the model's vocabulary cannot spell, as Python's Reader counts it. */
    static void unknownShares(Path golden, Encoder enc, String model) throws Exception {
        for (String[] r : rows(golden.resolve(model + "_unknown.tsv"))) {
            double got = enc.unknownShare(b64(r[0]));
            check(Math.abs(got - Double.parseDouble(r[1])) <= 1e-12, model + " unknown share " + got + " vs " + r[1]
                    + " of " + b64(r[0]));
        }
    }

    static String b64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }

    static float[] floats(String csv) {
        String[] parts = csv.split(",");
        float[] v = new float[parts.length];
        for (int i = 0; i < parts.length; i++) {
            v[i] = Float.parseFloat(parts[i]);
        }
        return v;
    }

    static void tokens(Path golden, Path models, String model) throws Exception {
        Map<String, String> cfg = settings(golden.resolve(model + "_config.tsv"));
        int maxLength = Integer.parseInt(cfg.get("max_length"));
        int windows = Integer.parseInt(cfg.getOrDefault("windows", "1"));
        WordPieceTokenizer tok = WordPieceTokenizer.load(models.resolve(model).resolve("vocab.txt"),
                maxLength * windows);
        for (String[] r : rows(golden.resolve(model + "_tokens.tsv"))) {
            String text = b64(r[0]);
            String prefix = r[1].equals("-") ? "" : b64(cfg.get("prefix_" + r[1]));
            int[] got = tok.encode(text, prefix);
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < got.length; i++) {
                s.append(i == 0 ? "" : ",").append(got[i]);
            }
            String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
            check(s.toString().equals(r[2]), model + " tokens for [" + shown + "] role " + r[1]
                    + "\n  expected " + r[2] + "\n  got      " + s);
        }
        int cap = maxLength * windows * 64;  // Python's Encoder.cut: code points, not UTF-16 units
        String huge = "\uD83D\uDE00".repeat(cap + 5);
        check(tok.cut(huge).codePointCount(0, tok.cut(huge).length()) == cap, model + ": a huge text is cut at " + cap);
    }

    /** The JVM forward pass against the Python runtime's vector of every golden text, one text at a time. */
    static Encoder vectors(Path golden, Path models, String model) throws Exception {
        Encoder enc = Encoder.load(models.resolve(model));
        double worst = 0;
        for (String[] r : rows(golden.resolve(model + "_embeddings.tsv"))) {
            String role = r[1].equals("-") ? null : r[1];
            float[] expected = floats(r[2]);
            float[] got = enc.encode(b64(r[0]), role);
            double diff = maxAbsDiff(expected, got);
            worst = Math.max(worst, diff);
            forwardChecks++;
            String text = b64(r[0]);
            check(diff <= VECTOR_TOL, model + " vector of [" + (text.length() > 40 ? text.substring(0, 40) + "..." : text)
                    + "] role " + r[1] + ": max abs diff " + diff);
        }
        System.out.printf("%s forward pass: max abs diff %.3g over all coordinates%n", model, worst);
        return enc;
    }

    static double maxAbsDiff(float[] a, float[] b) {
        if (a.length != b.length) {
            return Double.POSITIVE_INFINITY;
        }
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs((double) a[i] - b[i]));
        }
        return m;
    }

    static void erf() {
        double[][] known = {{0.0, 0.0}, {0.1, 0.1124629160182849}, {0.5, 0.5204998778130465},
            {1.0, 0.8427007929497149}, {2.0, 0.9953222650189527}, {2.5, 0.9995930479825550},
            {3.0, 0.9999779095030014}, {-1.5, -0.9661051464753108}, {5.0, 0.9999999999984626}, {7.0, 1.0}};
        for (double[] k : known) {
            check(Math.abs(Erf.erf(k[0]) - k[1]) <= 1e-15, "erf(" + k[0] + ") = " + Erf.erf(k[0]));
        }
    }

    /** A two-column settings file (name, value), by name. */
    static Map<String, String> settings(Path tsv) throws Exception {
        Map<String, String> out = new HashMap<>();
        for (String[] r : rows(tsv)) {
            out.put(r[0], r[1]);
        }
        return out;
    }

    /** The interests' settings the Python side used for the golden history. */
    static Interests.Config config(Map<String, String> sc) {
        Interests.Config cfg = new Interests.Config();
        cfg.shiftFactor = Double.parseDouble(sc.get("shift_factor"));
        cfg.threshold = Double.parseDouble(sc.get("threshold"));
        cfg.horizonDays = Double.parseDouble(sc.get("horizon_days"));
        cfg.decayRatePerDay = Double.parseDouble(sc.get("decay_rate_per_day"));
        return cfg;
    }

    static void ranking(Path golden) throws Exception {
        Map<String, String> sc = settings(golden.resolve("scenario.tsv"));
        Interests.Config cfg = config(sc);
        Interests interests = new Interests(cfg);
        for (String[] r : rows(golden.resolve("history.tsv"))) {
            interests.feedback(b64(r[3]), floats(r[2]), r[0].equals("like"), Double.parseDouble(r[1]));
        }
        List<String[]> docs = rows(golden.resolve("documents.tsv"));
        float[][] sem = new float[docs.size()][];
        float[][] rel = new float[docs.size()][];
        List<Lexical.Bag> bags = new ArrayList<>();
        for (int i = 0; i < docs.size(); i++) {
            sem[i] = floats(docs.get(i)[1]);
            rel[i] = floats(docs.get(i)[2]);
            bags.add(Lexical.Bag.of(Lexical.terms(b64(docs.get(i)[3]))));
        }
        double now = Double.parseDouble(sc.get("now"));
        double pw = Double.parseDouble(sc.get("personal_weight"));
        double lw = Double.parseDouble(sc.get("lexical_weight"));
        double sw = Double.parseDouble(sc.get("semantic_query_weight"));
        int k = Integer.parseInt(sc.get("k"));
        float[][] both = new float[docs.size()][];
        for (int i = 0; i < docs.size(); i++) {
            both[i] = Ranker.concat(sem[i], rel[i]);
        }
        Interests.PersonalScore[] personal = interests.score(both, now);
        double[] pscore = new double[docs.size()];
        for (int i = 0; i < docs.size(); i++) {
            pscore[i] = personal[i].score;
        }
        for (String name : QUERIES) {
            double weight = weightOf(sc, name, pw);
            double[] total = null;
            double[] rscore = null;
            double[] lexical = null;
            double[] semantic = null;
            if (!name.equals("personal")) {
                List<String> words = Lexical.terms(b64(sc.get(queryOf(name) + "_text")));
                double cover = Lexical.coverage(words, bags);
                check(Math.abs(cover - Double.parseDouble(sc.get(queryOf(name) + "_coverage"))) <= 1e-12, name + " coverage");
                float[] query = floats(sc.get(queryOf(name) + "_relevance"));
                float[] semanticQuery = floats(sc.get(queryOf(name) + "_semantic"));
                rscore = new double[docs.size()];
                semantic = cover < 1.0 ? new double[docs.size()] : null;
                for (int i = 0; i < docs.size(); i++) {
                    rscore[i] = Interests.dot(rel[i], query);
                    if (semantic != null) {
                        semantic[i] = Interests.dot(sem[i], semanticQuery);
                    }
                }
                lexical = Lexical.bm25(words, bags);
                boolean blind = sc.get(queryOf(name) + "_blind").equals("1");
                double[] scores = Fusion.queryScores(Fusion.neutral(rscore, unread(docs), blind), lexical, lw,
                        semantic == null ? null : Fusion.neutral(semantic, unread(docs), blind), cover, sw);
                if (!(blind && Fusion.constant(scores))) {  // as the Ranker: a query that can add no order adds none
                    total = searched(scores, pscore, Lexical.matched(words, bags), docs, weight);
                }
            }
            boolean feed = total == null;
            if (feed) {  // a feed: the interests' order
                total = Fusion.rrf(wordlessLast(pscore, docs, true), k);
            }
            Integer[] order = Fusion.order(total);
            if (feed) {  // then its interests' topics take turns at the top, as the Ranker's default
                order = diversified(order, pscore, personal, docs);
            }
            List<String[]> expected = rows(golden.resolve("expected_" + name + ".tsv"));
            check(expected.size() == order.length, name + ": document count");
            for (int r = 0; r < expected.size(); r++) {
                String[] e = expected.get(r);
                int i = order[r];
                check(docs.get(i)[0].equals(e[1]), name + " rank " + (r + 1) + ": expected " + e[1] + " got "
                        + docs.get(i)[0]);
                int j = indexOf(docs, e[1]);
                check(Math.abs(total[j] - Double.parseDouble(e[2])) <= 1e-4, name + " fused score of " + e[1]);
                check(Math.abs(pscore[j] - Double.parseDouble(e[3])) <= 1e-4, name + " personal score of " + e[1]
                        + ": expected " + e[3] + " got " + pscore[j]);
                check(near(rscore == null ? null : rscore[j], e[4]), name + " relevance of " + e[1]);
                check(near(lexical == null ? null : lexical[j], e[5]), name + " BM25 of " + e[1]);
                check(near(semantic == null ? null : semantic[j], e[6]), name + " semantic cosine of " + e[1]);
            }
        }
    }

    /**
     * A feed's order by the scores with its top Constants.DIVERSITY_WINDOW re-ranked by Diversity at the default
     * weight, as the Ranker does: a document without a word or unreadable has no score and no interest there.
     */
    static Integer[] diversified(Integer[] order, double[] pscore, Interests.PersonalScore[] personal,
            List<String[]> docs) {
        double[] score = wordlessLast(pscore, docs, true);  // -inf where the interests cannot judge
        int[] group = new int[score.length];
        for (int i = 0; i < group.length; i++) {
            group[i] = score[i] == Double.NEGATIVE_INFINITY ? -1 : personal[i].positive;
        }
        int[] plain = Arrays.stream(order).mapToInt(Integer::intValue).toArray();
        return Arrays.stream(Diversity.diversify(plain, score, group, Diversity.WEIGHT)).boxed().toArray(Integer[]::new);
    }

    /** The personal weight a case ranks at: 0 for "alone", a case's own where the scenario gives one, else pw. */
    static double weightOf(Map<String, String> sc, String name, double pw) {
        String own = sc.get(name + "_weight");
        return name.equals("alone") ? 0.0 : own != null ? Double.parseDouble(own) : pw;
    }

    /** The query name a case searches with: "alone" is the search case at personal weight 0. */
    static String queryOf(String name) {
        return name.equals("alone") ? "search" : name;
    }

    /** The query score plus the interests' lift, a document without a word below all others, as the Ranker. */
    static double[] searched(double[] scores, double[] pscore, double[] matched, List<String[]> docs, double weight) {
        boolean[] known = new boolean[scores.length];
        boolean[] wordless = new boolean[scores.length];
        double[] unknownLast = wordlessLast(pscore, docs, true);
        for (int i = 0; i < known.length; i++) {
            known[i] = unknownLast[i] != Double.NEGATIVE_INFINITY;
            wordless[i] = !Lexical.hasWord(b64(docs.get(i)[3]));
        }
        double[] lift = Fusion.personalLift(pscore, matched, known, weight, scores);
        double[] part = Fusion.queryPart(scores, lift, wordless);
        double[] total = new double[scores.length];
        for (int i = 0; i < scores.length; i++) {
            total[i] = part[i] + lift[i];
        }
        return total;
    }

    /** The golden scenario again, end to end on the JVM: texts in, the Java forward pass, Ranker's order out. */
    static void rankingFromTexts(Path golden, Encoder semantic, Encoder relevance) throws Exception {
        Map<String, String> sc = settings(golden.resolve("scenario.tsv"));
        Interests.Config cfg = config(sc);
        Ranker ranker = new Ranker(semantic, relevance, new Interests(cfg));
        // Python's defaults wrote the scenario: a Ranker made with none set must hold the same, and the same key
        String key = sc.get("model_key");
        check(ranker.modelKey().equals(key), "model key " + ranker.modelKey() + " vs " + key);
        check(ranker.personalWeight == Double.parseDouble(sc.get("personal_weight"))
                && ranker.lexicalWeight == Double.parseDouble(sc.get("lexical_weight"))
                && ranker.semanticQueryWeight == Double.parseDouble(sc.get("semantic_query_weight"))
                && ranker.k == Integer.parseInt(sc.get("k")), "default weights as Python's");
        check(Constants.UNKNOWN_LIMIT == Double.parseDouble(sc.get("unknown_limit")), "the unknown share limit as Python's");
        ranker.personalWeight = Double.parseDouble(sc.get("personal_weight"));
        ranker.lexicalWeight = Double.parseDouble(sc.get("lexical_weight"));
        ranker.semanticQueryWeight = Double.parseDouble(sc.get("semantic_query_weight"));
        ranker.k = Integer.parseInt(sc.get("k"));
        for (String[] r : rows(golden.resolve("history.tsv"))) {
            ranker.feedback(b64(r[3]), r[0].equals("like"), Double.parseDouble(r[1]));
        }
        List<Ranker.Document> docs = new ArrayList<>();
        for (String[] d : rows(golden.resolve("documents.tsv"))) {
            docs.add(new Ranker.Document(d[0], b64(d[3]), null));
        }
        double now = Double.parseDouble(sc.get("now"));
        for (String name : QUERIES) {
            String query = name.equals("personal") ? null : b64(sc.get(queryOf(name) + "_text"));
            List<Ranker.Ranked> got = ranker.rank(docs, query, now, weightOf(sc, name, ranker.personalWeight),
                    Duplicates.KEEP, Duplicates.KEEP);
            List<String[]> expected = rows(golden.resolve("expected_" + name + ".tsv"));
            check(expected.size() == got.size(), name + " from texts: document count");
            for (int r = 0; r < Math.min(expected.size(), got.size()); r++) {
                String[] e = expected.get(r);
                Ranker.Ranked g = got.get(r);
                String at = name + " from texts, rank " + (r + 1);
                check(g.id.equals(e[1]), at + ": expected " + e[1] + " got " + g.id);
                check(Math.abs(g.score - Double.parseDouble(e[2])) <= 1e-4, at + ": fused score");
                check(near(g.personalScore, e[3]), at + ": personal score " + g.personalScore + " vs " + e[3]);
                check(near(g.relevanceScore, e[4]), at + ": relevance " + g.relevanceScore + " vs " + e[4]);
                check(near(g.lexicalScore, e[5]), at + ": BM25 " + g.lexicalScore + " vs " + e[5]);
                check(near(g.semanticScore, e[6]), at + ": semantic cosine " + g.semanticScore + " vs " + e[6]);
            }
        }
        // a like of a text the models cannot read is refused, as Python's Ranker refuses it, and said so
        for (String[] d : rows(golden.resolve("documents.tsv"))) {
            if (d[4].equals("1")) {
                String why = "";
                try {
                    ranker.feedback(b64(d[3]), true, now);
                } catch (IllegalArgumentException e) {
                    why = e.getMessage();
                }
                check(why.contains("not a text the models can read"), "a like of " + d[0] + " refused: " + why);
            }
            // what an app asks before it replays a stored like into the interests: the same rule as feedback's
            boolean wordless = !Lexical.hasWord(b64(d[3]));
            check(ranker.learnable(b64(d[3])) == !(d[4].equals("1") || wordless), "learnable: " + d[0]);
        }
        // a query without a word (punctuation, emoji) ranks as no query, as Python's Ranker does
        List<Ranker.Ranked> none = ranker.rank(docs, null, now);
        List<Ranker.Ranked> wordless = ranker.rank(docs, "\uD83D\uDE80 !!! \u2026", now);
        check(none.size() == wordless.size(), "a wordless query: document count");
        for (int r = 0; r < Math.min(none.size(), wordless.size()); r++) {
            check(none.get(r).id.equals(wordless.get(r).id) && none.get(r).score == wordless.get(r).score
                    && wordless.get(r).relevanceScore == null, "a wordless query ranks as no query, rank " + (r + 1));
        }
        steps(golden, ranker, docs, now);
    }

    /**
     * What an app does next with the scenario's user (steps.tsv, as Python's Ranker did them): time spent on a
     * document never liked (Ranker.viewed: a read, spec/rules/implicit.md, and dwell time on the closest liked
     * interest), a document's reactions undone (Ranker.undo: the interests rebuilt, the dwell time moved); then the
     * feed ranked again, as expected_steps.tsv. Python viewed at its clock's time, after every reaction and after
     * 'now': a view at 'now' decays and orders alike.
     */
    static void steps(Path golden, Ranker ranker, List<Ranker.Document> docs, double now) throws Exception {
        for (String[] s : rows(golden.resolve("steps.tsv"))) {
            String text = b64(s[2]);
            if (s[0].equals("viewed")) {
                check(ranker.viewed(text, Double.parseDouble(s[3]), now) != null, "step: a view of " + s[1] + " kept");
            } else if (s[0].equals("undo")) {
                check(ranker.undo(text) > 0, "step: the reactions to " + s[1] + " undone");
            } else {
                check(false, "steps.tsv: no such step " + s[0]);
            }
        }
        List<Ranker.Ranked> got = ranker.rank(docs, null, now, Duplicates.KEEP, Duplicates.KEEP);
        List<String[]> expected = rows(golden.resolve("expected_steps.tsv"));
        check(expected.size() == got.size(), "steps: document count");
        for (int r = 0; r < Math.min(expected.size(), got.size()); r++) {
            String[] e = expected.get(r);
            Ranker.Ranked g = got.get(r);
            String at = "steps, rank " + (r + 1);
            check(g.id.equals(e[1]), at + ": expected " + e[1] + " got " + g.id);
            check(Math.abs(g.score - Double.parseDouble(e[2])) <= 1e-4, at + ": fused score");
            check(near(g.personalScore, e[3]), at + ": personal score " + g.personalScore + " vs " + e[3]);
            check(near(g.relevanceScore, e[4]) && near(g.lexicalScore, e[5]) && near(g.semanticScore, e[6]),
                    at + ": no query scores");
        }
        List<String> pythonSunk = new ArrayList<>();
        for (String[] e : rows(golden.resolve("expected_steps_sunk.tsv"))) {
            pythonSunk.add(e[1]);
        }
        afterTheScores(ranker, docs, now, ids(got), pythonSunk);
    }

    static List<String> ids(List<Ranker.Ranked> ranked) {
        return ranked.stream().map(r -> r.id).collect(Collectors.toList());
    }

    /**
     * The steps' user's feed past the scores (spec/rules/reacted.md, duplicates.md, diversity.md), against byScore
     * (its order by the scores alone in turns, expected_steps.tsv): the documents liked, disliked or opened take no
     * topic's turn and are left out, or follow the others and come before what the scores put last (a feed's
     * default; the order Python's Ranker gives), and are kept for a search; with a German telling of
     * space-en-1 added, the fold (the default): each duplicate after every kept document that is not last, marked
     * with a kept document ranked above it, the kept documents in their order by the scores.
     */
    static void afterTheScores(Ranker ranker, List<Ranker.Document> docs, double now, List<String> byScore,
            List<String> pythonSunk) {
        java.util.Set<String> reacted = ranker.interests.reacted();
        check(!reacted.isEmpty(), "the steps' user reacted to some documents");
        Map<String, Ranker.Document> byId = new HashMap<>();
        for (Ranker.Document d : docs) {
            byId.put(d.id, d);
        }
        // the scores' order (diversity 0) in turns, where a document that sinks takes no topic's turn (group -1)
        List<Ranker.Ranked> plain = ranker.rank(docs, null, now, ranker.personalWeight, Duplicates.KEEP,
                Duplicates.KEEP, 0.0);
        int[] at = new int[plain.size()];
        double[] score = new double[plain.size()];
        int[] group = new int[plain.size()];
        for (int r = 0; r < plain.size(); r++) {
            Ranker.Ranked x = plain.get(r);
            String text = byId.get(x.id).text;
            at[r] = r;
            score[r] = ranker.learnable(text) ? x.personalScore : Double.NEGATIVE_INFINITY;
            group[r] = ranker.learnable(text) && !reacted.contains(text) ? x.interest.positive : -1;
        }
        List<String> turns = new ArrayList<>();
        for (int r : Diversity.diversify(at, score, group, Diversity.WEIGHT)) {
            turns.add(plain.get(r).id);
        }
        check(!turns.equals(byScore), "the reacted documents take no turn: the others' order is not the scores' "
                + "in turns of every document");
        List<String> others = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        List<String> last = new ArrayList<>();  // no word, or unreadable: the interests put them last
        for (String id : turns) {
            String text = byId.get(id).text;
            (!ranker.learnable(text) ? last : reacted.contains(text) ? seen : others).add(id);
        }
        List<String> sunk = new ArrayList<>(others);
        sunk.addAll(seen);
        sunk.addAll(last);
        List<String> left = new ArrayList<>(turns);
        left.removeIf(id -> reacted.contains(byId.get(id).text));
        check(ids(ranker.rank(docs, null, now, Duplicates.KEEP, null)).equals(sunk),
                "a feed sinks the reacted documents by default: " + seen);
        check(sunk.equals(pythonSunk), "the reacted documents sunk, as Python's Ranker sinks them "
                + "(expected_steps_sunk.tsv): " + sunk);
        check(ids(ranker.rank(docs, null, now, Duplicates.KEEP, Duplicates.SINK)).equals(sunk), "reacted 'sink'");
        check(ids(ranker.rank(docs, null, now, Duplicates.KEEP, Duplicates.LEAVE_OUT)).equals(left),
                "reacted 'leave_out' leaves them out");
        check(ids(ranker.rank(docs, "tomato soup", now, Duplicates.KEEP, null)).equals(
                ids(ranker.rank(docs, "tomato soup", now, Duplicates.KEEP, Duplicates.KEEP))),
                "a search keeps the reacted documents by default");
        // diversity (spec/rules/diversity.md): 0 is the scores' order; a search is never re-ranked by it
        boolean byScores = true;
        for (int r = 1; r < plain.size(); r++) {
            byScores &= plain.get(r - 1).score >= plain.get(r).score;
        }
        check(byScores, "diversity 0 ranks a feed in its scores' order");
        check(!ids(plain).equals(byScore), "the default diversity re-ranks the steps' feed");
        check(ids(ranker.rank(docs, "tomato soup", now, ranker.personalWeight, Duplicates.KEEP, Duplicates.KEEP, 5.0))
                .equals(ids(ranker.rank(docs, "tomato soup", now, ranker.personalWeight, Duplicates.KEEP,
                        Duplicates.KEEP, 0.0))), "a search is never re-ranked by diversity");
        List<Ranker.Document> told = new ArrayList<>(docs);
        told.add(new Ranker.Document("space-de-2", "Das neue Teleskop der NASA hat Bilder einer fernen Galaxie "
                + "aufgenommen, in der Sterne entstehen.", null));
        List<Ranker.Ranked> scored = ranker.rank(told, null, now, Duplicates.KEEP, Duplicates.KEEP);
        byId.put("space-de-2", told.get(told.size() - 1));
        List<Ranker.Ranked> folded = ranker.rank(told, null, now, null, Duplicates.KEEP);  // null: "fold"
        List<String> kept = new ArrayList<>();
        boolean tail = false;
        boolean ordered = true;
        String under = null;
        for (int r = 0; r < folded.size(); r++) {
            Ranker.Ranked x = folded.get(r);
            check(x.rank == r + 1 && x.toMap().containsKey("duplicate_of")
                    && java.util.Objects.equals(x.toMap().get("duplicate_of"), x.duplicateOf), "rank and duplicate_of");
            if (x.duplicateOf != null) {
                tail = true;
                check(kept.contains(x.duplicateOf), x.id + " folds under " + x.duplicateOf + ", kept above it");
                under = x.id.equals("space-de-2") ? x.duplicateOf
                        : x.duplicateOf.equals("space-de-2") ? x.id : under;
            } else if (ranker.learnable(byId.get(x.id).text)) {
                ordered &= !tail;  // a kept document after a duplicate: only what the scores put last may be
                kept.add(x.id);
            }
        }
        check(ordered, "the duplicates follow every kept document but the last ones");
        List<String> keptByScore = ids(scored);
        keptByScore.retainAll(kept);
        check(keptByScore.equals(kept), "the kept documents in their order by the scores");
        check(under != null && under.startsWith("space-"), "the German telling of space-en-1 and a space story fold "
                + "together: " + under);
        check(ids(scored).size() == folded.size() && scored.stream().allMatch(x -> x.duplicateOf == null),
                "duplicates 'keep' folds nothing");
    }

    /**
     * A weight whose products overflow (spec/cases/diversity/a-huge-weight-takes-strict-turns.json): each document
     * placed once, a lowered score clamped to the lowest finite number, and one without a finite score (the models
     * cannot read it) after the scored ones, not lifted above the lowered ones; through the Ranker, a feed with an
     * emoji-only document at diversity 1e308 lists every document once, the emoji one last (as Python's
     * test_a_huge_diversity_takes_strict_turns_and_never_repeats_or_lifts_an_unread_document).
     */
    static void hugeDiversity(Path golden, Encoder semantic, Encoder relevance) throws Exception {
        int[] got = Diversity.diversify(new int[] {0, 1, 2, 3, 4},
                new double[] {0.9, Double.NEGATIVE_INFINITY, 0.8, 0.7, 0.6}, new int[] {0, -1, 0, 1, 1}, 1e308, 30);
        check(Arrays.equals(got, new int[] {0, 3, 2, 4, 1}), "diversify at 1e308 with an unscored document: "
                + Arrays.toString(got) + ", as Python's [0, 3, 2, 4, 1]");
        got = Diversity.diversify(new int[] {4, 1, 0, 2, 3, 5},
                new double[] {0.9, Double.NaN, 0.8, Double.NEGATIVE_INFINITY, 0.7, 0.1}, new int[] {0, 0, 0, 1, 0, 2},
                0.0, 4);
        check(Arrays.equals(got, new int[] {4, 0, 2, 1, 3, 5}), "at weight 0 the unscored documents of the window "
                + "follow the scored ones, in their order: " + Arrays.toString(got));
        double now = Double.parseDouble(settings(golden.resolve("scenario.tsv")).get("now"));
        Ranker ranker = new Ranker(semantic, relevance, new Interests(new Interests.Config()));
        List<Ranker.Document> feed = new ArrayList<>();
        for (String[] d : rows(golden.resolve("documents.tsv"))) {
            String text = b64(d[3]);
            if (ranker.learnable(text)) {
                feed.add(new Ranker.Document(d[0], text, null));
            }
        }
        feed.add(new Ranker.Document("emoji", "\uD83C\uDF89\uD83C\uDF89", null));
        ranker.feedback(feed.get(0).text, true, now - 60);
        List<String> ids = ids(ranker.rank(feed, null, now, ranker.personalWeight, Duplicates.KEEP, Duplicates.KEEP,
                1e308));
        List<String> want = feed.stream().map(d -> d.id).sorted().collect(Collectors.toList());
        List<String> once = ids.stream().sorted().collect(Collectors.toList());
        check(once.equals(want) && ids.get(ids.size() - 1).equals("emoji"),
                "diversity 1e308: every document once, the emoji-only one last: " + ids);
    }

    /**
     * What an app can get wrong is refused in words, as Python's Ranker refuses it; a small cache ranks as the
     * default one; feedback and ranking from two threads at once neither fail nor corrupt the interests.
     */
    static void rankerGuards(Path golden, Encoder semantic, Encoder relevance) throws Exception {
        List<Ranker.Document> docs = new ArrayList<>();
        for (String[] d : rows(golden.resolve("documents.tsv"))) {
            docs.add(new Ranker.Document(d[0], b64(d[3]), null));
        }
        double now = Double.parseDouble(settings(golden.resolve("scenario.tsv")).get("now"));
        Ranker big = new Ranker(semantic, relevance, new Interests(new Interests.Config()));
        Ranker small = new Ranker(semantic, relevance, new Interests(new Interests.Config()), 4096);
        for (Ranker r : new Ranker[] {big, small}) {
            r.feedback("The football club won the league final.", true, now - 60);
            r.feedback("Parliament passed the new tax law.", false, now - 30);
        }
        for (String query : new String[] {null, "football", "Steuern"}) {
            List<Ranker.Ranked> a = big.rank(docs, query, now);
            List<Ranker.Ranked> b = small.rank(docs, query, now);
            boolean same = a.size() == b.size();
            for (int i = 0; same && i < a.size(); i++) {
                same = a.get(i).id.equals(b.get(i).id) && a.get(i).score == b.get(i).score;
            }
            check(same, "a 4 KB cache ranks as the default one, query " + query);
        }
        Ranker.Document first = docs.get(0);
        List<Ranker.Document> twice = new ArrayList<>(docs);
        twice.add(new Ranker.Document(first.id, "another text", null));
        List<Ranker.Document> holed = new ArrayList<>(docs);
        holed.add(1, null);
        List<Map.Entry<String, Runnable>> wrong = new ArrayList<>();
        wrong.add(Map.entry("appears twice (positions 1 and " + twice.size() + ")", () -> big.rank(twice, null, now)));
        wrong.add(Map.entry("docs[1] is null", () -> big.rank(holed, null, now)));
        wrong.add(Map.entry("docs must be a list", () -> big.rank(null, null, now)));
        wrong.add(Map.entry("a text must be a string, got null", () -> big.feedback(null, true, now)));
        wrong.add(Map.entry("a text must be a string, got null", () -> big.embed(null)));
        wrong.add(Map.entry("a text must be a string, got null", () -> big.learnable(null)));
        wrong.add(Map.entry("RRF k must be a whole number", () -> {
            big.k = 0;
            big.rank(docs, null, now);
        }));
        wrong.add(Map.entry("the personal weight must be a finite number", () -> {
            big.k = 60;
            big.personalWeight = Double.NaN;
            big.rank(docs, null, now);
        }));
        wrong.add(Map.entry("the lexical weight must be a finite number", () -> {
            big.personalWeight = 0.5;
            big.lexicalWeight = -1;
            big.rank(docs, "football", now);
        }));
        wrong.add(Map.entry("duplicates must be one of 'fold', 'keep', got 'merge'",
                () -> big.rank(docs, null, now, "merge", null)));
        wrong.add(Map.entry("reacted must be one of 'sink', 'keep', 'leave_out', got 'hide'",
                () -> big.rank(docs, "football", now, Duplicates.FOLD, "hide")));
        wrong.add(Map.entry("the diversity weight must be a finite number >= 0, got -0.1",
                () -> big.rank(docs, null, now, 0.5, null, null, -0.1)));
        wrong.add(Map.entry("the diversity weight must be a finite number >= 0, got nan",
                () -> big.rank(docs, null, now, 0.5, null, null, Double.NaN)));
        wrong.add(Map.entry("cacheBytes must be 1 or more", () -> new Ranker(semantic, relevance, big.interests, 0)));
        wrong.add(Map.entry("a Ranker needs a semantic Encoder", () -> new Ranker(null, relevance, big.interests)));
        for (Map.Entry<String, Runnable> w : wrong) {
            String said = "";
            try {
                w.getValue().run();
            } catch (IllegalArgumentException e) {
                said = e.getMessage();
            }
            check(said.contains(w.getKey()), "refused: '" + w.getKey() + "', said '" + said + "'");
        }
        big.lexicalWeight = 1.0;
        // a text shown SKIP_AFTER times, never opened nor reacted to, is a skip: a disliked interest of SKIP_WEIGHT
        // (a wordless text is not kept); once opened it is none; undone, its signals go and the interests are stored
        Ranker reader = new Ranker(semantic, relevance, new Interests(new Interests.Config()));
        reader.feedback("The football club won the league final.", true, now - 60);
        String skipped = "Parliament passed the new tax law.";
        int kept = 0;
        for (int i = 0; i < Constants.SKIP_AFTER; i++) {
            kept += reader.shown(List.of(skipped, "\uD83D\uDE80 !!"), now - 50 + i);
        }
        List<Interests.CoI> disliked = reader.interests.current().negatives;
        check(kept == Constants.SKIP_AFTER && disliked.size() == 1 && disliked.get(0).weight == Constants.SKIP_WEIGHT,
                "a text shown " + Constants.SKIP_AFTER + " times and never opened is a skip");
        check(reader.viewed(skipped, 1.0, now - 10) != null && reader.interests.current().negatives.isEmpty(),
                "a text opened is no skip");
        check(reader.undo(skipped) == Constants.SKIP_AFTER + 1 && reader.interests.current() == reader.interests,
                "undo takes a text's signals back");
        // threads rank while others like and dislike, through a cache small enough to evict on every call: each call
        // runs whole, under the Ranker's lock (without it, this failed with ConcurrentModificationException and
        // ArrayIndexOutOfBoundsException in the cache and the interests)
        Ranker shared = new Ranker(semantic, relevance, new Interests(new Interests.Config()), 16_384);
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            threads.add(new Thread(() -> {
                for (int i = 0; i < 100; i++) {
                    if (id % 2 == 0) {
                        shared.rank(docs.subList(0, 6), i % 2 == 0 ? null : "football " + i, now);
                    } else {
                        shared.feedback("football match report number " + id + " " + i, i % 3 != 0, now - i);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.setUncaughtExceptionHandler((t2, e) -> failures.add(e));
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        check(failures.isEmpty(), "rank and feedback from four threads: " + failures);
    }

    static boolean near(Double got, String expected) {
        if (expected.equals("None")) {
            return got == null;
        }
        return got != null && Math.abs(got - Double.parseDouble(expected)) <= 1e-4;
    }

    static int indexOf(List<String[]> docs, String id) {
        for (int i = 0; i < docs.size(); i++) {
            if (docs.get(i)[0].equals(id)) {
                return i;
            }
        }
        return -1;
    }

    /** Encoder.split against Python's split_windows: edges of one window, the windows' capacity, a prefix. */
    static void splits(Path golden) throws Exception {
        for (String[] r : rows(golden.resolve("windows.tsv"))) {
            int[] ids = Arrays.stream(r[3].split(",")).mapToInt(Integer::parseInt).toArray();
            List<String> got = new ArrayList<>();
            for (int[] w : Encoder.split(ids, Integer.parseInt(r[0]), Integer.parseInt(r[1]), Integer.parseInt(r[2]))) {
                got.add(Arrays.stream(w).mapToObj(String::valueOf).collect(Collectors.joining(",")));
            }
            check(String.join(";", got).equals(r[4]), "windows of " + ids.length + " ids (max_length " + r[0]
                    + ", windows " + r[1] + ", prefix " + r[2] + ")\n  expected " + r[4] + "\n  got      " + got);
        }
    }

    /** Interests of one size scoring or taking in a vector of another (an app update) refuse it in words. */
    static void sizes() {
        Interests interests = new Interests(new Interests.Config());
        interests.feedback("a", new float[] {1f, 0f}, true, 0.0);
        for (Runnable r : new Runnable[] {() -> interests.score(new float[][] {{1f, 0f, 0f}}, 0.0),
                () -> interests.feedback("b", new float[] {0f, 1f, 0f}, true, 0.0),
                () -> interests.viewed("b", new float[] {0f, 1f, 0f}, 5.0, 0.0),
                () -> interests.shown("b", new float[] {0f, 1f, 0f}, 0.0)}) {
            try {
                r.run();
                check(false, "a vector of another size than the interests' was taken in");
            } catch (IllegalArgumentException e) {
                check(e.getMessage().contains("a vector of 3 numbers against interests of 2"), e.getMessage());
            }
        }
    }

    /**
     * A view's seconds go to the closest liked interest; undoing the viewed text (never liked itself) takes them back
     * and leaves another view's seconds where they are (as Python's store).
     */
    static void undoneViews() {
        Interests interests = new Interests(new Interests.Config());
        interests.feedback("liked", new float[] {1f, 0f}, true, 0.0);
        interests.viewed("a text read", new float[] {1f, 0.1f}, 40.0, 1.0);
        interests.viewed("another text read", new float[] {1f, 0.2f}, 25.0, 2.0);
        check(Math.abs(interests.positives.get(0).viewTime - 65.0) <= 1e-9, "two views' seconds on the liked interest");
        check(interests.undo("a text read") == 1 && Math.abs(interests.positives.get(0).viewTime - 25.0) <= 1e-9,
                "undo takes a view's seconds back: " + interests.positives.get(0).viewTime);
        check(interests.undo("another text read") == 1 && interests.positives.get(0).viewTime == 0.0,
                "undo of the other view leaves none: " + interests.positives.get(0).viewTime);
        // a liked and read text undone: its seconds leave its own interest, not a far one's the rebuild leaves
        Interests two = new Interests(new Interests.Config());
        two.feedback("a", new float[] {1f, 0f}, true, 0.0);
        two.viewed("a", new float[] {1f, 0f}, 40.0, 1.0);
        two.feedback("b", new float[] {0f, 1f}, true, 2.0);
        two.viewed("b", new float[] {0f, 1f}, 25.0, 3.0);
        check(two.undo("a") == 2 && two.positives.size() == 1 && Math.abs(two.positives.get(0).viewTime - 25.0) <= 1e-9,
                "undo of a liked and read text leaves the other interest's seconds: " + two.positives.get(0).viewTime);
    }

    /** What Python refuses, refused here too: a NaN or far-future reaction time (a NaN last view left the interest
     * never alive), a NaN 'now', and a vector of another size after one of the right size (a partial cosine). */
    static void timesAndMixedSizes() {
        Interests interests = new Interests(new Interests.Config());
        interests.feedback("a", new float[] {1f, 0f}, true, 0.0);
        double future = System.currentTimeMillis() / 1000.0 + 2 * Constants.DAY;
        for (Runnable r : new Runnable[] {() -> interests.feedback("b", new float[] {0f, 1f}, true, Double.NaN),
                () -> interests.feedback("b", new float[] {0f, 1f}, true, future),
                () -> interests.viewed("b", new float[] {0f, 1f}, 30.0, future),
                () -> interests.shown("b", new float[] {0f, 1f}, Double.NaN),
                () -> interests.score(new float[][] {{1f, 0f}}, Double.NaN),
                () -> interests.score(new float[][] {{1f, 0f}, {1f}}, 0.0)}) {
            try {
                r.run();
                check(false, "a time or vector Python refuses was taken in");
            } catch (IllegalArgumentException e) {
                check(e.getMessage().contains("unix seconds") || e.getMessage().contains("a vector of 1 numbers"),
                        e.getMessage());
            }
        }
        check(interests.active(0.0) && interests.positives.size() == 1, "a refused reaction changed the interests");
    }

    /** What Python's Document refuses, refused here too; and hasWord on the texts Python's has_word is tested on. */
    static void documents() {
        for (Runnable r : new Runnable[] {() -> new Ranker.Document("  ", "x", null),
                () -> new Ranker.Document("\u00a0\u3000", "x", null), () -> new Ranker.Document("a\ud800", "x", null),
                () -> new Ranker.Document("a", "x", 1.7e12), () -> new Ranker.Document("a", "x", Double.NaN)}) {
            try {
                r.run();
                check(false, "a document Python refuses was taken in");
            } catch (IllegalArgumentException e) {
                check(e.getMessage().contains("non-blank") || e.getMessage().contains("milliseconds")
                        || e.getMessage().contains("must be unix seconds")
                        || e.getMessage().contains("not valid Unicode"), e.getMessage());
            }
        }
        // ids as Python's rank takes them: 1 and integers past a long as text, 1.0 and "" refused
        check(Documents.docId(Json.parse("1")).equals("1") && Documents.docId(Json.parse("-7")).equals("-7"), "integer ids");
        check(Documents.docId(Json.parse("123456789012345678901234567890")).equals("123456789012345678901234567890"),
                "an id past a long");
        for (String id : new String[] {"1.0", "1e3", "\"\"", "true", "null"}) {
            try {
                Documents.docId(Json.parse(id));
                check(false, "the id " + id + ", which Python refuses, was taken");
            } catch (IllegalArgumentException e) {
                check(e.getMessage().contains("non-blank string or an integer"), e.getMessage());
            }
        }
        for (String t : new String[] {"", "   ", "...", "\uD83D\uDE80\uD83C\uDF89", "\u0000\n", "\u2026 !!"}) {
            check(!Lexical.hasWord(t), "no word in " + t);
        }
        for (String t : new String[] {"a", "... 7", "\u00e9t\u00e9", "\u4e2d", "\u00bd"}) {
            check(Lexical.hasWord(t), "a word in " + t);
        }
    }

    /** Numbers as Python's json reads them: integers apart from floats, its grammar, NaN and Infinity, 4300 digits. */
    static void json() {
        check(Json.parse("1000000000000000000").equals(1000000000000000000L), "an integer in a long is a Long");
        check(Json.parse("-9223372036854775809").equals(new java.math.BigInteger("-9223372036854775809")), "past a long");
        check(Json.parse("1.0").equals(1.0) && Json.parse("-0.5e1").equals(-5.0), "floats are Double");
        check(Double.isNaN((Double) Json.parse("NaN")) && Json.parse("[Infinity, -Infinity]")
                .equals(List.of(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)), "NaN and Infinity");
        check(Json.parse("9".repeat(4300)) instanceof java.math.BigInteger, "4300 digits");
        check(Json.parse("[1e308, 1e+308, -1E308]").equals(List.of(1e308, 1e308, -1e308)),
                "1e308 (a spec case's weight) is the largest double's neighbour, not Infinity");
        check(Json.parse("[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH)) instanceof List, "nesting allowed");
        // nesting past MAX_DEPTH is refused in words, not by a StackOverflowError an app's catch would miss
        for (String bad : new String[] {"01", "-01", "+1", ".5", "1.", "1.5e", "-", "--1", "1-2", "9".repeat(4301),
                "[".repeat(100_000), "{\"a\":".repeat(Json.MAX_DEPTH + 1)}) {
            try {
                Json.parse(bad);
                check(false, "Python's json refuses " + bad.substring(0, Math.min(bad.length(), 12)));
            } catch (IllegalArgumentException e) {
                check(e.getMessage().startsWith("JSON: "), e.getMessage());
            }
        }
    }

    /**
     * A manifest Python's read_manifest refuses is refused here too, in words (the files it names are the shipped
     * ones, so each refusal is for the field changed): a file outside the folder, max_length out of range or past
     * the position table, a newer schema, prefixes that are not texts, a vocab.txt with an empty or repeated line.
     */
    static void hostileManifests(Path models) throws Exception {
        Path folder = models.resolve("semantic");
        String manifest = Files.readString(folder.resolve("manifest.json"));
        byte[] vocab = Files.readAllBytes(folder.resolve("vocab.txt"));
        String[][] cases = {  // what to replace in manifest.json, with what, and words the refusal must hold
            {"\"onnx\": \"model.onnx\"", "\"onnx\": \"../semantic/model.onnx\"", "not a file inside"},
            {"\"max_length\": 64", "\"max_length\": 600", "past the model's"},
            {"\"max_length\": 64", "\"max_length\": 1000000000", "max_length must be a whole number"},
            {"\"max_length\": 64", "\"max_length\": 64.5", "max_length must be a whole number"},
            {"\"max_length\": 64", "\"max_length\": 64.0", "max_length must be a whole number"},
            {"\"schema_version\": 1", "\"schema_version\": 99", "newer than this core"},
            {"\"prefixes\": {}", "\"prefixes\": [\"query: \"]", "prefixes must map"},
            {"\"prefixes\": {}", "\"prefixes\": {\"document\": \"doc: \"}", "got 'document': doc: "},
            {"\"prefixes\": {}", "\"prefixes\": {\"query\": \"q\\ud800: \"}", "got 'query': q"},
            {"\"tokenizer\": \"tokenizer.json\"", "\"tokenizer\": 5", "tokenizer must be a file name"},
            {"\"name\": \"semantic\"", "\"name\": 5", "name must be a string"},
            {"\"dim\": 128,\n  \"max_length\"", "\"dim\": 64,\n  \"max_length\"", "the manifest says dim=64"},
            {"{", "\uFEFF{", "byte-order mark"},
            {"\"name\"", "\"name\"\"", "manifest.json is not a JSON object: JSON: "},
        };
        for (String[] c : cases) {
            check(manifest.contains(c[0]), "the shipped manifest holds " + c[0]);
            refused(folder, manifest.replace(c[0], c[1]), vocab, c[2]);
        }
        // an empty line in vocab.txt would shift every later id
        String text = new String(vocab, StandardCharsets.UTF_8);
        int cut = text.indexOf('\n', text.length() / 2) + 1;
        byte[] holed = (text.substring(0, cut) + "\n" + text.substring(cut)).getBytes(StandardCharsets.UTF_8);
        refused(folder, listing(manifest, vocab, holed), holed, "is empty");
        // a token twice (the last line repeated in place of the one before it) would give two rows one id
        String[] lines = text.split("\n", -1);
        lines[lines.length - 3] = lines[lines.length - 2];
        byte[] twice = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
        refused(folder, listing(manifest, vocab, twice), twice, "holds a token twice");
        // a vocab.txt of another model (here cut short) would read ids the word table gives other rows
        byte[] shorter = text.substring(0, text.indexOf('\n', text.length() / 2) + 1).getBytes(StandardCharsets.UTF_8);
        refused(folder, listing(manifest, vocab, shorter), shorter, "rows but vocab.txt");
    }

    /**
     * A wide graph (golden/wide) whose map down or map up is renamed away, as a graph with one map only would be, is
     * refused in one line that names the maps it found, never read as a narrow model.
     */
    static void oneMapOnly(Path golden) throws Exception {
        Path folder = golden.resolve("wide");
        String manifest = Files.readString(folder.resolve("manifest.json"));
        byte[] model = Files.readAllBytes(folder.resolve("model.onnx"));
        String[][] cases = {{"/down/", "/dowx/", "found up 32x64, down none"}, {"/up/", "/ux/", "found up none"}};
        for (String[] c : cases) {
            byte[] m = model.clone();
            byte[] from = c[0].getBytes(StandardCharsets.US_ASCII);
            byte[] to = c[1].getBytes(StandardCharsets.US_ASCII);
            int replaced = 0;
            for (int i = 0; i + from.length <= m.length; i++) {  // names of the same length: the protobuf stays whole
                if (Arrays.equals(m, i, i + from.length, from, 0, from.length)) {
                    System.arraycopy(to, 0, m, i, to.length);
                    replaced++;
                }
            }
            check(replaced > 0, "the wide fixture's graph names " + c[0]);
            String listed = manifest.replace(Manifest.sha256(model), Manifest.sha256(m));
            try {
                Encoder.read(name -> name.equals("manifest.json") ? listed.getBytes(StandardCharsets.UTF_8)
                        : name.equals("model.onnx") ? m : Files.readAllBytes(folder.resolve(name)));
                check(false, "a wide graph without " + c[0] + " loaded");
            } catch (IllegalArgumentException e) {
                check(e.getMessage().contains(c[2]), "refusal says '" + c[2] + "': " + e.getMessage());
            }
        }
    }

    /**
     * The model key's hash of each manifest edit in keys.tsv (prefixes, tokenizer file name, max_length) made of the
     * shipped relevance model's listed files, as Python's model_key makes it.
     */
    @SuppressWarnings("unchecked")
    static void keys(Path golden, Path models) throws Exception {
        Map<String, Object> manifest = Json.object(Files.readString(models.resolve("relevance/manifest.json")));
        Map<String, Object> listed = (Map<String, Object>) manifest.get("files");
        for (String[] r : rows(golden.resolve("keys.tsv"))) {
            Map<String, String> prefixes = new LinkedHashMap<>();
            Json.object(b64(r[0])).forEach((role, prefix) -> prefixes.put(role, (String) prefix));
            String got = Manifest.madeBy(listed, (String) manifest.get("onnx"), r[1], (String) manifest.get("vocab"),
                    Integer.parseInt(r[2]), prefixes);
            check(got.equals(r[3]), "model key of prefixes " + b64(r[0]) + ", " + r[1] + ", " + r[2] + ": " + got
                    + " vs " + r[3]);
        }
    }

    /** The manifest listing another vocab.txt by its size and hash, as a tampered folder would. */
    static String listing(String manifest, byte[] vocab, byte[] other) {
        return manifest.replace(Manifest.sha256(vocab), Manifest.sha256(other))
                .replace("\"bytes\": " + vocab.length, "\"bytes\": " + other.length);
    }

    /** The model folder with this manifest and vocab.txt must be refused with an error that holds words. */
    static void refused(Path folder, String manifest, byte[] vocab, String words) throws Exception {
        try {
            Encoder.read(name -> name.equals("manifest.json") ? manifest.getBytes(StandardCharsets.UTF_8)
                    : name.equals("vocab.txt") ? vocab : Files.readAllBytes(folder.resolve(name)));
            check(false, "a model folder that should be refused (" + words + ") loaded");
        } catch (IllegalArgumentException e) {
            check(e.getMessage().contains(words), "refusal says '" + words + "': " + e.getMessage());
        }
    }

    /**
     * A damaged model.onnx (cut short, or bytes changed where the graph and the first tensors lie) is refused with
     * an IllegalArgumentException or IllegalStateException naming what is wrong, never a buffer or arithmetic
     * error from deep in the reader; seeded, so a failure repeats.
     */
    static void damagedModels(Path models) throws Exception {
        byte[] model = Files.readAllBytes(models.resolve("semantic/model.onnx"));
        Random random = new Random(0);
        for (int i = 0; i < 200; i++) {
            byte[] m = i % 2 == 0 ? Arrays.copyOf(model, random.nextInt(model.length)) : model.clone();
            for (int j = 0; i % 2 == 1 && j < 3; j++) {
                m[random.nextInt(Math.min(m.length, 1 << 16))] = (byte) random.nextInt(256);
            }
            try {
                for (OnnxWeights.Tensor t : OnnxWeights.read(m).initializers.values()) {
                    if (t.dataType == OnnxWeights.INT8 || t.dataType == OnnxWeights.UINT8) {
                        t.bytes();
                    } else {
                        t.floats();
                    }
                }
            } catch (IllegalArgumentException | IllegalStateException e) {
                continue;  // refused in words, or read as other numbers (the manifest's sha256 catches those)
            } catch (RuntimeException e) {
                check(false, "damaged model " + i + ": " + e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Path golden = Path.of(args.length > 0 ? args[0] : "golden");
        Path models = Path.of(args.length > 1 ? args[1] : "../edge_ranker/models");
        tokens(golden, models, "semantic");
        tokens(golden, models, "relevance");
        splits(golden);
        sizes();
        undoneViews();
        timesAndMixedSizes();
        documents();
        json();
        erf();
        damagedModels(models);
        hostileManifests(models);
        keys(golden, models);
        Encoder semantic = vectors(golden, models, "semantic");
        Encoder relevance = vectors(golden, models, "relevance");
        vectors(golden, golden, "wide");  // a layer wider than its vectors: spec/tools/wide.py
        oneMapOnly(golden);
        System.out.println(forwardChecks + " forward-pass checks (every golden text and role, within " + VECTOR_TOL
                + " per coordinate)");
        unknownShares(golden, semantic, "semantic");
        unknownShares(golden, relevance, "relevance");
        ranking(golden);
        rankingFromTexts(golden, semantic, relevance);
        rankerGuards(golden, semantic, relevance);
        hugeDiversity(golden, semantic, relevance);
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
