// The browser's store: the user's reactions in IndexedDB (through idb). A change reads and writes the record in one
// transaction, which the browser runs alone among the page's tabs, so a reaction acknowledged in one tab is never
// overwritten by another, and a reload reads it back whole.
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

  get where() {
    return `IndexedDB database '${this.name}'`;
  }

  async load() {
    const record = await (await this.open()).get(TABLE, KEY);
    return record === undefined ? null : fromRecord(record, this.where);
  }

  /** The state `change` makes of the stored one (null: none yet), read and written in one transaction. */
  async update(change) {
    const tx = (await this.open()).transaction(TABLE, "readwrite", { durability: "strict" });
    tx.done.catch(() => {}); // a failure is thrown below, once
    try {
      const record = await tx.store.get(KEY);
      const next = change(record === undefined ? null : fromRecord(record, this.where));
      await tx.store.put(toRecord(next), KEY);
      await tx.done;
      return next;
    } catch (err) {
      try {
        tx.abort();
      } catch {
        // already finished
      }
      throw err;
    }
  }

  /** Deletes the whole database: nothing of the user is left in the browser's storage. */
  async erase() {
    this.close();
    await deleteDB(this.name); // other tabs of the page close theirs when asked (blocking, above)
  }

  close() {
    this.db?.close();
    this.db = null;
  }
}
