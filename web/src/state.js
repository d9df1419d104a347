// What a store keeps of a user: every reaction (its document's id and text, its vector, when) in the order it came,
// and the interests those reactions built. Stores save it as a plain JSON-safe record, so one format serves
// IndexedDB, a file and memory alike.
import { EdgeRankerError } from "./errors.js";

export const STATE_SCHEMA = 1;

/** A user with no reactions yet, under the models of `modelKey`. */
export function emptyState(modelKey) {
  return { modelKey, nextEvent: 1, events: [], positives: [], negatives: [] };
}

const interestRecord = (c) => ({ point: Array.from(c.point), viewCount: c.viewCount, viewTime: c.viewTime, lastView: c.lastView });

/** The state as a plain object (vectors as arrays of numbers: float32 values survive JSON exactly). */
export function toRecord(state) {
  return {
    schema: STATE_SCHEMA,
    modelKey: state.modelKey,
    nextEvent: state.nextEvent,
    events: state.events.map((e) => ({ ...e, vector: Array.from(e.vector) })),
    positives: state.positives.map(interestRecord),
    negatives: state.negatives.map(interestRecord),
  };
}

/** A record read back, checked, with its vectors as Float32Array; `where` names the store in an error. */
export function fromRecord(record, where) {
  const bad = (why) => new EdgeRankerError(`${where} holds no edge-ranker preferences it can read (${why}); erase it or restore a copy`);
  if (record === null || typeof record !== "object") throw bad("not an object");
  if (record.schema !== STATE_SCHEMA) {
    throw record.schema > STATE_SCHEMA
      ? new EdgeRankerError(`${where} was written by a newer edge-ranker (schema ${record.schema}); upgrade edge-ranker`)
      : bad(`schema ${JSON.stringify(record.schema)}`);
  }
  const vector = (v) => {
    if (!Array.isArray(v) || !v.length || !v.every(Number.isFinite)) throw bad("a vector that is not finite numbers");
    return Float32Array.from(v);
  };
  const interest = (c) => ({ ...c, point: vector(c.point) });
  if (![record.events, record.positives, record.negatives].every(Array.isArray)) throw bad("missing lists");
  return {
    modelKey: String(record.modelKey),
    nextEvent: record.nextEvent,
    events: record.events.map((e) => ({ ...e, vector: vector(e.vector) })),
    positives: record.positives.map(interest),
    negatives: record.negatives.map(interest),
  };
}

/** A copy a change is made on, so that a change the store refuses leaves the state as it was. */
export function copyState(state) {
  return fromRecord(toRecord(state), "the state");
}
