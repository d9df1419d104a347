// Encode latency at batch 1, one run side by side (npm run bench): Python (onnxruntime), and the package with each
// forward pass, onnxruntime-web's WebAssembly ("ort") and the plain JavaScript one ("js"), in Node, in headless
// Chromium (Debian's, driven by playwright-core) and, "js" alone, under Hermes (hermes-engine-cli's binary, as in npm
// run hermes); then what a page downloads to run both models with and without onnxruntime-web, as esbuild bundles
// it. The texts are the Python bench's (edge_ranker/bench/measure.py), read from it.
// Usage: npm run bench [-- --runs N] [--hermes-runs N]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpus } from "node:os";
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { bundle, OUTPUT, runHermes } from "../scripts/hermes.js";
import { Encoder } from "../src/index.js";

const WEB = fileURLToPath(new URL("..", import.meta.url));
const MODELS = join(WEB, "../edge_ranker/models");
const BACKENDS = ["ort", "js"];
const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
    "hermes-runs": { type: "string", default: "30" },
    python: { type: "string", default: process.env.PYTHON ?? join(WEB, "../.venv/bin/python") },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
const RUNS = Number(args.runs);
const python = (code) => execFileSync(args.python, ["-c", code], { encoding: "utf8" });
const [SHORT, LONG] = JSON.parse(
  python("import json; from edge_ranker.bench.measure import LONG, SHORT; print(json.dumps([SHORT[0], LONG[0]]))"),
);

/**
 * p50 of each fn's wall time in ms over `runs` calls, the fns called in turn (one call of each, then again), so that
 * each meets the machine as loaded as the others do; after a second of warm-up calls (WebAssembly is compiled fast
 * first and optimised in the background over the first few hundred calls in Chromium; V8 optimises the JavaScript
 * backend's loops after a few calls). Runs in Node or in the page alike.
 */
async function p50s(fns, runs) {
  const warm = performance.now();
  while (performance.now() - warm < 1000) for (const fn of fns) await fn();
  const times = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let f = 0; f < fns.length; f++) {
      const t0 = performance.now();
      await fns[f]();
      times[f].push(performance.now() - t0);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]);
}

/** Each backend's p50s in Node, the backends' calls in turn. */
async function node(model) {
  const encoders = await Promise.all(BACKENDS.map((backend) => Encoder.load(join(MODELS, model), { backend })));
  const role = encoders[0].roles.length ? "query" : undefined;
  const short = await p50s(encoders.map((enc) => () => enc.encode(SHORT, { role })), RUNS);
  const long = await p50s(encoders.map((enc) => () => enc.encode(LONG, { role })), Math.max(RUNS / 4, 10));
  await Promise.all(encoders.map((enc) => enc.release()));
  return Object.fromEntries(BACKENDS.map((b, i) => [b, { short: short[i], long: long[i] }]));
}

/** bench/page.js bundled for the browser (onnxruntime-web left to the page's import map), and a page importing it. */
async function pageFolder() {
  const dir = mkdtempSync(join(tmpdir(), "edge-ranker-bench-"));
  await build({
    entryPoints: [join(WEB, "bench/page.js")],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    external: ["onnxruntime-web", "node:*"], // files.js imports node:fs only in Node
    outdir: join(dir, "app"),
    logLevel: "warning",
  });
  const map = JSON.stringify({ imports: { "onnxruntime-web": "/lib/onnxruntime-web/ort.wasm.min.mjs" } });
  writeFileSync(join(dir, "index.html"), `<!doctype html><meta charset="utf-8"><script type="importmap">${map}</script><p>bench</p>`);
  return { dir, importMap: `'sha256-${createHash("sha256").update(map).digest("base64")}'` };
}

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/**
 * A static server of the page, onnxruntime-web's files and the models, on 127.0.0.1; `served` lists what it sent. The
 * page's content security policy allows scripts of its origin and its import map only, and WebAssembly only at
 * /?wasm: neither may eval JavaScript (/?timing, where the bench's measuring function is evaluated, has none).
 */
function serveBench({ dir, importMap }, served) {
  const mounts = { "/lib/onnxruntime-web/": join(WEB, "node_modules/onnxruntime-web/dist"), "/models/": MODELS, "/": dir };
  const server = createServer((req, res) => {
    const asked = decodeURIComponent(new URL(req.url, "http://127.0.0.1").pathname);
    const path = asked === "/" ? "/index.html" : asked;
    const prefix = Object.keys(mounts).find((p) => path.startsWith(p));
    const file = resolve(mounts[prefix], `.${path.slice(prefix.length - 1)}`);
    const ok = file.startsWith(mounts[prefix] + sep) && statSync(file, { throwIfNoEntry: false })?.isFile();
    if (!ok) return res.writeHead(404).end();
    const search = new URL(req.url, "http://127.0.0.1").search;
    const wasm = search === "?wasm" ? " 'wasm-unsafe-eval'" : "";
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": "no-store",
      // the timing page evals the measuring function it is given, so it has no policy
      ...(search === "?timing" ? {} : { "content-security-policy": `default-src 'self'; script-src 'self' ${importMap}${wasm}` }),
    });
    served.push({ path: asked, file });
    createReadStream(file).pipe(res);
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

/**
 * In a fresh page: both models loaded with `backend` alone, and the files the server sent the page; WebAssembly is
 * allowed only for "ort".
 */
async function pageDownload(browserApp, url, backend, served) {
  const context = await browserApp.newContext();
  const page = await context.newPage();
  served.length = 0;
  try {
    await page.goto(backend === "ort" ? `${url}?wasm` : url);
    await page.evaluate(async (backend) => {
      const { Encoder } = await import("/app/page.js");
      for (const model of ["semantic", "relevance"]) await Encoder.load(`/models/${model}/`, { backend });
    }, backend);
    return [...served];
  } finally {
    await context.close();
  }
}

/** In one page, each model with each backend: the backends' p50s, their calls in turn. */
async function browser(browserApp, url) {
  const context = await browserApp.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${url}?timing`);
    return await page.evaluate(
      async ([backends, short, long, runs, measure]) => {
        const { Encoder } = await import("/app/page.js");
        const p50s = new Function(`return (${measure})`)();
        const out = {};
        for (const model of ["semantic", "relevance"]) {
          const encoders = [];
          for (const backend of backends) encoders.push(await Encoder.load(`/models/${model}/`, { backend }));
          const role = encoders[0].roles.length ? "query" : undefined;
          const s = await p50s(encoders.map((enc) => () => enc.encode(short, { role })), runs);
          const l = await p50s(encoders.map((enc) => () => enc.encode(long, { role })), Math.max(runs / 4, 10));
          out[model] = Object.fromEntries(backends.map((b, i) => [b, { short: s[i], long: l[i] }]));
        }
        return out;
      },
      [BACKENDS, SHORT, LONG, RUNS, p50s.toString()],
    );
  } finally {
    await context.close();
  }
}

async function hermes() {
  const code = await bundle(join(WEB, "bench/hermes.js"));
  const models = {};
  for (const name of ["semantic", "relevance"]) {
    models[name] = {};
    for (const file of ["manifest.json", "model.onnx", "tokenizer.json", "vocab.txt"]) {
      models[name][file] = readFileSync(join(MODELS, name, file)).toString("base64");
    }
  }
  const assets = { models, texts: { short: SHORT, long: LONG }, runs: Number(args["hermes-runs"]) };
  const file = join(OUTPUT, "bench.js");
  writeFileSync(file, `var __EDGE_RANKER_ASSETS__ = ${JSON.stringify(assets)};\n${code}`);
  const { lines } = await runHermes(file, () => {});
  const out = JSON.parse(lines.filter((l) => l.startsWith("{")).pop() ?? "{}");
  if (!out.semantic) throw new Error(`the Hermes bench gave no result: ${lines.join("\n")}`);
  return out;
}

function pythons(model) {
  const out = execFileSync(args.python, ["-m", "edge_ranker.bench.worker", model, "--runs", String(RUNS)], { encoding: "utf8" });
  const res = JSON.parse(out);
  return { short: res.latency_ms_b1_short.p50, long: res.latency_ms_b1_long.p50 };
}

/** A page's download: the files it was sent by kind, in bytes as sent (uncompressed) and as gzip would send them. */
function download(files) {
  const kinds = { app: 0, "onnxruntime-web": 0, models: 0 };
  let gz = 0;
  for (const { path, file } of files) {
    const kind = path.startsWith("/lib/onnxruntime-web/") ? "onnxruntime-web" : path.startsWith("/models/") ? "models" : "app";
    const bytes = readFileSync(file);
    kinds[kind] += bytes.length;
    gz += gzipSync(bytes).length;
  }
  return { ...kinds, total: kinds.app + kinds["onnxruntime-web"] + kinds.models, gzip: gz, files: files.length };
}

const fmt = (x) => (x === undefined ? "–" : x.toFixed(2));
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const results = { python: {}, node: {}, chromium: {}, hermes: null };
for (const model of ["semantic", "relevance"]) {
  results.python[model] = pythons(model);
  const times = await node(model);
  for (const b of BACKENDS) results.node[`${model} ${b}`] = times[b];
}
const folder = await pageFolder();
const served = [];
const { server, url } = await serveBench(folder, served);
const app = await chromium.launch({ executablePath: args.chromium, args: ["--no-sandbox"] });
const pages = {};
try {
  for (const b of BACKENDS) pages[b] = download(await pageDownload(app, url, b, served));
  const times = await browser(app, url);
  for (const model of ["semantic", "relevance"]) for (const b of BACKENDS) results.chromium[`${model} ${b}`] = times[model][b];
} finally {
  await app.close();
  server.close();
  rmSync(folder.dir, { recursive: true, force: true });
}
results.hermes = await hermes();

console.log(`encode p50 at batch 1, ms (short text: ${JSON.stringify(SHORT)}; long: ${LONG.length} characters); ` +
  `${RUNS} runs (${args["hermes-runs"]} under Hermes), a quarter of them for the long text; ort and js called in turn`);
console.log("| model | text | Python (onnxruntime) | Node ort | Node js | Chromium ort | Chromium js | Hermes js |");
console.log("|---|---|---|---|---|---|---|---|");
for (const model of ["semantic", "relevance"]) {
  for (const kind of ["short", "long"]) {
    const row = [results.python[model][kind], results.node[`${model} ort`][kind], results.node[`${model} js`][kind],
      results.chromium[`${model} ort`][kind], results.chromium[`${model} js`][kind], results.hermes[model][kind]];
    console.log(`| ${model} | ${kind} | ${row.map(fmt).join(" | ")} |`);
  }
}
const ratio = (where) => Math.max(...["semantic", "relevance"].map((m) => results[where][`${m} js`].short / results[where][`${m} ort`].short));
console.log(`\njs / ort at the short text, the larger of the two models: Node ${ratio("node").toFixed(2)}x, Chromium ${ratio("chromium").toFixed(2)}x`);
console.log(`Hermes: loading a model (reading, SHA-256, weights) took ${results.hermes.semantic.load} and ${results.hermes.relevance.load} ms`);
console.log("\nwhat a page downloads to run both models (the package bundled and minified by esbuild; files as sent, and gzipped;" +
  " the page without onnxruntime-web runs under a content security policy that allows no WebAssembly and no eval)");
console.log("| page | the package's JavaScript | onnxruntime-web | model files | total | gzipped |");
console.log("|---|---|---|---|---|---|");
for (const [b, what] of [["ort", 'with onnxruntime-web (backend "ort")'], ["js", 'without it (backend "js")']]) {
  const p = pages[b];
  console.log(`| ${what} | ${mb(p.app)} | ${mb(p["onnxruntime-web"])} | ${mb(p.models)} | ${mb(p.total)} | ${mb(p.gzip)} |`);
}
const version = (pkg) => JSON.parse(readFileSync(join(WEB, "node_modules", pkg, "package.json"), "utf8")).version;
console.log(`\nNode ${process.version}; ${execFileSync(args.chromium, ["--version"], { encoding: "utf8" }).trim()}; Hermes ` +
  `${version("hermes-engine-cli")} (hermes-engine-cli); onnxruntime-web ${version("onnxruntime-web")}, one thread; ` +
  `${cpus()[0].model.trim()}, ${cpus().length} cores`);
