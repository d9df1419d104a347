// How close the JavaScript runtime comes to Python's golden files (npm run parity): the largest differences in
// token ids, vectors and the golden scenario's scores (its searches, then an app's next steps, a model update and a cold start),
// for bench/RESULTS.md. The tests hold them to 0 and 1e-5.
import { Encoder, MemoryStore, Ranker } from "../src/index.js";
import { MODELS, floats, rows, settings, text, value } from "../test/golden.js";

const worst = (pairs) => Math.max(0, ...pairs.map(([a, b]) => Math.abs(a - b)));
const encoders = {};
for (const name of ["semantic", "relevance"]) {
  const enc = (encoders[name] = await Encoder.load(`${MODELS}${name}`));
  const tokens = rows(`${name}_tokens.tsv`);
  const differ = tokens.filter(([b64, role, ids]) => enc.tokenize(text(b64), role === "-" ? undefined : role).join(",") !== ids);
  const diffs = [];
  for (const [b64, role, csv] of rows(`${name}_embeddings.tsv`)) {
    const v = await enc.encode(text(b64), { role: role === "-" ? undefined : role });
    diffs.push(...floats(csv).map((x, i) => [x, v[i]]));
  }
  console.log(`${name}: ${differ.length} of ${tokens.length} golden texts with other token ids; vectors of ` +
    `${rows(`${name}_embeddings.tsv`).length} texts, largest difference ${worst(diffs).toExponential(2)}`);
}
const sc = settings();
const config = { shiftFactor: +sc.shift_factor, threshold: +sc.threshold, horizonDays: +sc.horizon_days, decayRatePerDay: +sc.decay_rate_per_day };
const ranker = new Ranker(encoders.semantic, encoders.relevance, new MemoryStore(), { config });
await ranker.open();
for (const [reaction, ts, , b64, id] of rows("history.tsv")) await ranker[reaction]([id, text(b64)], { ts: +ts });
const docs = rows("documents.tsv").map(([id, , , b64]) => ({ id, text: text(b64) }));
let orders = 0;
const diffs = [];
/** One ranking against expected_NAME.tsv: whether the order is Python's, and each score by id. */
function compare(name, got) {
  const expected = rows(`expected_${name}.tsv`);
  const byId = new Map(got.map((r) => [r.id, r]));
  orders += expected.every(([, id], r) => got[r].id === id) ? 1 : 0;
  for (const [, id, total, personal] of expected) {
    diffs.push([+total, byId.get(id).score]);
    if (value(personal) !== null) diffs.push([+personal, byId.get(id).personalScore]);
  }
}
const cases = ["personal", "search", "alone", "crossing", "script", "blind", "sinking"];
for (const name of cases) {
  const query = name === "personal" ? undefined : text(sc[`${name === "alone" ? "search" : name}_text`]);
  const own = sc[`${name}_weight`];
  const personalWeight = name === "alone" ? 0 : own === undefined ? undefined : +own;
  compare(name, await ranker.rank(docs, { query, now: +sc.now, personalWeight }));
}
for (const [step, id, b64, spent] of rows("steps.tsv")) {
  if (step === "viewed") await ranker.viewed([id, text(b64)], +spent);
  else await ranker.undo(id);
}
compare("steps", await ranker.rank(docs, { now: +sc.now }));
const store = new MemoryStore();
const alone = await Ranker.load({ models: { semantic: encoders.semantic, relevance: null }, store });
for (const [step, number, b64, id] of rows("adopted.tsv")) {
  if (step === "viewed") await alone.viewed([id, text(b64)], +number);
  else await alone[step]([id, text(b64)], { ts: +number });
}
compare("adopted", await (await Ranker.load({ models: encoders, store })).rank(docs, { now: +sc.now }));
const cold = await Ranker.load({ models: encoders });
const coldDocs = rows("cold.tsv").map(([id, b64, published]) => ({ id, text: text(b64), published: JSON.parse(published) }));
compare("cold", await cold.rank(coldDocs, { now: +sc.now }));
console.log(`golden scenario: ${orders} of ${cases.length + 3} rankings in Python's order; scores largest ` +
  `difference ${worst(diffs).toExponential(2)}`);
