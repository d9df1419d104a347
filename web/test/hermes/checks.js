// The golden checks in a form any JavaScript engine runs (Hermes has no fs, no URL, no test runner): the golden files
// and model files come from `read` and `models`, results are printed with `log`. The same checks as
// test/encoder.test.js and test/golden.test.js make in Node (their helpers are test/golden.js's): token ids identical
// to Python's on every golden text, vectors within 1e-5 for both models, the golden scenario's rankings in Python's
// order with every score within 1e-5; and the key-value store's guarantees over an in-memory storage.
import { splitWindows } from "../../src/tokenizer.js";
import { modelKey } from "../../src/sources.js";

const TOLERANCE = 1e-5;
/** The golden scenario orders by the scores alone (spec/tools/golden.py SCORES_ONLY): no fold, no sink. */
const SCORES_ONLY = { duplicates: "keep", reacted: "keep" };

/**
 * @param {object} o
 * @param {(name: string) => string} o.read a golden file's text (spec/golden/NAME)
 * @param {Record<string, {read(name: string): Promise<Uint8Array>}>} o.models semantic, relevance and wide's files
 * @param {object} o.api the package's exports (Encoder, Ranker, MemoryStore, KeyValueStore)
 * @param {(line: string) => void} o.log
 * @param {string} [o.backend] the Encoder's backend (left out: the engine's default)
 */
export async function runChecks({ read, models, api, log, backend }) {
  const { Encoder, Ranker, MemoryStore, KeyValueStore } = api;
  let passed = 0;
  let failed = 0;
  let worstVector = 0;
  const check = async (name, fn) => {
    const started = Date.now();
    try {
      const said = await fn();
      passed += 1;
      log(`ok - ${name}${said ? `: ${said}` : ""} (${Date.now() - started} ms)`);
    } catch (err) {
      failed += 1;
      log(`not ok - ${name}: ${err?.message ?? err}`);
    }
  };
  const ensure = (ok, why) => {
    if (!ok) throw new Error(why);
  };

  const rows = (name) => read(name).split("\n").filter(Boolean).map((l) => l.split("\t"));
  const text = (b64) => new TextDecoder().decode(base64Bytes(b64));
  const floats = (csv) => csv.split(",").map(Number);
  const value = (s) => (s === "None" ? null : Number(s));
  const sc = Object.fromEntries(rows("scenario.tsv"));
  const options = backend ? { backend } : undefined;

  const encoders = {};
  for (const name of ["semantic", "relevance", "wide"]) {
    await check(`${name}: loads, every file checked by size and SHA-256`, async () => {
      encoders[name] = await Encoder.load(models[name], options);
      return `backend ${encoders[name].backend}, key ${encoders[name].key}`;
    });
  }
  if (!encoders.semantic || !encoders.relevance) return { passed, failed, worstVector: NaN };

  for (const name of ["semantic", "relevance"]) {
    await check(`${name}: token ids identical to Python's on every golden text`, async () => {
      const golden = rows(`${name}_tokens.tsv`);
      for (const [b64, role, ids] of golden) {
        const got = encoders[name].tokenize(text(b64), role === "-" ? undefined : role).join(",");
        ensure(got === ids, `${JSON.stringify(text(b64)).slice(0, 60)}: ${got.slice(0, 60)} instead of ${ids.slice(0, 60)}`);
      }
      return `${golden.length} texts`;
    });
    await check(`${name}: unknown-word shares as Python's`, async () => {
      for (const [b64, share] of rows(`${name}_unknown.tsv`)) {
        ensure(Math.abs(encoders[name].unknownShare(text(b64)) - Number(share)) <= 1e-12, JSON.stringify(text(b64)).slice(0, 60));
      }
    });
  }
  for (const name of ["semantic", "relevance", "wide"]) {
    if (!encoders[name]) continue;
    await check(`${name}: vectors within ${TOLERANCE} of Python's, one text at a time and in a batch`, async () => {
      const golden = rows(`${name}_embeddings.tsv`);
      let worst = 0;
      for (const role of new Set(golden.map((r) => r[1]))) {
        const group = golden.filter((r) => r[1] === role);
        const as = role === "-" ? undefined : role;
        const batch = await encoders[name].encode(group.map((r) => text(r[0])), { role: as });
        for (let i = 0; i < group.length; i++) {
          const one = await encoders[name].encode(text(group[i][0]), { role: as });
          const want = floats(group[i][2]);
          ensure(one.length === want.length, `${want.length} values expected, got ${one.length}`);
          for (const v of [one, batch[i]]) {
            for (let j = 0; j < want.length; j++) worst = Math.max(worst, Math.abs(want[j] - v[j]));
          }
        }
      }
      if (name !== "wide") worstVector = Math.max(worstVector, worst);
      ensure(worst <= TOLERANCE, `largest difference ${worst}`);
      return `${golden.length} texts, largest difference ${worst.toExponential(2)}`;
    });
  }
  await check("windows split as Python's split_windows", async () => {
    for (const [maxLength, windows, head, ids, expected] of rows("windows.tsv")) {
      const got = splitWindows(ids.split(",").map(Number), Number(maxLength), Number(windows), Number(head));
      ensure(got.map((w) => w.join(",")).join(";") === expected, `max_length ${maxLength}, ${windows} windows`);
    }
  });
  await check("model keys as Python's, whatever the prefixes", async () => {
    const manifest = encoders.relevance.manifest;
    for (const [b64, tokenizer, maxLength, key] of rows("keys.tsv")) {
      const got = await modelKey({ ...manifest, prefixes: JSON.parse(text(b64)), tokenizer, maxLength: Number(maxLength), windows: 1 });
      ensure(got === `relevance:${key}`, `${got} instead of relevance:${key}`);
    }
  });

  // The golden scenario, as test/golden.js replays it (the JVM core's rankingFromTexts).
  const documents = () => rows("documents.tsv").map(([id, , , b64]) => ({ id, text: text(b64) }));
  const config = {
    shiftFactor: Number(sc.shift_factor),
    threshold: Number(sc.threshold),
    horizonDays: Number(sc.horizon_days),
    decayRatePerDay: Number(sc.decay_rate_per_day),
  };
  const withHistory = async (store) => {
    const ranker = new Ranker(encoders.semantic, encoders.relevance, store, { config });
    await ranker.open();
    for (const [reaction, ts, , b64, id] of rows("history.tsv")) await ranker[reaction]([id, text(b64)], { ts: Number(ts) });
    return ranker;
  };
  const searchOf = (name) => {
    const query = name === "personal" ? undefined : text(sc[`${name === "alone" ? "search" : name}_text`]);
    const own = sc[`${name}_weight`];
    return { query, personalWeight: name === "alone" ? 0 : own === undefined ? undefined : Number(own) };
  };
  let worstScore = 0;
  /** A ranking against Python's expected_NAME.tsv: the same order, each score within 1e-5. */
  const same = (name, got) => {
    const expected = rows(`expected_${name}.tsv`);
    ensure(got.length === expected.length, `${got.length} results, Python has ${expected.length}`);
    expected.forEach(([rank, id, total, personal, relevance, lexical, semantic], r) => {
      const g = got[r];
      ensure(g.id === id, `rank ${rank}: ${g.id} instead of ${id}`);
      const pairs = [[g.score, total], [g.personalScore, personal], [g.relevanceScore, relevance], [g.lexicalScore, lexical], [g.semanticScore, semantic]];
      for (const [a, b] of pairs) {
        if (value(b) === null) ensure(a === null, `rank ${rank}: a score where Python has none`);
        else {
          worstScore = Math.max(worstScore, Math.abs(a - value(b)));
          ensure(Math.abs(a - value(b)) <= TOLERANCE, `rank ${rank}: ${a} vs ${b}`);
        }
      }
    });
    return `${expected.length} documents in Python's order`;
  };
  let ranker;
  await check("golden history: the defaults and the model key are Python's", async () => {
    ranker = await withHistory(new MemoryStore());
    ensure(ranker.modelKey === sc.model_key, `model key ${ranker.modelKey}, Python's ${sc.model_key}`);
  });
  if (ranker) {
    for (const name of ["personal", "search", "alone", "crossing", "script", "blind", "sinking"]) {
      await check(`golden ${name}: Python's order and scores`, async () => same(name, await ranker.rank(documents(), { ...searchOf(name), now: Number(sc.now), ...SCORES_ONLY })));
    }
    await check("golden steps: time on documents and an undo, then the feed", async () => {
      for (const [step, id, b64, spent] of rows("steps.tsv")) {
        if (step === "viewed") await ranker.viewed([id, text(b64)], Number(spent));
        else ensure((await ranker.undo(id)) > 0, "an undo removes the document's reactions");
      }
      return same("steps", await ranker.rank(documents(), { now: Number(sc.now), ...SCORES_ONLY }));
    });
  }
  await check("golden model update: reactions stored by the semantic model alone, taken in by both", async () => {
    const store = new MemoryStore();
    const alone = await Ranker.load({ models: { semantic: encoders.semantic, relevance: null }, store });
    for (const [step, number, b64, id] of rows("adopted.tsv")) {
      if (step === "viewed") await alone.viewed([id, text(b64)], Number(number));
      else await alone[step]([id, text(b64)], { ts: Number(number) });
    }
    const both = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store });
    return same("adopted", await both.rank(documents(), { now: Number(sc.now), ...SCORES_ONLY }));
  });
  await check("golden cold start: newest first by publication times", async () => {
    const cold = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance } });
    const docs = rows("cold.tsv").map(([id, b64, published]) => ({ id, text: text(b64), published: JSON.parse(published) }));
    return same("cold", await cold.rank(docs, { now: Number(sc.now), ...SCORES_ONLY }));
  });

  // The key-value store over an in-memory storage: the golden history kept, a crash mid-write, an erase.
  await check("key-value store: the golden history kept and read back, ranked as Python", async () => {
    const storage = memoryStorage();
    const kept = await withHistory(new KeyValueStore(storage));
    const again = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store: new KeyValueStore(storage), config });
    ensure(again.reactions === kept.reactions && again.reactions > 0, `${again.reactions} reactions read back, ${kept.reactions} kept`);
    return same("personal", await again.rank(documents(), { now: Number(sc.now), ...SCORES_ONLY }));
  });
  await check("key-value store: a crash mid-write leaves the old state or the new one, whole", async () => {
    const [id, b64] = [rows("documents.tsv")[0][0], rows("documents.tsv")[0][3]];
    for (const torn of [true, false]) {
      const storage = memoryStorage();
      const first = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store: new KeyValueStore(storage) });
      await first.like(["kept", "A story about cooking pasta at home"]);
      storage.crashAt(storage.writes + 1, torn); // the next write dies half way (torn) or before it lands
      let refused = false;
      try {
        await first.like([id, text(b64)]);
      } catch {
        refused = true;
      }
      ensure(refused, "the write that crashed was reported");
      const after = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store: new KeyValueStore(storage) });
      const ids = (await after.history()).map((r) => r.id).join(",");
      ensure(ids === "kept", `after the crash the store holds ${ids || "nothing"}, not the state before it`);
      await after.like([id, text(b64)]);
      const later = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store: new KeyValueStore(storage) });
      ensure(later.reactions === 2, `${later.reactions} reactions after the next change`);
    }
  });
  await check("key-value store: erase leaves no key holding the user's text", async () => {
    const storage = memoryStorage();
    const secret = "A private note about my doctor's appointment";
    const ranker = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store: new KeyValueStore(storage) });
    await ranker.like(["note", secret]);
    await ranker.like(["other", "Holidays by the sea"]);
    ensure(storage.keys().some((k) => storage.peek(k).includes("doctor")), "the text was stored");
    await ranker.erase();
    ensure(storage.keys().length === 0, `keys left after erase: ${storage.keys().join(", ")}`);
    const reopened = await Ranker.load({ models: { semantic: encoders.semantic, relevance: encoders.relevance }, store: new KeyValueStore(storage) });
    ensure(reopened.reactions === 0, `${reopened.reactions} reactions after erase`);
  });

  log(`largest score difference from Python's: ${worstScore.toExponential(2)}`);
  return { passed, failed, worstVector };
}

/** An in-memory key-value storage (AsyncStorage's methods) that can crash at its n-th write. */
export function memoryStorage() {
  const items = new Map();
  let crash = null;
  const storage = {
    writes: 0,
    async getItem(key) {
      return items.has(key) ? items.get(key) : null;
    },
    async setItem(key, value) {
      storage.writes += 1;
      if (crash && storage.writes === crash.at) {
        if (crash.torn) items.set(key, value.slice(0, Math.floor(value.length / 2)));
        crash = null;
        throw new Error("the app was killed during this write");
      }
      items.set(key, String(value));
    },
    async removeItem(key) {
      items.delete(key);
    },
    crashAt(at, torn) {
      crash = { at, torn };
    },
    keys: () => [...items.keys()],
    peek: (key) => items.get(key),
  };
  return storage;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) CODES[ALPHABET.charCodeAt(i)] = i;

/** The bytes of a base64 text (the golden files' texts, the model files embedded for an engine without fs). */
export function base64Bytes(b64) {
  let n = b64.length;
  while (n > 0 && b64[n - 1] === "=") n -= 1;
  const out = new Uint8Array(Math.floor((n * 3) / 4));
  let bits = 0;
  let have = 0;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const c = CODES[b64.charCodeAt(i)];
    if (c < 0) throw new Error("not base64");
    bits = ((bits << 6) | c) & 0xffffff;
    have += 6;
    if (have >= 8) {
      have -= 8;
      out[at++] = (bits >> have) & 0xff;
    }
  }
  return out;
}
