// How close the JavaScript runtime comes to Python's golden files (npm run parity): the largest differences in
// token ids, vectors and the golden scenario's scores (its searches, then an app's next steps, a model update and a cold start),
// for bench/RESULTS.md. The tests hold them to 0 and 1e-5.
import { Encoder, Ranker } from "../src/index.js";
import {
  CASES, MODELS, adoptedRanker, coldDocuments, documents, floats, rows, scenarioRanker, searchOf, settings, takeSteps,
  text, value,
} from "../test/golden.js";

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
const ranker = await scenarioRanker(encoders.semantic, encoders.relevance, sc);
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
for (const name of CASES) compare(name, await ranker.rank(documents(), { ...searchOf(sc, name), now: +sc.now }));
await takeSteps(ranker);
compare("steps", await ranker.rank(documents(), { now: +sc.now }));
const adopted = await adoptedRanker(encoders.semantic, encoders.relevance);
compare("adopted", await adopted.rank(documents(), { now: +sc.now }));
compare("cold", await (await Ranker.load({ models: encoders })).rank(coldDocuments(), { now: +sc.now }));
console.log(`golden scenario: ${orders} of ${CASES.length + 3} rankings in Python's order; scores largest ` +
  `difference ${worst(diffs).toExponential(2)}`);
