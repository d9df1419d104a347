// The demo page in Debian's headless Chromium (playwright-core drives it; no browser is downloaded): likes change
// the order, survive a reload, a search answers, and no request leaves the page's origin; the profile's IndexedDB
// files never hold a liked text, and after erase no file of the profile holds the key that sealed them. Saves
// screenshots to test/output/ (feed.png after the likes, search.png).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../demo/serve.js";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const OUTPUT = new URL("output/", import.meta.url);
const FEED = new URL("../../edge_ranker/demo/feed.jsonl", import.meta.url);
let server;
let url;
let profile;
let browser;
let page;
const requests = [];
const errors = [];

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM to one`);
  }
  ({ server, url } = await serve(0));
  profile = await mkdtemp(join(tmpdir(), "edge-ranker-chromium-")); // a profile on disk, whose files are read below
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ["--no-sandbox"],
    viewport: { width: 1000, height: 1400 },
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
});

after(async () => {
  await browser?.close();
  server?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** The page's order once its next render is done (the body's data-ready counts renders). */
async function order(previous) {
  await page.waitForFunction((n) => Number(document.body.dataset.ready ?? 0) > n, previous, { timeout: 60_000 });
  return page.$$eval("#feed li", (items) => items.map((li) => li.dataset.id));
}
const renders = () => page.evaluate(() => Number(document.body.dataset.ready ?? 0));

/** The profile's files (under `folder`) that hold any of `needles`, as latin-1, UTF-8 or UTF-16 (V8 writes all). */
async function holding(folder, needles) {
  const found = [];
  const patterns = needles.flatMap((n) => (typeof n === "string" ? ["latin1", "utf8", "utf16le"].map((e) => Buffer.from(n, e)) : [n]));
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const bytes = await readFile(path).catch(() => Buffer.alloc(0)); // a file Chromium has just removed
    if (patterns.some((p) => bytes.includes(p))) found.push(path.slice(profile.length));
  }
  return found;
}

/** The bytes of the demo store's key, from the origin private file system, where the store keeps them. */
const keyBytes = () =>
  page.evaluate(async () => {
    const keys = await (await navigator.storage.getDirectory()).getDirectoryHandle("edge-ranker");
    for await (const folder of keys.values()) {
      for await (const file of folder.values()) return Array.from(new Uint8Array(await (await file.getFile()).arrayBuffer()));
    }
  });

test("likes re-rank the feed, persist across a reload, and a search answers; nothing leaves the origin", async () => {
  await page.goto(url);
  const cold = await order(0);
  assert.equal(cold.length, 24);
  const liked = ["cooking-it-1", "cooking-fr-1"];
  for (const id of liked) {
    const n = await renders();
    await page.click(`li[data-id="${id}"] button.like`);
    await order(n);
  }
  const warm = await page.$$eval("#feed li", (items) => items.map((li) => li.dataset.id));
  const feed = (await readFile(FEED, "utf8")).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const texts = feed.filter((d) => liked.includes(d.id)).map((d) => d.text);
  const indexedDB = join(profile, "Default", "IndexedDB");
  assert.ok(existsSync(indexedDB), "the likes are in the profile's IndexedDB files");
  assert.deepEqual(await holding(indexedDB, texts), [], "no liked text in plaintext in the IndexedDB files");
  const key = Buffer.from(await keyBytes());
  assert.equal(key.length, 32, "the AES key's bytes are in the origin private file system");
  assert.ok((await holding(profile, [key])).length > 0, "and found there in the profile's files");
  assert.notDeepEqual(warm, cold, "the likes changed the order");
  assert.ok(warm.slice(0, 4).filter((id) => id.startsWith("cooking-")).length >= 3, `cooking first after two likes: ${warm.slice(0, 4)}`);
  assert.match(await page.textContent("#status"), /2 reactions kept/);
  await mkdir(OUTPUT, { recursive: true });
  await page.screenshot({ path: fileURLToPath(new URL("feed.png", OUTPUT)), fullPage: true });

  await page.reload();
  const reloaded = await order(0);
  assert.deepEqual(reloaded, warm, "the likes survived the reload");
  assert.match(await page.textContent("#status"), /2 reactions kept/);
  assert.equal(await page.$$eval("li.liked", (l) => l.length), 2);

  const n = await renders();
  await page.fill("#query", "Fußball");
  await page.click("#search button[type=submit]");
  const found = await order(n);
  assert.ok(found[0].startsWith("football-"), `a football story answers "Fußball": ${found.slice(0, 3)}`);
  assert.match(await page.textContent(`li[data-id="${found[0]}"] .why`), /query [+-]\d/);

  await page.screenshot({ path: fileURLToPath(new URL("search.png", OUTPUT)), fullPage: true });
  const origin = new URL(url).origin;
  const outside = requests.filter((r) => new URL(r).origin !== origin);
  assert.deepEqual(outside, [], "every request stayed on the page's origin");
  assert.ok(requests.some((r) => r.endsWith(".wasm")), "the model ran on onnxruntime-web's WASM, served from here");
  assert.deepEqual(errors, [], "no error in the page");

  const m = await renders();
  await page.click("#erase");
  await order(m);
  assert.match(await page.textContent("#status"), /0 reactions kept/);
  assert.deepEqual(await holding(profile, [key]), [], "after erase no file of the profile holds the key");
  assert.deepEqual(await holding(indexedDB, texts), [], "nor a liked text in plaintext");
});
