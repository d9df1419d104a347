// KeyValueStore, the React Native store, over in-memory storages an app would back with AsyncStorage, MMKV or SQLite:
// what was acknowledged survives a restart; a crash at any write (the value torn or never written) leaves the state
// before the change or after it, whole; erase leaves no key holding the user's text; several Rankers add to each
// other's reactions. The models run on the JavaScript backend, as in a React Native app.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { EdgeRankerError } from "../src/errors.js";
import { Encoder, KeyValueStore, Ranker } from "../src/react-native.js";
import { memoryStorage } from "./hermes/checks.js";
import { MODELS } from "./golden.js";

const NOW = 1_750_000_000;
const FEED = [
  { id: "a", text: "The rocket reached orbit with its crew of four." },
  { id: "b", text: "Slow-cooked beans with smoked paprika and onions." },
  { id: "c", text: "The goalkeeper saved a penalty in the last minute." },
];
let models;

before(async () => {
  const [semantic, relevance] = await Promise.all(["semantic", "relevance"].map((m) => Encoder.load(`${MODELS}${m}`, { backend: "js" })));
  models = { semantic, relevance };
});

const open = (storage, key) => Ranker.load({ models, store: new KeyValueStore(storage, key ? { key } : undefined) });
const ids = (ranker) => ranker.history().map((e) => e.id).join(",");

test("reactions, undo and erase across restarts; erase removes every key", async () => {
  const storage = memoryStorage();
  let ranker = await open(storage);
  await ranker.like(FEED[1], { ts: NOW });
  await ranker.like(FEED[2], { ts: NOW });
  await ranker.dislike(FEED[0], { ts: NOW });
  const ranked = await ranker.rank(FEED, { now: NOW });
  ranker = await open(storage);
  assert.equal(ranker.reactions, 3);
  assert.deepEqual((await ranker.rank(FEED, { now: NOW })).map((r) => r.id), ranked.map((r) => r.id));
  assert.equal(await ranker.undo("c"), 1);
  ranker = await open(storage);
  assert.equal(ids(ranker), "b,a");
  assert.deepEqual(storage.keys().sort(), ["edge-ranker.a", "edge-ranker.b"], "two keys, no other");
  await ranker.erase();
  assert.deepEqual(storage.keys(), [], "erase leaves no key");
  assert.equal((await open(storage)).reactions, 0);
});

test("a crash at a write, the value torn or never written, leaves the state before it or after it, whole", async () => {
  for (const torn of [false, true]) {
    for (let at = 1; at <= 4; at++) {
      const storage = memoryStorage();
      const ranker = await open(storage);
      storage.crashAt(at, torn);
      const acknowledged = [];
      for (const doc of FEED) {
        try {
          await ranker.like(doc, { ts: NOW });
          acknowledged.push(doc.id);
        } catch (err) {
          assert.ok(err instanceof EdgeRankerError && /cannot write the key-value store/.test(err.message), err.message);
        }
      }
      const after = await open(storage);
      // the crashed write's change is gone and every acknowledged one is kept: in this Ranker's order
      assert.equal(ids(after), acknowledged.join(","), `crash at write ${at} (${torn ? "torn" : "lost"})`);
    }
  }
});

test("a crash mid-erase leaves the state as it was before the erase, never an older one", async () => {
  const storage = memoryStorage();
  const ranker = await open(storage);
  await ranker.like(FEED[0], { ts: NOW });
  await ranker.like(FEED[1], { ts: NOW });
  const remove = storage.removeItem;
  let removed = 0;
  storage.removeItem = async (key) => {
    if (++removed === 2) throw new Error("killed");
    return remove(key);
  };
  await assert.rejects(ranker.erase(), /cannot erase the key-value store/);
  storage.removeItem = remove;
  assert.equal(ids(await open(storage)), "a,b", "the newest state, whole");
  await (await open(storage)).erase();
  assert.deepEqual(storage.keys(), []);
});

test("two Rankers on one storage add to each other's reactions; stores of other keys are apart", async () => {
  const storage = memoryStorage();
  const [a, b] = [await open(storage), await open(storage)];
  await Promise.all([...Array(12)].map((_, i) => (i % 2 ? a : b).like([`x${i}`, `Story number ${i} about rockets`], { ts: NOW })));
  assert.equal((await open(storage)).reactions, 12, "twelve likes at once from two Rankers, all kept");
  const other = await open(storage, "someone-else");
  await other.like(FEED[0], { ts: NOW });
  assert.equal((await open(storage)).reactions, 12);
  await b.erase();
  assert.deepEqual(storage.keys().sort(), ["someone-else.a"], "erase removes its own keys only");
  assert.equal(ids(await open(storage, "someone-else")), "a");
});

test("a storage with synchronous methods (as MMKV's) serves too", async () => {
  const items = new Map();
  const storage = {
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
  const ranker = await open(storage);
  await ranker.like(FEED[0], { ts: NOW });
  assert.equal(ids(await open(storage)), "a");
});

test("damaged keys and a storage that fails are refused in one line, saying what to do", async () => {
  assert.throws(() => new KeyValueStore({ getItem() {}, setItem() {} }), /lacks removeItem/);
  assert.throws(() => new KeyValueStore(memoryStorage(), { prefix: "x" }), /takes the option key only/);
  const storage = memoryStorage();
  await storage.setItem("edge-ranker.a", "not a value of this store");
  assert.equal((await open(storage)).reactions, 0, "one damaged key alone is a first write that did not finish");
  await storage.setItem("edge-ranker.b", "{}");
  await assert.rejects(open(storage), /both its keys are damaged\): erase it/);
  const failing = { getItem: async () => { throw new Error("disk gone"); }, setItem: async () => {}, removeItem: async () => {} };
  await assert.rejects(open(failing), /cannot read the key-value store "edge-ranker": disk gone/);
});
