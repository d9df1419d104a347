// How a query and the interests meet in one score (Python's fusion.py): the query decides what is relevant, the
// interests order within it; a feed without a query is one order fused as 1 / (k + rank).
import { SINK } from "./constants.js";
import { standardise } from "./lexical.js";

export { LEXICAL_WEIGHT, PERSONAL_WEIGHT, RRF_K, SEMANTIC_QUERY_WEIGHT, SINK } from "./constants.js";

/** Document indices by score, highest first, ties in input order. */
export function order(scores) {
  return scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
}

/** Each document's 1 / (k + rank), rank 1 for the highest score. */
export function rrf(scores, k) {
  const out = new Array(scores.length);
  order(scores).forEach((i, r) => {
    out[i] = 1 / (k + r + 1);
  });
  return out;
}

/**
 * What orders documents for a query: the relevance cosine, plus BM25 at weight x the share of the query's words the
 * documents hold, plus the semantic cosine at semanticWeight x the share they lack, each standardised.
 */
export function queryScores(cosine, lexical, weight, semantic, cover, semanticWeight) {
  const lexicalShare = lexical ? weight * cover : 0;
  const semanticShare = semantic ? semanticWeight * (1 - cover) : 0;
  if (!lexicalShare && !semanticShare) return cosine;
  const out = standardise(cosine);
  const l = lexicalShare ? standardise(lexical) : null;
  const m = semanticShare ? standardise(semantic) : null;
  return out.map((v, i) => v + (l ? lexicalShare * l[i] : 0) + (m ? semanticShare * m[i] : 0));
}

/**
 * The cold start's order as 1 / (k + rank): the newest first, documents without a date after those with one, ties in
 * input order, a document without a word last (spec/rules/cold-start.md).
 */
export function recency(published, wordless, k) {
  const times = published.map((p, i) => (p ?? -1e18) - i * 1e-9);
  return rrf(times.map((t, i) => (wordless[i] ? -Infinity : t)), k);
}

/**
 * A query's cosines where those that say nothing are neutral: all 0 when the models cannot read the query (blind),
 * else those of the documents they cannot read at the mean of the others'.
 */
export function neutral(cosine, unread, blind) {
  if (blind) return cosine.map(() => 0);
  const known = cosine.filter((_, i) => !unread[i]);
  const mean = known.length ? known.reduce((a, b) => a + b, 0) / known.length : 0;
  return cosine.map((c, i) => (unread[i] ? mean : c));
}

/**
 * What the interests add to a query score: weight x the share of the query's words held x (personal - median). An
 * answer (a document holding a query word) sinks at most SINK of the way down to the highest score below its own of a
 * document that holds none, so a non-answer never overtakes an answer.
 */
export function personalLift(personal, matchedShare, known, weight, scores) {
  const judged = personal.filter((_, i) => known[i]).sort((a, b) => a - b);
  if (weight === 0 || !judged.length) return personal.map(() => 0);
  const h = judged.length >> 1;
  const median = judged.length % 2 ? judged[h] : (judged[h - 1] + judged[h]) / 2;
  const others = scores.filter((_, i) => matchedShare[i] <= 0).sort((a, b) => a - b);
  return personal.map((p, i) => {
    const lift = known[i] ? weight * matchedShare[i] * (p - median) : 0;
    if (!(matchedShare[i] > 0 && lift < 0)) return lift;
    const below = lowerBound(others, scores[i]);
    return below > 0 ? Math.max(lift, -SINK * (scores[i] - others[below - 1])) : lift;
  });
}

/** How many values of the ascending array are below x. */
function lowerBound(sorted, x) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The query's part of each score; a document without a word one below every other's whole score, so it goes last. */
export function queryPart(scores, lift, wordless) {
  let floor = Infinity;
  scores.forEach((s, i) => {
    if (!wordless[i]) floor = Math.min(floor, s + lift[i]);
  });
  floor = Number.isFinite(floor) ? floor - 1 : 0;
  return scores.map((s, i) => (wordless[i] ? floor : s));
}
