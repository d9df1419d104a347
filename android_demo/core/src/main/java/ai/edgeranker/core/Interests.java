package ai.edgeranker.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Centers of interest, as the Python runtime (edge_ranker/runtime/interests.py and store.py): shift the
 * closest same-polarity interest towards a liked/disliked document when cosine >= threshold, else create
 * one; decay with time since last view; personal score = posSim*decay + relevance - negSim*decay.
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

        CoI(boolean positive, float[] point, double ts) {
            this.positive = positive;
            this.point = point;
            this.viewCount = 1;
            this.viewTime = 0.0;
            this.lastView = ts;
        }
    }

    /** score = positiveSimilarity * positiveDecay + interestRelevance - negativeSimilarity * negativeDecay. */
    public static final class PersonalScore {
        public double score;
        public int positive = -1;
        public int negative = -1;
        public double positiveSimilarity;
        public double positiveDecay;
        public double interestRelevance;
        public double negativeSimilarity;
        public double negativeDecay;
    }

    public final Config config;
    public final List<CoI> positives = new ArrayList<>();
    public final List<CoI> negatives = new ArrayList<>();

    public Interests(Config config) {
        this.config = config;
    }

    /** Vectors of another size than the interests' (a model update) are refused with what to do. */
    private void checkSize(int n) {
        List<CoI> any = positives.isEmpty() ? negatives : positives;
        if (!any.isEmpty() && any.get(0).point.length != n) {
            throw new IllegalArgumentException("a vector of " + n + " numbers against interests of "
                    + any.get(0).point.length + ": replay the reactions from their texts with the models now");
        }
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

    /** Record a like (positive) or dislike at unix time ts. */
    public void feedback(float[] embedding, boolean positive, double ts) {
        // as Python's reaction_time: a NaN last view would never decay nor count, a future one never fade
        if (!Double.isFinite(ts) || ts < 0 || ts > System.currentTimeMillis() / 1000.0 + Constants.DAY) {
            throw new IllegalArgumentException("feedback time must be finite unix seconds, at most a day ahead of "
                    + "the clock, got " + ts);
        }
        float[] e = unit(embedding);
        checkSize(e.length);
        List<CoI> cois = positive ? positives : negatives;
        int best = -1;
        float bestSim = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < cois.size(); i++) {
            float s = dot(cois.get(i).point, e);
            if (s > bestSim) {
                bestSim = s;
                best = i;
            }
        }
        if (best >= 0 && bestSim >= config.threshold) {
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
        } else {
            cois.add(new CoI(positive, e, ts));
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
        return living(decays(positives, now)) >= config.minPositiveCois || living(decays(negatives, now)) > 0;
    }

    private static int living(double[] decay) {
        int n = 0;
        for (double d : decay) {
            n += d > 0.0 ? 1 : 0;
        }
        return n;
    }

    public PersonalScore[] score(float[][] docs, double now) {
        if (!Double.isFinite(now)) {
            throw new IllegalArgumentException("'now' must be finite unix seconds, got " + now);
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
            double ps = 0, pd = 0, pr = 0, ns = 0, nd = 0;
            int j = argmax(positives, posDecay, docs[d]);
            if (j >= 0) {
                ps = dot(docs[d], positives.get(j).point);
                pd = posDecay[j];
                pr = rel[j];
                p.positive = j;
            }
            int k = argmax(negatives, negDecay, docs[d]);
            if (k >= 0) {
                ns = dot(docs[d], negatives.get(k).point);
                nd = negDecay[k];
                p.negative = k;
            }
            p.score = ps * pd + pr - ns * nd;
            p.positiveSimilarity = ps;
            p.positiveDecay = pd;
            p.interestRelevance = pr;
            p.negativeSimilarity = ns;
            p.negativeDecay = nd;
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
