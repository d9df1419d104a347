// Types of the edge-ranker package (src/ is plain ES modules; these mirror it).

/** What edge-ranker refuses, in one line that says what is wrong and what to do. */
export class EdgeRankerError extends Error {}
/** A reaction refused because no interest can be learnt from its text; nothing was stored. */
export class Unlearnable extends EdgeRankerError {}

/**
 * A model's files as an app has them where there is no folder to read (a React Native app's assets): `read(name)`
 * gives the bytes of the file the manifest names (manifest.json first). `name` names the model in errors.
 */
export interface ModelFiles {
  name?: string;
  read(name: string): Promise<Uint8Array | ArrayBuffer> | Uint8Array | ArrayBuffer;
}
/** A model folder: a path in Node, a URL (or a path relative to the page) in the browser; or its files' reader. */
export type ModelSource = string | URL | ModelFiles;
/** The forward pass: onnxruntime-web's WebAssembly ("ort"), or plain JavaScript ("js", for engines without it). */
export type Backend = "ort" | "js";
export type Role = "query" | "passage";

export interface Manifest {
  name: string;
  kind: "semantic" | "relevance";
  dim: number;
  maxLength: number;
  windows: number;
  onnx: string;
  tokenizer: string;
  vocab: string;
  prefixes: Partial<Record<Role, string>>;
  files: Record<string, { sha256: string; bytes: number }>;
}

export class Encoder {
  /**
   * Loads a model folder; every file the manifest lists is checked by size and SHA-256 first. `backend`: left out,
   * "ort" where the engine has WebAssembly, else "js".
   */
  static load(
    source: ModelSource,
    options?: { verify?: boolean; batchSize?: number; backend?: Backend | { name: string; create(graph: Uint8Array): Promise<unknown> } },
  ): Promise<Encoder>;
  /** The cosine of every vector of a with every vector of b. */
  static similarity(a: ArrayLike<number> | ArrayLike<number>[], b: ArrayLike<number> | ArrayLike<number>[]): number[][];
  readonly name: string;
  readonly dim: number;
  readonly key: string;
  readonly manifest: Manifest;
  /** The forward pass this Encoder runs ("ort", "js", or the name of one an app plugged in). */
  readonly backend: string;
  readonly roles: Role[];
  encode(text: string, options?: { role?: Role }): Promise<Float32Array>;
  encode(texts: string[], options?: { role?: Role }): Promise<Float32Array[]>;
  encodeQuery(text: string): Promise<Float32Array>;
  encodeQuery(texts: string[]): Promise<Float32Array[]>;
  encodeDocument(text: string): Promise<Float32Array>;
  encodeDocument(texts: string[]): Promise<Float32Array[]>;
  tokenize(text: string, role?: Role): number[];
  /** Frees the model's forward pass (onnxruntime-web's session); the Encoder cannot encode after. */
  release(): Promise<void>;
  cut(text: string): string;
  unknownShare(text: string): number;
}

/** A document: an object, an [id, text] pair, or (to rank) a plain text whose id is its position. */
export interface DocumentObject {
  id: string | number;
  text: string | null;
  /** Unix seconds, a Date, or ISO-8601 as YYYY-MM-DD[(T| )HH:MM[:SS[.ffffff]][Z|±HH:MM]] (UTC when it names no zone). */
  published?: number | string | Date | null;
}
export type DocumentLike = DocumentObject | [string | number, string];

export interface InterestScore {
  score: number;
  positiveInterest: number | null;
  positiveSimilarity: number;
  positiveDecay: number;
  interestRelevance: number;
  negativeInterest: number | null;
  negativeSimilarity: number;
  negativeDecay: number;
  /** The matched interests' weights (1 for a like's or dislike's, less for a read's or a skip's; 0 for none). */
  positiveWeight: number;
  negativeWeight: number;
}

/** A stored like or dislike, as history lists it. */
export interface ReactionEntry {
  event: number;
  id: string;
  text: string;
  reaction: "like" | "dislike";
  ts: number;
}

/** A stored signal, as history lists it after the reactions: a showing (shown) or a view (viewed, with its seconds). */
export interface SignalEntry {
  signal: number;
  id: string;
  text: string;
  reaction: "shown" | "view";
  seconds: number;
  ts: number;
}

export interface Ranked {
  id: string;
  score: number;
  rank: number;
  personalScore: number | null;
  relevanceScore: number | null;
  lexicalScore: number | null;
  semanticScore: number | null;
  queryScore: number | null;
  /** What each part added: they add up to score ("query" and "personal" with a query, else "personal" or "recency"). */
  contributions: Partial<Record<"query" | "personal" | "recency", number>>;
  interest: InterestScore | null;
  /** The id of the document of the same story ranked above, when folded under it (duplicates "fold"); else null. */
  duplicateOf: string | null;
}

export interface InterestConfig {
  shiftFactor: number;
  threshold: number;
  horizonDays: number;
  decayRatePerDay: number;
  minPositiveCois: number;
}

export interface RankerOptions {
  personalWeight?: number;
  lexicalWeight?: number;
  semanticQueryWeight?: number;
  k?: number;
  config?: Partial<InterestConfig>;
}

/** What a store keeps of a user (its fields are the package's own). */
export type StoredState = object;

/**
 * Where a user's reactions are kept. `update` reads the stored state and writes what `change` makes of it as one
 * step, so that several Rankers (tabs, processes) on one store add to each other's reactions; `change` may be called
 * again, with the state as it is then, when another Ranker changed it meanwhile.
 */
export interface Store {
  load(): Promise<StoredState | null>;
  update(change: (stored: StoredState | null) => StoredState): Promise<StoredState>;
  erase(): Promise<void>;
}

export class MemoryStore implements Store {
  load(): Promise<StoredState | null>;
  update(change: (stored: StoredState | null) => StoredState): Promise<StoredState>;
  erase(): Promise<void>;
}

/**
 * The reactions in IndexedDB, sealed with AES-GCM; the key's bytes in a file of the origin private file system where
 * the browser can write one there, else a non-extractable CryptoKey in the database.
 */
export class IndexedDBStore implements Store {
  /** @param name the database's name: one per user of the page */
  constructor(name?: string);
  load(): Promise<StoredState | null>;
  update(change: (stored: StoredState | null) => StoredState): Promise<StoredState>;
  /** Deletes the key, its file and the records, then the whole database. */
  erase(): Promise<void>;
  close(): void;
}

export const SEMANTIC_SHARE: number;
export const UNKNOWN_LIMIT: number;

export class Ranker {
  /**
   * `models`: the folder holding "semantic" and "relevance", or each (an Encoder, a folder; relevance null for no
   * queries). `store`: default a MemoryStore.
   */
  static load(
    options: {
      models: ModelSource | { semantic: Encoder | ModelSource; relevance: Encoder | ModelSource | null };
      store?: Store;
    } & RankerOptions,
  ): Promise<Ranker>;
  constructor(semantic: Encoder, relevance: Encoder | null, store: Store, options?: RankerOptions);
  readonly semantic: Encoder;
  readonly relevance: Encoder | null;
  readonly modelKey: string;
  personalWeight: number;
  lexicalWeight: number;
  semanticQueryWeight: number;
  k: number;
  /** How many reactions the store holds, as of the last open, rank or change. */
  readonly reactions: number;
  open(): Promise<void>;
  /** The stored reactions, oldest first, then the signals, oldest first, as of the last open, rank or change. */
  history(): Array<ReactionEntry | SignalEntry>;
  /** Resolves to the reaction's event number once the store holds it. */
  like(doc: DocumentLike, options?: { ts?: number }): Promise<number>;
  dislike(doc: DocumentLike, options?: { ts?: number }): Promise<number>;
  /** The user opened the document and read it for `seconds`: kept as a view (a read, if long enough and never liked). */
  viewed(doc: DocumentLike, seconds: number, options?: { ts?: number }): Promise<void>;
  /** The app displayed the documents: each showing is kept (shown twice, never opened: a skip); resolves to how many. */
  shown(docs: Array<DocumentLike | string>, options?: { ts?: number }): Promise<number>;
  /** Resolves to how many reactions to the document and signals of it were undone. */
  undo(id: string | number): Promise<number>;
  erase(): Promise<void>;
  learnable(text: string): boolean;
  /** The vectors rank uses for documents, one per document ("semantic", or "passage" with a relevance model). */
  embed(docs: Array<DocumentLike | string>, options?: { model?: "semantic" | "relevance" }): Promise<Float32Array[]>;
  rank(
    docs: Array<DocumentLike | string>,
    options?: {
      query?: string | null;
      now?: number;
      personalWeight?: number;
      /** "fold" (default): a document of the same story as one ranked above it follows all the others. */
      duplicates?: "fold" | "keep";
      /** What becomes of the documents the user liked, disliked or opened; default "sink" for a feed, "keep" for a search. */
      reacted?: "sink" | "leave_out" | "keep" | null;
      /** In a feed, how much each document above it of the same liked interest lowers a document (default DIVERSITY, 0.05; 0: the scores' order). */
      diversity?: number | null;
    },
  ): Promise<Ranked[]>;
}

// the key-value store and an app's own onnxruntime (declared with the React Native entry, exported by both)
export { KeyValueStore, ortBackend } from "./src/react-native.js";
export type { ForwardBackend, KeyValueStorage, OnnxRuntimeModule } from "./src/react-native.js";
