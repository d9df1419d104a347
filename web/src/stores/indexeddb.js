// The browser's store: the user's reactions in IndexedDB (through idb), sealed with AES-GCM, so that the browser's
// files never hold them in plaintext. A browser keeps what a page deletes in those files until it compacts them, a
// stored CryptoKey's bytes included (Chromium writes them into the key's record): so the key's bytes are kept in a
// file of the origin private file system, which erase deletes at once, and what the database's files keep of the
// records is ciphertext that no key left opens. Where that file system takes no file (Node, Safari before 26), the
// key is a non-extractable CryptoKey in the database, deleted with it.
// A change reads the record, seals the changed one and writes it in a transaction that first checks the record is
// still the one read (a transaction ends while WebCrypto works), else starts again from the one there now: a
// reaction acknowledged in one tab is never overwritten by another, and a reload reads it back whole.
import { deleteDB, openDB } from "idb";
import { EdgeRankerError } from "../errors.js";
import { fromRecord, toRecord } from "../state.js";

const TABLE = "preferences";
const KEYS = "keys";
const KEY = "user";
const AES = { name: "AES-GCM", length: 256 };
const FOLDER = "edge-ranker"; // the origin private file system's folder of keys: in it, one folder per database

export class IndexedDBStore {
  /** @param {string} name the database's name: one per user of the page */
  constructor(name = "edge-ranker") {
    if (typeof name !== "string" || !name) throw new EdgeRankerError("an IndexedDBStore needs a non-empty database name");
    this.name = name;
    this.db = null;
    this.key = null;
  }

  async open() {
    if (typeof indexedDB === "undefined") {
      throw new EdgeRankerError("IndexedDB is not available here (Node has none: use FileStore or MemoryStore)");
    }
    if (!globalThis.crypto?.subtle) {
      throw new EdgeRankerError("WebCrypto is not available here (a page on plain http has none): serve the page over https");
    }
    this.db ??= await openDB(this.name, 2, {
      upgrade(db, from) {
        if (from < 1) db.createObjectStore(TABLE);
        db.createObjectStore(KEYS); // version 1 kept its record unsealed: it is read, and sealed at the next change
      },
      blocking: () => this.close(), // another tab erases: let it
    });
    return this.db;
  }

  get where() {
    return `IndexedDB database '${this.name}'`;
  }

  async load() {
    return this.unsealed(await (await this.open()).get(TABLE, KEY));
  }

  /** The state `change` makes of the stored one (null: none yet); `change` runs again if another tab changed it meanwhile. */
  async update(change) {
    const db = await this.open();
    for (;;) {
      const record = await db.get(TABLE, KEY);
      const next = change(await this.unsealed(record));
      if (await replaced(db, record, await this.sealed(next, generation(record) + 1))) return next;
    }
  }

  /** The state a record holds (null: none); one of version 1 is read as it is. */
  async unsealed(record) {
    if (record === undefined) return null;
    if (!("data" in record)) return fromRecord(record, this.where);
    const key = await this.sealing();
    let plain;
    try {
      plain = await crypto.subtle.decrypt({ name: AES.name, iv: record.iv }, key, record.data);
    } catch {
      throw new EdgeRankerError(`${this.where} holds preferences its key does not open (damaged): erase them, then load again`);
    }
    return fromRecord(JSON.parse(new TextDecoder().decode(plain)), this.where);
  }

  /** A state as the record stored: its JSON sealed under the key with a fresh nonce, and which write it is. */
  async sealed(state, version) {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const plain = new TextEncoder().encode(JSON.stringify(toRecord(state)));
    return { version, iv, data: await crypto.subtle.encrypt({ name: AES.name, iv }, await this.sealing(), plain) };
  }

  /** The database's key, made at its first use: of two tabs that make one at once, the one stored first is kept. */
  async sealing() {
    if (!this.key) {
      const db = await this.open();
      const kept = (await db.get(KEYS, KEY)) ?? (await this.made(db));
      this.key = kept.file ? await imported(await this.keyBytes(kept.file)) : kept.key;
    }
    return this.key;
  }

  /** A new key, stored (its bytes in a file where the origin's file system takes one); or the one stored meanwhile. */
  async made(db) {
    const bytes = crypto.getRandomValues(new Uint8Array(AES.length / 8));
    const folder = await this.folder(true);
    const file = folder && (await keyFile(folder, bytes));
    const entry = file ? { file } : { key: await imported(bytes) };
    const tx = db.transaction(KEYS, "readwrite", { durability: "strict" });
    const first = (await tx.store.get(KEY)) ?? entry;
    if (first === entry) await tx.store.put(entry, KEY);
    await tx.done;
    if (first !== entry && file) await folder.removeEntry(file);
    return first;
  }

  async keyBytes(file) {
    try {
      return await (await (await (await this.folder()).getFileHandle(file)).getFile()).arrayBuffer();
    } catch {
      throw new EdgeRankerError(`${this.where}: the key of its preferences is gone from the browser's storage: erase them, then load again`);
    }
  }

  /** This database's folder of key files in the origin private file system (made when `make`); null where none. */
  async folder(make = false) {
    const root = await keyRoot(make);
    return root && root.getDirectoryHandle(await hashed(this.name), { create: make }).catch(() => null);
  }

  /** Deletes the key (its file first) and the records, then the database: the browser's files keep ciphertext only. */
  async erase() {
    const db = await this.open();
    const tx = db.transaction([KEYS, TABLE], "readwrite", { durability: "strict" });
    await Promise.all([tx.objectStore(KEYS).clear(), tx.objectStore(TABLE).clear(), tx.done]);
    const root = await keyRoot(false);
    await root?.removeEntry(await hashed(this.name), { recursive: true }).catch((err) => {
      if (err.name !== "NotFoundError") {
        throw new EdgeRankerError(`${this.where}: erase deleted the records but not their key's file (${err.message}): erase again`);
      }
    });
    this.close();
    await deleteDB(this.name); // other tabs of the page close theirs when asked (blocking, above)
  }

  close() {
    this.db?.close();
    this.db = null;
    this.key = null;
  }
}

/** Which write a record is: -1 for none, 0 for one of version 1. A change is written only over the record it was made from. */
const generation = (record) => (record === undefined ? -1 : (record.version ?? 0));

/** Writes `sealed` in place of `record`, in one transaction, unless another tab has changed it since it was read. */
async function replaced(db, record, sealed) {
  const tx = db.transaction(TABLE, "readwrite", { durability: "strict" });
  tx.done.catch(() => {}); // a failure is thrown below, once
  const same = generation(await tx.store.get(KEY)) === generation(record);
  if (same) await tx.store.put(sealed, KEY);
  await tx.done;
  return same;
}

const imported = (bytes) => crypto.subtle.importKey("raw", bytes, AES, false, ["encrypt", "decrypt"]);

/** A folder name for a database's name, which may hold any character. */
async function hashed(name) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(name)));
  return Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The origin private file system's folder of keys (made when `make`); null where there is none (Node, a private
 * window) or none yet. */
async function keyRoot(make) {
  try {
    return await (await navigator.storage.getDirectory()).getDirectoryHandle(FOLDER, { create: make });
  } catch {
    return null;
  }
}

/** `bytes` in a new file of `folder`: its name, or null where no file can be written (Safari before 26). */
async function keyFile(folder, bytes) {
  const name = `${crypto.randomUUID()}.key`;
  try {
    const writable = await (await folder.getFileHandle(name, { create: true })).createWritable();
    await writable.write(bytes);
    await writable.close();
    return name;
  } catch {
    await folder.removeEntry(name).catch(() => {});
    return null;
  }
}
