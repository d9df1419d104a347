// FileStore's lock file names the process that holds it: one left by a process that is gone is taken over at once,
// one held by a live process is waited for, and one from a process that cannot be asked (another host) is never taken.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { emptyState } from "../src/state.js";
import { FileStore } from "../src/stores/file.js";

let dir;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "edge-ranker-lock-"));
});
after(() => rm(dir, { recursive: true, force: true }));

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const store = (path) => new FileStore(path);
/** A change that likes `id` (a two-number vector: no model is needed to store one). */
const like = (id) => (stored) => {
  const state = stored ?? emptyState("test");
  state.events.push({ event: state.nextEvent++, id, text: id, reaction: "like", ts: 1, vector: new Float32Array([1, 0]) });
  return state;
};
const liked = async (path) => (await store(path).load()).events.map((e) => e.id);

/** Whether `promise` is still pending after `ms`. */
async function pending(promise, ms) {
  const late = Symbol("pending");
  return (await Promise.race([promise.then(() => null, () => null), sleep(ms).then(() => late)])) === late;
}

/** A lock file as a process of `holder` would leave it. */
const lockOf = (name, holder) =>
  writeFile(join(dir, `.${name}.lock`), JSON.stringify({ host: hostname(), pid: process.pid, run: randomUUID(), id: randomUUID(), ...holder }));

test("a lock left by a killed process whose pid this process has now (a restarted container) is taken at once", async () => {
  await lockOf("reused.json", {});
  const started = Date.now();
  await store(join(dir, "reused.json")).update(like("a"));
  assert.ok(Date.now() - started < 1000, `taken after ${Date.now() - started} ms`);
});

test("a lock that names no process (an older edge-ranker's, or one killed as it made it) is taken once it is old", async () => {
  const lock = join(dir, ".unnamed.json.lock");
  await writeFile(lock, "");
  const taking = store(join(dir, "unnamed.json")).update(like("a"));
  assert.ok(await pending(taking, 300), "a young one may be being written: it is waited for");
  const past = new Date(Date.now() - 60_000);
  await utimes(lock, past, past);
  await taking;
});

test("a lock of a process on another host is waited for and refused, naming it; never taken", async () => {
  await lockOf("remote.json", { host: "another-host", pid: 2 ** 22 + 7 });
  const taking = store(join(dir, "remote.json")).update(like("a"));
  assert.ok(await pending(taking, 3000), "not taken, though no process here has that pid");
  await assert.rejects(taking, /locked by process 4194311 on another-host \(.*\.remote\.json\.lock\)/);
});

test("a live holder is waited for; killed while it holds the lock, it is taken over, and nothing is left beside", async () => {
  const path = join(dir, "held.json");
  for (let round = 0; round < 3; round++) {
    const child = spawn(process.execPath, [fileURLToPath(new URL("holder.js", import.meta.url)), path], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise((done) => child.stdout.once("data", done));
    const taking = store(path).update(like(`after-${round}`));
    assert.ok(await pending(taking, 500), "the live holder is waited for");
    child.kill("SIGKILL");
    const killed = Date.now();
    await taking;
    assert.ok(Date.now() - killed < 2000, "taken over once its holder is gone");
  }
  assert.deepEqual(await liked(path), ["after-0", "after-1", "after-2"]);
  assert.deepEqual((await readdir(dir)).filter((n) => n.startsWith(".held.json")), [], "no lock or claim file left");
});

test("processes that find one stale lock at once take it in turn: no change is lost", async () => {
  const path = join(dir, "crowd.json");
  for (let round = 0; round < 5; round++) {
    await lockOf("crowd.json", { pid: process.pid, run: "a killed run" });
    // one file by eight spellings of its path: eight stores that order their changes by the lock file alone
    const stores = Array.from({ length: 8 }, (_, i) => store(join(dir, ...Array(i).fill("."), "crowd.json")));
    await Promise.all(stores.map((s, i) => s.update(like(`${round}-${i}`))));
  }
  assert.equal((await liked(path)).length, 40, "every change kept");
});
