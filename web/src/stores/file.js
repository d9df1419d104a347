// Node's store: the user's reactions in one JSON file, written atomically (a temporary file beside it, flushed,
// then renamed over it), so that a crash leaves the old file or the new one, never half of one. A change reads the
// file and writes it under a lock file beside it, so that Rankers in several processes (or one) add to each other's
// reactions instead of writing over them. The lock file names the process that holds it: one left by a process that
// is gone (killed mid-change) is taken over, and temporary files it left are removed under the lock, so that no
// copy of the user's texts outlives an erase.
import { randomUUID } from "node:crypto";
import { open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { EdgeRankerError } from "../errors.js";
import { fromRecord, toRecord } from "../state.js";

const LOCK_WAIT_MS = 10_000;
const LOCK_WRITE_MS = 5_000; // a lock that names no process after this was left by one killed as it made it
/** This process, as its lock files name it: `run` tells it from a killed one that had its pid (a restarted container). */
const SELF = { host: hostname(), pid: process.pid, run: randomUUID() };
/** Changes to one file from this process, one after another (the lock file orders processes). */
const queues = new Map();

export class FileStore {
  /** @param {string} path the JSON file of one user's preferences (created at the first reaction) */
  constructor(path) {
    if (typeof path !== "string" || !path) throw new EdgeRankerError("a FileStore needs the path of its file");
    this.path = path;
    this.lock = join(dirname(path), `.${basename(path)}.lock`);
    this.seen = null; // the file's identity and state when last read: an unchanged file is not parsed again
  }

  /** The stored state (null: none yet). One read before, of an unchanged file, is given again: it is not changed. */
  async load() {
    const { identity, state } = (await this.read(this.seen?.identity)) ?? {};
    this.seen = state ? { identity, state } : null;
    return state ?? null;
  }

  /** The file's state and identity, parsed; that of `known` (an identity read before) is not parsed again. */
  async read(known) {
    let info;
    try {
      info = await stat(this.path);
    } catch (err) {
      if (err.code === "ENOENT") return null;
      throw new EdgeRankerError(`cannot read the preferences file ${this.path}: ${err.message}`);
    }
    const identity = `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (identity === known) return this.seen;
    let text;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      throw new EdgeRankerError(`cannot read the preferences file ${this.path}: ${err.message}`);
    }
    let record;
    try {
      record = JSON.parse(text);
    } catch {
      throw new EdgeRankerError(`${this.path} is not a preferences file (not JSON): rename it to keep it, then load again`);
    }
    return { identity, state: fromRecord(record, this.path) };
  }

  /** The state `change` makes of the stored one (null: none yet), read and written under the lock. */
  update(change) {
    const previous = queues.get(this.path) ?? Promise.resolve();
    const run = previous.then(() => this.locked(async () => {
      this.seen = null; // the state given before is not the one changed: a change that fails leaves it as it was
      const next = change((await this.read())?.state ?? null);
      await this.write(next);
      return next;
    }));
    queues.set(this.path, run.catch(() => {}));
    return run;
  }

  async locked(task) {
    const id = randomUUID();
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (!(await this.taken(id))) {
      if (Date.now() > deadline) {
        const held = await holder(this.lock);
        const who = held?.pid ? `process ${held.pid} on ${held.host}` : "another process";
        throw new EdgeRankerError(
          `the preferences file ${this.path} is locked by ${who} (${this.lock}): remove the lock file if that process is gone`,
        );
      }
      await new Promise((done) => setTimeout(done, 20));
    }
    try {
      await this.removeTemporaries();
      return await task();
    } finally {
      if ((await holder(this.lock))?.id === id) await rm(this.lock, { force: true });
    }
  }

  /** Whether this process now holds the lock (as `id`); one left by a process that is gone is removed first. */
  async taken(id) {
    try {
      if (await created(this.lock, id)) return true;
      const held = await holder(this.lock);
      if (held && gone(held)) await broken(this.lock, held);
      return false;
    } catch (err) {
      throw new EdgeRankerError(`cannot lock the preferences file ${this.path}: ${err.message}`);
    }
  }

  /** Remove the temporary files a killed writer left beside the store (the caller holds the lock, so no writer
   * has one open): they hold the user's texts. */
  async removeTemporaries() {
    const name = basename(this.path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const written = new RegExp(`^\\.${name}\\.[0-9a-f-]{36}\\.tmp$`); // write's names: not another store's
    let names;
    try {
      names = await readdir(dirname(this.path));
    } catch {
      return; // no folder: nothing left there
    }
    const left = names.filter((n) => written.test(n));
    await Promise.all(left.map((n) => rm(join(dirname(this.path), n), { force: true })));
  }

  async write(state) {
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${randomUUID()}.tmp`);
    try {
      const file = await open(temporary, "w", 0o600);
      try {
        await file.writeFile(JSON.stringify(toRecord(state)));
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, this.path);
    } catch (err) {
      await rm(temporary, { force: true });
      throw new EdgeRankerError(`cannot write the preferences file ${this.path}: ${err.message}; nothing was changed`);
    }
    const folder = await open(dirname(this.path), "r");
    try {
      await folder.sync(); // the rename itself survives a power cut
    } finally {
      await folder.close();
    }
  }

  async erase() {
    try {
      await this.locked(() => rm(this.path, { force: true }));
    } catch (err) {
      throw err instanceof EdgeRankerError ? err : new EdgeRankerError(`cannot erase ${this.path}: ${err.message}`);
    }
    this.seen = null;
  }
}

/** Makes the lock file `path`, naming this process and `id`: false when there is one. */
async function created(path, id) {
  let file;
  try {
    file = await open(path, "wx", 0o600);
  } catch (err) {
    if (err.code === "EEXIST") return false;
    throw err;
  }
  try {
    await file.writeFile(JSON.stringify({ ...SELF, id }));
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  } finally {
    await file.close();
  }
  return true;
}

/**
 * The process a lock file names, its age and `mark` (its inode and time: a lock made after it has another); null
 * when there is none. Read and stated through one descriptor, so that all of it is of one file.
 */
async function holder(path) {
  let file;
  try {
    file = await open(path, "r");
    const info = await file.stat({ bigint: true });
    const text = await file.readFile("utf8");
    const named = parsed(text);
    return { ...named, age: Date.now() - Number(info.mtimeMs), mark: `${info.ino}.${info.mtimeNs}` };
  } catch {
    return null;
  } finally {
    await file?.close();
  }
}

/** A lock's JSON as {host, pid, run, id}; {} for one being written, or of an older edge-ranker. */
function parsed(text) {
  try {
    const h = JSON.parse(text);
    const ok = typeof h?.host === "string" && Number.isSafeInteger(h.pid) && h.pid > 0 && typeof h.id === "string";
    return ok ? { host: h.host, pid: h.pid, run: h.run, id: h.id } : {};
  } catch {
    return {};
  }
}

/**
 * Whether the process a lock names is gone: asked on this host only (one elsewhere cannot be, so its lock is never
 * taken), by its run for this process's own pid. A lock that names none is gone once older than its making takes.
 */
function gone(held) {
  if (!held.pid) return held.age > LOCK_WRITE_MS;
  if (held.host !== SELF.host) return false;
  if (held.pid === SELF.pid) return held.run !== SELF.run;
  try {
    process.kill(held.pid, 0);
    return false;
  } catch (err) {
    return err.code === "ESRCH"; // EPERM: another user's process, alive
  }
}

/**
 * Removes the lock file `path` if it is still `stale`, a gone process's. Of processes that find it stale at once,
 * only the one that makes its claim file removes it, so that none removes a lock taken since; a claim left by a
 * process killed as it broke the lock is broken the same way.
 */
async function broken(path, stale) {
  const claim = `${path}.${stale.mark}`;
  if (!(await created(claim, randomUUID()))) {
    const other = await holder(claim);
    if (other && gone(other)) await broken(claim, other);
    return;
  }
  try {
    if ((await holder(path))?.mark === stale.mark) await rm(path);
  } finally {
    await rm(claim, { force: true });
  }
}
