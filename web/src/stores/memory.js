// A store that keeps the user's reactions in memory only: for a page that must keep nothing, and for tests.
import { fromRecord, toRecord } from "../state.js";

export class MemoryStore {
  constructor() {
    this.record = null;
  }

  async load() {
    return this.record ? fromRecord(this.record, "the memory store") : null;
  }

  /** The state `change` makes of the stored one (null: none yet), kept whole or, when it throws, not at all. */
  async update(change) {
    const next = change(await this.load());
    this.record = toRecord(next);
    return next;
  }

  async erase() {
    this.record = null;
  }
}
