package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Implicit signals (spec/rules/implicit.md, edge_ranker/runtime/signals.py): what a reader opened, read and scrolled
 * past, as reactions weaker than a like or a dislike. Beside the likes and dislikes, the interests keep each showing
 * of a document (Ranker.shown) and each view (Ranker.viewed) as an Event, and reactions() turns them into the
 * weighted reactions the interests are replayed from:
 * <ul>
 *   <li>a like or dislike is a reaction of weight 1;
 *   <li>a read: a document never liked or disliked whose views add up to READ_MIN_S seconds or more is a like of
 *       weight READ_WEIGHT * min(1, seconds / READ_FULL_S), at its last view, with that view's vector;
 *   <li>a skip: a document shown SKIP_AFTER times, never opened and never liked or disliked, is a dislike of weight
 *       SKIP_WEIGHT at its SKIP_AFTER-th showing, with its last showing's vector, unless its cosine to a document
 *       liked or read reaches the interests' merge threshold: skipping never buries a topic the user also reads.
 * </ul>
 * The settings are the spec's (Constants).
 */
public final class Signals {
    public static final String LIKE = "like";
    public static final String DISLIKE = "dislike";
    public static final String VIEW = "view";
    public static final String SHOWN = "shown";
    public static final String READ = "read";
    public static final String SKIP = "skip";

    private Signals() {
    }

    /**
     * One event of a document: a like, dislike, view (with its seconds) or showing (kind), at unix time ts, with the
     * document's interest vector. The JVM core knows a document by its text, so doc is the text.
     */
    public static final class Event {
        public final String doc;
        public final String kind;
        public final double ts;
        public final float[] vector;
        public final double seconds;

        public Event(String doc, String kind, double ts, float[] vector, double seconds) {
            if (!(kind.equals(LIKE) || kind.equals(DISLIKE) || kind.equals(VIEW) || kind.equals(SHOWN))) {
                throw new IllegalArgumentException("an event is a like, dislike, view or shown, got " + kind);
            }
            this.doc = doc;
            this.kind = kind;
            this.ts = ts;
            this.vector = vector;
            this.seconds = seconds;
        }

        boolean explicit() {
            return kind.equals(LIKE) || kind.equals(DISLIKE);
        }
    }

    /**
     * What the interests are replayed from: a vector, liked or disliked, when, how much it weighs, and why (kind:
     * like, dislike, read or skip).
     */
    public static final class Reaction {
        public final String doc;
        public final String kind;
        public final boolean positive;
        public final double ts;
        public final double weight;
        public final float[] vector;

        public Reaction(String doc, String kind, boolean positive, double ts, double weight, float[] vector) {
            this.doc = doc;
            this.kind = kind;
            this.positive = positive;
            this.ts = ts;
            this.weight = weight;
            this.vector = vector;
        }
    }

    /**
     * One view's time, refused in the words of spec/cases/checks unless from 0 to MAX_VIEW_S seconds (a longer one is
     * a unit or clock error); returns it.
     */
    public static double checkViewTime(double seconds) {
        if (!(seconds >= 0 && seconds <= Constants.MAX_VIEW_S)) {
            throw new IllegalArgumentException("view time must be from 0 to " + Constants.MAX_VIEW_S + " seconds (a "
                    + "day), got " + Documents.number(seconds));
        }
        return seconds;
    }

    /** A read's weight: 0 under READ_MIN_S seconds, else READ_WEIGHT times the share of READ_FULL_S read. */
    public static double readWeight(double seconds) {
        return seconds < Constants.READ_MIN_S ? 0.0
                : Constants.READ_WEIGHT * Math.min(1.0, seconds / Constants.READ_FULL_S);
    }

    /** A reaction with where its event came, which orders reactions of one time. */
    private static final class Placed {
        final int at;
        final Reaction reaction;

        Placed(int at, Reaction reaction) {
            this.at = at;
            this.reaction = reaction;
        }
    }

    /**
     * The weighted reactions events (in the order they came) make, in the order of their times (ties: as they came).
     * threshold: the interests' merge cosine, how close a skip may come to a document liked or read.
     */
    public static List<Reaction> reactions(List<Event> events, double threshold) {
        Set<String> explicit = new HashSet<>();
        Set<String> opened = new HashSet<>();
        for (Event e : events) {
            if (e.explicit()) {
                explicit.add(e.doc);
            } else if (e.kind.equals(VIEW)) {
                opened.add(e.doc);
            }
        }
        List<Placed> out = new ArrayList<>();
        Map<String, double[]> seconds = new LinkedHashMap<>();  // per document read: its seconds so far
        Map<String, Integer> lastView = new LinkedHashMap<>();  // and where its last view came
        Map<String, List<Integer>> shown = new LinkedHashMap<>();  // per document never opened: its showings
        for (int n = 0; n < events.size(); n++) {
            Event e = events.get(n);
            if (e.explicit()) {
                out.add(new Placed(n, new Reaction(e.doc, e.kind, e.kind.equals(LIKE), e.ts, 1.0, e.vector)));
            } else if (explicit.contains(e.doc)) {
                continue;
            } else if (e.kind.equals(VIEW)) {
                seconds.computeIfAbsent(e.doc, d -> new double[1])[0] += e.seconds;
                lastView.put(e.doc, n);
            } else if (!opened.contains(e.doc)) {
                shown.computeIfAbsent(e.doc, d -> new ArrayList<>()).add(n);
            }
        }
        for (Map.Entry<String, double[]> r : seconds.entrySet()) {
            double weight = readWeight(r.getValue()[0]);
            if (weight > 0) {
                int n = lastView.get(r.getKey());
                Event last = events.get(n);
                out.add(new Placed(n, new Reaction(last.doc, READ, true, last.ts, weight, last.vector)));
            }
        }
        List<float[]> liked = new ArrayList<>();
        for (Placed p : out) {
            if (p.reaction.positive) {
                liked.add(p.reaction.vector);
            }
        }
        for (List<Integer> showings : shown.values()) {
            if (showings.size() < Constants.SKIP_AFTER) {
                continue;
            }
            int n = showings.get(Constants.SKIP_AFTER - 1);
            Event e = events.get(n);
            float[] vector = events.get(showings.get(showings.size() - 1)).vector;
            if (closeTo(liked, vector, threshold)) {
                continue;
            }
            out.add(new Placed(n, new Reaction(e.doc, SKIP, false, e.ts, Constants.SKIP_WEIGHT, vector)));
        }
        out.sort(Comparator.comparingDouble((Placed p) -> p.reaction.ts).thenComparingInt(p -> p.at));
        List<Reaction> reactions = new ArrayList<>();
        for (Placed p : out) {
            reactions.add(p.reaction);
        }
        return reactions;
    }

    /** Whether some vector of liked (of vector's size) has a cosine to vector of at least threshold. */
    private static boolean closeTo(List<float[]> liked, float[] vector, double threshold) {
        if (liked.isEmpty() || liked.get(0).length != vector.length) {
            return false;
        }
        float best = Float.NEGATIVE_INFINITY;
        for (float[] v : liked) {
            best = Math.max(best, Interests.dot(v, vector));
        }
        return best >= threshold;
    }
}
