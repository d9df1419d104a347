package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A query's words in the documents being ranked (edge_ranker/runtime/lexical.py): the terms (the tokenizer's
 * normaliser and pre-tokeniser, words with a letter or number), BM25 (Lucene's formula and statistics), each
 * document's idf-weighted share of the query's terms, the share of them any document has, and standardisation over
 * the documents, with which Fusion.queryScores joins BM25 to the cosines. K1 and B are the spec's (Constants). A query
 * term a document holds counts only where it is not a function word of the document's language (Stopwords,
 * spec/rules/stopwords.md): "in" is English and German, and a German text holding it answers nothing of "budget
 * debate in parliament"; in a feed that mixes languages such words made the query's language, not its meaning, decide.
 */
public final class Lexical {
    private Lexical() {
    }

    /** The words of text as WordPieceTokenizer splits them before WordPiece, with a letter or number. */
    public static List<String> terms(String text) {
        List<String> out = new ArrayList<>();
        String clean = WordPieceTokenizer.cleanInput(text == null ? "" : text);
        for (String w : WordPieceTokenizer.preTokenize(WordPieceTokenizer.normalize(clean))) {
            if (w.codePoints().anyMatch(Lexical::isLetterOrNumber)) {
                out.add(w);
            }
        }
        return out;
    }

    /** Unicode category L* or N*, as Python's unicodedata.category(c)[0] in "LN" (from WordPieceTokenizer's table). */
    static boolean isLetterOrNumber(int c) {
        return WordPieceTokenizer.isLetterOrNumber(c);
    }

    /**
     * A text's term counts and its language (language), found once per text: the Ranker caches a document's bag, so a
     * search box ranking the same feed on every keystroke reads each document's language once.
     */
    public static final class Bag {
        public final Map<String, Integer> counts;
        /** The index in Stopwords.LANGUAGES of the text's language; -1 for none. */
        public final int lang;

        public Bag(Map<String, Integer> counts) {
            this.counts = counts;
            this.lang = language(counts);
        }

        public static Bag of(List<String> terms) {
            Map<String, Integer> counts = new HashMap<>();
            for (String t : terms) {
                counts.merge(t, 1, Integer::sum);
            }
            return new Bag(counts);
        }

        /** How often the text holds the term as content: 0 where it is a function word of the text's language. */
        int tf(String term) {
            return lang >= 0 && (Stopwords.bits(term) >> lang & 1) == 1 ? 0 : counts.getOrDefault(term, 0);
        }
    }

    /**
     * The index in Stopwords.LANGUAGES of the language whose function words a text's terms (counts) hold most,
     * counting repeats, the first in that order on a tie; -1 for a text holding none (another language, or only names
     * and numbers).
     */
    static int language(Map<String, Integer> counts) {
        long[] held = new long[Stopwords.LANGUAGES.size()];
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            int bits = Stopwords.bits(e.getKey());
            for (int l = 0; l < held.length; l++) {
                held[l] += (bits >> l & 1) * (long) e.getValue();
            }
        }
        int best = -1;
        for (int l = 0; l < held.length; l++) {
            if (held[l] > 0 && (best < 0 || held[l] > held[best])) {
                best = l;
            }
        }
        return best;
    }

    /** BM25 of each document for the query's distinct terms held as content; 0 for a document sharing none. */
    public static double[] bm25(List<String> query, List<Bag> docs) {
        int n = docs.size();
        double[] scores = new double[n];
        if (n == 0 || query.isEmpty()) {
            return scores;
        }
        double[] lengths = new double[n];
        double mean = 0;
        for (int i = 0; i < n; i++) {
            for (int c : docs.get(i).counts.values()) {  // a document's length counts its function words too
                lengths[i] += c;
            }
            mean += lengths[i] / n;
        }
        for (String t : new LinkedHashSet<>(query)) {
            int df = documentFrequency(t, docs);
            if (df == 0) {
                continue;
            }
            double idf = idf(n, df);
            for (int i = 0; i < n; i++) {
                double tf = docs.get(i).tf(t);
                double norm = Constants.K1 * (1 - Constants.B + Constants.B * lengths[i] / Math.max(mean, 1e-9));
                scores[i] += idf * tf * (Constants.K1 + 1) / (tf + norm);
            }
        }
        return scores;
    }

    /**
     * Each document's share of the query's distinct terms, each weighed by its BM25 idf over the documents: 1 for a
     * document holding every query word some document has (as content), 0 for one holding none.
     */
    public static double[] matched(List<String> query, List<Bag> docs) {
        int n = docs.size();
        double[] out = new double[n];
        double total = 0;
        for (String t : new LinkedHashSet<>(query)) {
            int df = documentFrequency(t, docs);
            if (df == 0) {
                continue;
            }
            double idf = idf(n, df);
            total += idf;
            for (int i = 0; i < n; i++) {
                out[i] += docs.get(i).tf(t) > 0 ? idf : 0.0;
            }
        }
        for (int i = 0; i < n; i++) {
            out[i] = total > 0 ? out[i] / total : 0.0;
        }
        return out;
    }

    /** How many of the documents hold the term as content. */
    static int documentFrequency(String term, List<Bag> docs) {
        int df = 0;
        for (Bag d : docs) {
            df += d.tf(term) > 0 ? 1 : 0;
        }
        return df;
    }

    /** Lucene's BM25 idf of a term found in df of n documents. */
    static double idf(int n, int df) {
        return Math.log1p((n - df + 0.5) / (df + 0.5));
    }

    /** (x - mean) / std over the documents; all zeros when they are all equal. */
    public static double[] standardise(double[] x) {
        double mean = 0;
        for (double v : x) {
            mean += v / x.length;
        }
        double var = 0;
        for (double v : x) {
            var += (v - mean) * (v - mean) / x.length;
        }
        double sd = Math.sqrt(var);
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = sd > 1e-12 ? (x[i] - mean) / sd : 0.0;
        }
        return out;
    }

    /**
     * The share of the query's distinct content terms (a function word of no language) that at least one document
     * holds; 1 for a query without such terms (nothing says it is in another language).
     */
    public static double coverage(List<String> query, List<Bag> docs) {
        int content = 0;
        int found = 0;
        for (String t : new LinkedHashSet<>(query)) {
            if (Stopwords.bits(t) == 0) {
                content++;
                found += documentFrequency(t, docs) > 0 ? 1 : 0;
            }
        }
        return content == 0 ? 1.0 : (double) found / content;
    }

    /**
     * Whether the text holds a word BM25 would count (a letter or number): a text without one holds nothing that
     * interests or a query can match, and the ranker puts it last.
     */
    public static boolean hasWord(String text) {
        return text.codePoints().anyMatch(Lexical::isLetterOrNumber);
    }
}
