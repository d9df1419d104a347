// The part of @huggingface/tokenizers' Tokenizer that tokenizer.js uses, for engines the library cannot load in:
// its module compiles regular expressions of Unicode property escapes (\p{L}), which Hermes (React Native) lacks, so
// a React Native build takes this module in its place (package.json's "react-native" field). The same WordPiece
// model as the library's: greedy longest match from the left, "##" continuations, a word of more than
// max_input_chars_per_word characters or with a piece the vocabulary lacks is [UNK]; the vocabulary and added tokens
// read from tokenizer.json as the library reads them. test/wordpiece.test.js checks it against the library.

export class AddedToken {
  constructor(config) {
    this.content = config.content;
    this.id = config.id;
    this.single_word = config.single_word ?? false;
    this.lstrip = config.lstrip ?? false;
    this.rstrip = config.rstrip ?? false;
    this.special = config.special ?? false;
    this.normalized = config.normalized ?? !this.special;
  }
}

export class Tokenizer {
  /** @param {object} json tokenizer.json, parsed; its model must be WordPiece */
  constructor(json, config = {}) {
    const model = json?.model;
    if (model?.type !== "WordPiece") throw new Error(`this tokenizer reads WordPiece models only, got ${model?.type}`);
    this.config = config;
    this.ids = new Map(Object.entries(model.vocab ?? {}));
    this.vocab = new Array(this.ids.size);
    for (const [token, id] of this.ids) this.vocab[id] = token;
    this.unkToken = model.unk_token;
    this.unkId = this.ids.get(model.unk_token);
    this.prefix = model.continuing_subword_prefix;
    this.maxChars = model.max_input_chars_per_word ?? 100;
    this.fuseUnk = model.fuse_unk ?? false;
    this.added_tokens = [];
    for (const added of json.added_tokens ?? []) {
      const token = new AddedToken(added);
      this.added_tokens.push(token);
      this.ids.set(token.content, token.id);
      this.vocab[token.id] = token.content;
    }
    this.addedContents = new Set(this.added_tokens.map((t) => t.content));
    /** The WordPiece model, called as the library's is: words in, their pieces (token strings) out. */
    this.model = (words) => this.pieces(words);
  }

  pieces(words) {
    const out = [];
    for (const word of words) {
      const chars = Array.from(word);
      if (chars.length > this.maxChars) {
        out.push(this.unkToken);
        continue;
      }
      const pieces = [];
      let start = 0;
      let unknown = false;
      while (start < chars.length) {
        let end = chars.length;
        let found = null;
        while (start < end) {
          const piece = (start > 0 ? this.prefix : "") + chars.slice(start, end).join("");
          if (this.ids.has(piece)) {
            found = piece;
            break;
          }
          end -= 1;
        }
        if (found === null) {
          unknown = true;
          break;
        }
        pieces.push(found);
        start = end;
      }
      if (unknown) out.push(this.unkToken);
      else out.push(...pieces);
    }
    return this.fuseUnk ? this.fused(out) : out;
  }

  /** Runs of unknown pieces as one (the library's fuse_unk). */
  fused(tokens) {
    const idOf = (t) => this.ids.get(t) ?? this.unkId;
    const out = [];
    let i = 0;
    while (i < tokens.length) {
      out.push(tokens[i]);
      if (idOf(tokens[i]) !== this.unkId) {
        i += 1;
        continue;
      }
      while (++i < tokens.length && idOf(tokens[i]) === this.unkId) {
        if (this.ids.get(out[out.length - 1]) !== this.unkId) out[out.length - 1] += tokens[i];
      }
    }
    return out;
  }

  token_to_id(token) {
    return this.ids.get(token);
  }

  id_to_token(id) {
    return this.vocab[id];
  }

  get_added_tokens_decoder() {
    return new Map(this.added_tokens.map((t) => [t.id, t]));
  }

  get_vocab(withAddedTokens = true) {
    const vocab = new Map();
    for (let i = 0; i < this.vocab.length; i++) {
      const token = this.vocab[i];
      if (withAddedTokens || !this.addedContents.has(token)) vocab.set(token, i);
    }
    return vocab;
  }
}

export default Tokenizer;
