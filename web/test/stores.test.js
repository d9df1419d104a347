// Each store keeps what was acknowledged across a restart, undo and erase included, signals (showings and views)
// with the reactions: IndexedDB (fake-indexeddb in Node), a file written atomically, memory.
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { spawn } from "node:child_process";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { FileStore } from "../src/stores/file.js";
import { Encoder, IndexedDBStore, MemoryStore, Ranker } from "../src/index.js";
import { MODELS } from "./golden.js";

const NOW = 1_750_000_000;
const FEED = [
  { id: "a", text: "The rocket reached orbit with its crew of four." },
  { id: "b", text: "Slow-cooked beans with smoked paprika and onions." },
  { id: "c", text: "The goalkeeper saved a penalty in the last minute." },
];
let models;
let dir;

before(async () => {
  const [semantic, relevance] = await Promise.all([Encoder.load(`${MODELS}semantic`), Encoder.load(`${MODELS}relevance`)]);
  models = { semantic, relevance };
  dir = await mkdtemp(join(tmpdir(), "edge-ranker-stores-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** Likes, signals, a restart, an undo, a restart, an erase, a restart: what each restart reads back. */
async function lifecycle(makeStore, erased = async () => {}) {
  let ranker = await Ranker.load({ models, store: makeStore() });
  await ranker.like(FEED[1], { ts: NOW });
  await ranker.like(FEED[2], { ts: NOW });
  await ranker.dislike(FEED[0], { ts: NOW });
  await ranker.shown(FEED, { ts: NOW });
  await ranker.viewed(FEED[1], 20, { ts: NOW });
  const liked = await ranker.rank(FEED, { now: NOW });
  const signals = (r) => r.history().filter((h) => "signal" in h).map((h) => `${h.reaction} ${h.id}`);
  ranker = await Ranker.load({ models, store: makeStore() });
  assert.equal(ranker.reactions, 3, "the acknowledged reactions survive a restart");
  assert.deepEqual(signals(ranker), ["shown a", "shown b", "shown c", "view b"], "and the signals");
  const again = await ranker.rank(FEED, { now: NOW });
  assert.deepEqual(again.map((r) => r.id), liked.map((r) => r.id));
  // a text embedded alone or in a batch differs in the last float bits (padding), in Python too
  again.forEach((r, i) => assert.ok(Math.abs(r.score - liked[i].score) < 1e-6));
  assert.equal(await ranker.undo("c"), 2, "its dislike and its showing");
  ranker = await Ranker.load({ models, store: makeStore() });
  assert.equal(ranker.reactions, 2, "an undo survives a restart");
  assert.deepEqual(signals(ranker), ["shown a", "shown b", "view b"]);
  assert.equal((await ranker.rank(FEED, { now: NOW, reacted: "keep" }))[0].id, "b", "the like is kept, ranked by its score");
  await ranker.erase();
  await erased();
  ranker = await Ranker.load({ models, store: makeStore() });
  assert.equal(ranker.reactions, 0, "erase leaves nothing");
  assert.deepEqual(ranker.history(), [], "no signal either");
}

test("IndexedDBStore: reactions, undo and erase across restarts; erase deletes the database", async () => {
  await lifecycle(
    () => new IndexedDBStore("user-1"),
    async () => {
      const names = (await indexedDB.databases()).map((d) => d.name);
      assert.ok(!names.includes("user-1"), `databases left: ${names}`);
    },
  );
});

test("FileStore: reactions, undo and erase across restarts, the file private to its user", async () => {
  const path = join(dir, "prefs.json");
  const ranker = await Ranker.load({ models, store: new FileStore(path) });
  await ranker.like(FEED[0], { ts: NOW });
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  await ranker.erase();
  await lifecycle(
    () => new FileStore(path),
    async () => assert.deepEqual(await readdir(dir), [], "no file and no temporary file left"),
  );
});

test("two Rankers on one store add to each other's reactions; an erase in one holds in the other", async () => {
  for (const make of [() => new FileStore(join(dir, "shared.json")), () => new IndexedDBStore("shared")]) {
    const [a, b] = [await Ranker.load({ models, store: make() }), await Ranker.load({ models, store: make() })];
    await a.like(FEED[0], { ts: NOW });
    await b.like(FEED[1], { ts: NOW });
    await a.dislike(FEED[2], { ts: NOW });
    const seen = (await Ranker.load({ models, store: make() })).history().map((e) => e.id);
    assert.deepEqual(seen, ["a", "b", "c"]);
    await Promise.all([...Array(20)].map((_, i) => (i % 2 ? a : b).like([`x${i}`, `Story number ${i} about rockets`], { ts: NOW })));
    assert.equal((await Ranker.load({ models, store: make() })).reactions, 23, "twenty likes at once from two Rankers, all kept");
    await b.erase();
    await a.like(FEED[1], { ts: NOW });
    const after = (await Ranker.load({ models, store: make() })).history().map((e) => e.id);
    assert.deepEqual(after, ["b"], "the erase holds: only the like made after it is stored");
    assert.equal((await a.rank(FEED, { now: NOW, reacted: "keep" }))[0].id, "b", "a ranks by what the store holds now");
    await a.erase();
  }
});

test("FileStore writes atomically: a process killed while it writes leaves every acknowledged reaction", async () => {
  const path = join(dir, "killed.json");
  const child = spawn(process.execPath, [fileURLToPath(new URL("writer.js", import.meta.url)), MODELS, path], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const acknowledged = [];
  await new Promise((done) => {
    child.stdout.on("data", (chunk) => {
      acknowledged.push(...chunk.toString().split("\n").filter(Boolean));
      if (acknowledged.length >= 15) {
        child.kill("SIGKILL");
        done();
      }
    });
  });
  await new Promise((done) => child.on("exit", done));
  const stored = (await Ranker.load({ models, store: new FileStore(path) })).history().map((e) => e.id);
  for (const id of acknowledged) assert.ok(stored.includes(id), `acknowledged ${id} is stored`);
  await rm(path);
  await rm(`${dirname(path)}/.${basename(path)}.lock`, { force: true }); // the killed writer's, if it held it
  const left = (await readdir(dir)).filter((f) => f.startsWith(".killed.json."));
  await Promise.all(left.map((f) => rm(join(dir, f))));
});

/** A writer process, killed after `likes` acknowledged likes, while it holds the lock (mid-change). */
async function killWriter(path, likes) {
  const child = spawn(process.execPath, [fileURLToPath(new URL("writer.js", import.meta.url)), MODELS, path], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lock = join(dirname(path), `.${basename(path)}.lock`);
  let acknowledged = 0;
  await new Promise((done) => {
    child.stdout.on("data", (chunk) => {
      acknowledged += chunk.toString().split("\n").filter(Boolean).length;
      if (acknowledged === likes) done();
    });
  });
  for (let tries = 0; tries < 20_000; tries++) {
    if (await stat(lock).then(() => true, () => false)) break;
    await new Promise((done) => setImmediate(done));
  }
  child.kill("SIGKILL");
  await new Promise((done) => child.on("exit", done));
}

test("FileStore: writers killed mid-change leave no lock in the way, and erase leaves no byte of the texts", async () => {
  const folder = await mkdtemp(join(tmpdir(), "edge-ranker-killed-"));
  const path = join(folder, "prefs.json");
  for (let round = 0; round < 4; round++) await killWriter(path, 2 + (round % 3));
  const ranker = await Ranker.load({ models, store: new FileStore(path) });
  await ranker.like(["after", "A story about rockets and the Moon, liked after the kills"]);
  await ranker.erase();
  for (const name of await readdir(folder)) {
    const bytes = await readFile(join(folder, name));
    assert.ok(!bytes.includes("rockets and the Moon"), `${name} holds a liked text after erase`);
  }
  assert.equal((await Ranker.load({ models, store: new FileStore(path) })).reactions, 0);
  await rm(folder, { recursive: true, force: true });
});

test("FileStore: erase leaves no byte of the texts shown or viewed, nor of their vectors", async () => {
  const folder = await mkdtemp(join(tmpdir(), "edge-ranker-signals-"));
  const path = join(folder, "prefs.json");
  const ranker = await Ranker.load({ models, store: new FileStore(path) });
  const seen = [["s1", "A shown story about lighthouses on the northern coast"], ["s2", "A read story about glaciers melting in the Alps"]];
  for (const ts of [NOW - 20, NOW - 10]) await ranker.shown([seen[0]], { ts });
  await ranker.viewed(seen[1], 40, { ts: NOW });
  const vector = JSON.parse(await readFile(path, "utf8")).signals[0].vector;
  const texts = [...seen.map(([, t]) => t), vector];
  const before = await readFile(path);
  assert.deepEqual(texts.filter((t) => !before.includes(t)), [], "the file holds the signals until the erase");
  await ranker.erase();
  for (const name of await readdir(folder)) {
    const bytes = await readFile(join(folder, name));
    assert.deepEqual(texts.filter((t) => bytes.includes(t)), [], `${name} holds a signal after erase`);
  }
  assert.deepEqual(await readdir(folder), []);
  await rm(folder, { recursive: true, force: true });
});

test("a preferences file of schema 1, before signals, is read, and written as schema 2 at its next change", async () => {
  const path = join(dir, "schema-1.json");
  const ranker = await Ranker.load({ models, store: new FileStore(path) });
  await ranker.like(FEED[0], { ts: NOW });
  const record = JSON.parse(await readFile(path, "utf8"));
  delete record.signals;
  delete record.nextSignal;
  for (const c of record.positives) delete c.weight;
  await writeFile(path, JSON.stringify({ ...record, schema: 1 }));
  const old = await Ranker.load({ models, store: new FileStore(path) });
  assert.deepEqual(old.history().map((h) => h.id), ["a"]);
  assert.equal((await old.rank(FEED, { now: NOW, reacted: "keep" }))[0].interest.positiveWeight, 1);
  await old.viewed(FEED[1], 30, { ts: NOW });
  const written = JSON.parse(await readFile(path, "utf8"));
  assert.equal(written.schema, 2);
  assert.deepEqual(written.signals.map((s) => [s.signal, s.id, s.kind, s.seconds]), [[1, "b", "view", 30]]);
  assert.deepEqual((await Ranker.load({ models, store: new FileStore(path) })).history().map((h) => h.id), ["a", "b"]);
  await rm(path);
});

test("a FileStore that cannot be written changes nothing and says why", async () => {
  const gone = new FileStore(join(dir, "no-such-folder", "prefs.json"));
  const orphan = await Ranker.load({ models, store: gone });
  await assert.rejects(orphan.like(FEED[0], { ts: NOW }), /cannot lock the preferences file .*no-such-folder/);
  assert.equal(orphan.reactions, 0);
});

test("a damaged or newer preferences file is refused in one line, and left as it is", async () => {
  const path = join(dir, "damaged.json");
  await writeFile(path, "{half a file");
  await assert.rejects(Ranker.load({ models, store: new FileStore(path) }), /is not a preferences file \(not JSON\)/);
  const good = join(dir, "good.json");
  const ranker = await Ranker.load({ models, store: new FileStore(good) });
  await ranker.like(FEED[0], { ts: NOW });
  await ranker.like(FEED[1], { ts: NOW });
  for (const ts of [NOW - 1, NOW]) await ranker.shown(FEED, { ts });
  const record = JSON.parse(await readFile(good, "utf8"));
  assert.equal(typeof record.signals[3].vector, "number", "a document shown again holds no second copy of its vector");
  const damages = {
    "signal 0 is not one": (r) => { r.signals[0].kind = "like"; },
    "signal 1 is not one": (r) => { r.signals[1].seconds = -1; },
    "signal 3 names no earlier signal's vector": (r) => { r.signals[3].vector = 3; },
    "signal 2 has 2 numbers beside others": (r) => { r.signals[2].vector = "AACAPwAAgD8="; },
    "no signals or signal counter": (r) => { delete r.nextSignal; },
    "(liked interest 0) is not one": (r) => { r.positives[0].weight = 0; },
    "liked interest 0 is not one": (r) => { r.positives[0] = null; },
    "reaction 0 is not one": (r) => { r.events[0].text = 42; },
    "has 2 numbers beside others": (r) => { r.positives[0].point = "AACAPwAAgD8="; },
    "liked interest 0 is not one": (r) => { r.positives[0].viewCount = "x"; },
  };
  for (const [said, damage] of Object.entries(damages)) {
    const copy = structuredClone(record);
    damage(copy);
    await writeFile(path, JSON.stringify(copy));
    await assert.rejects(Ranker.load({ models, store: new FileStore(path) }), new RegExp(said));
  }
  await rm(good);
  await writeFile(path, JSON.stringify({ schema: 7 }));
  await assert.rejects(Ranker.load({ models, store: new FileStore(path) }), /written by a newer edge-ranker/);
  assert.equal(await readFile(path, "utf8"), JSON.stringify({ schema: 7 }));
  await rm(path);
});

test("MemoryStore: kept for the life of the object only", async () => {
  const store = new MemoryStore();
  await lifecycle(() => store);
  const other = await Ranker.load({ models, store: new MemoryStore() });
  assert.equal(other.reactions, 0);
});

test("FileStore: erase removes its own temporary files only, not those of a store whose name starts as its does", async () => {
  const folder = await mkdtemp(join(tmpdir(), "edge-ranker-names-"));
  const uuid = "123e4567-e89b-12d3-a456-426614174000";
  await writeFile(join(folder, `.prefs.json.${uuid}.tmp`), "a killed writer's");
  await writeFile(join(folder, `.prefs.json.bak.${uuid}.tmp`), "a live writer's, of prefs.json.bak");
  await new FileStore(join(folder, "prefs.json")).erase();
  assert.deepEqual(await readdir(folder), [`.prefs.json.bak.${uuid}.tmp`]);
  await rm(folder, { recursive: true, force: true });
});
