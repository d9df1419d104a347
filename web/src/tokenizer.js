// Token ids as the Python runtime's Encoder.tokenize gives them. @huggingface/tokenizers reads tokenizer.json: its
// vocabulary, special tokens and WordPiece model (greedy longest match, "##" continuations, [UNK] past 100
// characters). The BERT normaliser and pre-tokenizer come from text.js instead, by the table the Rust library wrote.
import { Tokenizer } from "@huggingface/tokenizers";
import { cleanText, firstCodePoints, hasWord, normalize, preTokenize } from "./text.js";

/** A WordPiece token never covers more characters than this: a text is cut at 64 per token a model reads. */
export const CHARS_PER_TOKEN_CAP = 64;

export class WordPiece {
  /**
   * @param {object} json tokenizer.json, parsed
   * @param {number} maxTokens the tokens a model reads of a text, all its windows ([CLS] and [SEP] included)
   */
  constructor(json, maxTokens) {
    const model = json?.model;
    if (model?.type !== "WordPiece" || json?.normalizer?.type !== "BertNormalizer") {
      throw new Error("tokenizer.json is not a BERT WordPiece tokenizer (the only kind edge-ranker models use)");
    }
    const ids = [...Object.values(model.vocab ?? {}), ...(json.added_tokens ?? []).map((t) => t?.id)];
    const odd = ids.find((id) => !Number.isInteger(id) || id < 0 || id > 0xffffffff);
    if (odd !== undefined) {
      throw new Error(`tokenizer.json gives a token the id ${JSON.stringify(odd)}; ids are whole numbers from 0, as Python's tokenizers reads them`);
    }
    if (json.normalizer.lowercase !== true || json.normalizer.strip_accents === true) {
      throw new Error("tokenizer.json lowercases without stripping accents in every edge-ranker model; this one does not");
    }
    this.library = new Tokenizer(json, {});
    this.maxTokens = maxTokens;
    this.unk = this.id("[UNK]");
    this.cls = this.id("[CLS]");
    this.sep = this.id("[SEP]");
    const special = [...this.library.get_added_tokens_decoder().values()].filter((t) => t.special);
    this.special = new Map(special.map((t) => [t.content, this.id(t.content)]));
    const escaped = special.map((t) => t.content.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    this.specialPattern = escaped.length ? new RegExp(escaped.join("|"), "g") : null;
  }

  /** How many ids the vocabulary holds. */
  get size() {
    return this.library.get_vocab(true).size;
  }

  id(token) {
    const i = this.library.token_to_id(token);
    if (i === undefined) throw new Error(`tokenizer.json's vocabulary lacks ${token}`);
    return i;
  }

  /** The part of a text the tokens come from: lone surrogates replaced, its first maxTokens x 64 code points. */
  cut(text) {
    return firstCodePoints(cleanText(text), this.maxTokens * CHARS_PER_TOKEN_CAP);
  }

  /** Each word's pieces, by the library's WordPiece model. */
  pieces(words) {
    return this.library.model(words).map((t) => this.library.token_to_id(t) ?? this.unk);
  }

  /** [CLS] prefix text [SEP], truncated to maxTokens; special tokens written in the text read as themselves. */
  encode(text, prefix = "") {
    const rest = prefix + this.cut(text);
    const ids = [];
    let from = 0;
    for (const m of this.specialPattern ? rest.matchAll(this.specialPattern) : []) {
      ids.push(...this.pieces(preTokenize(normalize(rest.slice(from, m.index)))), this.special.get(m[0]));
      from = m.index + m[0].length;
    }
    ids.push(...this.pieces(preTokenize(normalize(rest.slice(from)))));
    return [this.cls, ...ids.slice(0, Math.max(0, this.maxTokens - 2)), this.sep];
  }

  /**
   * The share of a text's words, as far as `pieces` of its pieces are read, that WordPiece can only give as [UNK];
   * words without a letter or number count neither way (Python's VocabularyCoverage.unknown_share).
   */
  unknownShare(text, pieces) {
    let read = 0;
    let counted = 0;
    let missed = 0;
    for (const word of preTokenize(normalize(this.cut(text)))) {
      if (read >= pieces) break;
      const ids = this.pieces([word]);
      read += ids.length;
      if (hasWord(word)) {
        counted += 1;
        missed += ids.length === 1 && ids[0] === this.unk ? 1 : 0;
      }
    }
    return counted === 0 ? 0 : missed / counted;
  }
}

/**
 * Ids [CLS] prefix text [SEP] (head: the prefix's tokens) as the graph reads them: themselves when they fit
 * maxLength, else at most `windows` windows of equal share of the text, each [CLS] prefix ... [SEP] (Python's
 * split_windows).
 */
export function splitWindows(ids, maxLength, windows, head = 0) {
  if (ids.length <= maxLength) return [ids];
  const step = maxLength - 2 - head;
  const rest = ids.slice(1 + head, -1).slice(0, step * windows);
  const n = Math.ceil(rest.length / step);
  const cuts = Array.from({ length: n + 1 }, (_, i) => Math.floor((rest.length * i) / n));
  const start = ids.slice(0, 1 + head);
  const end = ids[ids.length - 1];
  return cuts.slice(1).map((b, i) => [...start, ...rest.slice(cuts[i], b), end]);
}
