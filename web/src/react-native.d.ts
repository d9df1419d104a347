// Types of the package's React Native entry (edge-ranker/react-native): index.d.ts's API without IndexedDBStore, with
// KeyValueStore.
import type { Store, StoredState } from "../index.js";

export { EdgeRankerError, Encoder, MemoryStore, Ranker, SEMANTIC_SHARE, UNKNOWN_LIMIT, Unlearnable } from "../index.js";
export type {
  Backend, DocumentLike, DocumentObject, InterestConfig, InterestScore, Manifest, ModelFiles, ModelSource, Ranked,
  RankerOptions, Role, Store, StoredState,
} from "../index.js";

/** What an app backs a KeyValueStore with: AsyncStorage as it is, MMKV or a SQLite module through three functions. */
export interface KeyValueStorage {
  getItem(key: string): Promise<string | null | undefined> | string | null | undefined;
  setItem(key: string, value: string): Promise<unknown> | unknown;
  removeItem(key: string): Promise<unknown> | unknown;
}

/**
 * One user's reactions in two keys of the app's key-value storage (`${key}.a`, `${key}.b`), written in turn, so that a
 * crash mid-write leaves the state before the change or after it, whole; erase removes both.
 */
export class KeyValueStore implements Store {
  /** @param options.key the keys' prefix, default "edge-ranker": one per user */
  constructor(storage: KeyValueStorage, options?: { key?: string });
  readonly key: string;
  load(): Promise<StoredState | null>;
  update(change: (stored: StoredState | null) => StoredState): Promise<StoredState>;
  erase(): Promise<void>;
}

/** An onnxruntime module's InferenceSession and Tensor, as onnxruntime-react-native (and onnxruntime-web) export them. */
export interface OnnxRuntimeModule {
  InferenceSession: { create(model: Uint8Array, options?: object): Promise<unknown> };
  Tensor: new (type: "int64", data: BigInt64Array, dims: number[]) => unknown;
}
/** A forward pass an app plugs into Encoder.load({ backend }). */
export interface ForwardBackend {
  name: string;
  create(graph: Uint8Array): Promise<unknown>;
}
/** A backend running the models on `ort` (onnxruntime-react-native's native runtime, say). */
export function ortBackend(ort: OnnxRuntimeModule, options?: { name?: string; sessionOptions?: object }): ForwardBackend;
