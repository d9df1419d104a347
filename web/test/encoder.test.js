// Token ids, unknown shares, windows, vectors and model keys equal to Python's on the golden files; a damaged
// folder refused in one line.
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { moduleText, TABLES } from "../scripts/spec-tables.js";
import { Encoder, EdgeRankerError } from "../src/index.js";
import { modelKey } from "../src/sources.js";
import { splitWindows } from "../src/tokenizer.js";
import { GOLDEN, MODELS, floats, rows, text } from "./golden.js";

const encoders = {};
// the shipped models, and a tiny one whose layer is wider than its vectors (spec/tools/wide.py)
const folder = (name) => (name === "wide" ? fileURLToPath(new URL("wide", GOLDEN)) : `${MODELS}${name}`);
/** Each test that loads a model runs with both forward passes: onnxruntime-web's and the plain JavaScript one. */
const BACKENDS = ["ort", "js"];
const loaded = (name, backend) => (encoders[`${name} ${backend}`] ??= Encoder.load(folder(name), { backend }));

test("the Unicode table is the JVM core's", async () => {
  const mine = await readFile(TABLES.unicode.target, "utf8");
  assert.equal(mine, moduleText("unicode", await readFile(TABLES.unicode.source, "utf8")), "run: node scripts/spec-tables.js");
});

for (const backend of BACKENDS) {
  for (const name of ["semantic", "relevance"]) {
    test(`${name} (${backend}): token ids identical to Python's on every golden text`, async () => {
      const enc = await loaded(name, backend);
      const golden = rows(`${name}_tokens.tsv`);
      assert.ok(golden.length > 20);
      for (const [b64, role, ids] of golden) {
        assert.equal(enc.tokenize(text(b64), role === "-" ? undefined : role).join(","), ids, JSON.stringify(text(b64)).slice(0, 80));
      }
    });

    test(`${name} (${backend}): unknown shares as Python's`, async () => {
      const enc = await loaded(name, backend);
      for (const [b64, share] of rows(`${name}_unknown.tsv`)) {
        assert.ok(Math.abs(enc.unknownShare(text(b64)) - Number(share)) <= 1e-12, JSON.stringify(text(b64)).slice(0, 80));
      }
    });
  }

  for (const name of ["semantic", "relevance", "wide"]) {
    test(`${name} (${backend}): vectors within 1e-5 of Python's, one text at a time and in a batch`, async () => {
      const enc = await loaded(name, backend);
      const golden = rows(`${name}_embeddings.tsv`);
      for (const role of new Set(golden.map((r) => r[1]))) {
        const group = golden.filter((r) => r[1] === role);
        const as = role === "-" ? undefined : role;
        const batch = await enc.encode(group.map((r) => text(r[0])), { role: as });
        for (const [i, [b64, , csv]] of group.entries()) {
          const one = await enc.encode(text(b64), { role: as });
          const want = floats(csv);
          assert.equal(one.length, want.length);
          for (const v of [one, batch[i]]) {
            const worst = Math.max(...want.map((x, j) => Math.abs(x - v[j])));
            assert.ok(worst <= 1e-5, `${JSON.stringify(text(b64)).slice(0, 60)}: ${worst}`);
          }
        }
      }
    });
  }
}

test("windows split as Python's split_windows", () => {
  for (const [maxLength, windows, head, ids, expected] of rows("windows.tsv")) {
    const got = splitWindows(ids.split(",").map(Number), Number(maxLength), Number(windows), Number(head));
    assert.equal(got.map((w) => w.join(",")).join(";"), expected);
  }
});

test("model keys as Python's, whatever the prefixes", async () => {
  const enc = await loaded("relevance", "ort");
  for (const [b64, tokenizer, maxLength, key] of rows("keys.tsv")) {
    const manifest = { ...enc.manifest, prefixes: JSON.parse(text(b64)), tokenizer, maxLength: Number(maxLength), windows: 1 };
    assert.equal(await modelKey(manifest), `relevance:${key}`);
  }
});

for (const backend of BACKENDS) {
  test(`(${backend}) roles: a symmetric model refuses one, a relevance model embeds a document as a passage`, async () => {
    const sem = await loaded("semantic", backend);
    const rel = await loaded("relevance", backend);
    await assert.rejects(sem.encode("x", { role: "query" }), /has no roles/);
    await assert.rejects(rel.encode("x", { role: "title" }), /role must be 'query' or 'passage'/);
    assert.deepEqual(await rel.encode("a cat"), await rel.encode("a cat", { role: "passage" }));
    assert.deepEqual(await rel.encodeQuery("a cat"), await rel.encode("a cat", { role: "query" }));
    await assert.rejects(sem.encode(null), /texts must be a string or an array/);
    await assert.rejects(sem.encode(["ok", 3]), /text 1 must be a string/);
    const [[same, other]] = Encoder.similarity(await sem.encode("a cat"), await sem.encode(["a cat", "tax law"]));
    assert.ok(Math.abs(same - 1) < 1e-6 && other < same);
  });

  test(`(${backend}) any text encodes: empty, emoji, lone surrogates, a huge one`, async () => {
    const sem = await loaded("semantic", backend);
    const huge = "word ".repeat(200_000);
    for (const t of ["", "🚀🚀", "\uD800 broken \uDC00", huge, "日本語のテキスト"]) {
      const v = await sem.encode(t);
      assert.equal(v.length, 128);
      assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
    }
  });

  test(`(${backend}) a damaged or incomplete folder is refused in one line, naming the file`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "edge-ranker-"));
    try {
      const folder = join(dir, "relevance");
      await cp(`${MODELS}relevance`, folder, { recursive: true });
      const tokenizer = join(folder, "tokenizer.json");
      const original = await readFile(tokenizer);
      await writeFile(tokenizer, Buffer.concat([original.subarray(0, 100), Buffer.from("x"), original.subarray(101)]));
      await assert.rejects(Encoder.load(folder, { backend }), (e) => e instanceof EdgeRankerError && /tokenizer\.json is corrupted/.test(e.message));
      await writeFile(tokenizer, original.subarray(0, 1000));
      await assert.rejects(Encoder.load(folder, { backend }), /tokenizer\.json is truncated or altered: 1000 bytes/);
      await rm(join(folder, "model.onnx"));
      await assert.rejects(Encoder.load(folder, { backend }), /cannot read the model file .*model\.onnx: no such file/);
      const manifest = JSON.parse(await readFile(join(`${MODELS}relevance`, "manifest.json"), "utf8"));
      await writeFile(tokenizer, original);
      await cp(join(`${MODELS}relevance`, "model.onnx"), join(folder, "model.onnx"));
      for (const [change, said] of [
        [{ dim: 64 }, /the graph gives vectors of shape \[128\], the manifest says dim=64/],
        [{ max_length: 3 }, /max_length=3 leaves no room for text beside \[CLS\], \[SEP\] and a \d+-token role prefix/],
        [{ onnx: "%2e%2e/semantic/model.onnx" }, /not a file inside the model folder/],
      ]) {
        await writeFile(join(folder, "manifest.json"), JSON.stringify({ ...manifest, ...change }));
        await assert.rejects(Encoder.load(new URL(`file://${folder}/`), { backend }), said);
      }
      await writeFile(join(folder, "manifest.json"), "{not json");
      await assert.rejects(Encoder.load(folder, { backend }), /manifest\.json is corrupted \(not valid JSON/);
      await writeFile(join(folder, "manifest.json"), JSON.stringify({ schema_version: 9 }));
      await assert.rejects(Encoder.load(folder, { backend }), /newer than this edge-ranker understands/);
      await assert.rejects(Encoder.load(join(dir, "nothing"), { backend }), /cannot read the model file .*manifest\.json/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test(`(${backend}) only regular files inside the folder are read, never past the manifest's size`, async () => {
    const { execFileSync } = await import("node:child_process");
    const { mkdir, symlink, truncate } = await import("node:fs/promises");
    const dir = await mkdtemp(join(tmpdir(), "edge-ranker-"));
    const fresh = async () => {
      const folder = join(dir, `m${Math.random().toString(36).slice(2)}`);
      await cp(`${MODELS}relevance`, folder, { recursive: true });
      return folder;
    };
    const refused = (folder, said) =>
      assert.rejects(Encoder.load(folder, { backend }), (e) => e instanceof EdgeRankerError && said.test(e.message) && !e.message.includes("\n"));
    try {
      for (const listed of ["model.onnx", "tokenizer.json", "manifest.json"]) {
        const folder = await fresh(); // a pipe waits for a writer that never comes: the load hung
        await rm(join(folder, listed));
        execFileSync("mkfifo", [join(folder, listed)]);
        await refused(folder, /is not a regular file/);
        const other = await fresh();
        await rm(join(other, listed));
        await mkdir(join(other, listed));
        await refused(other, /is not a regular file/);
      }
      const linked = await fresh(); // a link to /dev/zero was read until 10.9 GB of memory
      await rm(join(linked, "model.onnx"));
      await symlink("/dev/zero", join(linked, "model.onnx"));
      await refused(linked, /not a file inside the model folder/);
      const outside = await fresh();
      await cp(join(outside, "manifest.json"), join(dir, "elsewhere.json"));
      await rm(join(outside, "manifest.json"));
      await symlink(join(dir, "elsewhere.json"), join(outside, "manifest.json"));
      await refused(outside, /not a file inside the model folder/);
      const huge = await fresh();
      await truncate(join(huge, "model.onnx"), 2 ** 31);
      const before = process.memoryUsage().rss;
      await refused(huge, /model\.onnx is 2147483648 bytes, more than the \d+ it may be/);
      assert.ok(process.memoryUsage().rss - before < 256 * 2 ** 20, "the huge file was not read");
      const named = await fresh();
      const manifest = JSON.parse(await readFile(join(named, "manifest.json"), "utf8"));
      await writeFile(join(named, "manifest.json"), JSON.stringify({ ...manifest, onnx: "model\u0000.onnx" }));
      await refused(named, /holds a NUL character/);
      for (const folder of [`${named}\0`, new URL(`file://${named}%00/`)]) {
        await refused(folder, /the model folder .* holds a NUL character, which no path can/);
      }
      const negative = await fresh(); // Python's tokenizers refuses such an id; the JS library took it
      const tokenizer = JSON.parse(await readFile(join(negative, "tokenizer.json"), "utf8"));
      tokenizer.model.vocab["[UNUSED-NEGATIVE]"] = -5;
      await writeFile(join(negative, "tokenizer.json"), JSON.stringify(tokenizer));
      await assert.rejects(Encoder.load(negative, { verify: false, backend }), /gives a token the id -5/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
