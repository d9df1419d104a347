package ai.edgeranker.core;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The JVM core against spec/ (as web/test/spec.test.js and tests/test_spec.py run it): every conformance case of
 * spec/cases/RULE/CASE.json (generated from the Python reference by spec/tools/cases.py), its function run by the
 * core's own implementation and compared within the case's tolerance, or its refusal's words compared exactly with
 * the IllegalArgumentException's message; then Constants.java against spec/constants.json, and the values the classes
 * rank with (Fusion.SINK, Diversity.WEIGHT, the Interests.Config defaults, a new Ranker's weights, the bounds and
 * weights the rules use) against it by name, so that a setting changed in the JVM alone fails naming it. Prints one line per failure
 * ("FAIL rule R, case C: ..." or "FAIL constant NAME: ...") and the totals; exits non-zero on any failure.
 * Usage: SpecTest SPEC_DIR
 */
public final class SpecTest {
    private static int passed;
    private static int failed;
    private static Ranker defaults;

    private SpecTest() {
    }

    // ---- reading a case's input ------------------------------------------------------------------------------------

    static double num(Object v) {
        return ((Number) v).doubleValue();
    }

    static long whole(Object v) {
        if (!(v instanceof Long n)) {
            throw new IllegalStateException("a whole number expected, got " + Json.write(v));
        }
        return n;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object v) {
        return (List<Object>) v;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object v) {
        return (Map<String, Object>) v;
    }

    static double[] doubles(Object v) {
        return list(v).stream().mapToDouble(SpecTest::num).toArray();
    }

    static double[] doublesOrNull(Object v) {
        return v == null ? null : doubles(v);
    }

    static boolean[] bools(Object v) {
        List<Object> l = list(v);
        boolean[] out = new boolean[l.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (Boolean) l.get(i);
        }
        return out;
    }

    static int[] ints(Object v) {
        return list(v).stream().mapToInt(x -> Math.toIntExact(whole(x))).toArray();
    }

    static float[] floats(Object v) {
        List<Object> l = list(v);
        float[] out = new float[l.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) num(l.get(i));
        }
        return out;
    }

    static float[][] matrix(Object v) {
        return list(v).stream().map(SpecTest::floats).toArray(float[][]::new);
    }

    static List<String> strings(Object v) {
        List<String> out = new ArrayList<>();
        for (Object o : list(v)) {
            out.add((String) o);
        }
        return out;
    }

    /** The documents of a bm25 case (each a list of terms) as the bags Lexical reads. */
    static List<Lexical.Bag> feed(Object docs) {
        List<Lexical.Bag> out = new ArrayList<>();
        for (Object d : list(docs)) {
            out.add(Lexical.Bag.of(strings(d)));
        }
        return out;
    }

    /** Documents given as term counts. */
    @SafeVarargs
    static List<Lexical.Bag> bags(Map<String, Integer>... counts) {
        return Stream.of(counts).map(Lexical.Bag::new).toList();
    }

    /** The interests' settings with a case's overrides (snake_case, as Python's CoIConfig names them). */
    static Interests.Config config(Object overrides) {
        Interests.Config cfg = new Interests.Config();
        for (Map.Entry<String, Object> e : (overrides == null ? Map.<String, Object>of() : map(overrides)).entrySet()) {
            double v = num(e.getValue());
            switch (e.getKey()) {
                case "shift_factor" -> cfg.shiftFactor = v;
                case "threshold" -> cfg.threshold = v;
                case "horizon_days" -> cfg.horizonDays = v;
                case "decay_rate_per_day" -> cfg.decayRatePerDay = v;
                case "min_positive_cois" -> cfg.minPositiveCois = (int) whole(e.getValue());
                default -> throw new IllegalStateException("no such setting: " + e.getKey());
            }
        }
        return cfg;
    }

    // ---- the core's results as JSON values -------------------------------------------------------------------------

    static List<Object> json(double[] v) {
        List<Object> out = new ArrayList<>();
        for (double x : v) {
            out.add(x);
        }
        return out;
    }

    static List<Object> json(float[] v) {
        List<Object> out = new ArrayList<>();
        for (float x : v) {
            out.add((double) x);
        }
        return out;
    }

    static List<Object> json(int[] v) {
        List<Object> out = new ArrayList<>();
        for (int x : v) {
            out.add((long) x);
        }
        return out;
    }

    // ---- the case functions of spec/tools/cases.py, as the JVM core computes them -----------------------------------

    /** The interests a sequence of weighted reactions leaves, and each document's personal score under them at now. */
    static Object interests(Map<String, Object> i) {
        Interests.Config cfg = config(i.get("config"));
        List<Signals.Reaction> given = new ArrayList<>();
        for (Object o : list(i.get("reactions"))) {
            Map<String, Object> r = map(o);
            given.add(new Signals.Reaction("d", Signals.LIKE, (Boolean) r.get("positive"), num(r.get("ts")),
                    r.containsKey("weight") ? num(r.get("weight")) : 1.0, Interests.unit(floats(r.get("vector")))));
        }
        Interests built = Interests.replayed(cfg, given);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("positives", sides(built.positives));
        out.put("negatives", sides(built.negatives));
        List<Object> scores = new ArrayList<>();
        for (Interests.PersonalScore s : built.score(matrix(i.get("docs")), num(i.get("now")))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("positive_interest", s.positive < 0 ? null : (long) s.positive);
            m.put("positive_similarity", s.positiveSimilarity);
            m.put("positive_decay", s.positiveDecay);
            m.put("interest_relevance", s.interestRelevance);
            m.put("negative_interest", s.negative < 0 ? null : (long) s.negative);
            m.put("negative_similarity", s.negativeSimilarity);
            m.put("negative_decay", s.negativeDecay);
            m.put("positive_weight", s.positiveWeight);
            m.put("negative_weight", s.negativeWeight);
            m.put("score", s.score);
            scores.add(m);
        }
        out.put("scores", scores);
        return out;
    }

    static List<Object> sides(List<Interests.CoI> cois) {
        List<Object> out = new ArrayList<>();
        for (Interests.CoI c : cois) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("point", json(c.point));
            m.put("view_count", (long) c.viewCount);
            m.put("last_view", c.lastView);
            m.put("weight", c.weight);
            out.add(m);
        }
        return out;
    }

    /** The weighted reactions a reader's events make (Signals.reactions). */
    static Object implicit(Map<String, Object> i) {
        List<Signals.Event> events = new ArrayList<>();
        for (Object o : list(i.get("events"))) {
            Map<String, Object> e = map(o);
            events.add(new Signals.Event((String) e.get("doc_id"), (String) e.get("kind"), num(e.get("ts")),
                    floats(e.get("vector")), e.containsKey("seconds") ? num(e.get("seconds")) : 0.0));
        }
        List<Object> out = new ArrayList<>();
        for (Signals.Reaction r : Signals.reactions(events, num(i.get("threshold")))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("doc_id", r.doc);
            m.put("kind", r.kind);
            m.put("positive", r.positive);
            m.put("ts", r.ts);
            m.put("weight", r.weight);
            m.put("vector", json(r.vector));
            out.add(m);
        }
        return out;
    }

    static Object interestVectors(Map<String, Object> i) {
        float[][] semantic = matrix(i.get("semantic"));
        float[][] passages = matrix(i.get("passages"));
        List<Object> out = new ArrayList<>();
        for (int r = 0; r < semantic.length; r++) {
            out.add(json(Ranker.concat(semantic[r], passages[r])));
        }
        return out;
    }

    static Object recency(Map<String, Object> i) {
        Double[] published = list(i.get("published")).stream().map(p -> p == null ? null : num(p))
                .toArray(Double[]::new);
        return json(Fusion.recency(published, bools(i.get("wordless")), (int) whole(i.get("k"))));
    }

    static Object splitWindows(Map<String, Object> i) {
        int[] ids = list(i.get("ids")).stream().mapToInt(x -> (int) whole(x)).toArray();
        List<Object> out = new ArrayList<>();
        for (int[] w : Encoder.split(ids, (int) whole(i.get("max_length")), (int) whole(i.get("windows")),
                (int) whole(i.get("head")))) {
            out.add(json(w));
        }
        return out;
    }

    /** The duplicates' fold of an order (Duplicates.fold): the new order and each document's kept document. */
    static Object fold(Map<String, Object> i) {
        Duplicates.Fold f = Duplicates.fold(ints(i.get("order")), matrix(i.get("vectors")), num(i.get("threshold")),
                (int) num(i.get("window")));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("order", json(f.order));
        out.put("duplicate_of", json(f.duplicateOf));
        return out;
    }

    /** A call the core refuses; its words are the case's expectation. */
    static Object check(Map<String, Object> i) {
        switch ((String) i.get("call")) {
            case "view_time" -> Signals.checkViewTime(num(i.get("seconds")));
            case "documents" -> {  // each document as the command line reads a feed line's, then the list's ids
                List<Ranker.Document> docs = new ArrayList<>();
                for (Object o : list(i.get("docs"))) {
                    Map<String, Object> d = map(o);
                    docs.add(new Ranker.Document(Documents.docId(d.get("id")), (String) d.get("text"),
                            Main.published(d.get("published"))));
                }
                Documents.checkList(docs);
            }
            case "ranker" -> {  // snake_case options over a new Ranker's settings
                long k = defaults.k;
                double personal = defaults.personalWeight;
                double lexical = defaults.lexicalWeight;
                double semanticQuery = defaults.semanticQueryWeight;
                for (Map.Entry<String, Object> o : map(i.get("options")).entrySet()) {
                    switch (o.getKey()) {
                        case "k" -> k = whole(o.getValue());
                        case "personal_weight" -> personal = num(o.getValue());
                        case "lexical_weight" -> lexical = num(o.getValue());
                        case "semantic_query_weight" -> semanticQuery = num(o.getValue());
                        default -> throw new IllegalStateException("no such Ranker option: " + o.getKey());
                    }
                }
                Ranker.checkOptions(k, personal, lexical, semanticQuery);
            }
            default -> throw new IllegalStateException("no such check: " + i.get("call"));
        }
        return null;
    }

    static final Map<String, Function<Map<String, Object>, Object>> FUNCTIONS = Map.ofEntries(
            Map.entry("rrf", i -> json(Fusion.rrf(doubles(i.get("scores")), (int) whole(i.get("k"))))),
            Map.entry("personal_lift", i -> json(Fusion.personalLift(doubles(i.get("personal")),
                    doubles(i.get("matched")), bools(i.get("known")), num(i.get("weight")), doubles(i.get("score"))))),
            Map.entry("query_part", i -> json(Fusion.queryPart(doubles(i.get("score")), doubles(i.get("lift")),
                    bools(i.get("wordless"))))),
            Map.entry("query_scores", i -> json(Fusion.queryScores(doubles(i.get("cosine")),
                    doublesOrNull(i.get("lexical")), num(i.get("weight")), doublesOrNull(i.get("semantic")),
                    num(i.get("cover")), num(i.get("semantic_weight"))))),
            Map.entry("neutral", i -> json(Fusion.neutral(doubles(i.get("cosine")), bools(i.get("unread")),
                    (Boolean) i.get("blind")))),
            Map.entry("bm25", i -> json(Lexical.bm25(strings(i.get("query")), feed(i.get("docs"))))),
            Map.entry("matched", i -> json(Lexical.matched(strings(i.get("query")), feed(i.get("docs"))))),
            Map.entry("coverage", i -> Lexical.coverage(strings(i.get("query")), feed(i.get("docs")))),
            Map.entry("language", i -> Lexical.Bag.of(strings(i.get("terms"))).lang),
            Map.entry("decay", i -> new Interests(config(i.get("config"))).decay(num(i.get("last_view")),
                    num(i.get("now")))),
            Map.entry("interests", SpecTest::interests),
            Map.entry("implicit", SpecTest::implicit),
            Map.entry("interest_vectors", SpecTest::interestVectors),
            Map.entry("recency", SpecTest::recency),
            Map.entry("split_windows", SpecTest::splitWindows),
            Map.entry("check", SpecTest::check),
            Map.entry("fold", SpecTest::fold),
            Map.entry("diversify", i -> json(Diversity.diversify(ints(i.get("order")), doubles(i.get("score")),
                    ints(i.get("group")), num(i.get("weight")), (int) whole(i.get("window"))))),
            Map.entry("sink", i -> json(Duplicates.sink(ints(i.get("order")), bools(i.get("reacted")),
                    (String) i.get("how"), ints(i.get("folded")), bools(i.get("end"))))));

    // ---- comparing ---------------------------------------------------------------------------------------------

    /** Where got differs from want (numbers within tolerance), or null when it does not. */
    static String differs(Object got, Object want, double tolerance, String where) {
        if (want == null || want instanceof String || want instanceof Boolean) {
            return java.util.Objects.equals(got, want) ? null
                    : where + ": got " + Json.write(got) + ", expected " + Json.write(want);
        }
        if (want instanceof List<?> w) {
            if (!(got instanceof List<?> g) || g.size() != w.size()) {
                return where + ": got " + describe(got) + ", expected a list of " + w.size();
            }
            for (int k = 0; k < w.size(); k++) {
                String d = differs(g.get(k), w.get(k), tolerance, where + "[" + k + "]");
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (want instanceof Map<?, ?> w) {
            if (!(got instanceof Map<?, ?> g) || !new TreeSet<>(g.keySet()).equals(new TreeSet<>(w.keySet()))) {
                return where + ": keys " + (got instanceof Map<?, ?> g ? new TreeSet<>(g.keySet()) : describe(got))
                        + ", expected " + new TreeSet<>(w.keySet());
            }
            for (Object key : w.keySet()) {
                String d = differs(g.get(key), w.get(key), tolerance, where + "." + key);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (!(got instanceof Number g)) {
            return where + ": got " + describe(got) + ", expected " + want;
        }
        double diff = Math.abs(g.doubleValue() - num(want));
        return diff <= tolerance ? null
                : where + ": got " + got + ", expected " + want + " (tolerance " + tolerance + ")";
    }

    static String describe(Object v) {
        return v == null ? "null" : v instanceof List<?> l ? "a list of " + l.size() : Json.write(v);
    }

    // ---- the run ----------------------------------------------------------------------------------------------

    static void fail(String what) {
        failed++;
        System.out.println("FAIL " + what);
    }

    /** One case: its function's result within tolerance, or its refusal in the case's words. */
    static void runCase(Path file, String rule, String name) throws Exception {
        String at = "rule " + rule + ", case " + name;
        Map<String, Object> c = Json.object(Files.readString(file, StandardCharsets.UTF_8));
        Function<Map<String, Object>, Object> run = FUNCTIONS.get((String) c.get("function"));
        if (run == null) {
            fail(at + ": the JVM core has no runner for the function " + c.get("function"));
            return;
        }
        Map<String, Object> input = map(c.get("input"));
        if (c.containsKey("error")) {
            String said;
            try {
                run.apply(input);
                said = "nothing refused";
            } catch (IllegalArgumentException e) {
                said = e.getMessage();
            } catch (RuntimeException e) {
                said = e.toString();
            }
            if (said.equals(c.get("error"))) {
                passed++;
            } else {
                fail(at + ": refused with \"" + said + "\", the spec's words are \"" + c.get("error") + "\"");
            }
            return;
        }
        Object got;
        try {
            got = run.apply(input);
        } catch (RuntimeException e) {
            fail(at + ": " + e);
            return;
        }
        String d = differs(got, c.get("expected"), num(c.get("tolerance")), "expected");
        if (d == null) {
            passed++;
        } else {
            fail(at + ": " + d);
        }
    }

    static void cases(Path spec) throws Exception {
        Path root = spec.resolve("cases");
        List<Path> rules;
        try (Stream<Path> s = Files.list(root)) {
            rules = s.filter(Files::isDirectory).sorted().toList();
        }
        int count = 0;
        for (Path rule : rules) {
            List<Path> files;
            try (Stream<Path> s = Files.list(rule)) {
                files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            }
            for (Path f : files) {
                String name = f.getFileName().toString();
                runCase(f, rule.getFileName().toString(), name.substring(0, name.length() - ".json".length()));
                count++;
            }
        }
        if (count < 20 || rules.size() < 6) {
            fail("spec/cases holds " + count + " cases in " + rules.size() + " rules: at least 20 in 6 expected");
        }
    }

    // ---- the constants ----------------------------------------------------------------------------------------

    /** The value the core ranks with for a constant of spec/constants.json, by its name. */
    static void same(String name, String where, double got, Map<String, Double> spec) {
        if (got == spec.get(name)) {
            passed++;
        } else {
            fail("constant " + name + ": " + where + " is " + got + ", spec/constants.json " + spec.get(name));
        }
    }

    /** A behaviour of the core that follows from the spec's value of a constant. */
    static void holds(String name, String what, boolean ok) {
        if (ok) {
            passed++;
        } else {
            fail("constant " + name + ": " + what);
        }
    }

    static boolean refused(Runnable r, String words) {
        try {
            r.run();
            return false;
        } catch (IllegalArgumentException e) {
            return e.getMessage().contains(words);
        }
    }

    /** Whether the wide fixture's model folder, its manifest's field set to value, is refused with words. */
    static boolean manifestRefused(Path wide, String field, long value, String words) throws Exception {
        Map<String, Object> manifest = Json.object(Files.readString(wide.resolve("manifest.json")));
        manifest.put(field, value);
        byte[] edited = Json.write(manifest).getBytes(StandardCharsets.UTF_8);
        try {
            Encoder.read(f -> f.equals("manifest.json") ? edited : Files.readAllBytes(wide.resolve(f)));
            return false;
        } catch (IllegalArgumentException e) {
            return e.getMessage().contains(words);
        }
    }

    /**
     * The second place Diversity.diversify(order, score, group, 1.0) gives of window + 1 documents of equal scores,
     * all of interest 0 but the one at other, of interest 1.
     */
    static int diversifiedSecond(int window, int other) {
        int[] order = new int[window + 1];
        double[] score = new double[window + 1];
        int[] group = new int[window + 1];
        for (int k = 0; k <= window; k++) {
            order[k] = k;
            score[k] = 1.0;
            group[k] = k == other ? 1 : 0;
        }
        return Diversity.diversify(order, score, group, 1.0)[1];
    }

    static void constants(Path spec) throws Exception {
        Map<String, Double> values = new LinkedHashMap<>();
        Json.object(Files.readString(spec.resolve("constants.json"))).forEach((name, entry) ->
                values.put(name, num(map(entry).get("value"))));
        // Constants.java is spec/constants.json's, name for name (python -m spec.tools.constants writes it)
        TreeSet<String> generated = new TreeSet<>();
        for (Field f : Constants.class.getDeclaredFields()) {
            if (Modifier.isPublic(f.getModifiers()) && Modifier.isStatic(f.getModifiers())) {
                generated.add(f.getName());
                if (!values.containsKey(f.getName())) {
                    fail("constant " + f.getName() + ": in Constants.java, not in spec/constants.json");
                } else {
                    same(f.getName(), "Constants." + f.getName(), ((Number) f.get(null)).doubleValue(), values);
                }
            }
        }
        for (String name : values.keySet()) {
            if (!generated.contains(name)) {
                fail("constant " + name + ": in spec/constants.json, not in Constants.java (run python -m "
                        + "spec.tools.constants)");
            }
        }
        // the values the classes rank with
        same("SINK", "Fusion.SINK", Fusion.SINK, values);
        Interests.Config cfg = new Interests.Config();
        same("SHIFT_FACTOR", "Interests.Config().shiftFactor", cfg.shiftFactor, values);
        same("THRESHOLD", "Interests.Config().threshold", cfg.threshold, values);
        same("HORIZON_DAYS", "Interests.Config().horizonDays", cfg.horizonDays, values);
        same("DECAY_RATE_PER_DAY", "Interests.Config().decayRatePerDay", cfg.decayRatePerDay, values);
        same("MIN_POSITIVE_COIS", "Interests.Config().minPositiveCois", cfg.minPositiveCois, values);
        same("PERSONAL_WEIGHT", "a new Ranker's personalWeight", defaults.personalWeight, values);
        same("LEXICAL_WEIGHT", "a new Ranker's lexicalWeight", defaults.lexicalWeight, values);
        same("SEMANTIC_QUERY_WEIGHT", "a new Ranker's semanticQueryWeight", defaults.semanticQueryWeight, values);
        same("RRF_K", "a new Ranker's k", defaults.k, values);
        same("DIVERSITY", "Diversity.WEIGHT (Ranker.rank's default diversity)", Diversity.WEIGHT, values);
        // and the bounds and weights the rules use, by what the classes do with them
        double limit = values.get("UNKNOWN_LIMIT");
        holds("UNKNOWN_LIMIT", "Readable reads a text of " + limit + " unknown words and not one of more",
                Readable.readable(limit) && !Readable.readable(Math.nextUp(limit)));
        double maxView = values.get("MAX_VIEW_S");
        holds("MAX_VIEW_S", "a view of " + maxView + " s is taken and a longer one refused",
                Signals.checkViewTime(maxView) == maxView && refused(() -> Signals.checkViewTime(Math.nextUp(maxView)),
                        "view time must be from 0 to " + Documents.number(maxView) + " seconds"));
        double last = values.get("LAST_SECOND");
        holds("LAST_SECOND", "a document published at " + Documents.number(last) + " is taken and one a second later "
                + "refused", new Ranker.Document("a", "x", last).published == last
                && refused(() -> new Ranker.Document("a", "x", last + 1), "lies after the year 9999"));
        double s = values.get("DECAY_RATE_PER_DAY");
        double h = values.get("HORIZON_DAYS");
        double day = values.get("DAY");
        double oneDay = (Math.exp(s * h) - Math.exp(s)) / (Math.exp(s * h) - 1);
        holds("DAY", "an interest a day old decays by " + oneDay,
                Math.abs(new Interests(cfg).decay(0, day) - oneDay) <= 1e-12);
        double k1 = values.get("K1");
        double b = values.get("B");
        // one term once in one of two documents of one term each: len / avg = 1, so B plays no part
        double idf = Math.log1p(1.5 / 1.5);
        double[] even = Lexical.bm25(List.of("x"), bags(Map.of("x", 1), Map.of("y", 1)));
        holds("K1", "BM25 of a term found once is idf * (K1 + 1) / (1 + K1)", Math.abs(even[0] - idf) <= 1e-12
                && Math.abs(Lexical.bm25(List.of("x"), bags(Map.of("x", 2), Map.of("y", 2)))[0]
                - idf * 2 * (k1 + 1) / (2 + k1)) <= 1e-12);
        // one document twice the mean length: B weighs it
        double[] uneven = Lexical.bm25(List.of("x"), bags(Map.of("x", 1, "z", 2), Map.of("y", 1)));
        holds("B", "BM25 of a term in a document 1.5 times the mean length",
                Math.abs(uneven[0] - idf * (k1 + 1) / (1 + k1 * (1 - b + b * 1.5))) <= 1e-12);
        double share = values.get("SEMANTIC_SHARE");
        float[] both = Ranker.concat(new float[] {1f}, new float[] {1f});
        holds("SEMANTIC_SHARE", "an interest vector is sqrt(SEMANTIC_SHARE) and sqrt(1 - SEMANTIC_SHARE) of its parts",
                both[0] == (float) Math.sqrt(share) && both[1] == (float) Math.sqrt(1 - share));
        double readMin = values.get("READ_MIN_S");
        double readFull = values.get("READ_FULL_S");
        double readWeight = values.get("READ_WEIGHT");
        holds("READ_MIN_S", "a read of " + readMin + " s counts and a shorter one does not",
                Signals.readWeight(readMin) > 0 && Signals.readWeight(Math.nextDown(readMin)) == 0);
        holds("READ_WEIGHT", "a full read weighs " + readWeight, Signals.readWeight(readFull) == readWeight
                && Signals.readWeight(2 * readFull) == readWeight);
        double partly = (readMin + readFull) / 2;
        holds("READ_FULL_S", "a read of " + partly + " s weighs " + partly / readFull + " of a full one",
                Math.abs(Signals.readWeight(partly) - readWeight * partly / readFull) <= 1e-12);
        int skipAfter = (int) (double) values.get("SKIP_AFTER");
        List<Signals.Event> showings = new ArrayList<>();
        for (int n = 1; n <= skipAfter; n++) {
            showings.add(new Signals.Event("d", Signals.SHOWN, n, new float[] {1f, 0f}, 0.0));
        }
        List<Signals.Reaction> skips = Signals.reactions(showings, cfg.threshold);
        List<Signals.Reaction> none = Signals.reactions(showings.subList(0, skipAfter - 1), cfg.threshold);
        holds("SKIP_AFTER", "a text shown " + skipAfter + " times is a skip at its last showing, and one shown once "
                + "less is not", skips.size() == 1 && skips.get(0).ts == skipAfter && none.isEmpty());
        holds("SKIP_WEIGHT", "a skip weighs " + values.get("SKIP_WEIGHT"),
                skips.size() == 1 && skips.get(0).weight == values.get("SKIP_WEIGHT"));
        // two unit vectors whose float cosine is DUPLICATE_COSINE's float fold, and at the next float below do not
        float at = (float) (double) values.get("DUPLICATE_COSINE");
        float below = Math.nextDown(at);
        int[] two = {0, 1};
        holds("DUPLICATE_COSINE", "a document at cosine " + at + " to the one above folds under it, at " + below
                + " not", Duplicates.fold(two, new float[][] {{1f, 0f}, {at, (float) Math.sqrt(1 - at * at)}})
                .duplicateOf[1] == 0 && Duplicates.fold(two, new float[][] {{1f, 0f},
                        {below, (float) Math.sqrt(1 - below * below)}}).duplicateOf[1] == -1);
        int window = (int) (double) values.get("FOLD_WINDOW");
        float[][] same = new float[window + 1][];
        int[] ranked = new int[window + 1];
        for (int k = 0; k <= window; k++) {
            same[k] = new float[] {1f, 0f};
            ranked[k] = k;
        }
        Duplicates.Fold past = Duplicates.fold(ranked, same);
        holds("FOLD_WINDOW", "of " + (window + 1) + " copies of one text, the " + window + "th folds and the next does "
                + "not", past.duplicateOf[window - 1] == 0 && past.duplicateOf[window] == -1);
        // of DIVERSITY_WINDOW + 1 documents of one interest, the last of the window of another takes a turn at the
        // second place, and past the window it does not
        int turns = (int) (double) values.get("DIVERSITY_WINDOW");
        holds("DIVERSITY_WINDOW", "the " + turns + "th document of a feed, of a second interest, takes a turn near "
                + "the top, and the next does not", diversifiedSecond(turns, turns - 1) == turns - 1
                && diversifiedSecond(turns, turns) == 1);
        Path wide = spec.resolve("golden/wide");
        long schema = (long) (double) values.get("MANIFEST_SCHEMA_VERSION");
        holds("MANIFEST_SCHEMA_VERSION", "a manifest of schema " + (schema + 1) + " is refused as newer",
                manifestRefused(wide, "schema_version", schema + 1, "newer than this core reads (" + schema + ")"));
        long minLength = (long) (double) values.get("MAX_LENGTH_MIN");
        long maxLength = (long) (double) values.get("MAX_LENGTH_MAX");
        holds("MAX_LENGTH_MIN", "a manifest's max_length is at least " + minLength,
                manifestRefused(wide, "max_length", -1, "max_length must be a whole number from " + minLength + " "));
        holds("MAX_LENGTH_MAX", "a manifest's max_length is at most " + maxLength,
                manifestRefused(wide, "max_length", -1, " to " + maxLength + ", got -1"));
        holds("MAX_WINDOWS", "a manifest's windows are at most " + (long) (double) values.get("MAX_WINDOWS"),
                manifestRefused(wide, "windows", -1, "windows must be a whole number from 1 to "
                        + (long) (double) values.get("MAX_WINDOWS") + ","));
    }

    public static void main(String[] args) throws Exception {
        Path spec = Path.of(args.length > 0 ? args[0] : "../../spec");
        // a Ranker made with no settings, over the tiny wide fixture: its defaults are the ones checked
        defaults = new Ranker(Encoder.load(spec.resolve("golden/wide")), null, new Interests(new Interests.Config()));
        cases(spec);
        int casesPassed = passed;
        int casesFailed = failed;
        constants(spec);
        System.out.println("SpecTest: " + casesPassed + " cases passed, " + casesFailed + " failed; "
                + (passed - casesPassed) + " constant checks passed, " + (failed - casesFailed) + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
