// edge-ranker in a React Native app (iOS and Android, on Hermes): the package's API without the browser's store, with
// a store over the app's own key-value storage, and the standard functions Hermes lacks filled in first (shims.js).
// Hermes has no WebAssembly: the Encoder runs its models with the JavaScript forward pass (backend "js"), or with
// onnxruntime-react-native's native runtime where the app plugs it in (ortBackend).
import "./shims.js";

export { Encoder } from "./encoder.js";
export { EdgeRankerError, Unlearnable } from "./errors.js";
export { SEMANTIC_SHARE, UNKNOWN_LIMIT } from "./constants.js";
export { Ranker } from "./ranker.js";
export { MemoryStore } from "./stores/memory.js";
export { KeyValueStore } from "./stores/keyvalue.js";
export { ortBackend } from "./forward/session.js";
