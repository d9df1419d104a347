// BM25 of a query over the documents being ranked, and how many of its words they hold: the Python runtime's
// lexical.py (Lucene's BM25, k1 = 1.2, b = 0.75), on the words text.terms gives. A query word a document holds counts
// only where it is not a function word of the document's language (spec/rules/stopwords.md): "in" is English and
// German, and a German text holding it answers nothing of "budget debate in parliament"; in a feed that mixes
// languages such words made the query's language, not its meaning, decide.
import { B, K1 } from "./constants.js";
import { functionBits, LANGUAGES } from "./stopwords.js";

/**
 * The index in LANGUAGES of the language whose function words a text's term counts hold most, the first in that
 * order on a tie; -1 for a text holding none (another language, or only names and numbers).
 */
function language(terms) {
  const totals = LANGUAGES.map(() => 0);
  for (const [term, n] of terms) {
    const bits = functionBits(term);
    for (let l = 0; l < totals.length; l++) if ((bits >> l) & 1) totals[l] += n;
  }
  const first = totals.indexOf(Math.max(...totals));
  return totals[first] > 0 ? first : -1;
}

/**
 * A text's term counts and its language (language), found once per text: the ranker caches a document's bag, and a
 * search box ranks the same feed on every keystroke.
 */
export function bag(words) {
  const terms = new Map();
  for (const w of words) terms.set(w, (terms.get(w) ?? 0) + 1);
  return { terms, lang: language(terms) };
}

/** A document's count of a query term as content: 0 where the term is a function word of the document's language. */
const held = (term, doc) => (doc.lang >= 0 && (functionBits(term) >> doc.lang) & 1 ? 0 : (doc.terms.get(term) ?? 0));
const idf = (n, df) => Math.log1p((n - df + 0.5) / (df + 0.5));
const frequency = (term, docs) => docs.reduce((df, d) => df + (held(term, d) ? 1 : 0), 0);

/** BM25 of each document (bag) for the query's distinct words; 0 for one sharing none. */
export function bm25(query, docs) {
  const n = docs.length;
  const scores = new Array(n).fill(0);
  if (!n || !query.length) return scores;
  const lengths = docs.map((d) => [...d.terms.values()].reduce((a, b) => a + b, 0));
  const mean = lengths.reduce((a, l) => a + l / n, 0);
  for (const t of new Set(query)) {
    const df = frequency(t, docs);
    if (!df) continue;
    const w = idf(n, df);
    docs.forEach((d, i) => {
      const tf = held(t, d);
      scores[i] += (w * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[i]) / Math.max(mean, 1e-9)));
    });
  }
  return scores;
}

/** Each document's idf-weighted share of the query's distinct words that some document holds, each as content. */
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
      out[i] += held(t, d) ? w : 0;
    });
  }
  return out.map((x) => (total > 0 ? x / total : 0));
}

/**
 * The share of the query's distinct content words (a function word of no language) that at least one document holds;
 * 1 for a query without such words (nothing says it is in another language).
 */
export function coverage(query, docs) {
  const content = [...new Set(query)].filter((t) => !functionBits(t));
  if (!content.length) return 1;
  return content.filter((t) => docs.some((d) => held(t, d))).length / content.length;
}

/** (x - mean) / std over the documents; all zeros when they are all equal. */
export function standardise(x) {
  const mean = x.reduce((a, v) => a + v / x.length, 0);
  const sd = Math.sqrt(x.reduce((a, v) => a + ((v - mean) * (v - mean)) / x.length, 0));
  return x.map((v) => (sd > 1e-12 ? (v - mean) / sd : 0));
}
