// What a store keeps of a user: every reaction (its document's id and text, its vector, when) in the order it came,
// and the interests those reactions built. Stores save it as a plain JSON-safe record (vectors as base64 float32), so
// one format serves IndexedDB, a file and memory alike; a record is checked whole when read back.
import { EdgeRankerError } from "./errors.js";

export const STATE_SCHEMA = 1;
const REACTIONS = ["like", "dislike"];

/** A user with no reactions yet, under the models of `modelKey`. */
export function emptyState(modelKey) {
  return { modelKey, nextEvent: 1, events: [], positives: [], negatives: [] };
}

/** float32 values as base64 of their little-endian bytes. */
function encodeVector(v) {
  const bytes = new Uint8Array(Float32Array.from(v).buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function decodeVector(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

const interestRecord = (c) => ({ point: encodeVector(c.point), viewCount: c.viewCount, viewTime: c.viewTime, lastView: c.lastView });

/** The state as a plain object. */
export function toRecord(state) {
  return {
    schema: STATE_SCHEMA,
    modelKey: state.modelKey,
    nextEvent: state.nextEvent,
    events: state.events.map((e) => ({ ...e, vector: encodeVector(e.vector) })),
    positives: state.positives.map(interestRecord),
    negatives: state.negatives.map(interestRecord),
  };
}

/**
 * A record read back, every field checked (a hand-edited or damaged one would give NaN scores, not an error), with
 * its vectors as Float32Array; `where` names the store in an error.
 */
export function fromRecord(record, where) {
  const bad = (why) =>
    new EdgeRankerError(`${where} holds no edge-ranker preferences it can read (${why}): move it aside (or erase it), then load again`);
  if (record === null || typeof record !== "object") throw bad("not an object");
  if (record.schema !== STATE_SCHEMA) {
    throw typeof record.schema === "number" && record.schema > STATE_SCHEMA
      ? new EdgeRankerError(`${where} was written by a newer edge-ranker (schema ${record.schema}); upgrade edge-ranker`)
      : bad(`schema ${String(record.schema)}`);
  }
  if (typeof record.modelKey !== "string" || !Number.isSafeInteger(record.nextEvent)) throw bad("no model key or event counter");
  if (![record.events, record.positives, record.negatives].every(Array.isArray)) throw bad("missing lists");
  let size = null;
  const vector = (v, what, sized = true) => {
    let out;
    try {
      out = decodeVector(v);
    } catch {
      throw bad(`${what} is not a vector`);
    }
    if (!out.length || !out.every(Number.isFinite)) throw bad(`${what} is not finite numbers`);
    if (!sized) return out;
    size ??= out.length;
    if (out.length !== size) throw bad(`${what} has ${out.length} numbers beside others of ${size}`);
    return out;
  };
  const time = (t) => typeof t === "number" && Number.isFinite(t) && t >= 0;
  const events = record.events.map((e, i) => {
    const ok = e && typeof e === "object" && Number.isSafeInteger(e.event) && typeof e.id === "string" && typeof e.text === "string";
    if (!ok || !REACTIONS.includes(e.reaction) || !time(e.ts) || (e.left !== undefined && typeof e.left !== "boolean")) {
      throw bad(`reaction ${i} is not one`);
    }
    return { event: e.event, id: e.id, text: e.text, reaction: e.reaction, ts: e.ts, vector: vector(e.vector, `reaction ${i}`, !e.left), ...(e.left ? { left: true } : {}) };
  });
  const interests = (list, side) =>
    list.map((c, i) => {
      const ok = c && typeof c === "object" && Number.isSafeInteger(c.viewCount) && c.viewCount >= 1 && time(c.viewTime) && time(c.lastView);
      if (!ok) throw bad(`${side} interest ${i} is not one`);
      return { point: vector(c.point, `${side} interest ${i}`), viewCount: c.viewCount, viewTime: c.viewTime, lastView: c.lastView };
    });
  return {
    modelKey: record.modelKey,
    nextEvent: record.nextEvent,
    events,
    positives: interests(record.positives, "liked"),
    negatives: interests(record.negatives, "disliked"),
  };
}
