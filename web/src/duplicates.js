// The same story told twice, and what the user already saw: the last step of a ranking, after the scores, as the
// Python runtime's duplicates.py.
// - Duplicates folded (spec/rules/duplicates.md): walking the first FOLD_WINDOW documents of the ranking best first,
//   a document whose semantic cosine to a document kept above it reaches DUPLICATE_COSINE is a duplicate of the
//   closest such one (ties: the better ranked); the kept documents keep their order, the documents past the window
//   follow them, and the duplicates follow all the others, in the order of their kept documents (then their own).
// - Reacted documents sunk (spec/rules/reacted.md): the documents the user liked, disliked or opened go after the
//   others ("sink") or leave the ranking ("leave_out"); "keep" leaves the order as it is.
// Orders are document indices, best first.
import { DUPLICATE_COSINE, FOLD_WINDOW } from "./constants.js";
import { EdgeRankerError } from "./errors.js";
import { show } from "./text.js";

export { DUPLICATE_COSINE, FOLD_WINDOW } from "./constants.js";

/** What rank's duplicates option takes, as Python's FOLDS. */
export const FOLDS = Object.freeze(["fold", "keep"]);
/** What rank's reacted option takes, as Python's REACTED. */
export const REACTED = Object.freeze(["sink", "keep", "leave_out"]);

/** A string as Python's repr writes it (single quotes, unless it holds one and no double quote). */
function repr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/[\\\n\r\t]/g, (c) => ({ "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]);
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

/** An option refused in Python's words unless it is one of `allowed`: "NAME must be one of 'a', 'b', got 'x'". */
export function choice(name, allowed, value) {
  if (allowed.includes(value)) return value;
  const got = typeof value === "string" ? repr(value) : show(value);
  throw new EdgeRankerError(`${name} must be one of ${allowed.map(repr).join(", ")}, got ${got}`);
}

/** The cosine of two unit vectors as float32, as numpy's float32 cosines are compared with the threshold. */
function cosine(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return Math.fround(s);
}

/**
 * `order` (document indices, best first) with the duplicates among its first `window` documents after all the
 * others, and each document's kept document (-1 for a kept one): {order, duplicateOf}. `vectors`: unit semantic
 * vectors, one per document; a null one (a text the models cannot read, or without a word) neither folds nor is
 * folded under. The documents past the window neither fold nor are folded under: they follow the window's kept
 * documents, before its duplicates. Each document of the window is compared with the kept ones above it: at most
 * window * (window - 1) / 2 cosines.
 */
export function fold(order, vectors, threshold = DUPLICATE_COSINE, window = FOLD_WINDOW) {
  const of = new Array(vectors.length).fill(-1);
  const head = order.slice(0, window);
  if (head.length < 2) return { order: [...order], duplicateOf: of };
  const limit = Math.fround(threshold);
  const kept = []; // the window's kept documents with a vector, best first
  const folded = new Set();
  for (const i of head) {
    let best = -1;
    let bestSim = -Infinity;
    if (vectors[i]) {
      for (const j of kept) { // the closest kept document above; ties: the better ranked
        const s = cosine(vectors[i], vectors[j]);
        if (s >= limit && s > bestSim) {
          bestSim = s;
          best = j;
        }
      }
    }
    if (best >= 0) {
      of[i] = best;
      folded.add(i);
    } else if (vectors[i]) kept.push(i);
  }
  const place = new Map(head.map((i, r) => [i, r]));
  const duplicates = head.filter((i) => folded.has(i)).sort((a, b) => place.get(of[a]) - place.get(of[b])); // stable: then their own order
  return { order: [...head.filter((i) => !folded.has(i)), ...order.slice(window), ...duplicates], duplicateOf: of };
}

/**
 * The fold's order with the documents the scores put last (`end`: no word; for the interests and a query, one the
 * models cannot read) after the duplicates: they go last, whatever comes.
 */
export function last(order, end) {
  return [...order.filter((i) => !end[i]), ...order.filter((i) => end[i])];
}

/**
 * `order` with the `reacted` documents (a mask) after the others ("sink") or left out ("leave_out"); the duplicates
 * (`folded` >= 0) after those, and what the scores put last (`end`, as last) after all; "keep": as it is.
 */
export function sink(order, reacted, how, folded, end) {
  if (how === "keep" || !reacted.some(Boolean)) return [...order];
  if (how === "leave_out") return order.filter((i) => !reacted[i] && !(folded[i] >= 0 && reacted[folded[i]])); // with the copies folded under them
  const group = (i) => (end[i] ? 3 : folded[i] >= 0 ? 2 : reacted[i] ? 1 : 0); // the others, the reacted, the duplicates, the end
  const out = [];
  for (let g = 0; g < 4; g++) for (const i of order) if (group(i) === g) out.push(i);
  return out;
}
