package ai.edgeranker.core;

import java.util.Arrays;
import java.util.Comparator;

/**
 * How a query and the interests meet in one score, and the rank fusion of a feed without a query
 * (edge_ranker/runtime/fusion.py): with a query, its score (queryScores: the relevance cosine, BM25 and the semantic
 * model's cosine, each standardised and weighed by the share of the query's words the documents have or lack) plus
 * weight x the document's share of the query's words x its interest score above the median, an answer never below a
 * non-answer it outscored; without one, 1 / (k + rank) of one order, ties kept in input order.
 */
public final class Fusion {
    /** Of the way down to the next non-answer below it, the most the interests sink an answer (spec's SINK). */
    public static final double SINK = Constants.SINK;

    private Fusion() {
    }

    /** 1-based ranks of scores, highest first, stable for ties. */
    public static int[] ranks(double[] scores) {
        Integer[] order = order(scores);
        int[] ranks = new int[scores.length];
        for (int r = 0; r < order.length; r++) {
            ranks[order[r]] = r + 1;
        }
        return ranks;
    }

    /** 1 / (k + rank) of each score. */
    public static double[] rrf(double[] scores, int k) {
        int[] r = ranks(scores);
        double[] out = new double[scores.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = 1.0 / (k + r[i]);
        }
        return out;
    }

    /**
     * What the interests add to each document's query score: weight x matched x (personal - median), the median
     * over the documents the interests can judge (known); 0 for the others. A document that holds a query word sinks
     * at most SINK of the way down to the highest score below its own of a document that holds none, so a
     * non-answer never overtakes an answer.
     */
    public static double[] personalLift(double[] personal, double[] matched, boolean[] known, double weight,
            double[] score) {
        double[] lift = new double[personal.length];
        int count = 0;
        for (boolean b : known) {
            count += b ? 1 : 0;
        }
        if (weight == 0 || count == 0) {
            return lift;
        }
        double median = median(personal, known, count);
        double[] others = new double[personal.length];
        int nOthers = 0;
        for (int i = 0; i < lift.length; i++) {
            lift[i] = known[i] ? weight * matched[i] * (personal[i] - median) : 0.0;
            if (matched[i] <= 0) {
                others[nOthers++] = score[i];
            }
        }
        others = Arrays.copyOf(others, nOthers);
        Arrays.sort(others);
        for (int i = 0; i < lift.length; i++) {
            if (matched[i] > 0 && lift[i] < 0) {
                int below = lowerBound(others, score[i]);  // how many non-answers score under it
                if (below > 0) {
                    lift[i] = Math.max(lift[i], -SINK * (score[i] - others[below - 1]));
                }
            }
        }
        return lift;
    }

    /** The median of the count scores that known marks. */
    private static double median(double[] scores, boolean[] known, int count) {
        double[] judged = new double[count];
        for (int i = 0, j = 0; i < scores.length; i++) {
            if (known[i]) {
                judged[j++] = scores[i];
            }
        }
        Arrays.sort(judged);
        return count % 2 == 1 ? judged[count / 2] : (judged[count / 2 - 1] + judged[count / 2]) / 2.0;
    }

    /** The number of values of sorted that are below x. */
    static int lowerBound(double[] sorted, double x) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < x) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * The query's part of each score: its query score, but one below every other document's whole score for a
     * document without a word (which the interests never lift), so that it goes last.
     */
    public static double[] queryPart(double[] scores, double[] lift, boolean[] wordless) {
        double floor = Double.POSITIVE_INFINITY;
        for (int i = 0; i < scores.length; i++) {
            floor = wordless[i] ? floor : Math.min(floor, scores[i] + lift[i]);
        }
        floor = Double.isInfinite(floor) ? 0.0 : floor - 1.0;
        double[] out = new double[scores.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = wordless[i] ? floor : scores[i];
        }
        return out;
    }

    /**
     * What orders the documents for a query: the relevance cosine, plus BM25 at weight x the share of the
     * query's words the documents have (cover), plus the semantic model's cosine at semanticWeight x the share
     * they lack, each standardised; the cosine alone when nothing joins it.
     */
    public static double[] queryScores(
            double[] cosine, double[] lexical, double weight, double[] semantic, double cover, double semanticWeight) {
        double lexicalShare = lexical != null ? weight * cover : 0.0;
        double semanticShare = semantic != null ? semanticWeight * (1.0 - cover) : 0.0;
        if (lexicalShare == 0 && semanticShare == 0) {
            return cosine;
        }
        double[] out = Lexical.standardise(cosine);
        if (lexicalShare != 0) {
            double[] l = Lexical.standardise(lexical);
            for (int i = 0; i < out.length; i++) {
                out[i] = out[i] + lexicalShare * l[i];
            }
        }
        if (semanticShare != 0) {
            double[] m = Lexical.standardise(semantic);
            for (int i = 0; i < out.length; i++) {
                out[i] = out[i] + semanticShare * m[i];
            }
        }
        return out;
    }

    /**
     * A query's cosines where those that say nothing are neutral: all 0 when the models cannot read the query
     * (blind), else those of the documents they cannot read (unread) at the mean of the others'.
     */
    public static double[] neutral(double[] cosine, boolean[] unread, boolean blind) {
        double[] out = new double[cosine.length];
        if (blind) {
            return out;
        }
        double sum = 0;
        int known = 0;
        for (int i = 0; i < cosine.length; i++) {
            if (!unread[i]) {
                sum += cosine[i];
                known++;
            }
        }
        double mean = known == 0 ? 0.0 : sum / known;
        for (int i = 0; i < cosine.length; i++) {
            out[i] = unread[i] ? mean : cosine[i];
        }
        return out;
    }

    /**
     * The cold start's order as 1 / (k + rank) (spec/rules/cold-start.md): the newest first, documents without a
     * date (null) after those with one, ties in input order, and a document without a word last.
     */
    public static double[] recency(Double[] published, boolean[] wordless, int k) {
        double[] times = new double[published.length];
        for (int i = 0; i < times.length; i++) {
            Double p = published[i];
            times[i] = wordless[i] ? Double.NEGATIVE_INFINITY
                    : (p != null && Double.isFinite(p) ? p : -1e18) - i * 1e-9;  // the tiny step: input order
        }
        return rrf(times, k);
    }

    /** Whether every score is the same (numpy's ptp of 0): a query score that orders nothing. */
    static boolean constant(double[] scores) {
        for (double x : scores) {
            if (x != scores[0]) {
                return false;
            }
        }
        return true;
    }

    /** The scores with each document marked last at -infinity: what one order ranks below every other. */
    static double[] wordlessLast(double[] scores, boolean[] last) {
        double[] out = scores.clone();
        for (int i = 0; i < out.length; i++) {
            if (last[i]) {
                out[i] = Double.NEGATIVE_INFINITY;
            }
        }
        return out;
    }

    /** Document indices ordered by score, highest first, ties in input order. */
    public static Integer[] order(double[] total) {
        Integer[] order = new Integer[total.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -total[i]));  // stable merge sort
        return order;
    }
}
