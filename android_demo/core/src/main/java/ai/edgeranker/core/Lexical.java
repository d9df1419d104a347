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
 * the documents, with which Fusion.queryScores joins BM25 to the cosines. K1 and B are the spec's (Constants).
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

    public static Map<String, Integer> counts(List<String> terms) {
        Map<String, Integer> out = new HashMap<>();
        for (String t : terms) {
            out.merge(t, 1, Integer::sum);
        }
        return out;
    }

    /** BM25 of each document (term counts) for the query's distinct terms; 0 for a document sharing none. */
    public static double[] bm25(List<String> query, List<Map<String, Integer>> docs) {
        int n = docs.size();
        double[] scores = new double[n];
        if (n == 0 || query.isEmpty()) {
            return scores;
        }
        double[] lengths = new double[n];
        double mean = 0;
        for (int i = 0; i < n; i++) {
            for (int c : docs.get(i).values()) {
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
                double tf = docs.get(i).getOrDefault(t, 0);
                double norm = Constants.K1 * (1 - Constants.B + Constants.B * lengths[i] / Math.max(mean, 1e-9));
                scores[i] += idf * tf * (Constants.K1 + 1) / (tf + norm);
            }
        }
        return scores;
    }

    /**
     * Each document's share of the query's distinct terms, each weighed by its BM25 idf over the documents: 1 for a
     * document holding every query word some document has, 0 for one holding none.
     */
    public static double[] matched(List<String> query, List<Map<String, Integer>> docs) {
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
                out[i] += docs.get(i).containsKey(t) ? idf : 0.0;
            }
        }
        for (int i = 0; i < n; i++) {
            out[i] = total > 0 ? out[i] / total : 0.0;
        }
        return out;
    }

    /** How many of the documents hold the term. */
    static int documentFrequency(String term, List<Map<String, Integer>> docs) {
        int df = 0;
        for (Map<String, Integer> d : docs) {
            df += d.containsKey(term) ? 1 : 0;
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

    /** The share of the query's distinct terms that at least one document has; 1 for a query without terms. */
    public static double coverage(List<String> query, List<Map<String, Integer>> docs) {
        LinkedHashSet<String> wanted = new LinkedHashSet<>(query);
        if (wanted.isEmpty()) {
            return 1.0;
        }
        int found = 0;
        for (String t : wanted) {
            for (Map<String, Integer> d : docs) {
                if (d.containsKey(t)) {
                    found++;
                    break;
                }
            }
        }
        return (double) found / wanted.size();
    }

    /**
     * Whether the text holds a word BM25 would count (a letter or number): a text without one holds nothing that
     * interests or a query can match, and the ranker puts it last.
     */
    public static boolean hasWord(String text) {
        return text.codePoints().anyMatch(Lexical::isLetterOrNumber);
    }
}
