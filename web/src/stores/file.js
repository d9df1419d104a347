// Node's store: the user's reactions in one JSON file, written atomically (a temporary file beside it, flushed,
// then renamed over it), so that a crash leaves the old file or the new one, never half of one.
import { open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { EdgeRankerError } from "../errors.js";
import { fromRecord, toRecord } from "../state.js";

export class FileStore {
  /** @param {string} path the JSON file of one user's preferences (created at the first reaction) */
  constructor(path) {
    if (typeof path !== "string" || !path) throw new EdgeRankerError("a FileStore needs the path of its file");
    this.path = path;
  }

  async load() {
    let text;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if (err.code === "ENOENT") return null;
      throw new EdgeRankerError(`cannot read the preferences file ${this.path}: ${err.message}`);
    }
    let record;
    try {
      record = JSON.parse(text);
    } catch {
      throw new EdgeRankerError(`${this.path} is not a preferences file (not JSON): erase it or restore a copy`);
    }
    return fromRecord(record, this.path);
  }

  async save(state) {
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.tmp`);
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
      throw new EdgeRankerError(`cannot write the preferences file ${this.path}: ${err.message}`);
    }
    const folder = await open(dirname(this.path), "r");
    try {
      await folder.sync(); // the rename itself survives a power cut
    } finally {
      await folder.close();
    }
  }

  async erase() {
    await rm(this.path, { force: true });
  }
}
