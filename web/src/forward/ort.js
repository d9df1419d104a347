// The forward pass by onnxruntime-web (WebAssembly), imported by the Encoder only when this backend is chosen.
import * as ort from "onnxruntime-web";

/** onnxruntime-web's WebAssembly runs one inference at a time: runs of every session wait their turn here. */
let turn = Promise.resolve();

function inferred(session, feeds) {
  const run = turn.then(() => session.run(feeds));
  turn = run.catch(() => {});
  return run;
}

/** The backend the Encoder runs: a batch of windows of token ids to the graph's output ({dims, data}). */
export async function create(graph) {
  ort.env.wasm.numThreads = 1; // one thread, as on a phone; more would need a cross-origin isolated page
  const session = await ort.InferenceSession.create(graph, { executionProviders: ["wasm"] });
  const inputs = [...session.inputNames].sort().join(",");
  if (inputs !== "attention_mask,input_ids") {
    await session.release(); // a graph refused keeps no WebAssembly memory
    throw Object.assign(new Error(`the graph's inputs are ${inputs}, not input_ids and attention_mask`), { refused: true });
  }
  return {
    name: "ort",
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
      const result = await inferred(session, {
        input_ids: new ort.Tensor("int64", ids, shape),
        attention_mask: new ort.Tensor("int64", mask, shape),
      });
      const out = result[session.outputNames[0]];
      return { dims: out.dims, data: out.data };
    },
    release: () => session.release(),
  };
}
