// The browser's store: the user's reactions in IndexedDB (through idb), one record written in one transaction, so
// a reaction is acknowledged only once it is on disk and a reload reads it back whole.
import { deleteDB, openDB } from "idb";
import { EdgeRankerError } from "../errors.js";
import { fromRecord, toRecord } from "../state.js";

const TABLE = "preferences";
const KEY = "user";

export class IndexedDBStore {
  /** @param {string} name the database's name: one per user of the page */
  constructor(name = "edge-ranker") {
    if (typeof name !== "string" || !name) throw new EdgeRankerError("an IndexedDBStore needs a non-empty database name");
    this.name = name;
    this.db = null;
  }

  async open() {
    if (typeof indexedDB === "undefined") {
      throw new EdgeRankerError("IndexedDB is not available here (Node has none: use FileStore or MemoryStore)");
    }
    this.db ??= await openDB(this.name, 1, {
      upgrade(db) {
        db.createObjectStore(TABLE);
      },
      blocking: () => this.close(), // another tab erases: let it
    });
    return this.db;
  }

  async load() {
    const record = await (await this.open()).get(TABLE, KEY);
    return record === undefined ? null : fromRecord(record, `IndexedDB database '${this.name}'`);
  }

  async save(state) {
    const tx = (await this.open()).transaction(TABLE, "readwrite", { durability: "strict" });
    await Promise.all([tx.store.put(toRecord(state), KEY), tx.done]);
  }

  /** Deletes the whole database: nothing of the user is left in the browser's storage. */
  async erase() {
    this.db?.close();
    this.db = null;
    await deleteDB(this.name); // other tabs of the page close theirs when asked (blocking, above)
  }

  close() {
    this.db?.close();
    this.db = null;
  }
}
