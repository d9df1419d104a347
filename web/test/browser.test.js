// The demo page in Debian's headless Chromium (playwright-core drives it; no browser is downloaded): likes change
// the order, survive a reload, a search answers, and no request leaves the page's origin. Saves screenshots to
// test/output/ (feed.png after the likes, search.png).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../demo/serve.js";

const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const OUTPUT = new URL("output/", import.meta.url);
let server;
let url;
let browser;
let page;
const requests = [];
const errors = [];

before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM to one`);
  }
  ({ server, url } = await serve(0));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await (await browser.newContext({ viewport: { width: 1000, height: 1400 } })).newPage();
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** The page's order once its next render is done (the body's data-ready counts renders). */
async function order(previous) {
  await page.waitForFunction((n) => Number(document.body.dataset.ready ?? 0) > n, previous, { timeout: 60_000 });
  return page.$$eval("#feed li", (items) => items.map((li) => li.dataset.id));
}
const renders = () => page.evaluate(() => Number(document.body.dataset.ready ?? 0));

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
});
