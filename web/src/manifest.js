// manifest.json, the contract of a model folder (Python's edge_ranker/runtime/manifest.py): read, checked field by
// field, and every file it lists checked by size and SHA-256 before any is used.
import { MANIFEST_SCHEMA_VERSION, MAX_LENGTH_MAX, MAX_LENGTH_MIN, MAX_WINDOWS } from "./constants.js";
import { EdgeRankerError } from "./errors.js";

export const SCHEMA_VERSION = MANIFEST_SCHEMA_VERSION;
const KINDS = ["semantic", "relevance"];
const MAX_DIM = 65536;

function whole(raw, name, lo, hi, fallback) {
  const value = raw[name] ?? fallback;
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new EdgeRankerError(`manifest.json: ${name} must be a whole number from ${lo} to ${hi}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function fileName(raw, name, fallback) {
  const value = raw[name] ?? fallback;
  if (typeof value !== "string" || !value || value.startsWith("/") || value.split(/[\\/]/).includes("..")) {
    throw new EdgeRankerError(`manifest.json: ${name} ${JSON.stringify(value)} is not a file inside the model folder`);
  }
  return value;
}

/** The manifest's fields the runtime uses, checked. */
/** A manifest is a few kilobytes; a bound, so that no file put in its place is read whole (as Python's). */
export const MAX_MANIFEST_BYTES = 1 << 20;

export function parseManifest(bytes) {
  let raw;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new EdgeRankerError(`manifest.json is corrupted (not valid JSON: ${err.message}); re-export the model`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new EdgeRankerError("manifest.json is corrupted: expected a JSON object");
  }
  const version = raw.schema_version;
  if (!Number.isInteger(version) || version < 1) {
    throw new EdgeRankerError(`manifest.json has no valid schema_version, got ${JSON.stringify(version)}`);
  }
  if (version > SCHEMA_VERSION) {
    throw new EdgeRankerError(
      `manifest.json uses schema ${version}, newer than this edge-ranker understands (${SCHEMA_VERSION}); upgrade edge-ranker`,
    );
  }
  if (typeof raw.name !== "string" || !raw.name.trim()) {
    throw new EdgeRankerError(`manifest.json: name must be a non-blank text, got ${JSON.stringify(raw.name)}`);
  }
  if (!KINDS.includes(raw.kind)) {
    throw new EdgeRankerError(`manifest.json: kind must be one of ${KINDS.join(", ")}, got ${JSON.stringify(raw.kind)}`);
  }
  const prefixes = raw.prefixes ?? {};
  for (const [role, prefix] of Object.entries(prefixes)) {
    if (!["query", "passage"].includes(role) || typeof prefix !== "string" || !prefix.isWellFormed()) {
      throw new EdgeRankerError(`manifest.json: prefixes map 'query'/'passage' to text, got ${role}`);
    }
  }
  const files = raw.files ?? {};
  for (const [name, meta] of Object.entries(files)) {
    fileName({ name }, "name");
    if (!/^[0-9a-f]{64}$/.test(meta?.sha256 ?? "") || !Number.isInteger(meta?.bytes) || meta.bytes < 0) {
      throw new EdgeRankerError(`manifest.json: files[${JSON.stringify(name)}] must be {sha256: 64 hex digits, bytes: a whole number}`);
    }
  }
  return {
    name: raw.name,
    kind: raw.kind,
    dim: whole(raw, "dim", 1, MAX_DIM),
    maxLength: whole(raw, "max_length", MAX_LENGTH_MIN, MAX_LENGTH_MAX),
    windows: whole(raw, "windows", 1, MAX_WINDOWS, 1),
    onnx: fileName(raw, "onnx", "model.onnx"),
    tokenizer: fileName(raw, "tokenizer", "tokenizer.json"),
    vocab: fileName(raw, "vocab", "vocab.txt"),
    prefixes,
    files,
  };
}

