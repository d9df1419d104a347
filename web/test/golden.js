// The golden files the Python runtime writes (python -m edge_ranker.demo.golden android_demo/golden), read as
// the JVM core's GoldenTest reads them.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const GOLDEN = new URL("../../android_demo/golden/", import.meta.url);
export const MODELS = fileURLToPath(new URL("../../edge_ranker/models/", import.meta.url));

export const rows = (name) =>
  readFileSync(new URL(name, GOLDEN), "utf8").split("\n").filter(Boolean).map((l) => l.split("\t"));
export const text = (b64) => new TextDecoder().decode(Buffer.from(b64, "base64"));
export const floats = (csv) => csv.split(",").map(Number);
export const settings = () => Object.fromEntries(rows("scenario.tsv"));
/** A Python number as written ("None" when absent). */
export const value = (s) => (s === "None" ? null : Number(s));
