// The golden scenario end to end from texts: the same likes, documents and queries as Python, the same order and
// scores within 1e-5 (the JVM core's rankingFromTexts); then an app's next steps (time on a document, an undo), a
// model update (reactions stored under the semantic model alone, taken in by both), and a user with no reactions,
// whose feed is ordered by publication times written as apps write them.
process.env.TZ = "Asia/Kolkata"; // a publication time without a zone is UTC, whatever the machine's zone
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Encoder, MemoryStore, Ranker } from "../src/index.js";
import { MODELS, rows, settings, text, value } from "./golden.js";

const CASES = ["personal", "search", "crossing", "script", "blind", "alone", "sinking"];
let ranker;
let sc;

before(async () => {
  sc = settings();
  const config = {
    shiftFactor: Number(sc.shift_factor),
    threshold: Number(sc.threshold),
    horizonDays: Number(sc.horizon_days),
    decayRatePerDay: Number(sc.decay_rate_per_day),
  };
  const [semantic, relevance] = await Promise.all([Encoder.load(`${MODELS}semantic`), Encoder.load(`${MODELS}relevance`)]);
  ranker = new Ranker(semantic, relevance, new MemoryStore(), { config });
  await ranker.open();
  for (const [reaction, ts, , b64, id] of rows("history.tsv")) {
    await ranker[reaction]([id, text(b64)], { ts: Number(ts) });
  }
});

test("the defaults and the model key are Python's", () => {
  assert.equal(ranker.modelKey, sc.model_key);
  assert.equal(ranker.personalWeight, Number(sc.personal_weight));
  assert.equal(ranker.lexicalWeight, Number(sc.lexical_weight));
  assert.equal(ranker.semanticQueryWeight, Number(sc.semantic_query_weight));
  assert.equal(ranker.k, Number(sc.k));
});

/** A ranking against Python's expected_NAME.tsv: the same order, each score within 1e-5, contributions adding up. */
function same(name, got) {
  const expected = rows(`expected_${name}.tsv`);
  assert.equal(got.length, expected.length);
  expected.forEach(([rank, id, total, personal, relevance, lexical, semantic], r) => {
    const g = got[r];
    const at = `${name} rank ${rank}`;
    assert.equal(g.id, id, `${at}: ${g.id} instead of ${id}`);
    const near = (a, b, what) => {
      if (b === null) return assert.equal(a, null, `${at}: ${what}`);
      assert.ok(Math.abs(a - b) <= 1e-5, `${at}: ${what} ${a} vs ${b}`);
    };
    near(g.score, value(total), "score");
    near(g.personalScore, value(personal), "personal score");
    near(g.relevanceScore, value(relevance), "relevance cosine");
    near(g.lexicalScore, value(lexical), "BM25");
    near(g.semanticScore, value(semantic), "semantic cosine");
    const sum = Object.values(g.contributions).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - g.score) <= 1e-12, `${at}: contributions add up to the score`);
  });
}

/** The personal weight a case ranks at: 0 for "alone", a case's own where the scenario gives one, else the default. */
function weightOf(name) {
  if (name === "alone") return 0;
  const own = sc[`${name}_weight`];
  return own === undefined ? undefined : Number(own);
}

const feed = () => rows("documents.tsv").map(([id, , , b64]) => ({ id, text: text(b64) }));

for (const name of CASES) {
  test(`golden ${name}: Python's order and scores within 1e-5`, async () => {
    const query = name === "personal" ? undefined : text(sc[`${name === "alone" ? "search" : name}_text`]);
    same(name, await ranker.rank(feed(), { query, now: Number(sc.now), personalWeight: weightOf(name) }));
  });
}

test("golden steps: time on documents and an undo, then the feed, as Python", async () => {
  for (const [step, id, b64, spent] of rows("steps.tsv")) {
    if (step === "viewed") await ranker.viewed([id, text(b64)], Number(spent));
    else assert.ok((await ranker.undo(id)) > 0, `undo ${id}`);
  }
  same("steps", await ranker.rank(feed(), { now: Number(sc.now) }));
});

test("golden model update: reactions stored by the semantic model alone, taken in by both, as Python", async () => {
  const store = new MemoryStore();
  const alone = await Ranker.load({ models: { semantic: ranker.semantic, relevance: null }, store });
  for (const [step, number, b64, id] of rows("adopted.tsv")) {
    if (step === "viewed") await alone.viewed([id, text(b64)], Number(number));
    else await alone[step]([id, text(b64)], { ts: Number(number) });
  }
  const both = await Ranker.load({ models: { semantic: ranker.semantic, relevance: ranker.relevance }, store });
  same("adopted", await both.rank(feed(), { now: Number(sc.now) }));
});

test("golden cold start: newest first by publication times as apps write them, as Python", async () => {
  const cold = await Ranker.load({ models: { semantic: ranker.semantic, relevance: ranker.relevance } });
  const docs = rows("cold.tsv").map(([id, b64, published]) => ({ id, text: text(b64), published: JSON.parse(published) }));
  same("cold", await cold.rank(docs, { now: Number(sc.now) }));
});

test("a like of a text the models cannot read is refused, and nothing is stored", async () => {
  const before = ranker.reactions;
  for (const [id, , , b64, unread] of rows("documents.tsv")) {
    if (unread === "1") await assert.rejects(ranker.like([id, text(b64)]), /not one the models can read/);
  }
  assert.equal(ranker.reactions, before);
});
