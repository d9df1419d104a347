// npm run hermes: the package bundled as a React Native app bundles it, run under Hermes (the npm package
// hermes-engine-cli's binary), passing the golden checks of test/hermes/checks.js. esbuild bundles test/hermes/main.js
// with the "react-native" export condition and package.json's "react-native" redirects (as Metro resolves them), lowers
// async functions, then Babel turns classes and block-scoped bindings into what this Hermes runs (as the React Native
// Babel preset does); Hermes has no fs, so the model and golden files are embedded in the bundle as base64. Prints
// Hermes' lines as they come, the largest vector difference last; exits 1 unless every check passed.
// Usage: node scripts/hermes.js [--entry FILE] [--keep]   (the bundle is written to test/output/hermes/)
import { transformSync } from "@babel/core";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const WEB = fileURLToPath(new URL("..", import.meta.url));
const ROOT = resolve(WEB, "..");
const require = createRequire(import.meta.url);
export const OUTPUT = join(WEB, "test/output/hermes");

/** The Hermes binary of hermes-engine-cli for this platform. */
export function hermesBinary() {
  const folder = { linux: "linux64-bin", darwin: "osx-bin", win32: "win64-bin" }[process.platform];
  if (!folder) throw new Error(`hermes-engine-cli has no binary for ${process.platform}`);
  return join(dirname(require.resolve("hermes-engine-cli/package.json")), folder, process.platform === "win32" ? "hermes.exe" : "hermes");
}

/**
 * The "react-native" and "browser" fields of each package.json as Metro applies them (the first wins): a package name
 * or one of the package's files redirected to another file, or to nothing (false: an empty module).
 */
function packageRedirects() {
  const fields = new Map(); // package folder -> {names, files}
  const fieldsOf = (dir) => {
    if (!fields.has(dir)) {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const names = new Map();
      const files = new Map();
      for (const field of [pkg.browser, pkg["react-native"]]) { // read in reverse, so that "react-native" wins
        if (!field || typeof field !== "object") continue;
        for (const [from, to] of Object.entries(field)) {
          const target = to === false ? false : resolve(dir, to);
          if (from.startsWith(".")) files.set(resolve(dir, from).replace(/\.js$/, ""), target);
          else names.set(from, target);
        }
      }
      fields.set(dir, { names, files });
    }
    return fields.get(dir);
  };
  const packageOf = (file) => {
    for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
      if (existsSync(join(dir, "package.json"))) return fieldsOf(dir);
    }
    return { names: new Map(), files: new Map() };
  };
  const to = (target) => (target === false ? { path: "empty", namespace: "empty" } : { path: target });
  return {
    name: "package-redirects",
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.inner) return undefined;
        const pkg = args.importer ? packageOf(args.importer) : { names: new Map(), files: new Map() };
        if (pkg.names.has(args.path)) return to(pkg.names.get(args.path));
        const found = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { inner: true },
        });
        if (found.errors.length) return { errors: found.errors };
        const own = packageOf(found.path).files.get(found.path.replace(/\.js$/, ""));
        if (own !== undefined) return to(own);
        return { path: found.path, external: found.external, namespace: found.namespace, sideEffects: found.sideEffects };
      });
      b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "module.exports = {};", loader: "js" }));
    },
  };
}

/** The JavaScript Hermes runs: `entry` bundled, lowered for this Hermes. */
export async function bundle(entry) {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    platform: "neutral",
    mainFields: ["react-native", "browser", "module", "main"],
    conditions: ["react-native"],
    target: "es2016", // async functions become generators, which Hermes 0.12 runs
    supported: { bigint: true },
    plugins: [packageRedirects()],
    logLevel: "warning",
  });
  const code = out.outputFiles[0].text;
  const lowered = transformSync(code, {
    babelrc: false,
    configFile: false,
    sourceType: "script",
    compact: false,
    plugins: [require.resolve("@babel/plugin-transform-classes"), require.resolve("@babel/plugin-transform-block-scoping")],
  });
  return lowered.code;
}

/**
 * What a React Native runtime defines and Hermes' command line does not: a global URL (the package only asks whether a
 * model source is one; React Native's own URL is partial too).
 */
const RUNTIME = 'if (typeof URL === "undefined") globalThis.URL = function URL() { throw new TypeError("no URL in this runtime"); };\n';

/** The files Hermes cannot read itself, as a script defining globalThis.__EDGE_RANKER_ASSETS__. */
export function assets({ models = ["semantic", "relevance"], golden = true } = {}) {
  const modelFolder = (name) => (name === "wide" ? join(ROOT, "spec/golden/wide") : join(ROOT, "edge_ranker/models", name));
  const embedded = { models: {}, golden: {} };
  for (const name of models) {
    embedded.models[name] = {};
    for (const file of readdirSync(modelFolder(name))) {
      embedded.models[name][file] = readFileSync(join(modelFolder(name), file)).toString("base64");
    }
  }
  if (golden) {
    for (const file of readdirSync(join(ROOT, "spec/golden"))) {
      if (file.endsWith(".tsv")) embedded.golden[file] = readFileSync(join(ROOT, "spec/golden", file), "utf8");
    }
  }
  return `var __EDGE_RANKER_ASSETS__ = ${JSON.stringify(embedded)};\n${RUNTIME}`;
}

/** Runs a script under Hermes, its lines passed to `onLine` as they come; resolves to its exit code and lines. */
export function runHermes(file, onLine = (line) => console.log(line)) {
  return new Promise((done, fail) => {
    const child = spawn(hermesBinary(), ["-O", "-w", file], { stdio: ["ignore", "pipe", "pipe"] });
    const lines = [];
    let rest = "";
    const take = (chunk) => {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop();
      for (const line of parts) {
        lines.push(line);
        onLine(line);
      }
    };
    child.stdout.setEncoding("utf8").on("data", take);
    child.stderr.setEncoding("utf8").on("data", take);
    child.on("error", fail);
    child.on("close", (code) => {
      if (rest) take("\n");
      done({ code, lines });
    });
  });
}

if (fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values: args } = parseArgs({ options: { entry: { type: "string", default: join(WEB, "test/hermes/main.js") } } });
  const started = Date.now();
  const code = await bundle(resolve(args.entry));
  mkdirSync(OUTPUT, { recursive: true });
  const file = join(OUTPUT, "golden.js");
  writeFileSync(file, assets({ models: ["semantic", "relevance", "wide"] }) + code);
  console.log(`bundled ${code.length} bytes of JavaScript (and the embedded files) in ${Date.now() - started} ms: ${file}`);
  const { code: exit, lines } = await runHermes(file);
  const summary = lines.map((l) => /^hermes: (\d+) passed, (\d+) failed$/.exec(l)).find(Boolean);
  if (exit !== 0 || !summary || summary[2] !== "0" || Number(summary[1]) === 0) {
    console.error(`the Hermes run failed (exit code ${exit}${summary ? `, ${summary[2]} failed` : ", no summary"})`);
    process.exit(1);
  }
}
