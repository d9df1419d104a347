// Each language's function words, as spec/stopwords/stopwords.tsv lists them (spec/rules/stopwords.md, Python's
// stopwords.py): the words every text of a language holds, which a query shares with a document without either being
// about anything. The list is a module scripts/spec-tables.js writes, so that no engine reads a file for it.
import TABLE from "./stopwords-table.js";

/** The languages of the list, in the order a tie between them is decided in. */
export const LANGUAGES = ["en", "de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr"];

const BITS = new Map(); // word -> its languages' bits: one lookup per term, however many languages list it
for (const line of TABLE.split("\n")) {
  if (!line || line.startsWith("#")) continue;
  const [lang, word] = line.split("\t");
  BITS.set(word, (BITS.get(word) ?? 0) | (1 << LANGUAGES.indexOf(lang)));
}

/** The languages a term is a function word of, a bit each in LANGUAGES order ("in": en de it pt nl); 0: content. */
export function functionBits(term) {
  return BITS.get(term) ?? 0;
}
