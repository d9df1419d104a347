// What rank and the reactions take as a document, as the Python runtime's documents.py: an object {id, text,
// published?}, an [id, text] pair or a plain text (its id is then its position); an id is an identity, refused
// rather than altered.
import { LAST_SECOND } from "./constants.js";
import { EdgeRankerError } from "./errors.js";
import { cleanText, show, strip, typeName } from "./text.js";


function checkId(id) {
  if (typeof id === "number" && Number.isInteger(id) && !Number.isSafeInteger(id)) {
    throw new EdgeRankerError(`document id ${id} is past 2**53, where numbers lose digits: give it as a string`);
  }
  if ((typeof id === "number" && Number.isSafeInteger(id)) || typeof id === "bigint") id = String(id);
  if (typeof id !== "string" || !strip(id)) {
    throw new EdgeRankerError(`a document id must be a non-blank string or an integer, got ${show(id)}`);
  }
  if (!id.isWellFormed()) throw new EdgeRankerError(`document id ${show(id)} is not valid Unicode (a lone surrogate)`);
  return id;
}

function published(value, id) {
  if (value === undefined || value === null) return null;
  const seconds = value instanceof Date ? value.getTime() / 1000 : typeof value === "string" ? isoSeconds(value, id) : value;
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) {
    throw new EdgeRankerError(`document ${id}: 'published' must be unix seconds, an ISO-8601 string or a Date`);
  }
  if (seconds > LAST_SECOND) {
    throw new EdgeRankerError(`document ${id}: 'published' ${seconds} lies after the year 9999: unix seconds, not milliseconds?`);
  }
  return seconds;
}

/**
 * ISO-8601's extended form as unix seconds: a date, then optionally "T" or a space and a time to the minute, second
 * or fraction, then optionally "Z" or an offset (+HH:MM). One without a zone is UTC, as in Python (Date.parse would
 * take local time); any other form, and the year 0000, which Python has not, is refused rather than guessed. Python
 * takes a few more (week dates, basic form).
 */
const ISO = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)?)?$/;

function isoSeconds(text, id) {
  const m = ISO.exec(text);
  const [, y, mo, d, h = "00", mi = "00", sec = "00", frac = "", zone = "Z"] = m ?? [];
  const ms = m && Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac.padEnd(frac ? 4 : 0, "0").slice(0, 4)}${zone}`);
  const exact = m && +y >= 1 && new Date(Date.UTC(+y, +mo - 1, +d)).getUTCDate() === +d && +h < 24 && +mi < 60 && +sec < 60;
  if (!exact || !Number.isFinite(ms)) {
    throw new EdgeRankerError(
      `document ${id}: 'published' is not an ISO-8601 time (YYYY-MM-DD, then optionally THH:MM[:SS] and Z or ` +
        `+HH:MM): ${show(text)}`,
    );
  }
  return ms / 1000 + (frac.length > 4 ? Number(`0.000${frac.slice(4)}`) : 0);
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
  for (let i = 0; i < docs.length; i++) {
    if (!(i in docs)) throw new EdgeRankerError(`docs has a hole at position ${i}: every position must hold a document`);
  }
  const out = docs.map(toDocument);
  const seen = new Map();
  out.forEach((d, i) => {
    if (seen.has(d.id)) {
      throw new EdgeRankerError(`document id ${show(d.id)} appears twice (positions ${seen.get(d.id) + 1} and ${i + 1})`);
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
