// What a store keeps of a user: every reaction (its document's id and text, its vector, when) in the order it came,
// the interests those reactions built, and every signal (a showing or a view of a document, with its vector, its
// seconds and when: spec/rules/implicit.md). Stores save it as a plain JSON-safe record (vectors as base64 float32),
// so one format serves IndexedDB, a file and memory alike; a record is checked whole when read back.
import { MAX_VIEW_S } from "./constants.js";
import { EdgeRankerError } from "./errors.js";
import { EXPLICIT, IMPLICIT } from "./signals.js";

/** The record's format: 2 adds the signals and each interest's weight; a record of 1 is read as having none. */
export const STATE_SCHEMA = 2;
const READS = [1, STATE_SCHEMA];

/** A user with no reactions yet, under the models of `modelKey`. */
export function emptyState(modelKey) {
  return { modelKey, nextEvent: 1, events: [], positives: [], negatives: [], nextSignal: 1, signals: [] };
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

const interestRecord = (c) =>
  ({ point: encodeVector(c.point), viewCount: c.viewCount, viewTime: c.viewTime, lastView: c.lastView, weight: c.weight ?? 1 });

/**
 * The signals as records: a document shown again and again has one vector, so a signal whose vector is an earlier
 * one's holds that signal's position in the list instead of the vector's bytes again.
 */
function signalRecords(signals) {
  const first = new Map();
  return signals.map((s, i) => {
    if (s.left) return { ...s };
    const bytes = encodeVector(s.vector);
    if (first.has(bytes)) return { ...s, vector: first.get(bytes) };
    first.set(bytes, i);
    return { ...s, vector: bytes };
  });
}

/** The state as a plain object. */
export function toRecord(state) {
  return {
    schema: STATE_SCHEMA,
    modelKey: state.modelKey,
    nextEvent: state.nextEvent,
    events: state.events.map((e) => ({ ...e, vector: encodeVector(e.vector) })),
    positives: state.positives.map(interestRecord),
    negatives: state.negatives.map(interestRecord),
    nextSignal: state.nextSignal ?? 1,
    signals: signalRecords(state.signals ?? []),
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
  if (!READS.includes(record.schema)) {
    throw typeof record.schema === "number" && record.schema > STATE_SCHEMA
      ? new EdgeRankerError(`${where} was written by a newer edge-ranker (schema ${record.schema}); upgrade edge-ranker`)
      : bad(`schema ${String(record.schema)}`);
  }
  if (typeof record.modelKey !== "string" || !Number.isSafeInteger(record.nextEvent)) throw bad("no model key or event counter");
  if (![record.events, record.positives, record.negatives].every(Array.isArray)) throw bad("missing lists");
  const old = record.schema === 1; // before signals: none, and every interest of weight 1
  if (!old && (!Number.isSafeInteger(record.nextSignal) || !Array.isArray(record.signals))) throw bad("no signals or signal counter");
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
    if (!ok || !EXPLICIT.includes(e.reaction) || !time(e.ts) || (e.left !== undefined && typeof e.left !== "boolean")) {
      throw bad(`reaction ${i} is not one`);
    }
    return { event: e.event, id: e.id, text: e.text, reaction: e.reaction, ts: e.ts, vector: vector(e.vector, `reaction ${i}`, !e.left), ...(e.left ? { left: true } : {}) };
  });
  const signals = [];
  for (const [i, s] of (old ? [] : record.signals).entries()) {
    const ok = s && typeof s === "object" && Number.isSafeInteger(s.signal) && typeof s.id === "string" && typeof s.text === "string";
    const seconds = time(s?.seconds) && s.seconds <= MAX_VIEW_S;
    if (!ok || !IMPLICIT.includes(s.kind) || !seconds || !time(s.ts) || (s.left !== undefined && typeof s.left !== "boolean")) {
      throw bad(`signal ${i} is not one`);
    }
    let v;
    if (s.left) v = null;
    else if (typeof s.vector !== "number") v = vector(s.vector, `signal ${i}`);
    else if (Number.isSafeInteger(s.vector) && s.vector >= 0 && s.vector < i && signals[s.vector].vector) v = signals[s.vector].vector;
    else throw bad(`signal ${i} names no earlier signal's vector`);
    signals.push({ signal: s.signal, id: s.id, text: s.text, kind: s.kind, seconds: s.seconds, ts: s.ts, vector: v, ...(s.left ? { left: true } : {}) });
  }
  const interests = (list, side) =>
    list.map((c, i) => {
      const ok = c && typeof c === "object" && Number.isSafeInteger(c.viewCount) && c.viewCount >= 1 && time(c.viewTime) && time(c.lastView);
      const weight = old ? 1 : c?.weight;
      if (!ok || typeof weight !== "number" || !Number.isFinite(weight) || !(weight > 0)) throw bad(`${side} interest ${i} is not one`);
      return { point: vector(c.point, `${side} interest ${i}`), viewCount: c.viewCount, viewTime: c.viewTime, lastView: c.lastView, weight };
    });
  return {
    modelKey: record.modelKey,
    nextEvent: record.nextEvent,
    events,
    positives: interests(record.positives, "liked"),
    negatives: interests(record.negatives, "disliked"),
    nextSignal: old ? 1 : record.nextSignal,
    signals,
  };
}
