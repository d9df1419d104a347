// A store that keeps the user's reactions in memory only: for a page that must keep nothing, and for tests.
import { fromRecord, toRecord } from "../state.js";

export class MemoryStore {
  constructor() {
    this.record = null;
  }

  async load() {
    return this.record ? fromRecord(structuredClone(this.record), "the memory store") : null;
  }

  async save(state) {
    this.record = toRecord(state);
  }

  async erase() {
    this.record = null;
  }
}
