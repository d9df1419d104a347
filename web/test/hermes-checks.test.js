// test/hermes/checks.js, the golden checks `npm run hermes` runs under Hermes, run in Node too (on the package's
// Node entry and on its React Native one, with each forward pass), so that a failure there is told from one of Hermes.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as node from "../src/index.js";
import * as native from "../src/react-native.js";
import { runChecks } from "./hermes/checks.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const folder = (name) => (name === "wide" ? join(ROOT, "spec/golden/wide") : join(ROOT, "edge_ranker/models", name));
/** A model's files as a React Native app gives them: an object whose read(name) resolves to the bytes. */
const reader = (name) => ({ name: `the ${name} model`, read: (file) => readFile(join(folder(name), file)) });

for (const [entry, api, backend] of [["react-native", native, "js"], ["index", node, "js"], ["index", node, "ort"]]) {
  test(`the Hermes checks pass in Node (src/${entry}.js, backend ${backend})`, { timeout: 600_000 }, async () => {
    const lines = [];
    const { passed, failed, worstVector } = await runChecks({
      read: (name) => readFileSync(join(ROOT, "spec/golden", name), "utf8"),
      models: { semantic: reader("semantic"), relevance: reader("relevance"), wide: reader("wide") },
      api: { ...api, KeyValueStore: native.KeyValueStore },
      log: (line) => lines.push(line),
      backend,
    });
    assert.equal(failed, 0, lines.filter((l) => l.startsWith("not ok")).join("\n"));
    assert.ok(passed > 20 && worstVector <= 1e-5, lines.join("\n"));
  });
}
