// A React Native app's use of the package, type-checked by test/types-react-native.test.js against src/react-native.d.ts.
import { Encoder, KeyValueStore, Ranker, ortBackend, type KeyValueStorage, type ModelFiles } from "edge-ranker/react-native";

declare const AsyncStorage: {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
};
declare function readAsset(path: string): Promise<ArrayBuffer>;

const assets = (name: string): ModelFiles => ({ name, read: (file) => readAsset(`models/${name}/${file}`) });

export async function app(): Promise<string[]> {
  const storage: KeyValueStorage = AsyncStorage;
  const semantic = await Encoder.load(assets("semantic"), { backend: "js" });
  const backend: string = semantic.backend;
  const ranker = await Ranker.load({
    models: { semantic, relevance: assets("relevance") },
    store: new KeyValueStore(storage, { key: "user-1" }),
  });
  await ranker.like(["a", "A story about the Moon"]);
  const ranked = await ranker.rank(["one", "two"], { query: "moon", diversity: 0 });
  await ranker.erase();
  return ranked.map((r) => `${r.id} ${r.score} ${backend}`);
}

declare const ortNative: { InferenceSession: { create(model: Uint8Array, options?: object): Promise<unknown> }; Tensor: new (type: "int64", data: BigInt64Array, dims: number[]) => unknown };
export const native = () => Encoder.load(assets("semantic"), { backend: ortBackend(ortNative, { name: "onnxruntime-react-native" }) });
