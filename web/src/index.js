// edge-ranker for the browser and Node: the same models, ranking and golden figures as the Python runtime.
export { Encoder } from "./encoder.js";
export { EdgeRankerError, Unlearnable } from "./errors.js";
export { SEMANTIC_SHARE, UNKNOWN_LIMIT } from "./constants.js";
export { Ranker } from "./ranker.js";
export { IndexedDBStore } from "./stores/indexeddb.js";
export { MemoryStore } from "./stores/memory.js";
export { KeyValueStore } from "./stores/keyvalue.js";
export { ortBackend } from "./forward/session.js";
