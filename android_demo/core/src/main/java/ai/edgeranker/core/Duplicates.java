package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The last step of a ranking, after the scores (edge_ranker/runtime/duplicates.py):
 * <ul>
 *   <li>duplicates folded (spec/rules/duplicates.md): walking the ranking best first, a document whose semantic
 *       cosine to a document kept above it (among the first Constants.FOLD_WINDOW) reaches Constants.DUPLICATE_COSINE
 *       is a duplicate of the closest such one
 *       (ties: the better ranked); the kept documents keep their order, and the duplicates follow them all, in the
 *       order of their kept documents (then their own);
 *   <li>reacted documents sunk (spec/rules/reacted.md): the documents the user liked, disliked or opened go after
 *       the others ("sink"), or leave the ranking ("leave_out"); "keep" leaves the order as it is.
 * </ul>
 * Orders are document indices, best first.
 */
public final class Duplicates {
    public static final String FOLD = "fold";
    public static final String KEEP = "keep";
    public static final String SINK = "sink";
    public static final String LEAVE_OUT = "leave_out";
    /** What Ranker.rank's duplicates option takes, as Python's FOLDS. */
    static final List<String> FOLDS = List.of(FOLD, KEEP);
    /** What Ranker.rank's reacted option takes, as Python's REACTED. */
    static final List<String> REACTED = List.of(SINK, KEEP, LEAVE_OUT);

    private Duplicates() {
    }

    /** A fold's order and each document's kept document (-1: kept in place), by index. */
    public static final class Fold {
        public final int[] order;
        public final int[] duplicateOf;

        Fold(int[] order, int[] duplicateOf) {
            this.order = order;
            this.duplicateOf = duplicateOf;
        }
    }

    /** An option refused in Python's words: "NAME must be one of 'a', 'b', got 'x'". */
    static void check(String name, List<String> allowed, String value) {
        if (!allowed.contains(value)) {
            StringBuilder s = new StringBuilder(name + " must be one of ");
            for (int i = 0; i < allowed.size(); i++) {
                s.append(i > 0 ? ", " : "").append('\'').append(allowed.get(i)).append('\'');
            }
            throw new IllegalArgumentException(s + ", got " + (value == null ? "null" : "'" + value + "'"));
        }
    }

    /** fold(order, vectors, Constants.DUPLICATE_COSINE, Constants.FOLD_WINDOW): what Ranker.rank folds with. */
    public static Fold fold(int[] order, float[][] vectors) {
        return fold(order, vectors, Constants.DUPLICATE_COSINE, Constants.FOLD_WINDOW);
    }

    /**
     * order (document indices, best first) with the duplicates among its first window documents after all the
     * others, and each document's kept document (-1 for a kept one). vectors: unit semantic vectors, one row per
     * document; a null row (a text the models cannot read, or without a word) neither folds nor is folded under.
     * Cosines are float, compared with the threshold as a float, as numpy compares float32 cosines. Each document
     * of the window is compared with the kept ones above it: at most window * (window - 1) / 2 cosines.
     */
    public static Fold fold(int[] order, float[][] vectors, double threshold, int window) {
        int n = vectors.length;
        int[] of = new int[n];
        Arrays.fill(of, -1);
        int w = Math.min(Math.max(window, 0), order.length);
        if (w < 2) {
            return new Fold(order.clone(), of);
        }
        float limit = (float) threshold;
        int[] kept = new int[w];  // the kept documents of the window with a vector, best first
        int count = 0;
        boolean[] folded = new boolean[n];
        for (int k = 0; k < w; k++) {
            int i = order[k];
            int j = closestAbove(vectors, kept, count, i, limit);
            if (j >= 0) {
                of[i] = j;
                folded[i] = true;
            } else if (vectors[i] != null) {
                kept[count++] = i;
            }
        }
        int[] keptAt = new int[n];  // each kept document's place among the window's kept
        int[] out = new int[order.length];
        int head = 0;
        for (int k = 0; k < w; k++) {
            int i = order[k];
            if (!folded[i]) {
                keptAt[i] = head;
                out[head++] = i;
            }
        }
        for (int k = w; k < order.length; k++) {  // past the window: after the kept, before the duplicates
            out[head++] = order[k];
        }
        List<Integer> tail = new ArrayList<>();
        for (int k = 0; k < w; k++) {
            if (folded[order[k]]) {
                tail.add(order[k]);
            }
        }
        tail.sort((a, b) -> Integer.compare(keptAt[of[a]], keptAt[of[b]]));  // stable: then their own order
        for (int i : tail) {
            out[head++] = i;
        }
        return new Fold(out, of);
    }

    /**
     * The kept document (of the first count of kept) above i whose cosine to it is the largest and reaches limit
     * (ties: the better ranked).
     */
    private static int closestAbove(float[][] vectors, int[] kept, int count, int i, float limit) {
        if (vectors[i] == null) {
            return -1;
        }
        int best = -1;
        float bestSim = Float.NEGATIVE_INFINITY;
        for (int c = 0; c < count; c++) {
            int j = kept[c];
            float s = Interests.dot(vectors[i], vectors[j]);
            if (s >= limit && s > bestSim) {
                bestSim = s;
                best = j;
            }
        }
        return best;
    }

    /**
     * The fold's order with the documents the scores put last (end: no word; for the interests and a query, one the
     * models cannot read) after the duplicates: they go last, whatever comes.
     */
    public static int[] last(int[] order, boolean[] end) {
        int[] out = new int[order.length];
        int r = 0;
        for (int i : order) {
            if (!end[i]) {
                out[r++] = i;
            }
        }
        for (int i : order) {
            if (end[i]) {
                out[r++] = i;
            }
        }
        return out;
    }

    /**
     * order with the reacted documents after the others ("sink") or left out ("leave_out"); the duplicates
     * (folded >= 0) after those, and what the scores put last (end, as last()) after all; "keep": as it is.
     */
    public static int[] sink(int[] order, boolean[] reacted, String how, int[] folded, boolean[] end) {
        check("reacted", REACTED, how);
        boolean any = false;
        for (boolean r : reacted) {
            any |= r;
        }
        if (how.equals(KEEP) || !any) {
            return order.clone();
        }
        if (how.equals(LEAVE_OUT)) {
            // with the copies folded under them: the user has seen that story
            return Arrays.stream(order).filter(i -> !reacted[i] && !(folded[i] >= 0 && reacted[folded[i]])).toArray();
        }
        int[] out = new int[order.length];
        int r = 0;
        for (int group = 0; group < 4; group++) {  // the others, the reacted, the duplicates, the end
            for (int i : order) {
                int g = end[i] ? 3 : folded[i] >= 0 ? 2 : reacted[i] ? 1 : 0;
                if (g == group) {
                    out[r++] = i;
                }
            }
        }
        return out;
    }
}
