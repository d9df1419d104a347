// The golden checks under Hermes (npm run hermes): the package as a React Native app bundles it (its "react-native"
// entry and redirects), the model and golden files embedded by scripts/hermes.js, since Hermes has no fs.
import * as api from "../../src/react-native.js";
import { base64Bytes, runChecks } from "./checks.js";

const log = typeof print === "function" ? print : console.log; // Hermes' command line has print, no console
const ASSETS = globalThis.__EDGE_RANKER_ASSETS__;
const files = (folder) => ({
  name: `the embedded ${folder} model`,
  read: async (name) => {
    const b64 = ASSETS.models[folder][name];
    if (b64 === undefined) throw new Error("no such file");
    return base64Bytes(b64);
  },
});
const release = typeof HermesInternal === "object" ? HermesInternal.getRuntimeProperties?.()["OSS Release Version"] : undefined;
log(`engine: ${release ? `Hermes ${release}` : typeof HermesInternal === "object" ? "Hermes" : "not Hermes"}; ` +
  `typeof WebAssembly: ${typeof WebAssembly}; crypto.subtle: ${typeof globalThis.crypto?.subtle}; indexedDB: ${typeof globalThis.indexedDB}`);
runChecks({
  read: (name) => {
    const t = ASSETS.golden[name];
    if (t === undefined) throw new Error(`spec/golden/${name} is not embedded`);
    return t;
  },
  models: { semantic: files("semantic"), relevance: files("relevance"), wide: files("wide") },
  api,
  log,
}).then(
  ({ passed, failed, worstVector }) => {
    log(`hermes: ${passed} passed, ${failed} failed`);
    log(`largest vector difference from Python's, both models: ${worstVector.toExponential(2)} (at most 1e-05)`);
  },
  (err) => log(`not ok - the checks stopped: ${err?.stack ?? err}`),
);
