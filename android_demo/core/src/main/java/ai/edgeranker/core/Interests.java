package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Centers of interest, as the Python runtime (edge_ranker/runtime/interests.py, and its store: store/space.py,
 * store/events.py, store/rebuild.py): a reaction shifts the closest same-polarity interest towards its document when
 * their cosine reaches the threshold, else starts one; an interest weighs the most of the reactions it took (1 for a
 * like or dislike, less for a read or a skip: Signals); interests decay with the time since their last view; personal
 * score = posSim * posDecay * posWeight + relevance - negSim * negDecay * negWeight.
 *
 * <p>In memory, as the Python store keeps them: the likes and dislikes, in the order they came, and the interests they
 * built one by one (positives, negatives, whose liked ones gather the time spent on views); beside them the implicit
 * signals (views and showings). With no signal the interests rank as stored; with signals they are replayed from
 * every event (Signals.reactions) and the stored interests' dwell time goes to the replayed ones
 * (current()). A document is known by its text. An app persists the events itself and feeds them back at its start.
 */
public final class Interests {
    /** The interests' settings; the defaults are the spec's (Constants), which SpecTest checks. */
    public static final class Config {
        public double shiftFactor = Constants.SHIFT_FACTOR;
        public double threshold = Constants.THRESHOLD;
        public double horizonDays = Constants.HORIZON_DAYS;
        public double decayRatePerDay = Constants.DECAY_RATE_PER_DAY;
        public int minPositiveCois = Constants.MIN_POSITIVE_COIS;
    }

    public static final class CoI {
        public final boolean positive;
        public float[] point;
        public int viewCount;
        public double viewTime;
        public double lastView;
        /** How much its similarity counts: 1 for a like's or dislike's interest, less for a read's or a skip's. */
        public double weight;

        CoI(boolean positive, float[] point, double ts, double weight) {
            this.positive = positive;
            this.point = point;
            this.viewCount = 1;
            this.viewTime = 0.0;
            this.lastView = ts;
            this.weight = weight;
        }
    }

    /**
     * score = positiveSimilarity * positiveDecay * positiveWeight + interestRelevance
     * - negativeSimilarity * negativeDecay * negativeWeight.
     */
    public static final class PersonalScore {
        public double score;
        public int positive = -1;
        public int negative = -1;
        public double positiveSimilarity;
        public double positiveDecay;
        public double interestRelevance;
        public double negativeSimilarity;
        public double negativeDecay;
        public double positiveWeight;
        public double negativeWeight;
    }

    public final Config config;
    /** The interests the likes and dislikes built, one by one; the liked ones hold the time spent on views. */
    public final List<CoI> positives = new ArrayList<>();
    public final List<CoI> negatives = new ArrayList<>();
    /** The likes and dislikes, in the order they came. */
    private final List<Signals.Event> reactions = new ArrayList<>();
    /** The views and showings, in the order they came. */
    private final List<Signals.Event> signals = new ArrayList<>();
    /** The interests replayed from every event, until the next event (null: to replay). */
    private Interests replayed;

    public Interests(Config config) {
        this.config = config;
    }

    /** The size of the interests' vectors: their points', else the events' (-1: none yet). */
    private int size() {
        List<CoI> any = positives.isEmpty() ? negatives : positives;
        if (!any.isEmpty()) {
            return any.get(0).point.length;
        }
        return !reactions.isEmpty() ? reactions.get(0).vector.length
                : !signals.isEmpty() ? signals.get(0).vector.length : -1;
    }

    /** Vectors of another size than the interests' (a model update) are refused with what to do. */
    private void checkSize(int n) {
        int size = size();
        if (size >= 0 && size != n) {
            throw new IllegalArgumentException("a vector of " + n + " numbers against interests of " + size
                    + ": replay the reactions from their texts with the models now");
        }
    }

    /**
     * As Python's reaction_time: a NaN time would never decay nor count, one more than a day ahead of the clock would
     * keep its interest from fading until then.
     */
    private static void checkTime(double ts) {
        if (!Double.isFinite(ts) || ts < 0 || ts > System.currentTimeMillis() / 1000.0 + Constants.DAY) {
            throw new IllegalArgumentException("feedback time must be finite unix seconds, at most a day ahead of "
                    + "the clock, got " + ts);
        }
    }

    private static String checkDoc(String doc) {
        if (doc == null) {
            throw new IllegalArgumentException("an event needs its document (the text), got null");
        }
        return doc;
    }

    static float dot(float[] a, float[] b) {
        float s = 0f;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    static float[] unit(float[] v) {
        double n = 0;
        for (float x : v) {
            n += (double) x * x;
        }
        float norm = (float) Math.sqrt(n);
        if (!(norm > 0f) || Float.isInfinite(norm)) {
            throw new IllegalArgumentException("embedding must be a finite, non-zero vector");
        }
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] / norm;
        }
        return out;
    }

    /** A like (positive) or dislike of doc (its text), its interest vector, at unix time ts. */
    public void feedback(String doc, float[] embedding, boolean positive, double ts) {
        checkTime(ts);
        float[] e = unit(embedding);
        checkSize(e.length);
        reactions.add(new Signals.Event(checkDoc(doc), positive ? Signals.LIKE : Signals.DISLIKE, ts, e, 0.0));
        react(positive ? positives : negatives, e, positive, ts, 1.0, config);
        replayed = null;
    }

    /**
     * A view of doc (its text, its interest vector) for seconds, at unix time ts: kept as a signal, and its seconds
     * go to the closest liked interest's view time.
     */
    public void viewed(String doc, float[] embedding, double seconds, double ts) {
        Signals.checkViewTime(seconds);
        checkTime(ts);
        float[] e = unit(embedding);
        checkSize(e.length);
        signals.add(new Signals.Event(checkDoc(doc), Signals.VIEW, ts, e, seconds));
        int i = closest(positives, e);
        if (i >= 0) {
            positives.get(i).viewTime += seconds;
        }
        replayed = null;
    }

    /** A showing of doc (its text, its interest vector) at unix time ts, kept as a signal. */
    public void shown(String doc, float[] embedding, double ts) {
        checkTime(ts);
        float[] e = unit(embedding);
        checkSize(e.length);
        signals.add(new Signals.Event(checkDoc(doc), Signals.SHOWN, ts, e, 0.0));
        replayed = null;
    }

    /**
     * Undoes every reaction to doc (its text) and every signal of it: the interests are rebuilt from the other
     * reactions, as if it had never been liked, disliked, shown or read, their dwell time moved to the closest rebuilt
     * liked interest; each view's seconds leave the liked interest closest to it, as they went there (viewed).
     * Returns how many events went.
     */
    public int undo(String doc) {
        List<Signals.Event> views = new ArrayList<>();
        for (Signals.Event e : signals) {
            if (e.doc.equals(doc) && e.kind.equals(Signals.VIEW) && e.seconds > 0) {
                views.add(e);
            }
        }
        for (Signals.Event e : views) {  // before the rebuild, from the interests they went to
            int i = closest(positives, e.vector);
            if (i >= 0) {
                positives.get(i).viewTime = Math.max(0.0, positives.get(i).viewTime - e.seconds);
            }
        }
        int gone = reactions.size();
        reactions.removeIf(e -> e.doc.equals(doc));
        gone -= reactions.size();
        if (gone > 0) {
            rebuild();
        }
        int before = signals.size();
        signals.removeIf(e -> e.doc.equals(doc));
        replayed = null;
        return gone + before - signals.size();
    }

    /**
     * The documents (texts) the user liked, disliked or opened (a view), as Python's Space.reacted_ids: what
     * Ranker.rank's reacted option sinks or leaves out. Undo takes a text out.
     */
    public Set<String> reacted() {
        Set<String> out = new HashSet<>();
        for (Signals.Event e : reactions) {
            out.add(e.doc);
        }
        for (Signals.Event e : signals) {
            if (e.kind.equals(Signals.VIEW)) {
                out.add(e.doc);
            }
        }
        return out;
    }

    /** The likes and dislikes replayed in order into fresh interests; dwell time goes to the closest rebuilt one. */
    private void rebuild() {
        List<CoI> dwell = new ArrayList<>(positives);
        positives.clear();
        negatives.clear();
        for (Signals.Event e : reactions) {
            boolean positive = e.kind.equals(Signals.LIKE);
            react(positive ? positives : negatives, e.vector, positive, e.ts, 1.0, config);
        }
        moveDwell(dwell, positives);
    }

    /** The dwell time of the interests from (those that have some) to the closest of into, where one is close. */
    private void moveDwell(List<CoI> from, List<CoI> into) {
        for (CoI c : from) {
            if (c.viewTime > 0) {
                int j = dwellTo(into, c.point);
                if (j >= 0) {
                    into.get(j).viewTime += c.viewTime;
                }
            }
        }
    }

    /**
     * Which liked interest dwell time spent on an interest at point goes to: the closest, when their cosine reaches
     * the merge threshold; -1 (the time goes with its interest) when none does or point is of another size.
     */
    private int dwellTo(List<CoI> cois, float[] point) {
        if (cois.isEmpty() || cois.get(0).point.length != point.length) {
            return -1;
        }
        int j = closest(cois, point);
        return dot(cois.get(j).point, point) >= config.threshold ? j : -1;
    }

    /**
     * The interests the ranking uses: without signals, the stored ones (this); with signals, those replayed from every
     * like, dislike, view and showing (Signals.reactions, in the order of their times, likes and dislikes first at one
     * time), with the stored interests' dwell time. Kept until the next event.
     */
    public Interests current() {
        if (signals.isEmpty()) {
            return this;
        }
        if (replayed == null) {
            List<Signals.Event> events = new ArrayList<>(reactions);
            events.addAll(signals);
            events.sort(Comparator.comparingDouble(e -> e.ts));  // stable: at one time, as they came
            Interests r = replayed(config, Signals.reactions(events, config.threshold));
            moveDwell(positives, r.positives);
            replayed = r;
        }
        return replayed;
    }

    /**
     * Interests built from weighted reactions (Signals.reactions: likes, dislikes, reads and skips of one model)
     * replayed in order, each interest weighing the most of the reactions it took (store/events.py's
     * replay_reactions).
     */
    public static Interests replayed(Config config, List<Signals.Reaction> reactions) {
        Interests out = new Interests(config);
        int size = -1;
        for (Signals.Reaction r : reactions) {
            size = size < 0 ? r.vector.length : size;
            if (r.vector.length != size) {
                throw new IllegalArgumentException("a stored " + r.kind + " of " + r.vector.length
                        + " numbers beside others of " + size);
            }
            for (float x : r.vector) {
                if (!Float.isFinite(x)) {
                    throw new IllegalArgumentException("a stored " + r.kind + " holds a value that is not a finite "
                            + "number");
                }
            }
            react(r.positive ? out.positives : out.negatives, r.vector, r.positive, r.ts, r.weight, config);
        }
        return out;
    }

    /** The index of the interest closest to a unit vector (the first of equals), or -1 when there is none. */
    private static int closest(List<CoI> cois, float[] e) {
        int best = -1;
        float bestSim = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < cois.size(); i++) {
            float s = dot(cois.get(i).point, e);
            if (s > bestSim) {
                bestSim = s;
                best = i;
            }
        }
        return best;
    }

    /**
     * How a reaction to a document (unit vector e) of weight weight moves the interests of its polarity (cois): the
     * closest one, when its cosine reaches the threshold, shifted towards the document, counted (a like or a read),
     * seen at ts and weighing the larger of its weight and the reaction's; else it starts one of its own.
     */
    static void react(List<CoI> cois, float[] e, boolean positive, double ts, double weight, Config config) {
        int best = closest(cois, e);
        if (best >= 0 && dot(cois.get(best).point, e) >= config.threshold) {
            CoI c = cois.get(best);
            float a = (float) config.shiftFactor;
            float keep = (float) (1.0 - config.shiftFactor);
            float[] p = new float[e.length];
            for (int i = 0; i < e.length; i++) {
                p[i] = keep * c.point[i] + a * e[i];
            }
            c.point = unit(p);
            if (positive) {
                c.viewCount += 1;
            }
            c.lastView = Math.max(ts, c.lastView);
            c.weight = Math.max(c.weight, weight);
        } else {
            cois.add(new CoI(positive, e, ts, weight));
        }
    }

    public double decay(double lastView, double now) {
        if (config.horizonDays == 0) {
            return 0.0;
        }
        double days = (now - lastView) / Constants.DAY;
        if (days <= 0) {
            return 1.0;
        }
        double s = config.decayRatePerDay;
        double h = config.horizonDays;
        return Math.max(0.0, (Math.exp(s * h) - Math.exp(s * days)) / (Math.exp(s * h) - 1.0));
    }

    /**
     * Each interest's decay at now. One at 0, past the horizon, does not count (as Python's interests.alive): it
     * scores every document 0 and, left in, would tie the documents nearest it, so scoring and active(now) skip it.
     */
    double[] decays(List<CoI> cois, double now) {
        double[] d = new double[cois.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = decay(cois.get(i).lastView, now);
        }
        return d;
    }

    /** Each positive interest's relevance, its share of the living ones' views and view time, times its decay. */
    double[] relevances(double[] decay) {
        double cs = 0;
        double ts = 0;
        for (int i = 0; i < decay.length; i++) {
            if (decay[i] > 0.0) {
                cs += positives.get(i).viewCount;
                ts += positives.get(i).viewTime;
            }
        }
        cs = cs == 0 ? 1 : cs;
        ts = ts == 0 ? 1 : ts;
        double[] r = new double[decay.length];
        for (int i = 0; i < r.length; i++) {
            CoI c = positives.get(i);
            r[i] = (c.viewCount / cs + c.viewTime / ts) * decay[i];
        }
        return r;
    }

    /** Whether the interests alive at now order a feed; else the ranker starts cold. */
    public boolean active(double now) {
        Interests c = current();
        return living(c.decays(c.positives, now)) >= config.minPositiveCois || living(c.decays(c.negatives, now)) > 0;
    }

    private static int living(double[] decay) {
        int n = 0;
        for (double d : decay) {
            n += d > 0.0 ? 1 : 0;
        }
        return n;
    }

    /** Each document's personal score (docs: interest vectors) under the current() interests at now. */
    public PersonalScore[] score(float[][] docs, double now) {
        if (!Double.isFinite(now)) {
            throw new IllegalArgumentException("'now' must be finite unix seconds, got " + now);
        }
        Interests current = current();
        if (current != this) {
            return current.score(docs, now);
        }
        for (float[] doc : docs) {  // every one: a shorter vector would give a partial cosine
            checkSize(doc.length);
        }
        double[] posDecay = decays(positives, now);
        double[] negDecay = decays(negatives, now);
        double[] rel = relevances(posDecay);
        PersonalScore[] out = new PersonalScore[docs.length];
        for (int d = 0; d < docs.length; d++) {
            PersonalScore p = new PersonalScore();
            double ps = 0, pd = 0, pr = 0, pw = 0, ns = 0, nd = 0, nw = 0;
            int j = argmax(positives, posDecay, docs[d]);
            if (j >= 0) {
                ps = dot(docs[d], positives.get(j).point);
                pd = posDecay[j];
                pr = rel[j];
                pw = positives.get(j).weight;
                p.positive = j;
            }
            int k = argmax(negatives, negDecay, docs[d]);
            if (k >= 0) {
                ns = dot(docs[d], negatives.get(k).point);
                nd = negDecay[k];
                nw = negatives.get(k).weight;
                p.negative = k;
            }
            p.score = ps * pd * pw + pr - ns * nd * nw;
            p.positiveSimilarity = ps;
            p.positiveDecay = pd;
            p.interestRelevance = pr;
            p.negativeSimilarity = ns;
            p.negativeDecay = nd;
            p.positiveWeight = pw;
            p.negativeWeight = nw;
            out[d] = p;
        }
        return out;
    }

    /** The living interest (decay above 0) nearest doc, or -1. */
    private static int argmax(List<CoI> cois, double[] decay, float[] doc) {
        int best = -1;
        float bestSim = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < cois.size(); i++) {
            if (decay[i] <= 0.0) {
                continue;
            }
            float s = dot(doc, cois.get(i).point);
            if (s > bestSim) {
                bestSim = s;
                best = i;
            }
        }
        return best;
    }
}
