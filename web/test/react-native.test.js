// What a React Native build of the package is made of, checked in Node: its entry exports the package's API (the
// IndexedDB store aside, the key-value store added); the WordPiece module that replaces @huggingface/tokenizers there
// gives the library's pieces; the pure-JavaScript SHA-256 gives WebCrypto's digests; the shims of TextEncoder,
// TextDecoder, atob, btoa and isWellFormed give what Node's own give; and in an engine without WebAssembly, WebCrypto
// or IndexedDB the package loads the models on the JavaScript backend, ranks and keeps reactions.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Tokenizer as Library } from "@huggingface/tokenizers";
import { sha256, sha256Pure } from "../src/hash.js";
import * as node from "../src/index.js";
import * as native from "../src/react-native.js";
import { preTokenize, normalize } from "../src/text.js";
import { Tokenizer } from "../src/wordpiece.js";
import { MODELS, rows, text } from "./golden.js";

test("the react-native entry exports the package's API, IndexedDBStore aside", () => {
  const expected = Object.keys(node).filter((k) => k !== "IndexedDBStore").sort();
  assert.deepEqual(Object.keys(native).sort(), expected);
  const field = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))["react-native"];
  for (const [from, to] of Object.entries(field)) {
    assert.ok(readFileSync(new URL(`../${to.slice(2)}`, import.meta.url)), `${from} is redirected to ${to}, which exists`);
  }
});

test("the WordPiece module gives the library's pieces and vocabulary, on the golden texts and more", () => {
  for (const model of ["semantic", "relevance"]) {
    const json = JSON.parse(readFileSync(`${MODELS}${model}/tokenizer.json`, "utf8"));
    const [lib, mine] = [new Library(json, {}), new Tokenizer(json, {})];
    assert.deepEqual([...mine.get_vocab(true)], [...lib.get_vocab(true)]);
    assert.deepEqual([...mine.get_added_tokens_decoder().values()].map((t) => [t.id, t.content, t.special]),
      [...lib.get_added_tokens_decoder().values()].map((t) => [t.id, t.content, t.special]));
    const texts = rows(`${model}_tokens.tsv`).map(([b64]) => text(b64));
    texts.push("x".repeat(101), "a".repeat(100), "unaffable ##ing [CLS]", "Ünïcödé naïveté straße İstanbul", "🚀🚀 日本語 العربية");
    for (const t of texts) {
      const words = preTokenize(normalize(t));
      assert.deepEqual(mine.model(words), lib.model(words), JSON.stringify(t).slice(0, 60));
    }
    assert.equal(mine.token_to_id("[UNK]"), lib.token_to_id("[UNK]"));
  }
});

test("the pure-JavaScript SHA-256 gives WebCrypto's digests", async () => {
  for (const n of [0, 1, 55, 56, 63, 64, 65, 1000, 1 << 20]) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 131 + n) & 255);
    assert.equal(await sha256Pure(bytes), await sha256(bytes), `${n} bytes`);
  }
});

test("the shims give what the engine's own functions give", async () => {
  const saved = Object.fromEntries(["TextEncoder", "TextDecoder", "atob", "btoa"].map((k) => [k, globalThis[k]]));
  const wellFormed = String.prototype.isWellFormed;
  try {
    for (const k of Object.keys(saved)) delete globalThis[k];
    delete String.prototype.isWellFormed;
    await import(`../src/shims.js?fresh=${Date.now()}`);
    assert.notEqual(globalThis.TextDecoder, saved.TextDecoder, "the shims were installed");
    const strings = ["", "plain", "Ünïcödé", "日本語", "🚀 x", "\uD800 lone", "lone \uDC00", "\uDBFF\uDFFF", "a\u0000b"];
    for (const s of strings) {
      assert.deepEqual(new globalThis.TextEncoder().encode(s), new saved.TextEncoder().encode(s), JSON.stringify(s));
      assert.equal(s.isWellFormed(), wellFormed.call(s), JSON.stringify(s));
    }
    const bytes = [[], [0xef, 0xbb, 0xbf, 0x41], [0xc3, 0xa9], [0xe2, 0x82], [0xf0, 0x9f, 0x9a, 0x80], [0xed, 0xa0, 0x80], [0xff, 0x41],
      [0xf4, 0x90, 0x80, 0x80], [0xe0, 0x80, 0x80], [0xc2], [0x41, 0xf0, 0x9f, 0x41]];
    for (const b of bytes) {
      const u = Uint8Array.from(b);
      assert.equal(new globalThis.TextDecoder().decode(u), new saved.TextDecoder().decode(u), JSON.stringify(b));
      const fatal = (D) => { try { return new D("utf-8", { fatal: true }).decode(u); } catch { return "refused"; } };
      assert.equal(fatal(globalThis.TextDecoder), fatal(saved.TextDecoder), JSON.stringify(b));
    }
    for (let n = 0; n < 40; n++) {
      const binary = String.fromCharCode(...Array.from({ length: n }, (_, i) => (i * 97 + n) & 255));
      assert.equal(globalThis.btoa(binary), saved.btoa(binary));
      assert.equal(globalThis.atob(saved.btoa(binary)), binary);
    }
    assert.throws(() => globalThis.atob("not base64!"));
    assert.throws(() => globalThis.btoa("日本"));
  } finally {
    Object.assign(globalThis, saved);
    String.prototype.isWellFormed = wellFormed;
  }
});

test("without WebAssembly, WebCrypto and IndexedDB, the models load on the JavaScript backend and a Ranker keeps reactions", () => {
  const entry = new URL("../src/react-native.js", import.meta.url).href;
  const checks = new URL("./hermes/checks.js", import.meta.url).href;
  const script = `
    delete globalThis.WebAssembly; delete globalThis.crypto; delete globalThis.indexedDB;
    const { readFile } = await import("node:fs/promises");
    const { Encoder, KeyValueStore, Ranker } = await import(${JSON.stringify(entry)});
    const { memoryStorage } = await import(${JSON.stringify(checks)});
    const files = (m) => ({ read: (f) => readFile(${JSON.stringify(MODELS)} + m + "/" + f) });
    const [semantic, relevance] = [await Encoder.load(files("semantic")), await Encoder.load(files("relevance"))];
    const ranker = await Ranker.load({ models: { semantic, relevance }, store: new KeyValueStore(memoryStorage()) });
    await ranker.like(["c", "A recipe for slow-cooked beans"]);
    const ranked = await ranker.rank(["The rocket reached orbit", "Beans with smoked paprika"], { query: "cooking" });
    console.log(JSON.stringify({ backends: [semantic.backend, relevance.backend], wasm: typeof WebAssembly, top: ranked[0].id, reactions: ranker.reactions }));
  `;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", cwd: fileURLToPath(new URL("..", import.meta.url)) });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { backends: ["js", "js"], wasm: "undefined", top: "1", reactions: 1 });
});

test("a backend that is not one, or onnxruntime-web where there is no WebAssembly, is refused in one line", async () => {
  await assert.rejects(node.Encoder.load(`${MODELS}semantic`, { backend: "wasm" }), /backend must be "js", "ort" or an object .*, got "wasm"/);
  const wasm = globalThis.WebAssembly;
  try {
    delete globalThis.WebAssembly;
    await assert.rejects(node.Encoder.load(`${MODELS}semantic`, { backend: "ort" }), /lacks: use backend "js"/);
  } finally {
    globalThis.WebAssembly = wasm;
  }
});

test("an onnxruntime module plugged in with ortBackend runs the models (onnxruntime-web standing in for onnxruntime-react-native)", async () => {
  const ort = await import("onnxruntime-web");
  ort.env.wasm.numThreads = 1;
  const enc = await native.Encoder.load(`${MODELS}relevance`, { backend: native.ortBackend(ort, { name: "plugged" }) });
  assert.equal(enc.backend, "plugged");
  for (const [b64, role, csv] of rows("relevance_embeddings.tsv").slice(0, 12)) {
    const v = await enc.encode(text(b64), { role: role === "-" ? undefined : role });
    const want = csv.split(",").map(Number);
    assert.ok(want.every((x, i) => Math.abs(x - v[i]) <= 1e-5), JSON.stringify(text(b64)).slice(0, 60));
  }
  await enc.release();
  assert.throws(() => native.ortBackend({}), /takes an onnxruntime module/);
});
