package ai.edgeranker.core;

import java.util.HashMap;
import java.util.Map;

/**
 * Several interests near the top of a feed (edge_ranker/runtime/diversity.py, spec/rules/diversity.md): the interests
 * order a feed by each document's personal score, so the topic the reader spent the most time on fills the top and a
 * second one starts below it. diversify re-ranks the head of the feed greedily: each next place goes to the document
 * whose personal score, less the weight for every document above it closest to the same liked interest, is the
 * highest (ties: the better ranked). At weight 0 the order is the scores'; a document close to no liked interest
 * (group -1) is never lowered; the rest of the feed keeps its order. Orders are document indices, best first.
 */
public final class Diversity {
    /** What Ranker.rank lowers by when given no diversity (spec's DIVERSITY). */
    public static final double WEIGHT = Constants.DIVERSITY;

    private Diversity() {
    }

    /** diversify(order, score, group, weight, Constants.DIVERSITY_WINDOW): what Ranker.rank re-ranks with. */
    public static int[] diversify(int[] order, double[] score, int[] group, double weight) {
        return diversify(order, score, group, weight, Constants.DIVERSITY_WINDOW);
    }

    /**
     * order (document indices, best first) with its first window documents re-ranked: each next the one of the
     * highest score less weight times the documents of its group (its closest liked interest, -1 for none: never
     * lowered) placed above it; ties go to the better ranked. score and group are by document index; a score not
     * finite (a document the models cannot read) makes the lowest of candidates, still placed in turn.
     */
    public static int[] diversify(int[] order, double[] score, int[] group, double weight, int window) {
        int w = Math.min(Math.max(window, 0), order.length);
        if (!(weight > 0) || w < 2) {
            return order.clone();
        }
        double[] left = new double[w];
        int[] slot = new int[w];  // each head document's group as a slot of counts; -1: none, never counted
        Map<Integer, Integer> slots = new HashMap<>();
        for (int k = 0; k < w; k++) {
            int i = order[k];
            left[k] = Double.isFinite(score[i]) ? score[i] : -1e300;  // picked ones are -inf: this one still counts
            slot[k] = group[i] >= 0 ? slots.computeIfAbsent(group[i], g -> slots.size()) : -1;
        }
        double[] counts = new double[slots.size()];
        int[] out = order.clone();
        for (int place = 0; place < w; place++) {
            int best = -1;
            double bestValue = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < w; k++) {
                double v = left[k] - (slot[k] >= 0 ? weight * counts[slot[k]] : 0.0);
                if (best < 0 || v > bestValue) {  // strictly higher: the first of equals, the better ranked
                    best = k;
                    bestValue = v;
                }
            }
            out[place] = order[best];
            left[best] = Double.NEGATIVE_INFINITY;
            if (slot[best] >= 0) {
                counts[slot[best]]++;
            }
        }
        return out;
    }
}
