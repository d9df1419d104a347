// The Ranker as an app uses it: the Python API's calls and refusals, contributions that add up, a store that fails
// losing nothing, reactions stored under other models taken into these, and what a reader shown and viewed teaching
// the feed (spec/rules/implicit.md).
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { EdgeRankerError, Encoder, MemoryStore, Ranker, Unlearnable } from "../src/index.js";
import { diversify } from "../src/diversity.js";
import { READ_WEIGHT, SKIP_WEIGHT, readWeight } from "../src/signals.js";
import { MODELS } from "./golden.js";

const FEED = [
  { id: "space-1", text: "NASA launches a new rocket to the Moon with four astronauts on board." },
  { id: "space-2", text: "Die Raumsonde erreicht den Mars nach einer Reise von sieben Monaten." },
  { id: "food-1", text: "A simple tomato soup recipe with basil and garlic, ready in twenty minutes." },
  { id: "food-2", text: "Recette de la tarte aux pommes : pâte brisée, pommes et un peu de cannelle." },
  { id: "sport-1", text: "The striker scored twice as the home team won the cup final." },
  { id: "sport-2", text: "Il club ha confermato l'acquisto del nuovo attaccante per la prossima stagione." },
];
const NOW = 1_750_000_000;
/** The order of the scores alone: no fold of duplicates, the reacted documents where their scores put them. */
const SCORES_ONLY = { duplicates: "keep", reacted: "keep" };
let semantic;
let relevance;

before(async () => {
  [semantic, relevance] = await Promise.all([Encoder.load(`${MODELS}semantic`), Encoder.load(`${MODELS}relevance`)]);
});

const fresh = (store = new MemoryStore(), options = {}) => Ranker.load({ models: { semantic, relevance }, store, ...options });
const ids = (ranked) => ranked.map((r) => r.id);

test("Ranker.load takes the folder of both models; a cold feed keeps the newest first, then input order", async () => {
  const ranker = await Ranker.load({ models: MODELS });
  const docs = FEED.map((d, i) => ({ ...d, published: i === 3 ? NOW : null }));
  const ranked = await ranker.rank(docs, { now: NOW, ...SCORES_ONLY });
  assert.deepEqual(ids(ranked), ["food-2", "space-1", "space-2", "food-1", "sport-1", "sport-2"]);
  assert.ok(ranked.every((r) => r.contributions.recency === r.score));
});

test("likes order the feed: the liked topic first, in every language", async () => {
  const ranker = await fresh();
  await ranker.like(FEED[0], { ts: NOW - 60 });
  await ranker.dislike(["sport-1", FEED[4].text], { ts: NOW - 60 });
  const ranked = await ranker.rank(FEED, { now: NOW, ...SCORES_ONLY });
  assert.equal(ranked[0].id, "space-1");
  assert.equal(ranked[1].id, "space-2", "the German space story follows the English one");
  assert.equal(ranked.at(-1).id, "sport-1");
  for (const r of ranked) {
    assert.ok(Math.abs(Object.values(r.contributions).reduce((a, b) => a + b, 0) - r.score) < 1e-12);
    assert.equal(typeof r.personalScore, "number");
  }
});

test("a query decides what is relevant; the interests order within it; 0 turns them off", async () => {
  const ranker = await fresh();
  await ranker.like(FEED[0], { ts: NOW });
  const found = await ranker.rank(FEED, { query: "tomato soup", now: NOW });
  assert.equal(found[0].id, "food-1", "the history never buries the answer");
  assert.ok("query" in found[0].contributions && "personal" in found[0].contributions);
  const alone = await ranker.rank(FEED, { query: "tomato soup", now: NOW, personalWeight: 0 });
  assert.ok(alone.every((r) => r.contributions.personal === 0));
  const across = await ranker.rank(FEED, { query: "Apfelkuchen Rezept", now: NOW });
  assert.equal(across[0].id, "food-2", "a German query finds the French recipe");
});

test("plain texts and pairs are documents; a reaction refuses a plain text; ids are identities", async () => {
  const ranker = await fresh();
  assert.deepEqual(ids(await ranker.rank(["b", "a"], { now: NOW })), ["0", "1"]);
  assert.deepEqual(ids(await ranker.rank([["x", "one"], [7, "two"]], { now: NOW })), ["x", "7"]);
  await assert.rejects(ranker.like("a text"), /a reaction needs the document, with its id/);
  await assert.rejects(ranker.rank([{ id: "a", text: "x" }, { id: "a", text: "y" }]), /appears twice \(positions 1 and 2\)/);
  await assert.rejects(ranker.rank([{ id: " ", text: "x" }]), /non-blank string/);
  await assert.rejects(ranker.rank([{ text: "x" }]), /must be an \{id, text\} object/);
  await assert.rejects(ranker.rank("not a list"), /docs must be an array/);
  await assert.rejects(ranker.rank([{ id: "a", text: "x", published: 1e13 }]), /not milliseconds/);
  await assert.rejects(ranker.rank(FEED, { now: Number.NaN }), /'now' must be finite/);
  await assert.rejects(ranker.rank(FEED, { query: "x", personalWeight: -1 }), /personal weight must be a finite number >= 0/);
  await assert.rejects(ranker.like(["a", "🚀 !!!"]), (e) => e instanceof Unlearnable && /no word/.test(e.message));
  await assert.rejects(ranker.like(FEED[0], { ts: NOW * 10 }), /more than a day in the future/);
  await assert.rejects(ranker.viewed(FEED[0], -1), /view time must be from 0/);
  assert.equal(ranker.reactions, 0, "nothing refused was stored");
  assert.deepEqual(await ranker.rank([], { now: NOW }), []);
  const wordless = await ranker.rank(FEED, { query: "🚀 !!!", now: NOW });
  assert.ok(wordless.every((r) => r.queryScore === null), "a query without a word ranks as none");
});

test("undo takes a document's reactions back; viewed weighs a liked interest; erase leaves nothing", async () => {
  const store = new MemoryStore();
  const ranker = await fresh(store);
  const coldOrder = ids(await ranker.rank(FEED, { now: NOW }));
  await ranker.like(FEED[2], { ts: NOW });
  await ranker.like(FEED[0], { ts: NOW });
  await ranker.viewed(FEED[0], 30);
  const liked = await ranker.rank(FEED, { now: NOW, ...SCORES_ONLY });
  assert.equal(liked[0].id, "space-1", "dwell time lifts the space interest above the food one");
  assert.equal(await ranker.undo("space-1"), 2, "the like and the view");
  assert.equal(await ranker.undo("space-1"), 0);
  assert.equal((await ranker.rank(FEED, { now: NOW, ...SCORES_ONLY }))[0].id, "food-1");
  assert.equal((await store.load()).events.length, 1);
  await ranker.erase();
  assert.equal(await store.load(), null);
  assert.deepEqual(ids(await ranker.rank(FEED, { now: NOW })), coldOrder);
  await assert.rejects(ranker.undo(["space-1"]), /document id must be a non-blank string or an integer/);
});

test("a store that fails to save changes nothing: the reaction is refused, the earlier ones stay", async () => {
  const store = new MemoryStore();
  const ranker = await fresh(store);
  await ranker.like(FEED[0], { ts: NOW });
  const before = await ranker.rank(FEED, { now: NOW });
  store.update = async () => {
    throw new Error("disk full");
  };
  await assert.rejects(ranker.like(FEED[2], { ts: NOW }), /could not save the change, so nothing changed: disk full/);
  await assert.rejects(ranker.undo("space-1"), /nothing changed/);
  assert.equal(ranker.reactions, 1);
  assert.deepEqual(await ranker.rank(FEED, { now: NOW }), before);
});

test("reactions stored under other models are embedded again from their texts", async () => {
  const store = new MemoryStore();
  const both = await fresh(store);
  await both.like(FEED[0], { ts: NOW });
  await assert.rejects(both.like(["thai", "ภาษาไทย ภาษาไทย"], { ts: NOW }), Unlearnable);
  const alone = await Ranker.load({ models: { semantic, relevance: null }, store });
  assert.notEqual(alone.modelKey, both.modelKey);
  const state = await store.load();
  assert.equal(state.modelKey, alone.modelKey);
  assert.equal(state.events[0].vector.length, 128, "the like now lives in the semantic model's space alone");
  assert.equal((await alone.rank(FEED, { now: NOW, ...SCORES_ONLY }))[0].id, "space-1");
  await assert.rejects(alone.rank(FEED, { query: "moon" }), /a query needs a relevance model/);
});

test("a stored reaction the models cannot learn from stays stored, out of the interests", async () => {
  const store = new MemoryStore();
  const alone = await Ranker.load({ models: { semantic, relevance: null }, store });
  await alone.like(FEED[0], { ts: NOW });
  const record = structuredClone(store.record);
  record.modelKey = "other models";
  record.events.push({ ...record.events[0], event: 2, id: "thai", text: "ภาษาไทย ภาษาไทย ภาษาไทย" });
  record.nextEvent = 3;
  store.record = record;
  const both = await Ranker.load({ models: { semantic, relevance }, store });
  assert.deepEqual(both.history().map((e) => e.id), ["space-1", "thai"], "both reactions stay stored");
  const state = await store.load();
  assert.equal(state.events[1].left, true);
  assert.equal(state.positives.length, 1, "one interest: the Thai like teaches none");
  assert.equal((await both.rank(FEED, { now: NOW, ...SCORES_ONLY }))[0].id, "space-1");
});

test("options, settings and texts an app may get wrong are refused in words, as rejected promises", async () => {
  const ranker = await fresh();
  await assert.rejects(ranker.like(FEED[0], 5), /like's options must be an object/);
  await assert.rejects(ranker.rank(FEED, "soup"), /rank's options must be an object/);
  assert.deepEqual(ids(await ranker.rank(FEED, null)).length, 6, "null options are the defaults");
  await assert.rejects(ranker.like({ id: 2n ** 70n, text: "The rocket reached orbit." }, { ts: "123" }), /feedback time must be .* got "123"/);
  await assert.rejects(ranker.rank([{ id: 1e20, text: "x" }]), /past 2\*\*53.*give it as a string/);
  await assert.rejects(ranker.rank(new Array(2)), /docs has a hole at position 0/);
  await assert.rejects(ranker.rank([{ id: "a", text: "x", published: "2024/01/01 12:30" }]), /not an ISO-8601 time/);
  // the year 0000 is no date in Python's calendar, which refuses it
  await assert.rejects(ranker.rank([{ id: "a", text: "x", published: "0000-01-01" }]), /not an ISO-8601 time/);
  await assert.rejects(ranker.embed(42), /docs must be an array/);
  await assert.rejects(ranker.embed(FEED, { model: "query" }), /model must be 'semantic' or 'relevance'/);
  assert.equal((await ranker.embed(FEED, { model: "relevance" }))[0].length, 128);
  await assert.rejects(ranker.rank(FEED, { personal_weight: 0 }), /rank has no option personal_weight; it has query/);
  await assert.rejects(ranker.like(FEED[0], { time: NOW }), /like has no option time; it has ts/);
  await assert.rejects(Ranker.load({ models: MODELS, verify: false }), /Ranker.load has no option verify/);
  const long = "word ".repeat(40_000);
  assert.equal((await ranker.rank(FEED, { query: `  ${long}` })).length, 6, "a 200,000-character query is ranked");
  await assert.rejects(Ranker.load({ models: { semantic, relevance }, config: { decayRatePerDay: 0 } }), /decayRatePerDay must be negative/);
  await assert.rejects(Ranker.load({ models: { semantic, relevance }, config: { treshold: 0.5 } }), /config has no option treshold/);
  await assert.rejects(Ranker.load({ models: { semantic } }), /relevance: null for a feed without search/);
  await assert.rejects(Ranker.load({ models: "" }), /Ranker.load needs models/);
  assert.throws(() => Encoder.similarity(null, [1, 2]), /similarity takes vectors/);
  await assert.rejects(semantic.encode("x", "query"), /encode's options must be an object/);
  await assert.rejects(Encoder.load(`${MODELS}semantic`, { check: false }), /Encoder.load has no option check/);
  assert.throws(() => relevance.tokenize("x", "constructor"), /role must be 'query' or 'passage'/);
});

test("the models given the wrong way round, or a store that is none, are refused in words", async () => {
  await assert.rejects(Ranker.load({ models: { semantic: relevance, relevance: semantic } }), /the models are swapped/);
  await assert.rejects(Ranker.load({ models: { semantic, relevance }, store: {} }), /store must be/);
  await assert.rejects(Ranker.load({}), /Ranker.load needs models/);
  await assert.rejects(Ranker.load({ models: "/no/such/folder" }), EdgeRankerError);
});

test("a reader who only views and scrolls past gets a personal feed: reads weigh as weak likes, skips as weak dislikes", async () => {
  const ranker = await fresh();
  const cold = ids(await ranker.rank(FEED, { now: NOW }));
  const screen = [FEED[0], FEED[4], FEED[5]]; // the space story and both sport ones, shown twice
  assert.equal(await ranker.shown(screen, { ts: NOW - 300 }), 3);
  await ranker.viewed(FEED[0], 45, { ts: NOW - 290 });
  assert.equal(await ranker.shown([...screen, ["wordless", "🚀 !!!"]], { ts: NOW - 100 }), 3, "a wordless document is not kept");
  assert.equal(ranker.reactions, 0, "no like, no dislike");
  const ranked = await ranker.rank(FEED, { now: NOW, ...SCORES_ONLY });
  assert.notDeepEqual(ids(ranked), cold, "the feed is personal");
  assert.equal(ranked[0].id, "space-1", "the story read comes first");
  assert.equal(ranked[1].id, "space-2", "then the same topic in German");
  assert.deepEqual(ids(ranked).slice(-2).sort(), ["sport-1", "sport-2"], "the stories scrolled past come last");
  const read = ranked[0].interest;
  assert.equal(read.positiveWeight, readWeight(45));
  assert.ok(read.positiveWeight > 0 && read.positiveWeight < READ_WEIGHT, "45 of 60 seconds: a part of a read's weight");
  assert.equal(ranked.at(-1).interest.negativeWeight, SKIP_WEIGHT);
  for (const r of ranked) {
    const i = r.interest;
    const parts = i.positiveSimilarity * i.positiveDecay * i.positiveWeight + i.interestRelevance - i.negativeSimilarity * i.negativeDecay * i.negativeWeight;
    assert.ok(Math.abs(parts - r.personalScore) < 1e-12, "the explanation adds up to the personal score");
  }
  assert.deepEqual(
    ranker.history().map(({ signal, id, reaction, seconds, ts }) => [signal, id, reaction, seconds, ts]),
    [
      [1, "space-1", "shown", 0, NOW - 300], [2, "sport-1", "shown", 0, NOW - 300], [3, "sport-2", "shown", 0, NOW - 300],
      [4, "space-1", "view", 45, NOW - 290],
      [5, "space-1", "shown", 0, NOW - 100], [6, "sport-1", "shown", 0, NOW - 100], [7, "sport-2", "shown", 0, NOW - 100],
    ],
  );
  assert.equal(ranker.history()[3].text, FEED[0].text);
});

test("a like outweighs a read, and a read or a like of a document makes it no skip", async () => {
  const ranker = await fresh();
  await ranker.like(FEED[2], { ts: NOW - 50 });
  for (const ts of [NOW - 40, NOW - 30]) await ranker.shown(FEED, { ts });
  await ranker.viewed(FEED[0], 90, { ts: NOW - 20 });
  const ranked = await ranker.rank(FEED, { now: NOW });
  const food = ranked.find((r) => r.id === "food-1").interest;
  const space = ranked.find((r) => r.id === "space-1").interest;
  assert.equal(food.positiveWeight, 1, "the liked interest weighs 1");
  assert.equal(space.positiveWeight, READ_WEIGHT, "90 seconds: a read's whole weight");
  assert.ok(food.negativeSimilarity < 0.99 && space.negativeSimilarity < 0.99, "neither the liked nor the read story is a skip");
});

test("undo removes a document's signals; without signals the feed ranks as before them", async () => {
  const ranker = await fresh();
  const cold = ids(await ranker.rank(FEED, { now: NOW }));
  for (const ts of [NOW - 60, NOW - 30]) await ranker.shown([FEED[0], FEED[4]], { ts });
  await ranker.viewed(FEED[0], 30, { ts: NOW - 20 });
  assert.equal(await ranker.undo("space-1"), 3, "two showings and a view");
  assert.deepEqual(ranker.history().map((h) => h.id), ["sport-1", "sport-1"]);
  const skipped = await ranker.rank(FEED, { now: NOW, ...SCORES_ONLY });
  assert.equal(skipped.at(-1).id, "sport-1", "the skip alone still orders the feed");
  assert.equal(skipped[0].interest.positiveInterest, null, "and no read is left");
  assert.equal(await ranker.undo("sport-1"), 2);
  assert.deepEqual(ranker.history(), []);
  assert.deepEqual(ids(await ranker.rank(FEED, { now: NOW })), cold);
  await ranker.like(FEED[0], { ts: NOW });
  const liked = await ranker.rank(FEED, { now: NOW });
  const plain = await fresh();
  await plain.like(FEED[0], { ts: NOW });
  const never = await plain.rank(FEED, { now: NOW });
  assert.deepEqual(ids(liked), ids(never), "a store whose signals went ranks as one that never had any");
  // a text embedded alone or in a batch differs in the last float bits (padding)
  liked.forEach((r, i) => assert.ok(Math.abs(r.score - never[i].score) < 1e-6 && r.interest.negativeInterest === null));
});

test("undo of a view takes its seconds back from the liked interest they went to; another view's stay", async () => {
  const store = new MemoryStore();
  const ranker = await fresh(store);
  const read = { id: "space-3", text: "NASA's new rocket takes four astronauts around the Moon." };
  const other = { id: "space-4", text: "Four astronauts fly to the Moon on board NASA's new rocket." };
  await ranker.like(FEED[0], { ts: NOW - 60 });
  await ranker.viewed(read, 40, { ts: NOW - 30 });
  await ranker.viewed(other, 25, { ts: NOW - 20 });
  const stored = async () => (await store.load()).positives.map((c) => c.viewTime);
  const ranked = () => ranker.interests().positives.reduce((t, c) => t + c.viewTime, 0);
  assert.deepEqual(await stored(), [65]);
  assert.equal(ranked(), 65, "the replayed interests hold the stored dwell time");
  assert.equal(await ranker.undo("space-3"), 1, "the view alone");
  assert.deepEqual(await stored(), [25]);
  assert.equal(ranked(), 25, "the other view's seconds stay, replayed with its signal");
  assert.equal(await ranker.undo("space-4"), 1);
  assert.deepEqual(await stored(), [0]);
  assert.equal(ranker.interests().positives[0].viewTime, 0, "no signal left: the stored interests rank");
});

test("undo of a liked and read document takes its seconds from its own interest, not from a far one's", async () => {
  const store = new MemoryStore();
  const ranker = await fresh(store);
  await ranker.like(FEED[0], { ts: NOW - 60 });
  await ranker.viewed(FEED[0], 40, { ts: NOW - 50 });
  await ranker.like(FEED[2], { ts: NOW - 40 });
  await ranker.viewed(FEED[2], 25, { ts: NOW - 30 });
  assert.equal(await ranker.undo(FEED[0].id), 2);
  assert.deepEqual((await store.load()).positives.map((c) => c.viewTime), [25]);
});

test("shown and viewed refuse in words what is not a list of documents, a time or their options", async () => {
  const ranker = await fresh();
  await assert.rejects(ranker.shown(FEED[0]), /shown takes a list of documents, not one document/);
  await assert.rejects(ranker.shown("a text"), /shown takes a list of documents, not one document/);
  await assert.rejects(ranker.shown([FEED[0], FEED[0]]), /appears twice/);
  await assert.rejects(ranker.shown(FEED, { ts: NOW * 10 }), /more than a day in the future/);
  await assert.rejects(ranker.shown(FEED, { when: NOW }), /shown has no option when; it has ts/);
  await assert.rejects(ranker.viewed(FEED[0], 30, { ts: -1 }), /finite, non-negative unix seconds/);
  await assert.rejects(ranker.viewed(FEED[0], 30, 5), /viewed's options must be an object/);
  await assert.rejects(ranker.viewed("a text", 30), /a reaction needs the document/);
  assert.equal(await ranker.shown([]), 0);
  assert.deepEqual(ranker.history(), [], "nothing refused was kept");
});

test("signals stored under other models are embedded again from their texts", async () => {
  const store = new MemoryStore();
  const both = await fresh(store);
  for (const ts of [NOW - 60, NOW - 30]) await both.shown([FEED[4]], { ts });
  await both.viewed(FEED[0], 60, { ts: NOW - 10 });
  const alone = await Ranker.load({ models: { semantic, relevance: null }, store });
  const state = await store.load();
  assert.deepEqual(state.signals.map((s) => s.vector.length), [128, 128, 128], "the signals live in the semantic model's space");
  assert.deepEqual(alone.history().map((h) => h.signal), [1, 2, 3]);
  const ranked = await alone.rank(FEED, { now: NOW, ...SCORES_ONLY });
  assert.equal(ranked[0].id, "space-1");
  assert.equal(ranked.at(-1).id, "sport-1");
});

// One story in three languages, and another story on its topic (Python's tests/test_feed_rules.py)
const STORY = [
  { id: "e", text: "The city council approved a new tram line to the airport." },
  { id: "d", text: "Der Stadtrat hat eine neue Straßenbahnlinie zum Flughafen genehmigt." },
  { id: "r", text: "Le conseil municipal a approuvé une nouvelle ligne de tramway vers l'aéroport." },
  { id: "o", text: "The mayor opened a new public library in the north of the city." },
];
const FOOD = [
  { id: "f1", text: "A quick tomato pasta with garlic and basil, ready in fifteen minutes." },
  { id: "f2", text: "How to bake sourdough bread at home with a simple starter." },
  { id: "f3", text: "Slow-cooked beef stew with carrots and red wine." },
  { id: "f4", text: "A recipe for vegetable soup with beans and fresh herbs." },
];
const SPORT = [
  { id: "s1", text: "The striker scored twice as the home team won the league match." },
  { id: "s2", text: "The tennis champion lost in the first round of the open." },
  { id: "s3", text: "The cyclists raced up the mountain stage in heavy rain." },
  { id: "s4", text: "The goalkeeper saved a penalty in the cup final." },
];

test("one story in three languages shows once, under its best-ranked telling; another story on its topic does not fold", async () => {
  const ranker = await fresh();
  const feed = [...STORY, ...FOOD.slice(0, 2)];
  const ranked = await ranker.rank(feed, { now: NOW });
  const folded = Object.fromEntries(ranked.filter((r) => r.duplicateOf !== null).map((r) => [r.id, r.duplicateOf]));
  const kept = ids(ranked).find((id) => "edr".includes(id));
  assert.deepEqual(Object.keys(folded).sort(), ["d", "e", "r"].filter((id) => id !== kept));
  assert.deepEqual(new Set(Object.values(folded)), new Set([kept]));
  assert.deepEqual(ids(ranked).slice(-2), Object.keys(folded), "the duplicates follow all the others");
  assert.ok(!("o" in folded), "another story on the same topic");
  assert.deepEqual(ranked.map((r) => [r.id, r.duplicateOf]), [["e", null], ["o", null], ["f1", null], ["f2", null], ["d", "e"], ["r", "e"]], "as Python");
  assert.deepEqual(ranked.map((r) => r.rank), [1, 2, 3, 4, 5, 6]);
  const d = ranked.find((r) => r.id === "d");
  assert.equal(d.score, d.contributions.recency, "a duplicate keeps its own score");
  const kept2 = await ranker.rank(feed, { now: NOW, duplicates: "keep" });
  assert.ok(kept2.every((r) => r.duplicateOf === null));
  assert.deepEqual(ids(kept2), ["e", "d", "r", "o", "f1", "f2"], "by the scores alone");
});

test("what the user reacted to sinks in a feed, leaves with leave_out, and stays in a search", async () => {
  const ranker = await fresh();
  const feed = [...FOOD, ...SPORT];
  await ranker.like(feed[0], { ts: NOW });
  const sunk = await ranker.rank(feed, { now: NOW });
  assert.equal(sunk.at(-1).id, "f1", "the liked document goes after the others");
  assert.deepEqual(ids(sunk), ["f4", "f3", "f2", "s3", "s1", "s4", "s2", "f1"], "as Python");
  assert.equal(sunk.at(-1).rank, 8);
  const out = await ranker.rank(feed, { now: NOW, reacted: "leave_out" });
  assert.ok(!ids(out).includes("f1"));
  assert.deepEqual(out.map((r) => r.rank), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal((await ranker.rank(feed, { now: NOW, reacted: "keep" }))[0].id, "f1");
  assert.equal((await ranker.rank(feed, { query: "tomato pasta", now: NOW }))[0].id, "f1", "a search finds it, read or not");
  assert.equal((await ranker.rank(feed, { query: "tomato pasta", now: NOW, reacted: "sink" })).at(-1).id, "f1");
  await ranker.viewed(feed[4], 30, { ts: NOW });
  const opened = await ranker.rank(feed, { now: NOW });
  assert.deepEqual(ids(opened).slice(-2).sort(), ["f1", "s1"], "a document opened sinks too");
  await ranker.undo("f1");
  assert.ok(ids(await ranker.rank(feed, { now: NOW, reacted: "leave_out" })).includes("f1"), "an undo takes it back");
});

test("an unknown duplicates or reacted option is refused in Python's words", async () => {
  const ranker = await fresh();
  const refused = (options, words) => assert.rejects(ranker.rank(FOOD, options), (e) => e instanceof EdgeRankerError && e.message === words);
  await refused({ duplicates: "merge" }, "duplicates must be one of 'fold', 'keep', got 'merge'");
  await refused({ reacted: "hide" }, "reacted must be one of 'sink', 'keep', 'leave_out', got 'hide'");
  await refused({ duplicates: "it's" }, `duplicates must be one of 'fold', 'keep', got "it's"`);
  await refused({ reacted: 5 }, "reacted must be one of 'sink', 'keep', 'leave_out', got 5");
  await refused({ duplicates: null }, "duplicates must be one of 'fold', 'keep', got null");
  assert.equal((await ranker.rank(FOOD, { reacted: null })).length, 4, "reacted null: the default");
});

test("diversity: a feed's liked interests take turns at the top; 0 is the scores' order; a search is never re-ranked", async () => {
  const ranker = await fresh();
  const feed = [...FOOD, ...SPORT];
  await ranker.like(FOOD[0], { ts: NOW });
  await ranker.like(SPORT[0], { ts: NOW });
  const plain = await ranker.rank(feed, { now: NOW, ...SCORES_ONLY, diversity: 0 });
  assert.ok(plain.every((r, i) => i === 0 || plain[i - 1].score >= r.score), "0: by the scores");
  // the two liked documents tie at the top (a personal score of 1.5 each): their order is the floats', as in Python
  assert.deepEqual(ids(plain).slice(2), ["s2", "s4", "f4", "f3", "f2", "s3"], "as Python");
  const turns = await ranker.rank(feed, { now: NOW, ...SCORES_ONLY });
  assert.deepEqual(ids(turns).slice(2), ["s2", "f4", "s4", "f3", "f2", "s3"], "the default: food's f4 takes a turn, as Python");
  assert.deepEqual(turns.map((r) => r.score), ids(turns).map((id) => plain.find((p) => p.id === id).score), "the scores are unchanged");
  assert.deepEqual(ids(await ranker.rank(feed, { now: NOW, ...SCORES_ONLY, diversity: null })), ids(turns), "null: the default");
  const interest = (r) => r.interest.positiveInterest;
  const strong = await ranker.rank(feed, { now: NOW, ...SCORES_ONLY, diversity: 1 });
  assert.ok(strong.slice(1, 6).every((r, i) => interest(r) !== interest(strong[i])), "a weight of 1: the interests alternate while scores allow");
  const search = (diversity) => ranker.rank(feed, { query: "tomato pasta", now: NOW, diversity });
  assert.deepEqual(ids(await search(5)), ids(await search(0)));
  const refused = (diversity, words) => assert.rejects(ranker.rank(FOOD, { diversity }), (e) => e instanceof EdgeRankerError && e.message === words);
  await refused(-0.1, "the diversity weight must be a finite number >= 0, got -0.1");
  await refused(Number.NaN, "the diversity weight must be a finite number >= 0, got nan");
  await refused(Infinity, "the diversity weight must be a finite number >= 0, got inf");
});

test("a huge diversity takes strict turns, never repeats a document and never lifts an unscored one", async () => {
  // a weight whose products overflow: a lowered score is the lowest finite number, not below the placed ones' mark
  assert.deepEqual(diversify([0, 1, 2, 3, 4], [0.9, -Infinity, 0.8, 0.7, 0.6], [0, -1, 0, 1, 1], 1e308, 30), [0, 3, 2, 4, 1], "as Python");
  assert.deepEqual(diversify([4, 1, 0, 2, 3, 5], [0.9, Number.NaN, 0.8, -Infinity, 0.7, 0.1], [0, 0, 0, 1, 0, 2], 0, 4), [4, 0, 2, 1, 3, 5],
    "at 0, the window's unscored documents follow its scored ones, in their order");
  const ranker = await fresh();
  await ranker.like(FOOD[0], { ts: NOW });
  const feed = [...FOOD, { id: "emoji", text: "\u{1F389}\u{1F389}" }];
  const got = ids(await ranker.rank(feed, { now: NOW, ...SCORES_ONLY, diversity: 1e308 }));
  assert.deepEqual([...got].sort(), ids(feed).sort(), "every document once");
  assert.deepEqual(got, ["f1", "f4", "f3", "f2", "emoji"], "the emoji-only one last, as Python");
});

test("a document the feed sinks or leaves out as reacted takes no topic's turn", async () => {
  const ranker = await fresh();
  await ranker.like(FOOD[0], { ts: NOW });
  await ranker.like(SPORT[0], { ts: NOW });
  const feed = [...FOOD, ...SPORT.slice(1)];
  // kept, the liked f1 takes food's turn at the top and lowers f4 below s4
  assert.deepEqual(ids(await ranker.rank(feed, { now: NOW, ...SCORES_ONLY })).slice(0, 4), ["f1", "s2", "s4", "f4"], "as Python");
  assert.deepEqual(ids(await ranker.rank(feed, { now: NOW, duplicates: "keep" })), ["s2", "f4", "s4", "f3", "f2", "s3", "f1"], "sunk, as Python");
  assert.deepEqual(ids(await ranker.rank(feed, { now: NOW, duplicates: "keep", reacted: "leave_out" })), ["s2", "f4", "s4", "f3", "f2", "s3"], "left out, as Python");
});
