// What rank and the reactions take as a document, as the Python runtime's documents.py: an object {id, text,
// published?}, an [id, text] pair or a plain text (its id is then its position); an id is an identity, refused
// rather than altered.
import { EdgeRankerError } from "./errors.js";
import { cleanText, strip, typeName } from "./text.js";

/** 9999-12-31T23:59:59Z: a later publication time is a unit mistake (milliseconds). */
const LAST_SECOND = 253_402_300_799;

function checkId(id) {
  if (typeof id === "number" && Number.isSafeInteger(id)) id = String(id);
  if (typeof id !== "string" || !strip(id)) {
    throw new EdgeRankerError(`a document id must be a non-blank string or an integer, got ${JSON.stringify(id) ?? typeName(id)}`);
  }
  if (!id.isWellFormed()) throw new EdgeRankerError(`document id ${JSON.stringify(id)} is not valid Unicode (a lone surrogate)`);
  return id;
}

function published(value, id) {
  if (value === undefined || value === null) return null;
  const seconds = value instanceof Date ? value.getTime() / 1000 : typeof value === "string" ? isoSeconds(value) : value;
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) {
    throw new EdgeRankerError(`document ${id}: 'published' must be unix seconds, an ISO-8601 string or a Date`);
  }
  if (seconds > LAST_SECOND) {
    throw new EdgeRankerError(`document ${id}: 'published' ${seconds} lies after the year 9999: unix seconds, not milliseconds?`);
  }
  return seconds;
}

/** ISO-8601 as unix seconds; one without a time zone is UTC, as in Python (JavaScript would take local time). */
function isoSeconds(text) {
  const t = text.trim().replace(/^(\d{4}-\d\d-\d\d) (?=\d)/, "$1T");
  return Date.parse(/T.*(?:Z|[+-]\d\d:?\d\d)$/i.test(t) || !t.includes("T") ? t : `${t}Z`) / 1000;
}

/** One document as {id, text, published}. */
export function toDocument(doc, position) {
  if (typeof doc === "string") return { id: String(position), text: cleanText(doc), published: null };
  if (Array.isArray(doc) && doc.length === 2) return toDocument({ id: doc[0], text: doc[1] }, position);
  if (doc === null || typeof doc !== "object" || Array.isArray(doc) || !("id" in doc) || !("text" in doc)) {
    throw new EdgeRankerError(`document ${position} must be an {id, text} object, an [id, text] pair or a text, got ${typeName(doc)}`);
  }
  const id = checkId(doc.id);
  if (doc.text !== null && doc.text !== undefined && typeof doc.text !== "string") {
    throw new EdgeRankerError(`document ${id}: 'text' must be a string, got ${typeName(doc.text)}`);
  }
  return { id, text: cleanText(doc.text), published: published(doc.published, id) };
}

/** Documents to rank, each id once. */
export function documents(docs) {
  if (!Array.isArray(docs)) {
    throw new EdgeRankerError(`docs must be an array of documents ({id, text} objects, [id, text] pairs or texts), got ${typeName(docs)}`);
  }
  const out = docs.map(toDocument);
  const seen = new Map();
  out.forEach((d, i) => {
    if (seen.has(d.id)) {
      throw new EdgeRankerError(`document id ${JSON.stringify(d.id)} appears twice (positions ${seen.get(d.id) + 1} and ${i + 1})`);
    }
    seen.set(d.id, i);
  });
  return out;
}

/** The document of a reaction: a plain text is refused, since an id given where a document belongs would be learnt as a text. */
export function reacted(doc) {
  if (typeof doc === "string") {
    throw new EdgeRankerError("a reaction needs the document, with its id: {id, text} or an [id, text] pair, not a plain text");
  }
  return toDocument(doc, 0);
}

/** A document id given alone (undo): a string or an integer. */
export function documentId(id) {
  return checkId(id);
}
