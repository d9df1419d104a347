// Serves the demo page on 127.0.0.1 (npm run demo): the page, the package's modules, the three libraries it imports,
// the Python package's shipped models and demo feed. Nothing else, and nothing from outside the machine.
import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const WEB = fileURLToPath(new URL("..", import.meta.url));
const ROOT = resolve(WEB, "..");
/** URL prefix -> folder on disk. */
const MOUNTS = {
  "/demo/": resolve(WEB, "demo"),
  "/src/": resolve(WEB, "src"),
  "/lib/onnxruntime-web/": resolve(WEB, "node_modules/onnxruntime-web/dist"),
  "/lib/tokenizers/": resolve(WEB, "node_modules/@huggingface/tokenizers/dist"),
  "/lib/idb/": resolve(WEB, "node_modules/idb/build"),
  "/models/": resolve(ROOT, "edge_ranker/models"),
};
/** URL path -> one file. */
const FILES = { "/": resolve(WEB, "demo/index.html"), "/feed.jsonl": resolve(ROOT, "edge_ranker/demo/feed.jsonl") };
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".jsonl": "application/x-ndjson",
  ".wasm": "application/wasm",
  ".onnx": "application/octet-stream",
  ".txt": "text/plain; charset=utf-8",
};

/** The page may load only from here, and run only its own scripts: the import map is allowed by its hash. */
function policy() {
  const page = readFileSync(resolve(WEB, "demo/index.html"), "utf8");
  const inline = [...page.matchAll(/<script type="importmap">([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash("sha256").update(m[1]).digest("base64")}'`,
  );
  return `default-src 'self'; script-src 'self' 'wasm-unsafe-eval' ${inline.join(" ")}; style-src 'self'; img-src data:`;
}

/** The file a URL path names, or null when it names none of the mounts (or climbs out of one). */
function fileOf(path) {
  if (FILES[path]) return FILES[path];
  const prefix = Object.keys(MOUNTS).find((p) => path.startsWith(p));
  if (!prefix) return null;
  const folder = MOUNTS[prefix];
  let name;
  try {
    name = decodeURIComponent(path.slice(prefix.length - 1));
  } catch {
    return null; // a malformed escape names no file
  }
  const file = resolve(folder, `.${name}`);
  return file.startsWith(folder + sep) ? file : null;
}

/** Starts the server; resolves to its URL. Port 0 takes a free one. */
export function serve(port = 8080) {
  const csp = policy();
  const server = createServer(async (req, res) => {
    const file = fileOf(new URL(req.url, "http://127.0.0.1").pathname);
    const found = file && (await stat(file).catch(() => null))?.isFile();
    if (!found) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": "no-store",
      "content-security-policy": csp, // a request elsewhere would be refused by the browser itself
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done({ url: `http://127.0.0.1:${server.address().port}/`, server }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  serve(port).then(
    ({ url }) => console.log(`edge-ranker demo: ${url} (Ctrl-C stops it)`),
    (err) => {
      console.error(`cannot serve the demo on 127.0.0.1:${port}: ${err.message} (set PORT to another)`);
      process.exit(1);
    },
  );
}
