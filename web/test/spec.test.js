// The web package against spec/: every conformance case of spec/cases (generated from the Python reference), and
// the constants its modules rank with against spec/constants.json. A failure names the rule and the case, or the
// constant.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { moduleText, TABLES } from "../scripts/spec-tables.js";
import * as constants from "../src/constants.js";
import * as diversity from "../src/diversity.js";
import { documents } from "../src/documents.js";
import * as duplicates from "../src/duplicates.js";
import * as fusion from "../src/fusion.js";
import { DEFAULT_CONFIG, decay, interestVector, personalScores, react } from "../src/interests.js";
import { bag, bm25, coverage, matched } from "../src/lexical.js";
import { SCHEMA_VERSION } from "../src/manifest.js";
import { checkOptions, checkViewTime } from "../src/ranker.js";
import * as signals from "../src/signals.js";
import { LANGUAGES } from "../src/stopwords.js";
import { splitWindows } from "../src/tokenizer.js";

const SPEC = new URL("../../spec/", import.meta.url);
const CASES = new URL("cases/", SPEC);
const SPEC_CONSTANTS = JSON.parse(readFileSync(new URL("constants.json", SPEC), "utf8"));

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const config = (overrides = {}) =>
  ({ ...DEFAULT_CONFIG, ...Object.fromEntries(Object.entries(overrides).map(([k, v]) => [camel(k), v])) });
const bags = (docs) => docs.map(bag);

function interests(input) {
  const cfg = config(input.config);
  const state = { positives: [], negatives: [] };
  for (const r of input.reactions) react(state, Float32Array.from(r.vector), r.positive, r.ts, cfg, r.weight ?? 1);
  const side = (cois) =>
    cois.map((c) => ({ point: [...c.point], view_count: c.viewCount, last_view: c.lastView, weight: c.weight }));
  const scores = personalScores(state, input.docs.map((d) => Float32Array.from(d)), input.now, cfg).map((s) => ({
    positive_interest: s.positiveInterest,
    positive_similarity: s.positiveSimilarity,
    positive_decay: s.positiveDecay,
    interest_relevance: s.interestRelevance,
    negative_interest: s.negativeInterest,
    negative_similarity: s.negativeSimilarity,
    negative_decay: s.negativeDecay,
    positive_weight: s.positiveWeight,
    negative_weight: s.negativeWeight,
    score: s.score,
  }));
  return { positives: side(state.positives), negatives: side(state.negatives), scores };
}

/** The weighted reactions a reader's events make (signals.reactions). */
function implicit(input) {
  const events = input.events.map((e) =>
    ({ docId: e.doc_id, kind: e.kind, ts: e.ts, vector: Float32Array.from(e.vector), seconds: e.seconds ?? 0 }));
  return signals.reactions(events, input.threshold).map((r) =>
    ({ doc_id: r.docId, kind: r.kind, positive: r.positive, ts: r.ts, weight: r.weight, vector: [...r.vector] }));
}

function check(input) {
  if (input.call === "view_time") checkViewTime(input.seconds);
  else if (input.call === "documents") documents(input.docs);
  else if (input.call === "ranker") {
    const defaults = { personalWeight: fusion.PERSONAL_WEIGHT, lexicalWeight: fusion.LEXICAL_WEIGHT,
      semanticQueryWeight: fusion.SEMANTIC_QUERY_WEIGHT, k: fusion.RRF_K };
    const given = Object.fromEntries(Object.entries(input.options).map(([k, v]) => [camel(k), v]));
    checkOptions({ ...defaults, ...given });
  } else throw new Error(`no such check: ${input.call}`);
}

/** Each case function of spec/tools/cases.py, as this package computes it. */
const FUNCTIONS = {
  rrf: (i) => fusion.rrf(i.scores, i.k),
  personal_lift: (i) => fusion.personalLift(i.personal, i.matched, i.known, i.weight, i.score),
  query_part: (i) => fusion.queryPart(i.score, i.lift, i.wordless),
  query_scores: (i) => fusion.queryScores(i.cosine, i.lexical, i.weight, i.semantic, i.cover, i.semantic_weight),
  neutral: (i) => fusion.neutral(i.cosine, i.unread, i.blind),
  bm25: (i) => bm25(i.query, bags(i.docs)),
  matched: (i) => matched(i.query, bags(i.docs)),
  coverage: (i) => coverage(i.query, bags(i.docs)),
  language: (i) => bag(i.terms).lang,
  decay: (i) => decay(i.last_view, i.now, config(i.config)),
  interests,
  implicit,
  interest_vectors: (i) => i.semantic.map((s, r) => [...interestVector(Float32Array.from(s), Float32Array.from(i.passages[r]))]),
  recency: (i) => fusion.recency(i.published, i.wordless, i.k),
  split_windows: (i) => splitWindows(i.ids, i.max_length, i.windows, i.head),
  check,
  fold: (i) => {
    const { order, duplicateOf } = duplicates.fold(i.order, i.vectors.map((v) => Float32Array.from(v)), i.threshold, i.window);
    return { order, duplicate_of: duplicateOf };
  },
  sink: (i) => duplicates.sink(i.order, i.reacted, i.how, i.folded, i.end),
  diversify: (i) => diversity.diversify(i.order, i.score, i.group, i.weight, i.window),
};

function close(got, want, tolerance, where) {
  if (want === null || typeof want === "string" || typeof want === "boolean") {
    assert.equal(got, want, where);
  } else if (Array.isArray(want)) {
    assert.equal(got.length, want.length, `${where}: length`);
    want.forEach((w, i) => close(got[i], w, tolerance, `${where}[${i}]`));
  } else if (typeof want === "object") {
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${where}: keys`);
    for (const key of Object.keys(want)) close(got[key], want[key], tolerance, `${where}.${key}`);
  } else {
    assert.ok(Math.abs(got - want) <= tolerance, `${where}: ${got} != ${want} (tolerance ${tolerance})`);
  }
}

const cases = readdirSync(CASES).sort().flatMap((rule) =>
  readdirSync(new URL(`${rule}/`, CASES)).sort().map((file) => [rule, file.replace(/\.json$/, "")]));

test("spec/ holds at least 20 cases in at least 6 rules", () => {
  assert.ok(cases.length >= 20 && new Set(cases.map(([rule]) => rule)).size >= 6);
});

for (const [rule, name] of cases) {
  test(`rule ${rule}, case ${name}`, () => {
    const c = JSON.parse(readFileSync(new URL(`${rule}/${name}.json`, CASES), "utf8"));
    const run = FUNCTIONS[c.function];
    assert.ok(run, `no runner for ${c.function}`);
    if ("error" in c) {
      assert.throws(() => run(c.input), (e) => e.name === "EdgeRankerError" && e.message === c.error,
        `rule ${rule}, case ${name}: the refusal's words differ from "${c.error}"`);
    } else {
      const got = JSON.parse(JSON.stringify(run(c.input), (_, v) => (ArrayBuffer.isView(v) ? [...v] : v)));
      close(got, c.expected, c.tolerance, `rule ${rule}, case ${name}`);
    }
  });
}

test("the function words are spec/stopwords' list, in its languages' order", () => {
  const mine = readFileSync(TABLES.stopwords.target, "utf8");
  const tsv = readFileSync(TABLES.stopwords.source, "utf8");
  assert.equal(mine, moduleText("stopwords", tsv), "run: node scripts/spec-tables.js");
  const listed = [...new Set(tsv.split("\n").filter((l) => l && !l.startsWith("#")).map((l) => l.split("\t")[0]))];
  assert.deepEqual(listed, LANGUAGES);
});

test("the constants module is spec/constants.json's", () => {
  for (const [name, { value }] of Object.entries(SPEC_CONSTANTS)) assert.equal(constants[name], value, name);
  assert.deepEqual(Object.keys(constants).sort(), Object.keys(SPEC_CONSTANTS).sort());
});

/**
 * The cosine fold folds at by default, found by what it does: the spec's value (as float32) folds and the float32
 * just below it does not; else a value that names no constant.
 */
function foldingCosine() {
  const folds = (c) => duplicates.fold([0, 1], [Float32Array.of(1, 0), Float32Array.of(c, Math.sqrt(1 - c * c))]).duplicateOf[1] === 0;
  const value = SPEC_CONSTANTS.DUPLICATE_COSINE.value;
  const bits = new Int32Array(Float32Array.of(value).buffer);
  bits[0] -= 1;
  const below = new Float32Array(bits.buffer)[0];
  return folds(value) && !folds(below) ? value : `not ${value}`;
}

/**
 * How many documents fold by default, found by what fold does: of FOLD_WINDOW + 1 documents, the last of the window
 * folds under the first and the one past it, the same story, does not; else a value that names no constant.
 */
function foldWindow() {
  const window = SPEC_CONSTANTS.FOLD_WINDOW.value;
  const story = Float32Array.of(1, 0);
  const vectors = Array.from({ length: window + 1 }, (_, i) => (i === 0 || i >= window - 1 ? story : null));
  const { duplicateOf } = duplicates.fold(vectors.map((_, i) => i), vectors);
  return duplicateOf[window - 1] === 0 && duplicateOf[window] === -1 ? window : `not ${window}`;
}

/**
 * How many documents diversify re-ranks by default, found by what it does: of DIVERSITY_WINDOW + 1 documents of one
 * interest and equal scores, the last of the window, of a second interest, takes the second place, and the one past
 * it does not; else a value that names no constant.
 */
function diversityWindow() {
  const window = SPEC_CONSTANTS.DIVERSITY_WINDOW.value;
  const second = (other) => {
    const order = Array.from({ length: window + 1 }, (_, i) => i);
    return diversity.diversify(order, order.map(() => 1), order.map((i) => (i === other ? 1 : 0)), 1)[1];
  };
  return second(window - 1) === window - 1 && second(window) === 1 ? window : `not ${window}`;
}

test("the modules rank with the spec's constants", () => {
  const used = {
    PERSONAL_WEIGHT: fusion.PERSONAL_WEIGHT,
    LEXICAL_WEIGHT: fusion.LEXICAL_WEIGHT,
    SEMANTIC_QUERY_WEIGHT: fusion.SEMANTIC_QUERY_WEIGHT,
    RRF_K: fusion.RRF_K,
    SINK: fusion.SINK,
    SHIFT_FACTOR: DEFAULT_CONFIG.shiftFactor,
    THRESHOLD: DEFAULT_CONFIG.threshold,
    HORIZON_DAYS: DEFAULT_CONFIG.horizonDays,
    DECAY_RATE_PER_DAY: DEFAULT_CONFIG.decayRatePerDay,
    MIN_POSITIVE_COIS: DEFAULT_CONFIG.minPositiveCois,
    MANIFEST_SCHEMA_VERSION: SCHEMA_VERSION,
    READ_MIN_S: signals.READ_MIN_S,
    READ_FULL_S: signals.READ_FULL_S,
    READ_WEIGHT: signals.readWeight(signals.READ_FULL_S),
    SKIP_AFTER: signals.SKIP_AFTER,
    SKIP_WEIGHT: signals.SKIP_WEIGHT,
    DUPLICATE_COSINE: foldingCosine(),
    FOLD_WINDOW: foldWindow(),
    DIVERSITY: diversity.DIVERSITY,
    DIVERSITY_WINDOW: diversityWindow(),
  };
  for (const [name, value] of Object.entries(used)) assert.equal(value, SPEC_CONSTANTS[name].value, name);
});
