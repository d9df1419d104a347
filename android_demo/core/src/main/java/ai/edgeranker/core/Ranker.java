package ai.edgeranker.core;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Orders documents by the user's interests and, when given, a query: edge_ranker/runtime/ranker.py. rank() goes in
 * steps: the personal scores (Interests, of interest vectors: the semantic vector, and with a relevance model the
 * passage vector beside it, scaled so that cosines are the two models' weighted by SEMANTIC_SHARE); the query's scores
 * (the relevance cosine, BM25 and, for the query's words the documents lack, the semantic model's cosine:
 * Fusion.queryScores); their fusion (with a query, its score plus the interests' lift, Fusion.personalLift; without
 * one, the interests' order; cold start without either: newest first, then input order); the results. A document
 * without a word goes last in each order (Lexical.hasWord); one the models cannot read (Readable) goes last for the
 * interests, and its cosines to a query are neutral, as are all when the query is such a text. After the scores, a
 * feed's top documents take turns among the reader's liked interests (Diversity; a document reacted to that sinks
 * or is left out takes no turn), then (Duplicates) a document of
 * the same story as one ranked above it follows all the others, marked duplicateOf (duplicates "fold", the
 * default), and the documents the user liked, disliked or opened go after the others or out
 * of the ranking (reacted "sink", a feed's default, or "leave_out"; "keep", a search's default). Document vectors,
 * terms and whether a text has a word or can be read are cached by text (Cache, up to a budget of bytes), so a feed
 * is read once. The interests learn from likes and dislikes (feedback) and from what the user opened, read and
 * scrolled past (viewed, shown: Signals); undo takes a text's reactions and signals back. Its methods are safe to call
 * from several threads: they take turns under the Ranker's lock, so a
 * feedback waits for a rank in progress (on Android, call both off the main thread). Set the public weights before
 * the Ranker is shared.
 */
public final class Ranker {
    public static final class Document {
        public final String id;
        public final String text;
        public final Double published;  // unix seconds, or null

        /**
         * Refuses a blank id, one with a lone surrogate, and a publication time not finite or after
         * Constants.LAST_SECOND (9999-12-31T23:59:59Z: a later one is a unit mistake, milliseconds).
         */
        public Document(String id, String text, Double published) {
            Documents.checkId(id);
            Documents.checkPublished(id, published);
            this.id = id;
            this.text = text == null ? "" : text;
            this.published = published;
        }
    }

    public static final class Ranked {
        public String id;
        public double score;
        public int rank;
        public Double personalScore;
        public Double relevanceScore;
        public Double lexicalScore;
        public Double semanticScore;
        public Double queryScore;
        public final Map<String, Double> contributions = new LinkedHashMap<>();  // they add up to score
        public Interests.PersonalScore interest;
        /** The id of the document of the same story ranked above, when folded (Duplicates); else null. */
        public String duplicateOf;

        /** The fields of `edge-ranker rank`'s lines (interest indices count from 0 in this run). */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("score", score);
            m.put("rank", rank);
            m.put("personal_score", personalScore);
            m.put("relevance_score", relevanceScore);
            m.put("lexical_score", lexicalScore);
            m.put("semantic_score", semanticScore);
            m.put("query_score", queryScore);
            m.put("contributions", contributions);
            Map<String, Object> i = null;
            if (interest != null) {
                i = new LinkedHashMap<>();
                i.put("positive_interest", interest.positive < 0 ? null : interest.positive);
                i.put("positive_similarity", interest.positiveSimilarity);
                i.put("positive_decay", interest.positiveDecay);
                i.put("interest_relevance", interest.interestRelevance);
                i.put("negative_interest", interest.negative < 0 ? null : interest.negative);
                i.put("negative_similarity", interest.negativeSimilarity);
                i.put("negative_decay", interest.negativeDecay);
                i.put("positive_weight", interest.positiveWeight);
                i.put("negative_weight", interest.negativeWeight);
            }
            m.put("interest", i);
            m.put("duplicate_of", duplicateOf);
            return m;
        }
    }

    /**
     * Bytes of vectors and terms kept in memory by default: a phone's heap, not a count of documents, bounds it (a
     * 3,000-character document costs about 25 KB, a sentence about 2 KB).
     */
    public static final long CACHE_BYTES = 32L << 20;
    /**
     * What each model's unit vector is multiplied by in an interest vector, by Constants.SEMANTIC_SHARE (the semantic
     * model's share of an interest's cosine, part of modelKey()): float, as numpy's float32 in Python.
     */
    private static final float SEMANTIC_SCALE = (float) Math.sqrt(Constants.SEMANTIC_SHARE);
    private static final float PASSAGE_SCALE = (float) Math.sqrt(1 - Constants.SEMANTIC_SHARE);
    public final Encoder semantic;
    public final Encoder relevance;  // null: no queries
    public final Interests interests;
    /** Default weights: the spec's (Constants), which SpecTest checks a new Ranker holds. */
    public double personalWeight = Constants.PERSONAL_WEIGHT;
    public double lexicalWeight = Constants.LEXICAL_WEIGHT;
    public double semanticQueryWeight = Constants.SEMANTIC_QUERY_WEIGHT;
    public int k = Constants.RRF_K;
    private final Cache cache;
    /** Whether a text has a word, and can be read: apart, so that they take no room from the vectors. */
    private final Cache flags;

    public Ranker(Encoder semantic, Encoder relevance, Interests interests) {
        this(semantic, relevance, interests, CACHE_BYTES);
    }

    /**
     * The interests are changed through the Ranker, under its lock: an app that reads them itself from another thread
     * takes the same lock ({@code synchronized (ranker)}).
     *
     * @param cacheBytes what the vectors and terms of recently seen texts may hold in memory (an eighth more holds
     *     whether each has a word and can be read)
     */
    public Ranker(Encoder semantic, Encoder relevance, Interests interests, long cacheBytes) {
        if (semantic == null || interests == null) {
            throw new IllegalArgumentException("a Ranker needs a semantic Encoder and Interests (the relevance model "
                    + "may be null)");
        }
        if (cacheBytes < 1) {
            throw new IllegalArgumentException("cacheBytes must be 1 or more, got " + cacheBytes);
        }
        this.semantic = semantic;
        this.relevance = relevance;
        this.interests = interests;
        this.cache = new Cache(cacheBytes);
        this.flags = new Cache(Math.max(1, cacheBytes / 8));
    }

    /**
     * What stored interests were made with (Ranker.model_key): the semantic model's key, and with a
     * relevance model its key and the semantic share. Interests stored under another key must be embedded again.
     */
    public String modelKey() {
        if (relevance == null) {
            return semantic.key;
        }
        String share = BigDecimal.valueOf(Constants.SEMANTIC_SHARE).stripTrailingZeros().toPlainString();
        return semantic.key + "+" + relevance.key + "@" + share;
    }

    /** The semantic vector of a text: what a query in another language is compared with. */
    public synchronized float[] embed(String text) {
        return (float[]) cache.get(Cache.key('s', given(text)), key -> semantic.encode(text, null));
    }

    private float[] passage(String text) {
        return (float[]) cache.get(Cache.key('p', text), key -> relevance.encode(text, "passage"));
    }

    /** What a like or dislike stores and what interests score. */
    public synchronized float[] interestVector(String text) {
        given(text);
        return relevance == null ? embed(text) : concat(embed(text), passage(text));
    }

    /** A text passed in: null is refused in words, not met as a NullPointerException deep inside. */
    private static String given(String text) {
        if (text == null) {
            throw new IllegalArgumentException("a text must be a string, got null");
        }
        return text;
    }

    /** Two unit vectors side by side, scaled: a unit vector whose cosines are theirs weighted by SEMANTIC_SHARE. */
    public static float[] concat(float[] a, float[] b) {
        float[] out = new float[a.length + b.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i] * SEMANTIC_SCALE;
        }
        for (int i = 0; i < b.length; i++) {
            out[a.length + i] = b[i] * PASSAGE_SCALE;
        }
        return out;
    }

    /** A document's terms and language, on what the relevance model reads of it. */
    private Lexical.Bag terms(String text) {
        return (Lexical.Bag) cache.get(Cache.key('t', text), key -> Lexical.Bag.of(Lexical.terms(relevance.cut(text))));
    }

    /**
     * Whether a text can teach an interest, as feedback decides it (it has a word, and the models can read it): an
     * app that replays stored likes into the interests after a model update leaves the others out.
     */
    public synchronized boolean learnable(String text) {
        return hasWord(given(text)) && readable(text);
    }

    /** Whether a text has a word on what the semantic model reads (Lexical.hasWord). */
    private boolean hasWord(String text) {
        return (Boolean) flags.get(Cache.key('w', text), key -> Lexical.hasWord(semantic.cut(text)));
    }

    /** Whether the models can read a text (Readable, by the semantic vocabulary). */
    private boolean readable(String text) {
        return (Boolean) flags.get(Cache.key('r', text), key -> Readable.readable(semantic.unknownShare(text)));
    }

    /**
     * A like (or dislike) of a text at unix time ts; returns the vector the interests took in, which an app stores with
     * the text to feed it back to Interests.feedback at its next start.
     */
    public synchronized float[] feedback(String text, boolean like, double ts) {
        if (!hasWord(given(text))) {  // its vector would pull every document alike
            throw new IllegalArgumentException("no word to learn an interest from (empty, or only punctuation or emoji)");
        }
        if (!readable(text)) {  // nor would the vector of a script the models lack
            long share = Readable.percent(semantic.unknownShare(text));
            throw new IllegalArgumentException("not a text the models can read: " + share + "% of its words are "
                    + "unknown to their vocabulary (a script it lacks, or symbols within words): no interest is "
                    + "learnt from it");
        }
        float[] v = interestVector(text);
        interests.feedback(text, v, like, ts);
        return v;
    }

    /**
     * The user opened a text and read it for seconds (from 0 to Constants.MAX_VIEW_S), at unix time ts: a view, kept
     * with the text, its seconds added to the closest liked interest's view time. A text read long enough and never
     * liked or disliked counts as a like weaker than one (Signals); one opened is never a skip. A text no interest can
     * be learnt from (feedback refuses it) is not kept: returns null; else the vector kept, which an app stores to feed
     * it back to Interests.viewed at its next start.
     */
    public synchronized float[] viewed(String text, double seconds, double ts) {
        Signals.checkViewTime(seconds);  // before the model runs
        if (!learnable(text)) {
            return null;
        }
        float[] v = interestVector(text);
        interests.viewed(text, v, seconds, ts);
        return v;
    }

    /**
     * The app displayed these texts (say, the top of a ranked feed) at unix time ts: each showing is kept, and a text
     * shown Constants.SKIP_AFTER times and never opened nor reacted to counts as a dislike weaker than one, unless it
     * is close to what the user reads (Signals). Texts no interest can be learnt from are not kept. Returns how many
     * showings were kept (an app stores them with interestVector(text) to feed them back to Interests.shown).
     */
    public synchronized int shown(List<String> texts, double ts) {
        if (texts == null) {
            throw new IllegalArgumentException("shown takes a list of texts, got null");
        }
        List<String> kept = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();  // one showing each: a text twice would count as two showings
        for (int i = 0; i < texts.size(); i++) {
            Integer before = seen.putIfAbsent(texts.get(i), i);
            if (before != null) {
                throw new IllegalArgumentException("a text appears twice in one showing (positions " + (before + 1)
                        + " and " + (i + 1) + ")");
            }
        }
        for (String text : texts) {
            if (learnable(text)) {
                kept.add(text);
            }
        }
        for (String text : kept) {
            interests.shown(text, interestVector(text), ts);
        }
        return kept.size();
    }

    /**
     * Undoes every reaction to a text and every signal of it (Interests.undo): the interests are rebuilt as if it had
     * never been liked, disliked, shown or read, and each view's seconds leave the liked interest they went to.
     * Returns how many events went (0: nothing to undo).
     */
    public synchronized int undo(String text) {
        return interests.undo(given(text));
    }

    /** The documents ranked for the query (null: a feed) at unix time now, duplicates folded, reacted by default. */
    public synchronized List<Ranked> rank(List<Document> docs, String query, double now) {
        return rank(docs, query, now, personalWeight);
    }

    /** As rank(docs, query, now), the interests moving this query's results by weight (0: the query alone). */
    public synchronized List<Ranked> rank(List<Document> docs, String query, double now, double weight) {
        return rank(docs, query, now, weight, Duplicates.FOLD, null);
    }

    /** As rank(docs, query, now), with what becomes of duplicates and of reacted documents (as the next one). */
    public synchronized List<Ranked> rank(List<Document> docs, String query, double now, String duplicates,
            String reacted) {
        return rank(docs, query, now, personalWeight, duplicates, reacted);
    }

    /**
     * As rank(docs, query, now, weight). duplicates: "fold" (the default; null too) puts a document of the same story
     * as one ranked above it (its semantic cosine reaches Constants.DUPLICATE_COSINE: the story in another language or
     * other words) after all the others, marked duplicateOf the id kept in place; "keep" ranks it by its score.
     * reacted: what becomes of the documents the user liked, disliked or opened (their texts, Interests.reacted):
     * "sink" after the others, "leave_out" out of the ranking, "keep" where their scores put them; null: "sink" for a
     * feed and "keep" for a search (spec/rules/duplicates.md, reacted.md). Refused in Python's words otherwise.
     * A feed's top Constants.DIVERSITY_WINDOW take turns among the interests by Diversity.WEIGHT (as the next one).
     */
    public synchronized List<Ranked> rank(List<Document> docs, String query, double now, double weight,
            String duplicates, String reacted) {
        return rank(docs, query, now, weight, duplicates, reacted, Diversity.WEIGHT);
    }

    /**
     * As rank(docs, query, now, weight, duplicates, reacted). diversity: in a feed (no query) ranked by the
     * interests, how much each document above it closest to the same liked interest lowers a document's personal
     * score as the top Constants.DIVERSITY_WINDOW are placed again, so that a reader of several topics sees each near
     * the top (Diversity; default Diversity.WEIGHT, Constants.DIVERSITY; 0: the scores' order; a search is never
     * re-ranked by it; spec/rules/diversity.md). Refused in Python's words unless a finite number >= 0.
     */
    public synchronized List<Ranked> rank(List<Document> docs, String query, double now, double weight,
            String duplicates, String reacted, double diversity) {
        checkDiversity(diversity);
        String fold = duplicates == null ? Duplicates.FOLD : duplicates;
        Duplicates.check("duplicates", Duplicates.FOLDS, fold);
        if (reacted != null) {
            Duplicates.check("reacted", Duplicates.REACTED, reacted);
        }
        checkRank(docs, now, weight);
        if (docs.isEmpty()) {
            return new ArrayList<>();
        }
        int n = docs.size();
        String q = queryText(query);
        boolean usePersonal = interests.active(now);
        boolean folding = fold.equals(Duplicates.FOLD) && n > 1;
        Flags flags = flags(docs, usePersonal || !q.isEmpty() || folding);
        Interests.PersonalScore[] personal = usePersonal ? personal(docs, now) : null;
        Search search = q.isEmpty() ? new Search() : search(q, docs, flags.unread);
        Fused fused = fuse(docs, personal, search, flags, weight);
        int[] order = Arrays.stream(Fusion.order(fused.total)).mapToInt(Integer::intValue).toArray();
        String how = reacted != null ? reacted : search.score != null ? Duplicates.KEEP : Duplicates.SINK;
        Set<String> seen = how.equals(Duplicates.KEEP) ? Set.of() : interests.reacted();
        boolean[] mask = null;  // the documents sunk or left out as already reacted to (null: none)
        if (!seen.isEmpty()) {
            mask = new boolean[n];
            for (int i = 0; i < n; i++) {
                mask[i] = seen.contains(docs.get(i).text);
            }
        }
        if (diversity > 0 && personal != null && search.score == null) {  // a feed: its interests' topics take turns
            double[] score = new double[n];
            int[] group = new int[n];
            for (int i = 0; i < n; i++) {
                boolean taking = flags.known[i] && (mask == null || !mask[i]);  // one that sinks takes no turn
                score[i] = flags.known[i] ? personal[i].score : Double.NEGATIVE_INFINITY;
                group[i] = taking ? personal[i].positive : -1;
            }
            order = Diversity.diversify(order, score, group, diversity);
        }
        int[] folded = null;
        if (folding) {  // only documents the models read: an unread text's vector sits close to many by chance
            float[][] vectors = new float[n][];
            for (int i = 0; i < n; i++) {
                vectors[i] = flags.known[i] ? embed(docs.get(i).text) : null;
            }
            Duplicates.Fold f = Duplicates.fold(order, vectors);
            order = f.order;
            folded = f.duplicateOf;
        }
        // what the scores put last stays last: no word, and for the interests (a feed), unreadable; a query's BM25
        // still ranks an unreadable document by its words
        boolean[] end = new boolean[n];
        for (int i = 0; i < n; i++) {
            end[i] = flags.wordless[i] || personal != null && search.score == null && flags.unread[i];
        }
        if (folding) {
            order = Duplicates.last(order, end);
        }
        if (mask != null) {
            int[] none = new int[n];
            Arrays.fill(none, -1);
            order = Duplicates.sink(order, mask, how, folded != null ? folded : none, end);
        }
        return results(docs, order, fused, personal, search, folded);
    }

    /** Which documents go last: those without a word, and those the models cannot read (when reading matters). */
    private static final class Flags {
        final boolean[] wordless;
        final boolean[] unread;
        /** Without a word or unread: the interests cannot judge them. */
        final boolean[] unknown;
        final boolean[] known;

        Flags(int n) {
            wordless = new boolean[n];
            unread = new boolean[n];
            unknown = new boolean[n];
            known = new boolean[n];
        }
    }

    /**
     * What a query gave rank(); all null without one (ranker.py's Search). score is null too for a query the models
     * cannot read whose words no document has: it says nothing, and the feed is ordered as without it.
     */
    private static final class Search {
        double[] relevance;
        double[] lexical;
        double[] semantic;
        double[] score;
        List<String> words;
        List<Lexical.Bag> feed;
    }

    /** Each document's score and the parts it adds up from (Ranked.contributions), in the order they were added. */
    private static final class Fused {
        final double[] total;
        final List<Map<String, Double>> parts = new ArrayList<>();

        Fused(int n) {
            total = new double[n];
            for (int i = 0; i < n; i++) {
                parts.add(new LinkedHashMap<>());
            }
        }

        /** One part of every document's score. */
        void add(String name, double[] part) {
            for (int i = 0; i < total.length; i++) {
                total[i] += part[i];
                parts.get(i).put(name, part[i]);
            }
        }
    }

    /** The arguments and settings of a ranking, refused in words where they would scramble or break it. */
    private void checkRank(List<Document> docs, double now, double weight) {
        checkWeight("personal", weight);
        if (!Double.isFinite(now)) {  // it would rank every feed cold
            throw new IllegalArgumentException("'now' must be finite unix seconds, got " + now);
        }
        checkOptions(k, personalWeight, lexicalWeight, semanticQueryWeight);
        Documents.checkList(docs);
    }

    /** The query as ranked: stripped, and empty when it holds no word (only punctuation or emoji) to match. */
    private String queryText(String query) {
        String q = Documents.strip(query == null ? "" : query);
        if (!q.isEmpty() && !hasWord(q)) {
            return "";
        }
        if (!q.isEmpty() && relevance == null) {
            throw new IllegalArgumentException("a query needs a relevance model");
        }
        return q;
    }

    /** Each document's flags; readability is asked only where the interests or a query read the vectors. */
    private Flags flags(List<Document> docs, boolean reading) {
        Flags f = new Flags(docs.size());
        for (int i = 0; i < docs.size(); i++) {
            f.wordless[i] = !hasWord(docs.get(i).text);
            f.unread[i] = reading && !readable(docs.get(i).text);
            f.unknown[i] = f.wordless[i] || f.unread[i];
            f.known[i] = !f.unknown[i];
        }
        return f;
    }

    /** The interests' score of each document's interest vector. */
    private Interests.PersonalScore[] personal(List<Document> docs, double now) {
        float[][] vectors = new float[docs.size()][];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = interestVector(docs.get(i).text);
        }
        return interests.score(vectors, now);
    }

    /** What the query says of each document: its cosines, BM25 and the query score they make. */
    private Search search(String q, List<Document> docs, boolean[] unread) {
        Search s = new Search();
        s.relevance = cosines(relevance.encode(q, "query"), docs, this::passage);
        s.words = Lexical.terms(relevance.cut(q));
        s.feed = new ArrayList<>();
        for (Document d : docs) {
            s.feed.add(terms(d.text));
        }
        double cover = Lexical.coverage(s.words, s.feed);
        if (lexicalWeight != 0) {
            s.lexical = Lexical.bm25(s.words, s.feed);
        }
        if (semanticQueryWeight != 0 && cover < 1.0) {
            s.semantic = cosines(semantic.encode(q, null), docs, this::embed);
        }
        boolean blind = !readable(q);
        double[] score = Fusion.queryScores(Fusion.neutral(s.relevance, unread, blind), s.lexical, lexicalWeight,
                s.semantic == null ? null : Fusion.neutral(s.semantic, unread, blind), cover, semanticQueryWeight);
        if (!(blind && Fusion.constant(score))) {  // a query the models cannot read and no document has its words
            s.score = score;
        }
        return s;
    }

    /** The cosine of a query's vector with each document's (a unit vector by text, from vectorOf). */
    private static double[] cosines(float[] query, List<Document> docs, Function<String, float[]> vectorOf) {
        double[] out = new double[docs.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = Interests.dot(vectorOf.apply(docs.get(i).text), query);
        }
        return out;
    }

    /** The parts of each score: the query's and the interests' lift on it; else the interests' order; else recency. */
    private Fused fuse(List<Document> docs, Interests.PersonalScore[] personal, Search search, Flags flags,
            double weight) {
        double[] personalScores = personal == null ? null : scores(personal);
        Fused fused = new Fused(docs.size());
        if (search.score != null) {
            searched(fused, personalScores, search, flags, weight);
        } else if (personalScores != null) {  // a feed: the interests' order
            fused.add("personal", Fusion.rrf(Fusion.wordlessLast(personalScores, flags.unknown), k));
        } else {
            Double[] published = new Double[docs.size()];
            for (int i = 0; i < published.length; i++) {
                published[i] = docs.get(i).published;
            }
            fused.add("recency", Fusion.recency(published, flags.wordless, k));
        }
        return fused;
    }

    /** The query's part of each score and, with interests, their lift (known leaves out the wordless: no lift). */
    private static void searched(Fused fused, double[] personal, Search search, Flags flags, double weight) {
        int n = fused.total.length;
        double[] lift = personal == null ? new double[n]
                : Fusion.personalLift(personal, Lexical.matched(search.words, search.feed), flags.known, weight,
                        search.score);
        double[] part = Fusion.queryPart(search.score, lift, flags.wordless);
        for (int i = 0; i < n; i++) {
            fused.parts.get(i).put("query", part[i]);
            if (personal != null) {
                fused.parts.get(i).put("personal", lift[i]);
            }
            fused.total[i] = part[i] + lift[i];
        }
    }

    private static double[] scores(Interests.PersonalScore[] personal) {
        double[] out = new double[personal.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = personal[i].score;
        }
        return out;
    }

    /** The documents in order (best first), each with its score, its parts, what made them and its fold. */
    private static List<Ranked> results(List<Document> docs, int[] order, Fused fused,
            Interests.PersonalScore[] personal, Search search, int[] folded) {
        List<Ranked> out = new ArrayList<>();
        for (int r = 0; r < order.length; r++) {
            int i = order[r];
            Ranked x = new Ranked();
            x.id = docs.get(i).id;
            x.score = fused.total[i];
            x.rank = r + 1;
            x.personalScore = personal == null ? null : personal[i].score;
            x.relevanceScore = search.relevance == null ? null : search.relevance[i];
            x.lexicalScore = search.lexical == null ? null : search.lexical[i];
            x.semanticScore = search.semantic == null ? null : search.semantic[i];
            x.queryScore = search.score == null ? null : search.score[i];
            x.contributions.putAll(fused.parts.get(i));
            x.interest = personal == null ? null : personal[i];
            x.duplicateOf = folded == null || folded[i] < 0 ? null : docs.get(folded[i]).id;
            out.add(x);
        }
        return out;
    }

    /**
     * The Ranker's settings (its public fields, checked at each rank), refused in the words of spec/cases/checks
     * unless each is in range: k a whole number from 1 to 10**9, each weight a finite number >= 0 (a NaN or a
     * negative weight would scramble every order).
     */
    public static void checkOptions(long k, double personalWeight, double lexicalWeight, double semanticQueryWeight) {
        if (k < 1 || k > 1_000_000_000) {
            throw new IllegalArgumentException("RRF k must be a whole number from 1 to 10**9, got " + k);
        }
        checkWeight("personal", personalWeight);
        checkWeight("lexical", lexicalWeight);
        checkWeight("semantic query", semanticQueryWeight);
    }

    /** rank's diversity, refused in Python's words unless a finite number >= 0 (Main checks --diversity with it). */
    static void checkDiversity(double diversity) {
        checkWeight("diversity", diversity);
    }

    private static void checkWeight(String name, double weight) {
        if (!Double.isFinite(weight) || weight < 0) {
            throw new IllegalArgumentException("the " + name + " weight must be a finite number >= 0, got "
                    + Documents.number(weight));
        }
    }
}
