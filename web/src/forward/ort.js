// The forward pass by onnxruntime-web (WebAssembly), imported by the Encoder only when this backend is chosen.
import * as ort from "onnxruntime-web";
import { ortBackend } from "./session.js";

const backend = ortBackend(ort, { name: "ort", sessionOptions: { executionProviders: ["wasm"] } });

/** The backend the Encoder runs: a batch of windows of token ids to the graph's output ({dims, data}). */
export function create(graph) {
  ort.env.wasm.numThreads = 1; // one thread, as on a phone; more would need a cross-origin isolated page
  return backend.create(graph);
}
