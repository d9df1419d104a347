// The encode bench under Hermes (bench/encode.js bundles this with scripts/hermes.js, the models embedded): p50 of
// one text's encode with the JavaScript backend, in ms by Date.now (Hermes' command line has no performance.now;
// one encode takes tens of ms there). Prints one JSON line.
import { Encoder } from "../src/react-native.js";
import { base64Bytes } from "../test/hermes/checks.js";

const { models, texts, runs } = globalThis.__EDGE_RANKER_ASSETS__;
const log = typeof print === "function" ? print : console.log;

async function p50(fn, n) {
  const warm = Date.now();
  while (Date.now() - warm < 1000) await fn();
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = Date.now();
    await fn();
    times.push(Date.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

(async () => {
  const out = {};
  for (const name of ["semantic", "relevance"]) {
    const started = Date.now();
    const enc = await Encoder.load({ name, read: async (file) => base64Bytes(models[name][file]) });
    const load = Date.now() - started;
    const role = enc.roles.length ? "query" : undefined;
    out[name] = {
      load,
      short: await p50(() => enc.encode(texts.short, { role }), runs),
      long: await p50(() => enc.encode(texts.long, { role }), Math.max(Math.floor(runs / 4), 5)),
    };
  }
  log(JSON.stringify(out));
})().catch((err) => log(JSON.stringify({ error: String(err?.stack ?? err) })));
