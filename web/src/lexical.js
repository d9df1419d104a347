// BM25 of a query over the documents being ranked, and how many of its words they hold: the Python runtime's
// lexical.py (Lucene's BM25, k1 = 1.2, b = 0.75), on the words text.terms gives.
import { B, K1 } from "./constants.js";

/** A text's term counts. */
export function counts(words) {
  const out = new Map();
  for (const w of words) out.set(w, (out.get(w) ?? 0) + 1);
  return out;
}

const idf = (n, df) => Math.log1p((n - df + 0.5) / (df + 0.5));
const frequency = (term, docs) => docs.reduce((df, d) => df + (d.has(term) ? 1 : 0), 0);

/** BM25 of each document (term counts) for the query's distinct words; 0 for one sharing none. */
export function bm25(query, docs) {
  const n = docs.length;
  const scores = new Array(n).fill(0);
  if (!n || !query.length) return scores;
  const lengths = docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
  const mean = lengths.reduce((a, l) => a + l / n, 0);
  for (const t of new Set(query)) {
    const df = frequency(t, docs);
    if (!df) continue;
    const w = idf(n, df);
    docs.forEach((d, i) => {
      const tf = d.get(t) ?? 0;
      scores[i] += (w * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[i]) / Math.max(mean, 1e-9)));
    });
  }
  return scores;
}

/** Each document's idf-weighted share of the query's distinct words that some document holds. */
export function matched(query, docs) {
  const n = docs.length;
  const out = new Array(n).fill(0);
  let total = 0;
  for (const t of new Set(query)) {
    const df = frequency(t, docs);
    if (!df) continue;
    const w = idf(n, df);
    total += w;
    docs.forEach((d, i) => {
      out[i] += d.has(t) ? w : 0;
    });
  }
  return out.map((x) => (total > 0 ? x / total : 0));
}

/** The share of the query's distinct words at least one document holds; 1 for a query without words. */
export function coverage(query, docs) {
  const wanted = [...new Set(query)];
  if (!wanted.length) return 1;
  return wanted.filter((t) => docs.some((d) => d.has(t))).length / wanted.length;
}

/** (x - mean) / std over the documents; all zeros when they are all equal. */
export function standardise(x) {
  const mean = x.reduce((a, v) => a + v / x.length, 0);
  const sd = Math.sqrt(x.reduce((a, v) => a + ((v - mean) * (v - mean)) / x.length, 0));
  return x.map((v) => (sd > 1e-12 ? (v - mean) / sd : 0));
}
