// The golden scenario end to end from texts: the same likes, documents and queries as Python, the same order and
// scores within 1e-5 (the JVM core's rankingFromTexts); then an app's next steps (time on a document, an undo), a
// model update (reactions stored under the semantic model alone, taken in by both), and a user with no reactions,
// whose feed is ordered by publication times written as apps write them. The scenario orders by the scores alone
// (spec/tools/golden.py SCORES_ONLY): the fold of duplicates and the sink of reacted documents, which come after the
// scores, have their own cases (spec/cases/duplicates, spec/cases/reacted).
process.env.TZ = "Asia/Kolkata"; // a publication time without a zone is UTC, whatever the machine's zone
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { Encoder, Ranker } from "../src/index.js";
import {
  CASES, MODELS, adoptedRanker, coldDocuments, documents, rows, scenarioRanker, searchOf, settings, takeSteps, text,
  value,
} from "./golden.js";

const SCORES_ONLY = { duplicates: "keep", reacted: "keep" };

// Every case runs with both forward passes: onnxruntime-web's and the plain JavaScript one.
for (const backend of ["ort", "js"]) describe(`golden scenario (${backend})`, () => {
  let ranker;
  let sc;

  before(async () => {
    sc = settings();
    const [semantic, relevance] = await Promise.all([Encoder.load(`${MODELS}semantic`, { backend }), Encoder.load(`${MODELS}relevance`, { backend })]);
    ranker = await scenarioRanker(semantic, relevance, sc);
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

  for (const name of CASES) {
    test(`golden ${name}: Python's order and scores within 1e-5`, async () => {
      same(name, await ranker.rank(documents(), { ...searchOf(sc, name), now: Number(sc.now), ...SCORES_ONLY }));
    });
  }

  test("golden steps: time on documents and an undo, then the feed, as Python", async () => {
    for (const removed of await takeSteps(ranker)) assert.ok(removed > 0, "an undo removes the document's reactions");
    same("steps", await ranker.rank(documents(), { now: Number(sc.now), ...SCORES_ONLY }));
  });

  test("golden model update: reactions stored by the semantic model alone, taken in by both, as Python", async () => {
    const both = await adoptedRanker(ranker.semantic, ranker.relevance);
    same("adopted", await both.rank(documents(), { now: Number(sc.now), ...SCORES_ONLY }));
  });

  test("golden cold start: newest first by publication times as apps write them, as Python", async () => {
    const cold = await Ranker.load({ models: { semantic: ranker.semantic, relevance: ranker.relevance } });
    same("cold", await cold.rank(coldDocuments(), { now: Number(sc.now), ...SCORES_ONLY }));
  });

  test("a like of a text the models cannot read is refused, and nothing is stored", async () => {
    const before = ranker.reactions;
    for (const [id, , , b64, unread] of rows("documents.tsv")) {
      if (unread === "1") await assert.rejects(ranker.like([id, text(b64)]), /not one the models can read/);
    }
    assert.equal(ranker.reactions, before);
  });
});
