// The golden scenario end to end from texts: the same likes, documents and queries as Python, the same order and
// scores within 1e-5 (the JVM core's rankingFromTexts).
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Encoder, MemoryStore, Ranker } from "../src/index.js";
import { MODELS, rows, settings, text, value } from "./golden.js";

const CASES = ["personal", "search", "crossing", "script", "blind", "alone"];
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
  for (const [reaction, ts, , b64] of rows("history.tsv")) {
    await ranker[reaction](["h" + ts, text(b64)], { ts: Number(ts) });
  }
});

test("the defaults and the model key are Python's", () => {
  assert.equal(ranker.modelKey, sc.model_key);
  assert.equal(ranker.personalWeight, Number(sc.personal_weight));
  assert.equal(ranker.lexicalWeight, Number(sc.lexical_weight));
  assert.equal(ranker.semanticQueryWeight, Number(sc.semantic_query_weight));
  assert.equal(ranker.k, Number(sc.k));
});

for (const name of CASES) {
  test(`golden ${name}: Python's order and scores within 1e-5`, async () => {
    const docs = rows("documents.tsv").map(([id, , , b64]) => ({ id, text: text(b64) }));
    const query = name === "personal" ? undefined : text(sc[`${name === "alone" ? "search" : name}_text`]);
    const got = await ranker.rank(docs, { query, now: Number(sc.now), personalWeight: name === "alone" ? 0 : undefined });
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
  });
}

test("a like of a text the models cannot read is refused, and nothing is stored", async () => {
  const before = ranker.reactions;
  for (const [id, , , b64, unread] of rows("documents.tsv")) {
    if (unread === "1") await assert.rejects(ranker.like([id, text(b64)]), /not one the models can read/);
  }
  assert.equal(ranker.reactions, before);
});
