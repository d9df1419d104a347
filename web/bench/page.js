// What the bench's page imports, bundled by esbuild as an app bundles the package (bench/encode.js): the Encoder,
// onnxruntime-web left to the page's import map, so that a page whose models run on the JavaScript backend never
// fetches it.
export { Encoder } from "../src/index.js";
