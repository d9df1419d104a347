// Centers of interest, as the Python runtime's interests.py: a like or dislike moves the closest interest of its
// polarity towards the document when their cosine reaches the threshold, else starts one; interests fade with the
// time since they were last fed; a document's personal score is positiveSimilarity x decay x weight + the interest's
// relevance - negativeSimilarity x decay x weight. An interest weighs the most of the reactions it took: 1 for a like
// or dislike, less for a read or a skip (signals.js, spec/rules/implicit.md).
import { DAY, DECAY_RATE_PER_DAY, HORIZON_DAYS, MIN_POSITIVE_COIS, SEMANTIC_SHARE, SHIFT_FACTOR, THRESHOLD } from "./constants.js";
import { EdgeRankerError } from "./errors.js";

export { DAY } from "./constants.js";

/** The interests' settings, Python's CoIConfig defaults. */
export const DEFAULT_CONFIG = Object.freeze({
  shiftFactor: SHIFT_FACTOR,
  threshold: THRESHOLD,
  horizonDays: HORIZON_DAYS,
  decayRatePerDay: DECAY_RATE_PER_DAY,
  minPositiveCois: MIN_POSITIVE_COIS,
});

export function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** A vector scaled to unit length, as float32; a zero or non-finite vector is refused. */
export function unit(v) {
  const norm = Math.fround(Math.sqrt(dot(v, v)));
  if (!(norm > 0) || !Number.isFinite(norm)) throw new EdgeRankerError("an embedding must be a finite, non-zero vector");
  return Float32Array.from(v, (x) => x / norm);
}

const SEMANTIC_SCALE = Math.fround(Math.sqrt(SEMANTIC_SHARE));
const PASSAGE_SCALE = Math.fround(Math.sqrt(1 - SEMANTIC_SHARE));

/**
 * A document's interest vector: its semantic and passage vectors side by side, times the square roots of the
 * semantic share and of the rest (spec/rules/semantic-share.md).
 */
export function interestVector(semantic, passage) {
  const out = new Float32Array(semantic.length + passage.length);
  semantic.forEach((x, j) => { out[j] = Math.fround(x * SEMANTIC_SCALE); });
  passage.forEach((x, j) => { out[semantic.length + j] = Math.fround(x * PASSAGE_SCALE); });
  return out;
}

/** The index of the interest closest to v (of those alive, when decays are given) and its cosine; -1 when none. */
function closest(cois, v, decays) {
  let best = -1;
  let sim = -Infinity;
  cois.forEach((c, i) => {
    if (decays && decays[i] <= 0) return;
    const s = dot(c.point, v);
    if (s > sim) {
      sim = s;
      best = i;
    }
  });
  return [best, sim];
}

/**
 * The interests a reaction leaves: the closest of its polarity moved towards it, counted (a like or a read), seen at
 * ts and weighing the larger of its weight and the reaction's (`weight`: 1 for a like or dislike, less for a read or
 * a skip); or a new one of that weight.
 */
export function react(interests, vector, positive, ts, config, weight = 1) {
  const e = unit(vector);
  const any = interests.positives[0] ?? interests.negatives[0];
  if (any && any.point.length !== e.length) {
    throw new EdgeRankerError(
      `a vector of ${e.length} numbers against interests of ${any.point.length}: replay the reactions from their texts`,
    );
  }
  const cois = positive ? interests.positives : interests.negatives;
  const [j, sim] = closest(cois, e);
  if (j >= 0 && sim >= config.threshold) {
    const c = cois[j];
    const a = Math.fround(config.shiftFactor);
    const keep = Math.fround(1 - config.shiftFactor);
    c.point = unit(c.point.map((p, i) => Math.fround(keep * p) + Math.fround(a * e[i])));
    c.viewCount += positive ? 1 : 0;
    c.lastView = Math.max(ts, c.lastView);
    c.weight = Math.max(c.weight ?? 1, weight);
  } else {
    cois.push({ point: e, viewCount: 1, viewTime: 0, lastView: ts, weight });
  }
}

/** Dwell time on a document counts towards the closest liked interest. */
export function addViewTime(interests, vector, seconds) {
  addDwell(interests.positives, unit(vector), seconds);
}

/** Dwell time to the liked interest closest to a unit vector, when their cosine reaches `threshold`. */
export function addDwell(positives, point, seconds, threshold = -Infinity) {
  const [j, sim] = closest(positives, point);
  if (j >= 0 && sim >= threshold) positives[j].viewTime += seconds;
}

/** Dwell time back from the liked interest closest to a unit vector (as addViewTime gave it there), never below 0. */
export function takeDwell(positives, point, seconds) {
  const [j] = closest(positives, point);
  if (j >= 0) positives[j].viewTime = Math.max(0, positives[j].viewTime - seconds);
}

/** How much an interest last fed at lastView still counts at now: 1 at once, 0 past the horizon. */
export function decay(lastView, now, config) {
  if (config.horizonDays === 0) return 0;
  const days = (now - lastView) / DAY;
  if (days <= 0) return 1;
  const s = config.decayRatePerDay;
  const h = config.horizonDays;
  return Math.max(0, (Math.exp(s * h) - Math.exp(s * days)) / (Math.exp(s * h) - 1));
}

/** Whether the interests alive at now order a feed; else the ranker starts cold. */
export function active(interests, now, config) {
  const living = (cois) => cois.filter((c) => decay(c.lastView, now, config) > 0).length;
  return living(interests.positives) >= config.minPositiveCois || living(interests.negatives) > 0;
}

/**
 * Each document's personal score and the parts it is made of (interest indices count from 0): the closest live
 * interest's similarity times its decay and weight, plus its relevance, less the closest disliked one's.
 */
export function personalScores(interests, docs, now, config) {
  const { positives, negatives } = interests;
  const pd = positives.map((c) => decay(c.lastView, now, config));
  const nd = negatives.map((c) => decay(c.lastView, now, config));
  let views = 0;
  let time = 0;
  positives.forEach((c, i) => {
    if (pd[i] > 0) {
      views += c.viewCount;
      time += c.viewTime;
    }
  });
  views = views || 1;
  time = time || 1;
  const relevance = positives.map((c, i) => (c.viewCount / views + c.viewTime / time) * pd[i]);
  return docs.map((doc) => {
    const [p] = closest(positives, doc, pd);
    const [n] = closest(negatives, doc, nd);
    const out = {
      positiveInterest: p >= 0 ? p : null,
      positiveSimilarity: p >= 0 ? dot(doc, positives[p].point) : 0,
      positiveDecay: p >= 0 ? pd[p] : 0,
      interestRelevance: p >= 0 ? relevance[p] : 0,
      negativeInterest: n >= 0 ? n : null,
      negativeSimilarity: n >= 0 ? dot(doc, negatives[n].point) : 0,
      negativeDecay: n >= 0 ? nd[n] : 0,
      positiveWeight: p >= 0 ? (positives[p].weight ?? 1) : 0,
      negativeWeight: n >= 0 ? (negatives[n].weight ?? 1) : 0,
    };
    out.score = out.positiveSimilarity * out.positiveDecay * out.positiveWeight + out.interestRelevance -
      out.negativeSimilarity * out.negativeDecay * out.negativeWeight;
    return out;
  });
}
