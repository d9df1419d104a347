// A backend over an onnxruntime module's InferenceSession and Tensor (onnxruntime-common's API, which
// onnxruntime-web, onnxruntime-react-native and onnxruntime-node share): forward/ort.js runs onnxruntime-web through
// it, and a React Native app may plug in onnxruntime-react-native's native runtime with it (Encoder.load's backend).

/** Runs of one onnxruntime module's sessions, one after another (onnxruntime-web's WebAssembly runs one at a time). */
const turns = new WeakMap();

function inferred(ort, session, feeds) {
  const run = (turns.get(ort) ?? Promise.resolve()).then(() => session.run(feeds));
  turns.set(ort, run.catch(() => {}));
  return run;
}

/**
 * A backend for Encoder.load: `ort` is the onnxruntime module (`import * as ort from "onnxruntime-react-native"`);
 * `sessionOptions` go to InferenceSession.create; `name` is what encoder.backend then says.
 */
export function ortBackend(ort, { name = "ort", sessionOptions } = {}) {
  if (typeof ort?.InferenceSession?.create !== "function" || typeof ort?.Tensor !== "function") {
    throw new TypeError("ortBackend takes an onnxruntime module: one with InferenceSession and Tensor");
  }
  return {
    name,
    async create(graph) {
      const session = await ort.InferenceSession.create(graph, sessionOptions);
      const inputs = [...session.inputNames].sort().join(",");
      if (inputs !== "attention_mask,input_ids") {
        await session.release(); // a graph refused keeps no memory of the runtime's
        throw Object.assign(new Error(`the graph's inputs are ${inputs}, not input_ids and attention_mask`), { refused: true });
      }
      return {
        name,
        /** Windows padded to the longest, its padding masked out. */
        async infer(windows) {
          const width = Math.max(...windows.map((w) => w.length));
          const ids = new BigInt64Array(windows.length * width);
          const mask = new BigInt64Array(windows.length * width);
          windows.forEach((w, row) => {
            w.forEach((id, col) => {
              ids[row * width + col] = BigInt(id);
              mask[row * width + col] = 1n;
            });
          });
          const shape = [windows.length, width];
          const result = await inferred(ort, session, {
            input_ids: new ort.Tensor("int64", ids, shape),
            attention_mask: new ort.Tensor("int64", mask, shape),
          });
          const out = result[session.outputNames[0]];
          return { dims: out.dims, data: out.data };
        },
        release: () => session.release(),
      };
    },
  };
}
