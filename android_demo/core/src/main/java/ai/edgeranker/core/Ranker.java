package ai.edgeranker.core;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Orders documents by the user's interests and, when given, a query, as the Python runtime's Ranker
 * (edge_ranker/runtime/ranker.py): interests from interest vectors (the semantic vector, and with a relevance model
 * the passage vector beside it, scaled so that cosines are the two models' weighted by SEMANTIC_SHARE);
 * relevance = the relevance model's cosine plus lexicalWeight x the query's BM25, both standardised over the
 * documents, BM25 weighed by the share of the query's words the documents have and the semantic model's query
 * cosine joining by the share they lack (Lexical.queryScores); the two orders fused by weighted reciprocal ranks;
 * cold start without either: newest first, then input order. A document without a word goes last in each order
 * (Lexical.hasWord); one the models cannot read (more than UNKNOWN_LIMIT of its words unknown to the semantic
 * vocabulary, as in a script it lacks) goes last for the interests, and its cosines to a query are neutral, as are
 * all when the query is such a text (edge_ranker/runtime/readable.py). Document vectors, terms and whether a text has
 * a word or can be read are cached by text (up to a budget of bytes), so a feed is read once. Its methods are safe to
 * call from several threads: they take turns under the Ranker's lock, so a feedback waits for a rank in progress (on
 * Android, call both off the main thread). Set the public weights before the Ranker is shared.
 */
public final class Ranker {
    public static final class Document {
        public final String id;
        public final String text;
        public final Double published;  // unix seconds, or null

        /** 9999-12-31T23:59:59Z: a later publication time is a unit mistake (milliseconds). */
        public static final double LAST_SECOND = 253_402_300_799.0;

        /** Refuses a blank id, one with a lone surrogate, and a publication time not finite or after LAST_SECOND. */
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

        /** The fields of the Python `edge-ranker rank` lines (interest indices count from 0 in this run). */
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
            }
            m.put("interest", i);
            return m;
        }
    }

    /**
     * Bytes of vectors and terms kept in memory by default: a phone's heap, not a count of documents, bounds it (a
     * 3,000-character document costs about 25 KB, a sentence about 2 KB).
     */
    public static final long CACHE_BYTES = 32L << 20;
    /**
     * The semantic model's share of an interest's cosine (the relevance model has the rest): SEMANTIC_SHARE of
     * edge_ranker/runtime/ranker.py, part of modelKey(), which GoldenTest compares with Python's.
     */
    public static final double SEMANTIC_SHARE = 0.65;
    /** What each model's unit vector is multiplied by in an interest vector: float, as numpy's float32 in Python. */
    private static final float SEMANTIC_SCALE = (float) Math.sqrt(SEMANTIC_SHARE);
    private static final float PASSAGE_SCALE = (float) Math.sqrt(1 - SEMANTIC_SHARE);
    public final Encoder semantic;
    public final Encoder relevance;  // null: no queries
    public final Interests interests;
    /** Default weights: those of edge_ranker/runtime/fusion.py, which GoldenTest checks a new Ranker holds. */
    public double personalWeight = 16.0;
    public double lexicalWeight = 1.0;
    public double semanticQueryWeight = 2.0;
    public int k = 60;
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
     * What stored interests were made with, as Python's Ranker.model_key: the semantic model's key, and with a
     * relevance model its key and the semantic share. Interests stored under another key must be embedded again.
     */
    public String modelKey() {
        if (relevance == null) {
            return semantic.key;
        }
        String share = BigDecimal.valueOf(SEMANTIC_SHARE).stripTrailingZeros().toPlainString();
        return semantic.key + "+" + relevance.key + "@" + share;
    }

    /** The semantic vector of a text: what a query in another language is compared with. */
    public synchronized float[] embed(String text) {
        return (float[]) cache.get(Cache.key('s', given(text)), key -> semantic.encode(text, null));
    }

    private float[] passage(String text) {
        return (float[]) cache.get(Cache.key('p', text), key -> relevance.encode(text, "passage"));
    }

    /** What a like or dislike stores and what interests score: Ranker.interest_vectors in Python. */
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

    @SuppressWarnings("unchecked")
    private Map<String, Integer> terms(String text) {
        return (Map<String, Integer>) cache.get(Cache.key('t', text),
                key -> Lexical.counts(Lexical.terms(relevance.cut(text))));
    }

    /**
     * Whether a text can teach an interest, as feedback decides it (it has a word, and the models can read it): an
     * app that replays stored likes into the interests after a model update leaves the others out, as Python's Ranker
     * does on start.
     */
    public synchronized boolean learnable(String text) {
        return hasWord(given(text)) && readable(text);
    }

    /** Whether a text has a word on what the semantic model reads, as Python's Ranker decides it (Lexical.hasWord). */
    private boolean hasWord(String text) {
        return (Boolean) flags.get(Cache.key('w', text), key -> Lexical.hasWord(semantic.cut(text)));
    }

    /** Whether the models can read a text (Encoder.unknownShare, by the semantic vocabulary), as Python decides it. */
    private boolean readable(String text) {
        return (Boolean) flags.get(Cache.key('r', text), key -> Readable.readable(semantic.unknownShare(text)));
    }

    /** A like (or dislike) of a text at unix time ts; returns the vector the interests took in. */
    public synchronized float[] feedback(String text, boolean like, double ts) {
        if (!hasWord(given(text))) {  // its vector would pull every document alike (as in Python)
            throw new IllegalArgumentException("no word to learn an interest from (empty, or only punctuation or emoji)");
        }
        if (!readable(text)) {  // nor would the vector of a script the models lack (as in Python)
            long share = Readable.percent(semantic.unknownShare(text));
            throw new IllegalArgumentException("not a text the models can read: " + share + "% of its words are "
                    + "unknown to their vocabulary (a script it lacks, or symbols within words): no interest is "
                    + "learnt from it");
        }
        float[] v = interestVector(text);
        interests.feedback(v, like, ts);
        return v;
    }

    public synchronized List<Ranked> rank(List<Document> docs, String query, double now) {
        return rank(docs, query, now, personalWeight);
    }

    /** As rank(docs, query, now), the interests moving this query's results by weight (0: the query alone). */
    public synchronized List<Ranked> rank(List<Document> docs, String query, double now, double weight) {
        if (!Double.isFinite(weight) || weight < 0) {
            throw new IllegalArgumentException("the personal weight must be a finite number >= 0, got " + weight);
        }
        if (!Double.isFinite(now)) {  // as Python's Ranker.rank: it would rank every feed cold
            throw new IllegalArgumentException("'now' must be finite unix seconds, got " + now);
        }
        checkSettings();
        Documents.checkList(docs);
        int n = docs.size();
        List<Ranked> out = new ArrayList<>();
        if (n == 0) {
            return out;
        }
        String q = Documents.strip(query == null ? "" : query);
        if (!q.isEmpty() && !hasWord(q)) {  // only punctuation or emoji: nothing to match, as in Python
            q = "";
        }
        if (!q.isEmpty() && relevance == null) {
            throw new IllegalArgumentException("a query needs a relevance model");
        }
        boolean usePersonal = interests.active(now);
        boolean useQuery = !q.isEmpty();
        double[] total = new double[n];
        List<Map<String, Double>> parts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            parts.add(new LinkedHashMap<>());
        }
        Interests.PersonalScore[] personal = null;
        double[] cosine = null;
        double[] lexical = null;
        double[] semanticCosine = null;
        boolean[] wordless = new boolean[n];
        boolean[] unread = new boolean[n];
        boolean[] unknown = new boolean[n];
        for (int i = 0; i < n; i++) {
            wordless[i] = !hasWord(docs.get(i).text);
            unread[i] = (usePersonal || useQuery) && !readable(docs.get(i).text);
            unknown[i] = wordless[i] || unread[i];
        }
        boolean[] known = new boolean[n];
        for (int i = 0; i < n; i++) {
            known[i] = !unknown[i];
        }
        double[] personalScores = null;
        if (usePersonal) {
            float[][] sem = new float[n][];
            for (int i = 0; i < n; i++) {
                sem[i] = interestVector(docs.get(i).text);
            }
            personal = interests.score(sem, now);
            personalScores = new double[n];
            for (int i = 0; i < n; i++) {
                personalScores[i] = personal[i].score;
            }
        }
        double[] queryScore = null;
        if (useQuery) {
            float[] qv = relevance.encode(q, "query");
            cosine = new double[n];
            for (int i = 0; i < n; i++) {
                cosine[i] = Interests.dot(passage(docs.get(i).text), qv);
            }
            List<String> words = Lexical.terms(relevance.cut(q));
            List<Map<String, Integer>> counts = new ArrayList<>();
            for (Document d : docs) {
                counts.add(terms(d.text));
            }
            double cover = Lexical.coverage(words, counts);
            if (lexicalWeight != 0) {
                lexical = Lexical.bm25(words, counts);
            }
            if (semanticQueryWeight != 0 && cover < 1.0) {
                float[] sq = semantic.encode(q, null);
                semanticCosine = new double[n];
                for (int i = 0; i < n; i++) {
                    semanticCosine[i] = Interests.dot(embed(docs.get(i).text), sq);
                }
            }
            boolean blind = !readable(q);
            double[] scores = Fusion.queryScores(Fusion.neutral(cosine, unread, blind), lexical, lexicalWeight,
                    semanticCosine == null ? null : Fusion.neutral(semanticCosine, unread, blind), cover, semanticQueryWeight);
            if (!(blind && Fusion.constant(scores))) {  // a query the models cannot read and no document has its words
                queryScore = scores;
                double[] lift = personalScores == null ? new double[n]
                        : Fusion.personalLift(personalScores, Lexical.matched(words, counts), known, weight, scores);
                double[] part = Fusion.queryPart(scores, lift, wordless);  // known leaves out the wordless: no lift
                for (int i = 0; i < n; i++) {
                    parts.get(i).put("query", part[i]);
                    if (personalScores != null) {
                        parts.get(i).put("personal", lift[i]);
                    }
                    total[i] = part[i] + lift[i];
                }
            }
        }
        if (queryScore == null && personalScores != null) {  // a feed: the interests' order
            fuse("personal", Fusion.wordlessLast(personalScores, unknown), total, parts);
        } else if (queryScore == null) {  // unknown dates last; the tiny step keeps input order among equals
            double[] recency = new double[n];
            for (int i = 0; i < n; i++) {
                Double p = docs.get(i).published;
                recency[i] = (p != null && Double.isFinite(p) ? p : -1e18) - i * 1e-9;
            }
            fuse("recency", Fusion.wordlessLast(recency, wordless), total, parts);
        }
        Integer[] order = Fusion.order(total);
        for (int r = 0; r < n; r++) {
            int i = order[r];
            Ranked x = new Ranked();
            x.id = docs.get(i).id;
            x.score = total[i];
            x.rank = r + 1;
            x.personalScore = personal == null ? null : personal[i].score;
            x.relevanceScore = cosine == null ? null : cosine[i];
            x.lexicalScore = lexical == null ? null : lexical[i];
            x.semanticScore = semanticCosine == null ? null : semanticCosine[i];
            x.queryScore = queryScore == null ? null : queryScore[i];
            x.contributions.putAll(parts.get(i));
            x.interest = personal == null ? null : personal[i];
            out.add(x);
        }
        return out;
    }

    /** The public settings as Python's Ranker checks them: a weight NaN or negative would scramble every order. */
    private void checkSettings() {
        if (k < 1 || k > 1_000_000_000) {
            throw new IllegalArgumentException("RRF k must be a whole number from 1 to 10**9, got " + k);
        }
        double[] weights = {personalWeight, lexicalWeight, semanticQueryWeight};
        String[] names = {"personal", "lexical", "semantic query"};
        for (int i = 0; i < weights.length; i++) {
            if (!Double.isFinite(weights[i]) || weights[i] < 0) {
                throw new IllegalArgumentException("the " + names[i] + " weight must be a finite number >= 0, got "
                        + weights[i]);
            }
        }
    }

    private void fuse(String name, double[] scores, double[] total, List<Map<String, Double>> parts) {
        double[] c = Fusion.rrf(scores, k);
        for (int i = 0; i < total.length; i++) {
            total[i] += c[i];
            parts.get(i).put(name, c[i]);
        }
    }
}
