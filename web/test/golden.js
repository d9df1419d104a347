// The golden files the Python runtime writes (python -m spec.tools.golden), read as
// the JVM core's GoldenTest reads them.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MemoryStore, Ranker } from "../src/index.js";

export const GOLDEN = new URL("../../spec/golden/", import.meta.url);
export const MODELS = fileURLToPath(new URL("../../edge_ranker/models/", import.meta.url));

export const rows = (name) =>
  readFileSync(new URL(name, GOLDEN), "utf8").split("\n").filter(Boolean).map((l) => l.split("\t"));
export const text = (b64) => new TextDecoder().decode(Buffer.from(b64, "base64"));
export const floats = (csv) => csv.split(",").map(Number);
export const settings = () => Object.fromEntries(rows("scenario.tsv"));
/** A Python number as written ("None" when absent). */
export const value = (s) => (s === "None" ? null : Number(s));

// The golden scenario as the tests and `npm run parity` replay it (the JVM core's rankingFromTexts).

/** The scenario's rankings with a query or none, each in expected_NAME.tsv. */
export const CASES = ["personal", "search", "alone", "crossing", "script", "blind", "sinking"];

/** The query and the personal weight a case ranks with: "alone" is the search at weight 0; a case may give its own. */
export function searchOf(sc, name) {
  const query = name === "personal" ? undefined : text(sc[`${name === "alone" ? "search" : name}_text`]);
  const own = sc[`${name}_weight`];
  return { query, personalWeight: name === "alone" ? 0 : own === undefined ? undefined : Number(own) };
}

/** The documents every ranking of the scenario but the cold start ranks. */
export const documents = () => rows("documents.tsv").map(([id, , , b64]) => ({ id, text: text(b64) }));

/** A Ranker on a memory store holding the scenario's history, with its interests' settings. */
export async function scenarioRanker(semantic, relevance, sc) {
  const config = {
    shiftFactor: Number(sc.shift_factor),
    threshold: Number(sc.threshold),
    horizonDays: Number(sc.horizon_days),
    decayRatePerDay: Number(sc.decay_rate_per_day),
  };
  const ranker = new Ranker(semantic, relevance, new MemoryStore(), { config });
  await ranker.open();
  for (const [reaction, ts, , b64, id] of rows("history.tsv")) {
    await ranker[reaction]([id, text(b64)], { ts: Number(ts) });
  }
  return ranker;
}

/** An app's next steps (time on documents, undos); returns what each undo removed. */
export async function takeSteps(ranker) {
  const undone = [];
  for (const [step, id, b64, spent] of rows("steps.tsv")) {
    if (step === "viewed") await ranker.viewed([id, text(b64)], Number(spent));
    else undone.push(await ranker.undo(id));
  }
  return undone;
}

/** The model update: reactions stored by the semantic model alone, then a Ranker of both models on that store. */
export async function adoptedRanker(semantic, relevance) {
  const store = new MemoryStore();
  const alone = await Ranker.load({ models: { semantic, relevance: null }, store });
  for (const [step, number, b64, id] of rows("adopted.tsv")) {
    if (step === "viewed") await alone.viewed([id, text(b64)], Number(number));
    else await alone[step]([id, text(b64)], { ts: Number(number) });
  }
  return Ranker.load({ models: { semantic, relevance }, store });
}

/** The cold start's documents, with publication times as apps write them. */
export const coldDocuments = () =>
  rows("cold.tsv").map(([id, b64, published]) => ({ id, text: text(b64), published: JSON.parse(published) }));
