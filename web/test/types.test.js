// The TypeScript types (index.d.ts, file-store.d.ts) describe the API as an app uses it: test/types/app.ts compiles.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { test } from "node:test";

test("an app written against the types compiles under strict TypeScript", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const run = spawnSync(process.execPath, [tsc, "-p", new URL("types/tsconfig.json", import.meta.url).pathname], {
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
