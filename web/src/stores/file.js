// Node's store: the user's reactions in one JSON file, written atomically (a temporary file beside it, flushed,
// then renamed over it), so that a crash leaves the old file or the new one, never half of one. A change reads the
// file and writes it under a lock file beside it, so that Rankers in several processes (or one) add to each other's
// reactions instead of writing over them. The lock file names the process that holds it: one left by a process that
// is gone (killed mid-change) is taken over, and temporary files it left are removed under the lock, so that no
// copy of the user's texts outlives an erase.
import { randomUUID } from "node:crypto";
import { link, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { EdgeRankerError } from "../errors.js";
import { fromRecord, toRecord } from "../state.js";

const LOCK_WAIT_MS = 10_000;
const LOCK_WRITE_MS = 2_000; // a lock file still empty after this was left by a process killed as it made it
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
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const file = await open(this.lock, "wx", 0o600);
        try {
          await file.writeFile(String(process.pid));
        } finally {
          await file.close();
        }
        break;
      } catch (err) {
        if (err.code !== "EEXIST") throw new EdgeRankerError(`cannot lock the preferences file ${this.path}: ${err.message}`);
        if (await this.breakStale()) continue;
        if (Date.now() > deadline) {
          throw new EdgeRankerError(
            `the preferences file ${this.path} is locked by another process (${this.lock}): remove the lock file ` +
              "if no process uses the file",
          );
        }
        await new Promise((done) => setTimeout(done, 20));
      }
    }
    try {
      await this.removeTemporaries();
      return await task();
    } finally {
      await rm(this.lock, { force: true });
    }
  }

  /** Whether the lock file was left by a process that is gone, and so was taken away. It is moved aside and read
   * again there: a live process that took the lock meanwhile gets it back. */
  async breakStale() {
    const holder = await lockHolder(this.lock);
    if (holder === null || alive(holder.pid) || (holder.pid === null && Date.now() - holder.mtimeMs < LOCK_WRITE_MS)) {
      return false;
    }
    const aside = `${this.lock}.${randomUUID()}.stale`;
    try {
      await rename(this.lock, aside);
    } catch {
      return true; // gone meanwhile: try to take it again
    }
    const moved = await lockHolder(aside);
    if (moved !== null && moved.pid !== holder.pid) await link(aside, this.lock).catch(() => {});
    await rm(aside, { force: true });
    return true;
  }

  /** Remove the temporary files a killed writer left beside the store (the caller holds the lock, so no writer
   * has one open): they hold the user's texts. */
  async removeTemporaries() {
    const prefix = `.${basename(this.path)}.`;
    let names;
    try {
      names = await readdir(dirname(this.path));
    } catch {
      return; // no folder: nothing left there
    }
    const left = names.filter((n) => n.startsWith(prefix) && (n.endsWith(".tmp") || n.endsWith(".stale")));
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

/** The pid a lock file names (null: none written yet) and when it was made; null when there is no lock file. */
async function lockHolder(path) {
  try {
    const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    const pid = /^\d+$/.test(text) ? Number(text) : null;
    return { pid, mtimeMs: info.mtimeMs };
  } catch {
    return null;
  }
}

/** Whether a process of this id runs (one of another user's counts as running). */
function alive(pid) {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}
