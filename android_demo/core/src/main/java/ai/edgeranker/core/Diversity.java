package ai.edgeranker.core;

import java.util.HashMap;
import java.util.Map;

/**
 * Several interests near the top of a feed (edge_ranker/runtime/diversity.py, spec/rules/diversity.md): the interests
 * order a feed by each document's personal score, so the topic the reader spent the most time on fills the top and a
 * second one starts below it. diversify re-ranks the head of the feed greedily: each next place goes to the document
 * whose personal score, less the weight for every document above it closest to the same liked interest, is the
 * highest (ties: the better ranked). At weight 0 the order is the scores'; a document of no group (-1) is never
 * lowered, and one without a finite score (the models cannot read it) follows the others within the window; the rest
 * of the feed keeps its order. Orders are document indices, best first.
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
     * lowered) placed above it; ties go to the better ranked. score and group are by document index. The documents
     * of the window without a finite score (the models cannot read them) are taken out first and follow the others
     * within the window, in their order; a lowered score that overflows counts as the lowest finite number, so a
     * huge weight gives strict turns and each document is placed once.
     */
    public static int[] diversify(int[] order, double[] score, int[] group, double weight, int window) {
        int w = Math.min(Math.max(window, 0), order.length);
        int[] head = new int[w];  // the window's documents with a finite score, in their order
        int[] unscored = new int[w];  // and those without, in theirs
        int h = 0;
        int u = 0;
        for (int k = 0; k < w; k++) {
            int i = order[k];
            if (Double.isFinite(score[i])) {
                head[h++] = i;
            } else {
                unscored[u++] = i;
            }
        }
        int[] out = order.clone();
        System.arraycopy(unscored, 0, out, h, u);
        if (!(weight > 0) || h < 2) {
            System.arraycopy(head, 0, out, 0, h);
            return out;
        }
        int[] slot = new int[h];  // each scored document's group as a slot of counts; -1: none, never counted
        Map<Integer, Integer> slots = new HashMap<>();
        for (int k = 0; k < h; k++) {
            int g = group[head[k]];
            slot[k] = g >= 0 ? slots.computeIfAbsent(g, x -> slots.size()) : -1;
        }
        double[] counts = new double[slots.size()];
        boolean[] placed = new boolean[h];
        for (int place = 0; place < h; place++) {
            int best = -1;
            double bestValue = 0.0;
            for (int k = 0; k < h; k++) {
                if (placed[k]) {
                    continue;
                }
                // a huge weight lowers to -inf: clamped to the lowest finite number, still a candidate
                double v = Math.max(score[head[k]] - (slot[k] >= 0 ? weight * counts[slot[k]] : 0.0),
                        -Double.MAX_VALUE);
                if (best < 0 || v > bestValue) {  // strictly higher: the first of equals, the better ranked
                    best = k;
                    bestValue = v;
                }
            }
            out[place] = head[best];
            placed[best] = true;
            if (slot[best] >= 0) {
                counts[slot[best]]++;
            }
        }
        return out;
    }
}
