// Encode latency at batch 1 in Node, in headless Chromium and in Python, one run side by side (npm run bench), and
// the package's own JavaScript size (without the WASM runtime and the models). The texts are the Python bench's
// (edge_ranker/bench/measure.py), read from it. Usage: npm run bench [-- --runs N]
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { serve } from "../demo/serve.js";
import { Encoder } from "../src/index.js";

const WEB = fileURLToPath(new URL("..", import.meta.url));
const MODELS = join(WEB, "../edge_ranker/models");
const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
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
 * p50 of fn's wall time in ms over `runs` calls, after a second of warm-up calls (WebAssembly is compiled fast first
 * and optimised in the background, over the first few hundred calls in Chromium); runs in Node or in the page alike.
 */
async function p50(fn, runs) {
  const warm = performance.now();
  while (performance.now() - warm < 1000) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function node(model) {
  const enc = await Encoder.load(join(MODELS, model));
  const role = enc.roles.length ? "query" : undefined;
  return {
    short: await p50(() => enc.encode(SHORT, { role }), RUNS),
    long: await p50(() => enc.encode(LONG, { role }), Math.max(RUNS / 4, 10)),
  };
}

async function browser(model) {
  const { server, url } = await serve(0);
  const browser = await chromium.launch({ executablePath: args.chromium, args: ["--no-sandbox"] });
  try {
    const page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await page.goto(url);
    return await page.evaluate(
      async ([model, short, long, runs, measure]) => {
        const { Encoder } = await import("/src/index.js");
        const p50 = new Function(`return (${measure})`)();
        const enc = await Encoder.load(`/models/${model}/`);
        const role = enc.roles.length ? "query" : undefined;
        return {
          short: await p50(() => enc.encode(short, { role }), runs),
          long: await p50(() => enc.encode(long, { role }), Math.max(runs / 4, 10)),
        };
      },
      [model, SHORT, LONG, RUNS, p50.toString()],
    );
  } finally {
    await browser.close();
    server.close();
  }
}

function pythons(model) {
  const out = execFileSync(args.python, ["-m", "edge_ranker.bench.worker", model, "--runs", String(RUNS)], {
    encoding: "utf8",
  });
  const res = JSON.parse(out);
  return { short: res.latency_ms_b1_short.p50, long: res.latency_ms_b1_long.p50 };
}

function packageBytes() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".js")) files.push(p);
    }
  };
  walk(join(WEB, "src"));
  const all = Buffer.concat(files.map((f) => readFileSync(f)));
  return { files: files.length, bytes: all.length, gzip: gzipSync(all).length };
}

const fmt = (x) => x.toFixed(2);
console.log(`encode p50 at batch 1, ms (short text: ${JSON.stringify(SHORT)}; long: ${LONG.length} characters), ${RUNS} runs`);
console.log("| model | text | Python (onnxruntime) | Node (onnxruntime-web, WASM) | headless Chromium (WASM) |");
console.log("|---|---|---|---|---|");
for (const model of ["semantic", "relevance"]) {
  const [py, nd, br] = [pythons(model), await node(model), await browser(model)];
  for (const kind of ["short", "long"]) {
    console.log(`| ${model} | ${kind} | ${fmt(py[kind])} | ${fmt(nd[kind])} | ${fmt(br[kind])} |`);
  }
}
const size = packageBytes();
console.log(`\nthe package's own JavaScript (src/, ${size.files} files): ${size.bytes} bytes, ${size.gzip} gzipped, ` +
  "without onnxruntime-web's WASM, the tokenizers library and the models");
console.log(`Node ${process.version}, ${execFileSync(args.chromium, ["--version"], { encoding: "utf8" }).trim()}`);
