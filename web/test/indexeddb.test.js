// IndexedDBStore seals what it stores (fake-indexeddb in Node): IndexedDB holds no liked text in plaintext, and erase
// deletes the key with the records, so that what a browser's files keep of them until it compacts them is ciphertext
// no key opens. The key lives in a file of the origin private file system where there is one (an in-memory one
// here), else in the database.
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { serialize } from "node:v8";
import { openDB } from "idb";
import { Encoder, IndexedDBStore, MemoryStore, Ranker } from "../src/index.js";
import { MODELS } from "./golden.js";

const NOW = 1_750_000_000;
const LIKED = [
  { id: "p", text: "Come preparare la pasta al pomodoro in quindici minuti." },
  { id: "t", text: "Recette facile : une tarte aux pommes croustillante pour le dessert." },
];
const DISLIKED = { id: "g", text: "The goalkeeper saved a penalty in the last minute." };
const SHOWN = { id: "s", text: "The lighthouse keeper retired after forty winters on the island." };
const VIEWED = { id: "v", text: "Glaciers in the Alps lost a tenth of their ice in two summers." };
let models;

before(async () => {
  const [semantic, relevance] = await Promise.all([Encoder.load(`${MODELS}semantic`), Encoder.load(`${MODELS}relevance`)]);
  models = { semantic, relevance };
});
after(() => delete globalThis.navigator);

/** An origin private file system in memory, as much of one as the store uses. */
function fileSystem() {
  const missing = (name) => new DOMException(`${name} is not there`, "NotFoundError");
  const file = () => {
    let bytes = new Uint8Array();
    return {
      getFile: async () => new Blob([bytes]),
      createWritable: async () => {
        const parts = [];
        return { write: async (b) => parts.push(b), close: async () => (bytes = new Uint8Array(await new Blob(parts).arrayBuffer())) };
      },
    };
  };
  const folder = () => {
    const entries = new Map();
    const entry = (make) => async (name, { create = false } = {}) => {
      if (!entries.has(name) && !create) throw missing(name);
      if (!entries.has(name)) entries.set(name, make());
      return entries.get(name);
    };
    return {
      entries,
      getDirectoryHandle: entry(folder),
      getFileHandle: entry(file),
      removeEntry: async (name) => {
        if (!entries.delete(name)) throw missing(name);
      },
    };
  };
  return folder();
}

/** Every text of `texts` found in the bytes IndexedDB would write of `value` (V8's serialization, as Chromium's). */
function plaintexts(value, texts) {
  const bytes = serialize(value);
  return texts.filter((t) => ["utf8", "latin1", "utf16le"].some((e) => bytes.includes(Buffer.from(t.slice(0, 24), e))));
}

async function raw(name) {
  const db = await openDB(name);
  const key = db.objectStoreNames.contains("keys") ? await db.get("keys", "user") : undefined;
  const out = { record: await db.get("preferences", "user"), key };
  db.close();
  return out;
}

for (const home of ["a file of the origin private file system", "the database"]) {
  test(`IndexedDBStore, its key in ${home}: no liked text in plaintext, and erase deletes the key with the records`, async () => {
    const root = fileSystem();
    if (home.includes("file")) globalThis.navigator = { storage: { getDirectory: async () => root } };
    else delete globalThis.navigator;
    const name = `sealed-${home.length}`;
    // two tabs that open a new database at once each make a key: one is kept, and opens both likes
    const [a, b] = await Promise.all([0, 1].map(() => Ranker.load({ models, store: new IndexedDBStore(name) })));
    await Promise.all([a.like(LIKED[0], { ts: NOW }), b.like(LIKED[1], { ts: NOW })]);
    await a.dislike(DISLIKED, { ts: NOW });
    for (const ts of [NOW - 10, NOW]) await b.shown([SHOWN], { ts });
    await a.viewed(VIEWED, 40, { ts: NOW });
    const { record, key } = await raw(name);
    const texts = [...LIKED, DISLIKED, SHOWN, VIEWED].map((d) => d.text);
    assert.deepEqual(plaintexts(record, texts), [], "the record holds ciphertext only, of the reactions and the signals");
    assert.deepEqual(Object.keys(record).sort(), ["data", "iv", "version"]);
    if (home.includes("file")) {
      const folder = root.entries.get("edge-ranker");
      assert.equal(folder.entries.size, 1, "one folder of keys for the database");
      assert.deepEqual([...[...folder.entries.values()][0].entries.keys()], [key.file], "one key file, the one kept");
    } else {
      assert.ok(key.key instanceof CryptoKey && !key.key.extractable, "a non-extractable key");
    }
    const reloaded = await Ranker.load({ models, store: new IndexedDBStore(name) });
    assert.deepEqual(reloaded.history().map((e) => e.id).sort(), ["g", "p", "s", "s", "t", "v"], "history reads the sealed record");

    await reloaded.erase();
    assert.ok(!(await indexedDB.databases()).some((d) => d.name === name), "the database is deleted, signals with it");
    if (home.includes("file")) assert.equal(root.entries.get("edge-ranker").entries.size, 0, "the key file is deleted");
    const fresh = await Ranker.load({ models, store: new IndexedDBStore(name) });
    assert.equal(fresh.reactions, 0, "a new store starts empty");
    await fresh.like(LIKED[0], { ts: NOW });
    const store = new IndexedDBStore(name);
    await assert.rejects(store.unsealed(record), /its key does not open/, "the old record is sealed under a key that is gone");
    store.close();
    await fresh.erase();
  });
}

test("a database of version 1 (unsealed) is read, and sealed at its next change", async () => {
  delete globalThis.navigator;
  const memory = new MemoryStore();
  await (await Ranker.load({ models, store: memory })).like(LIKED[0], { ts: NOW });
  const old = await openDB("version-1", 1, { upgrade: (db) => db.createObjectStore("preferences") });
  await old.put("preferences", memory.record, "user");
  old.close();
  const ranker = await Ranker.load({ models, store: new IndexedDBStore("version-1") });
  assert.deepEqual(ranker.history().map((e) => e.id), ["p"]);
  await ranker.like(LIKED[1], { ts: NOW });
  const { record } = await raw("version-1");
  assert.equal(record.version, 1);
  assert.deepEqual(plaintexts(record, LIKED.map((d) => d.text)), []);
  assert.deepEqual((await Ranker.load({ models, store: new IndexedDBStore("version-1") })).history().map((e) => e.id), ["p", "t"]);
  await ranker.erase();
});

test("a damaged sealed record, or one whose key file is gone, is refused in one line", async () => {
  const root = fileSystem();
  globalThis.navigator = { storage: { getDirectory: async () => root } };
  const ranker = await Ranker.load({ models, store: new IndexedDBStore("damaged") });
  await ranker.like(LIKED[0], { ts: NOW });
  const db = await openDB("damaged");
  const record = await db.get("preferences", "user");
  const data = new Uint8Array(record.data.slice(0));
  data[5] ^= 1;
  await db.put("preferences", { ...record, data: data.buffer }, "user");
  await assert.rejects(Ranker.load({ models, store: new IndexedDBStore("damaged") }), /holds preferences its key does not open \(damaged\): erase them/);
  await db.put("preferences", record, "user");
  db.close();
  root.entries.get("edge-ranker").entries.values().next().value.entries.clear();
  await assert.rejects(Ranker.load({ models, store: new IndexedDBStore("damaged") }), /the key of its preferences is gone from the browser's storage: erase them/);
  await ranker.erase();
});
