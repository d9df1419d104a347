// Several interests near the top of a feed, as the Python runtime's diversity.py (spec/rules/diversity.md): the
// interests order a feed by each document's personal score, so the topic the reader spent the most time on fills the
// top and a second one starts below it. diversify re-ranks the head of the feed greedily: each next place goes to the
// document whose personal score, less the weight for every document above it closest to the same liked interest, is
// the highest (ties: the better ranked). At weight 0 the order is the scores'; a document of no group (-1) is never
// lowered, and one without a finite score (the models cannot read it) follows the others within the window; the rest
// of the feed keeps its order. Orders are document indices, best first.
import { DIVERSITY_WINDOW } from "./constants.js";

export { DIVERSITY, DIVERSITY_WINDOW } from "./constants.js";

/**
 * `order` (document indices, best first) with its first `window` documents re-ranked: each next the one of the
 * highest `score` less `weight` times the documents of its `group` (its closest liked interest, -1 for none: never
 * lowered) placed above it; ties go to the better ranked. `score` and `group` are by document index. The documents of
 * the window without a finite score (the models cannot read them) are taken out first and follow the others within
 * the window, in their order; a lowered score that overflows counts as the lowest finite number, so a huge weight
 * gives strict turns and each document is placed once.
 */
export function diversify(order, score, group, weight, window = DIVERSITY_WINDOW) {
  const top = order.slice(0, Math.max(window, 0));
  const head = top.filter((i) => Number.isFinite(score[i]));
  const unscored = top.filter((i) => !Number.isFinite(score[i]));
  const rest = order.slice(top.length);
  if (!(weight > 0) || head.length < 2) return [...head, ...unscored, ...rest];
  const counts = new Map(); // documents placed, by group (never -1)
  const grouped = (g) => typeof g === "number" && g >= 0;
  // a huge weight lowers to -Infinity: clamped to the lowest finite number, still a candidate
  const lowered = (k) => {
    const g = group[head[k]];
    return Math.max(score[head[k]] - (grouped(g) ? weight * (counts.get(g) ?? 0) : 0), -Number.MAX_VALUE);
  };
  const placed = head.map(() => false);
  const picked = [];
  for (let place = 0; place < head.length; place++) {
    let best = -1;
    let bestValue = 0;
    for (let k = 0; k < head.length; k++) {
      if (placed[k]) continue;
      const v = lowered(k);
      if (best < 0 || v > bestValue) { // strictly higher: the first of equals, the better ranked
        best = k;
        bestValue = v;
      }
    }
    picked.push(head[best]);
    placed[best] = true;
    const g = group[head[best]];
    if (grouped(g)) counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return [...picked, ...unscored, ...rest];
}
