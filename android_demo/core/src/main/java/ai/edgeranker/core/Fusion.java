package ai.edgeranker.core;

import java.util.Arrays;
import java.util.Comparator;

/** Weighted reciprocal-rank fusion, sum of w / (k + rank), ties kept in input order (as the Python Ranker). */
public final class Fusion {
    private Fusion() {
    }

    /** 1-based ranks of scores, highest first, stable for ties. */
    public static int[] ranks(double[] scores) {
        Integer[] order = new Integer[scores.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -scores[i]));  // stable merge sort
        int[] ranks = new int[scores.length];
        for (int r = 0; r < order.length; r++) {
            ranks[order[r]] = r + 1;
        }
        return ranks;
    }

    /** weight / (k + rank) of each score, computed as the Python Ranker does. */
    public static double[] contributions(double[] scores, double weight, int k) {
        int[] r = ranks(scores);
        double[] out = new double[scores.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = weight * (1.0 / (k + r[i]));
        }
        return out;
    }

    public static void addContribution(double[] total, double[] scores, double weight, int k) {
        double[] c = contributions(scores, weight, k);
        for (int i = 0; i < total.length; i++) {
            total[i] += c[i];
        }
    }

    /** Document indices ordered by fused score, highest first, ties in input order. */
    public static Integer[] order(double[] total) {
        Integer[] order = new Integer[total.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -total[i]));
        return order;
    }
}
