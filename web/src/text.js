// Text as the Python runtime reads it: lone surrogates replaced, Python's white space, and the characters the
// tokenizers library drops, spaces, splits off or lowercases, from the table the JVM core reads too. The table, not
// the JavaScript engine's Unicode classes: an engine knows another Unicode version than the tokenizers library, and
// @huggingface/tokenizers' own normaliser splits "Dash⹃with" where the Rust library keeps one word.
import { EdgeRankerError } from "./errors.js";
import TABLE from "./unicode-table.js";

const ranges = { first: [], last: [], kind: [] };
const alnum = { first: [], last: [] };
const LOWER = new Map();
for (const line of TABLE.split("\n")) {
  const f = line.split(" ");
  if (f[0] === "R") {
    ranges.first.push(parseInt(f[1], 16));
    ranges.last.push(parseInt(f[2], 16));
    ranges.kind.push(f[3]);
  } else if (f[0] === "A") {
    alnum.first.push(parseInt(f[1], 16));
    alnum.last.push(parseInt(f[2], 16));
  } else if (f[0] === "L") {
    LOWER.set(parseInt(f[1], 16), String.fromCodePoint(...f.slice(2).map((x) => parseInt(x, 16))));
  }
}

/** The index of the sorted, disjoint range holding c, or -1. */
function range(c, first, last) {
  let lo = 0;
  let hi = first.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (c < first[mid]) hi = mid - 1;
    else if (c > last[mid]) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** The table's class of a non-ASCII code point: D dropped, S space, C CJK, P punctuation, "" kept. */
function kind(c) {
  const i = range(c, ranges.first, ranges.last);
  return i < 0 ? "" : ranges.kind[i];
}

/** Unicode L* or N* as Python's unicodedata has them: what a word is for BM25 and for "has a word". */
export function isLetterOrNumber(c) {
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return range(c, alnum.first, alnum.last) >= 0;
}

function isWhitespace(c) {
  return c < 0x80 ? c === 32 || (c >= 9 && c <= 13) : kind(c) === "S";
}

function isControl(c) {
  return c < 0x80 ? (c < 0x20 || c === 0x7f) && c !== 9 && c !== 10 && c !== 13 : kind(c) === "D";
}

function isPunctuation(c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  return c >= 0x80 && kind(c) === "P";
}

/** Any value as a text: null and undefined are empty, lone surrogates become "?" (Python's encode "replace"). */
export function cleanText(text) {
  if (text === null || text === undefined) return "";
  if (typeof text !== "string") throw new EdgeRankerError(`a text must be a string, got ${typeName(text)}`);
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "?");
}

/** The first `count` code points of a text. */
export function firstCodePoints(text, count) {
  if (text.length <= count) return text;
  let units = 0;
  let seen = 0;
  for (const ch of text) {
    if (seen === count) break;
    units += ch.length;
    seen += 1;
  }
  return text.slice(0, units);
}

/** Python's str.isspace: Unicode White_Space and the ASCII separators 0x1C-0x1F. */
function isSpace(c) {
  return (
    c === 32 || (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x1f) || c === 0x85 || c === 0xa0 || c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

/** Python's str.strip(): without leading and trailing white space (every such character is one UTF-16 unit). */
export function strip(text) {
  let a = 0;
  let b = text.length;
  while (a < b && isSpace(text.charCodeAt(a))) a++;
  while (b > a && isSpace(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}

/** Whether a text holds a letter or number: one without holds nothing interests or a query can match. */
export function hasWord(text) {
  for (const ch of text) {
    if (isLetterOrNumber(ch.codePointAt(0))) return true;
  }
  return false;
}

/** BertNormalizer(clean_text, handle_chinese_chars, strip_accents=false, lowercase=true), by the table. */
export function normalize(text) {
  let out = "";
  for (const ch of text) {
    let c = ch.codePointAt(0);
    if (c === 0 || isControl(c)) continue;
    if (isWhitespace(c)) c = 32;
    if (c >= 0x80 && kind(c) === "C") {
      out += ` ${ch} `;
    } else if (c < 0x80) {
      out += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
    } else {
      out += LOWER.get(c) ?? ch;
    }
  }
  return out;
}

/** BertPreTokenizer: split on white space (dropped), each punctuation character a word of its own. */
export function preTokenize(text) {
  const words = [];
  let cur = "";
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (isWhitespace(c)) {
      if (cur) words.push(cur);
      cur = "";
    } else if (isPunctuation(c)) {
      if (cur) words.push(cur);
      words.push(ch);
      cur = "";
    } else {
      cur += ch;
    }
  }
  if (cur) words.push(cur);
  return words;
}

/** The words of a text that hold a letter or number: BM25's terms (Python's lexical.terms). */
export function terms(text) {
  return preTokenize(normalize(text)).filter(hasWord);
}

/** A value's kind in an error message. */
export function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? value.constructor?.name ?? "object" : typeof value;
}

/** A value as an error message shows it: short, and never itself a failure (a BigInt, a cycle). */
export function show(value) {
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) return String(value);
  if (typeof value === "bigint") return `${value}n`;
  return typeName(value);
}
