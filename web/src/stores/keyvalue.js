// A store over a key-value storage the app backs with its own (React Native's AsyncStorage, MMKV, a SQLite module):
// any object with getItem(key), setItem(key, value) and removeItem(key), each a string in and out, sync or async.
//
// Each change is whole: the user's record is kept in two keys, written in turn, each value its generation, length
// and checksum before the record. A change writes the key that does not hold the newest record, so that a crash (or
// a failed write) mid-change leaves that one as it was: a load reads both and takes the newest that is whole, the old
// state or the new one, never half of one. Erase removes both keys, the older first (a crash between leaves the state
// as before the erase, never an older one), and no other key ever holds the user's texts. Changes from one app's
// JavaScript runtime are made one after another, whichever KeyValueStore object on that storage and key makes them.
import { EdgeRankerError } from "../errors.js";
import { fromRecord, toRecord } from "../state.js";

const FORMAT = "edge-ranker-kv";
/** Changes in turn, per storage object and key: a storage object -> key -> the last change's promise. */
const queues = new WeakMap();

/** A 32-bit FNV-1a of a string's UTF-16 code units, in hex: enough to tell a torn write from a whole one. */
function checksum(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

export class KeyValueStore {
  /**
   * @param {{getItem: Function, setItem: Function, removeItem: Function}} storage the app's key-value storage
   * @param {{key?: string}} [options] the keys' prefix (default "edge-ranker"): one user's store per prefix
   */
  constructor(storage, options = {}) {
    for (const method of ["getItem", "setItem", "removeItem"]) {
      if (typeof storage?.[method] !== "function") {
        throw new EdgeRankerError(`a KeyValueStore needs a storage with getItem, setItem and removeItem (as AsyncStorage has); it lacks ${method}`);
      }
    }
    const { key = "edge-ranker", ...rest } = options ?? {};
    if (Object.keys(rest).length) throw new EdgeRankerError(`KeyValueStore takes the option key only, got ${Object.keys(rest).join(", ")}`);
    if (typeof key !== "string" || !key) throw new EdgeRankerError("a KeyValueStore's key must be a non-empty string");
    this.storage = storage;
    this.key = key;
    this.slots = [`${key}.a`, `${key}.b`];
    this.where = `the key-value store "${key}"`;
    this.seen = null; // the newest whole value read and its state: an unchanged value is not parsed again
  }

  /** The stored state (null: none yet). */
  async load() {
    return (await this.read()).state;
  }

  /**
   * Both slots read: the newest whole one's state, generation and slot index (state null where none is). A value read
   * before is not parsed again unless `fresh` (a change is given a state of its own, which it may change).
   */
  async read(fresh = false) {
    const values = [];
    for (const slot of this.slots) {
      let value;
      try {
        value = await this.storage.getItem(slot);
      } catch (err) {
        throw new EdgeRankerError(`cannot read ${this.where}: ${err?.message ?? err}`);
      }
      values.push(typeof value === "string" ? value : null);
    }
    const parsed = values.map((v) => (v === null ? null : this.parse(v)));
    let newest = -1;
    parsed.forEach((p, i) => {
      if (p && (newest < 0 || p.generation > parsed[newest].generation)) newest = i;
    });
    if (newest < 0) {
      if (values.every((v) => v !== null)) {
        throw new EdgeRankerError(`${this.where} holds no edge-ranker preferences it can read (both its keys are damaged): erase it, then load again`);
      }
      return { state: null, generation: 0, slot: -1 }; // nothing, or only a first write that did not finish
    }
    const { generation, text } = parsed[newest];
    if (fresh || this.seen?.text !== text) {
      let record;
      try {
        record = JSON.parse(text);
      } catch {
        throw new EdgeRankerError(`${this.where} holds no edge-ranker preferences it can read (not JSON): erase it, then load again`);
      }
      this.seen = { text, state: fromRecord(record, this.where) };
    }
    return { state: this.seen.state, generation, slot: newest };
  }

  /** A slot's value as {generation, text}, or null when it is not one whole value of this store (a torn write). */
  parse(value) {
    const cut = value.indexOf("\n");
    if (cut < 0) return null;
    let head;
    try {
      head = JSON.parse(value.slice(0, cut));
    } catch {
      return null;
    }
    const text = value.slice(cut + 1);
    const whole = head?.format === FORMAT && Number.isSafeInteger(head.generation) && head.length === text.length;
    return whole && head.check === checksum(text) ? { generation: head.generation, text } : null;
  }

  /** The state `change` makes of the stored one (null: none yet), written whole or, when anything fails, not at all. */
  update(change) {
    return this.queued(async () => {
      this.seen = null; // the state given before is not the one changed: a change that fails leaves it as it was
      const { state, generation, slot } = await this.read(true);
      this.seen = null;
      const next = change(state);
      const text = JSON.stringify(toRecord(next));
      const head = JSON.stringify({ format: FORMAT, generation: generation + 1, length: text.length, check: checksum(text) });
      try {
        await this.storage.setItem(this.slots[slot === 0 ? 1 : 0], `${head}\n${text}`);
      } catch (err) {
        throw new EdgeRankerError(`cannot write ${this.where}: ${err?.message ?? err}; it holds the state before this change, or this change whole if the storage kept the value before it failed`);
      }
      return next;
    });
  }

  /** Removes both keys, the one with the older record first. */
  erase() {
    return this.queued(async () => {
      let newest = 0;
      try {
        newest = Math.max(0, (await this.read()).slot);
      } catch {
        // damaged keys are removed all the same
      }
      this.seen = null;
      try {
        await this.storage.removeItem(this.slots[1 - newest]);
        await this.storage.removeItem(this.slots[newest]);
      } catch (err) {
        throw new EdgeRankerError(`cannot erase ${this.where}: ${err?.message ?? err}`);
      }
    });
  }

  /** Runs `task` after every change before it on this storage and key. */
  queued(task) {
    let keys = queues.get(this.storage);
    if (!keys) queues.set(this.storage, (keys = new Map()));
    const run = (keys.get(this.key) ?? Promise.resolve()).then(task);
    keys.set(this.key, run.catch(() => {}));
    return run;
  }
}
