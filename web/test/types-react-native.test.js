// src/react-native.d.ts describes the React Native entry as an app uses it: test/types/react-native-app.ts compiles.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { test } from "node:test";

test("a React Native app written against the types compiles under strict TypeScript", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const config = new URL("types/react-native.tsconfig.json", import.meta.url).pathname;
  const run = spawnSync(process.execPath, [tsc, "-p", config], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
