// What a React Native build has in place of forward/ort.js (package.json's "react-native" field): no
// onnxruntime-web, whose WebAssembly Hermes cannot run.
export async function create() {
  throw Object.assign(new Error("onnxruntime-web is not part of a React Native build: use backend \"js\""), { refused: true });
}
