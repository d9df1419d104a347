// Implicit signals, as the Python runtime's signals.py (spec/rules/implicit.md): what a reader opened, read and
// scrolled past, as reactions weaker than a like or a dislike. The store keeps each showing (Ranker.shown) and each
// view (Ranker.viewed) as a signal; this rule turns them, with the likes and dislikes, into the weighted reactions
// the interests are replayed from:
// - a like or dislike is a reaction of weight 1;
// - a document read long enough and never liked or disliked is a like of weight READ_WEIGHT times the share of
//   READ_FULL_S its views add up to (at least READ_MIN_S seconds);
// - a document shown SKIP_AFTER times, never opened and never liked or disliked, is a dislike of weight SKIP_WEIGHT,
//   unless it is as close as the merge threshold to a document the user liked or read: skipping never buries a topic
//   the user also reads.
import { READ_FULL_S, READ_MIN_S, READ_WEIGHT, SKIP_AFTER, SKIP_WEIGHT } from "./constants.js";
import { dot } from "./interests.js";

export { READ_FULL_S, READ_MIN_S, READ_WEIGHT, SKIP_AFTER, SKIP_WEIGHT } from "./constants.js";

/** The reactions a user gives in words; the signals the store keeps beside them. */
export const EXPLICIT = Object.freeze(["like", "dislike"]);
export const IMPLICIT = Object.freeze(["shown", "view"]);

/** A read's weight: 0 under READ_MIN_S seconds, else READ_WEIGHT times the share of READ_FULL_S read. */
export function readWeight(seconds) {
  return seconds < READ_MIN_S ? 0 : READ_WEIGHT * Math.min(1, seconds / READ_FULL_S);
}

/**
 * The weighted reactions `events` ({docId, kind, ts, vector, seconds?}, in the order they came) make, as
 * {docId, kind: "like" | "dislike" | "read" | "skip", positive, ts, weight, vector}, in the order of their times (at
 * one time, as they came). `threshold`: the interests' merge cosine, how close a skip may come to a read or liked
 * document.
 */
export function reactions(events, threshold) {
  events = [...events];
  const explicit = new Set(events.filter((e) => EXPLICIT.includes(e.kind)).map((e) => e.docId));
  const opened = new Set(events.filter((e) => e.kind === "view").map((e) => e.docId));
  const out = []; // [ts, position, reaction]
  const read = new Map(); // per document: seconds so far, its last view, where that came
  const shown = new Map(); // per document: its showings and where each came
  const reaction = (e, kind, positive, ts, weight, vector = e.vector) => ({ docId: e.docId, kind, positive, ts, weight, vector });
  events.forEach((e, n) => {
    if (EXPLICIT.includes(e.kind)) out.push([e.ts, n, reaction(e, e.kind, e.kind === "like", e.ts, 1)]);
    else if (explicit.has(e.docId)) return;
    else if (e.kind === "view") read.set(e.docId, [(read.get(e.docId)?.[0] ?? 0) + (e.seconds ?? 0), e, n]);
    else if (e.kind === "shown" && !opened.has(e.docId)) {
      if (!shown.has(e.docId)) shown.set(e.docId, []);
      shown.get(e.docId).push([e, n]);
    }
  });
  for (const [seconds, last, n] of read.values()) {
    const weight = readWeight(seconds);
    if (weight > 0) out.push([last.ts, n, reaction(last, "read", true, last.ts, weight)]);
  }
  const liked = out.filter(([, , r]) => r.positive).map(([, , r]) => r.vector);
  for (const showings of shown.values()) {
    if (showings.length < SKIP_AFTER) continue;
    const [e, n] = showings[SKIP_AFTER - 1];
    const vector = showings[showings.length - 1][0].vector;
    const near = liked.some((v) => v.length === vector.length && dot(v, vector) >= threshold);
    if (!near) out.push([e.ts, n, reaction(e, "skip", false, e.ts, SKIP_WEIGHT, vector)]);
  }
  out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return out.map(([, , r]) => r);
}
