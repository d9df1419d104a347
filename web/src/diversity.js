// Several interests near the top of a feed, as the Python runtime's diversity.py (spec/rules/diversity.md): the
// interests order a feed by each document's personal score, so the topic the reader spent the most time on fills the
// top and a second one starts below it. diversify re-ranks the head of the feed greedily: each next place goes to the
// document whose personal score, less the weight for every document above it closest to the same liked interest, is
// the highest (ties: the better ranked). At weight 0 the order is the scores'; a document close to no liked interest
// (group -1) is never lowered; the rest of the feed keeps its order. Orders are document indices, best first.
import { DIVERSITY_WINDOW } from "./constants.js";

export { DIVERSITY, DIVERSITY_WINDOW } from "./constants.js";

/**
 * `order` (document indices, best first) with its first `window` documents re-ranked: each next the one of the
 * highest `score` less `weight` times the documents of its `group` (its closest liked interest, -1 for none: never
 * lowered) placed above it; ties go to the better ranked. `score` and `group` are by document index; a score not
 * finite (a document the models cannot read) makes the lowest of candidates, still placed in turn.
 */
export function diversify(order, score, group, weight, window = DIVERSITY_WINDOW) {
  const head = order.slice(0, Math.max(window, 0));
  if (!(weight > 0) || head.length < 2) return [...order];
  const left = head.map((i) => (Number.isFinite(score[i]) ? score[i] : -1e300)); // picked ones are -Infinity
  const counts = new Map(); // documents placed, by group (never -1)
  const grouped = (g) => typeof g === "number" && g >= 0;
  const lowered = (k) => {
    const g = group[head[k]];
    return left[k] - (grouped(g) ? weight * (counts.get(g) ?? 0) : 0);
  };
  const picked = [];
  for (let place = 0; place < head.length; place++) {
    let best = 0;
    let bestValue = lowered(0);
    for (let k = 1; k < head.length; k++) {
      const v = lowered(k);
      if (v > bestValue) { // strictly higher: the first of equals, the better ranked
        best = k;
        bestValue = v;
      }
    }
    picked.push(head[best]);
    left[best] = -Infinity;
    const g = group[head[best]];
    if (grouped(g)) counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return [...picked, ...order.slice(head.length)];
}
