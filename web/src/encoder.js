// Encoder: text -> unit Float32Array vectors, as the Python runtime's Encoder gives them, with the folder's tokenizer
// and one of two forward passes of its graph: onnxruntime-web (WebAssembly) or plain JavaScript (forward/js.js), for
// an engine without WebAssembly (React Native's Hermes). Each is imported only when chosen, so that choosing the
// JavaScript one loads no WebAssembly. A text longer than max_length is read in up to the manifest's windows, its
// vector their token-weighted mean.
import { EdgeRankerError } from "./errors.js";
import { MAX_MANIFEST_BYTES, parseManifest } from "./manifest.js";
import { given } from "./options.js";
import { filesOf, modelKey, verifiedBytes } from "./sources.js";
import { cleanText, show, typeName } from "./text.js";
import { WordPiece, splitWindows } from "./tokenizer.js";

const ROLES = ["query", "passage"];
/** The forward passes by name: "ort" (onnxruntime-web, WebAssembly) and "js" (plain JavaScript). */
const BACKENDS = {
  ort: () => import("./forward/ort.js"),
  js: () => import("./forward/js.js"),
};

/**
 * The backend asked for (a name, or an app's own: an object whose create(graph) gives {name, infer, release}, as
 * forward/session.js's ortBackend makes for onnxruntime-react-native), or where none is: onnxruntime-web where the
 * engine has WebAssembly, else JavaScript.
 */
function backendOf(asked) {
  if (asked !== null && typeof asked === "object" && typeof asked.create === "function") return async () => asked;
  const wasm = typeof WebAssembly === "object" && WebAssembly !== null;
  if (asked === undefined) return BACKENDS[wasm ? "ort" : "js"];
  if (typeof asked !== "string" || !Object.hasOwn(BACKENDS, asked)) {
    throw new EdgeRankerError(`backend must be "js", "ort" or an object whose create(graph) runs it, got ${show(asked)}`);
  }
  if (asked === "ort" && !wasm) {
    throw new EdgeRankerError('backend "ort" runs onnxruntime-web\'s WebAssembly, which this JavaScript engine lacks: use backend "js"');
  }
  return BACKENDS[asked];
}

export class Encoder {
  /**
   * Load a model folder: a path in Node, a URL (or a path relative to the page) in the browser, or an object whose
   * read(name) resolves to a file's bytes (a React Native app's assets). Every file the manifest lists is checked by
   * size and SHA-256 before use (`verify: false` skips it, for a folder already checked). `backend`: "ort"
   * (onnxruntime-web), "js" (plain JavaScript) or an app's own (ortBackend's); left out, "ort" where the engine has
   * WebAssembly, else "js".
   */
  static async load(source, options) {
    const { verify = true, batchSize = 32, backend: asked } = given(options, "Encoder.load", ["verify", "batchSize", "backend"]);
    const backendModule = backendOf(asked);
    const files = filesOf(source);
    const manifest = parseManifest(await files.read("manifest.json", MAX_MANIFEST_BYTES));
    const graph = await verifiedBytes(files, manifest, manifest.onnx, verify);
    const vocabulary = await verifiedBytes(files, manifest, manifest.tokenizer, verify);
    if (verify) {
      for (const name of Object.keys(manifest.files)) {
        if (name !== manifest.onnx && name !== manifest.tokenizer) await verifiedBytes(files, manifest, name, true);
      }
    }
    let tokenizer;
    let backend;
    try {
      tokenizer = new WordPiece(JSON.parse(new TextDecoder().decode(vocabulary)), manifest.maxLength * manifest.windows);
      backend = await (await backendModule()).create(graph);
    } catch (err) {
      if (err?.refused) throw new EdgeRankerError(`${files.where}: ${err.message}`);
      throw new EdgeRankerError(`cannot load the model from ${files.where}: ${err.message}`);
    }
    try {
      const encoder = new Encoder(manifest, tokenizer, backend, await modelKey(manifest), batchSize);
      await encoder.checkGraph(files.where);
      return encoder;
    } catch (err) {
      await backend.release(); // a folder refused keeps no WebAssembly memory
      throw err;
    }
  }

  /**
   * Two runs that name a folder whose manifest does not fit its graph at load, not at the first text that meets the
   * fault (as Python's Encoder does): the tokenizer's largest id, then max_length tokens, each a finite vector of
   * the manifest's dim; and room beside [CLS], [SEP] and the longest role prefix for text.
   */
  async checkGraph(where) {
    const longest = Math.max(0, ...Object.values(this.prefixTokens));
    if (longest + 2 >= this.manifest.maxLength) {
      throw new EdgeRankerError(
        `${where}: max_length=${this.manifest.maxLength} leaves no room for text beside [CLS], [SEP] and a ` +
          `${longest}-token role prefix: every text would get the same vector`,
      );
    }
    let top = 0;
    for (const id of this.tokenizer.library.get_vocab(true).values()) top = Math.max(top, id);
    const pad = this.tokenizer.library.token_to_id("[PAD]") ?? 0;
    for (const [ids, what] of [
      [[top], `tokenizer.json's ids (up to ${top})`],
      [new Array(this.manifest.maxLength).fill(pad), `max_length=${this.manifest.maxLength} tokens, as the manifest says`],
    ]) {
      let out;
      try {
        out = await this.forward.infer([ids]);
      } catch (err) {
        throw new EdgeRankerError(`${where}: the graph cannot read ${what} (${String(err.message).slice(0, 200)})`);
      }
      if (out.dims.length !== 2 || out.dims[1] !== this.dim) {
        throw new EdgeRankerError(`${where}: the graph gives vectors of shape [${out.dims.slice(1)}], the manifest says dim=${this.dim}`);
      }
      if (!out.data.every(Number.isFinite)) throw new EdgeRankerError(`${where}: the graph gives vectors that are not finite`);
    }
  }

  constructor(manifest, tokenizer, backend, key, batchSize) {
    if (!Number.isInteger(batchSize) || batchSize < 1) {
      throw new EdgeRankerError(`batchSize must be a whole number >= 1, got ${batchSize}`);
    }
    this.manifest = manifest;
    this.name = manifest.name;
    this.dim = manifest.dim;
    this.tokenizer = tokenizer;
    this.forward = backend;
    this.key = key;
    this.batchSize = batchSize;
    this.prefixTokens = Object.fromEntries(
      Object.entries(manifest.prefixes).map(([role, prefix]) => [role, tokenizer.encode(prefix).length - 2]),
    );
  }

  /** The forward pass that runs the graph: "ort" (onnxruntime-web), "js" (plain JavaScript), or an app's own's name. */
  get backend() {
    return this.forward.name;
  }

  /** The roles encode takes ("passage", "query"); empty for a symmetric model. */
  get roles() {
    return Object.keys(this.manifest.prefixes).sort();
  }

  /** The part of a text this model reads, which BM25 reads too. */
  cut(text) {
    return this.tokenizer.cut(cleanText(text));
  }

  /** The share of the words the model reads of a text that its vocabulary can only give as [UNK]. */
  unknownShare(text) {
    return this.tokenizer.unknownShare(cleanText(text), (this.manifest.maxLength - 2) * this.manifest.windows);
  }

  /** A role this model has ("query", "passage"), or none. */
  role(role) {
    if (role === undefined || role === null) return undefined;
    if (!ROLES.includes(role)) throw new EdgeRankerError(`role must be 'query' or 'passage', got ${show(role)}`);
    if (!this.roles.length) {
      throw new EdgeRankerError(`model '${this.name}' has no roles (it embeds queries and passages alike): call encode without a role`);
    }
    return role;
  }

  /** Token ids [CLS] prefix text [SEP] of a text in a role, as far as the model reads. */
  tokenize(text, role) {
    const as = this.role(role);
    return this.tokenizer.encode(cleanText(text), as ? this.manifest.prefixes[as] : "");
  }

  /** tokenize's ids as the graph reads them: by the manifest's windows. */
  windowsOf(ids, role) {
    const as = this.role(role);
    return splitWindows(ids, this.manifest.maxLength, this.manifest.windows, as ? this.prefixTokens[as] : 0);
  }

  /**
   * Unit-length vectors: one Float32Array for a text, an array of them for an array of texts. `role`: "query" or
   * "passage" for a model with roles; left out, a text is embedded as a document ("passage"), as the Ranker does.
   */
  async encode(texts, options) {
    const as = this.role(given(options, "encode", ["role"]).role) ?? (this.roles.length ? "passage" : undefined);
    const single = typeof texts === "string";
    if (!single && !Array.isArray(texts)) {
      throw new EdgeRankerError(`texts must be a string or an array of strings, got ${typeName(texts)}`);
    }
    const items = single ? [texts] : texts;
    const odd = items.findIndex((t) => typeof t !== "string");
    if (odd >= 0) throw new EdgeRankerError(`text ${odd} must be a string, got ${typeName(items[odd])}`);
    const parts = items.map((t) => this.windowsOf(this.tokenize(t, as), as));
    const windows = parts.flat();
    const vectors = await this.run(windows);
    const out = [];
    let first = 0;
    for (const p of parts) {
      out.push(p.length === 1 ? vectors[first] : pooled(p, vectors.slice(first, first + p.length)));
      first += p.length;
    }
    return single ? out[0] : out;
  }

  /** encode in the query role where the model has roles (sentence-transformers' encode_query). */
  encodeQuery(texts) {
    return this.encode(texts, { role: this.roles.length ? "query" : undefined });
  }

  /** encode in the passage role where the model has roles (sentence-transformers' encode_document). */
  encodeDocument(texts) {
    return this.encode(texts, { role: this.roles.length ? "passage" : undefined });
  }

  /** The graph's vector of each window of ids, in batches of similar length. */
  async run(windows) {
    const vectors = new Array(windows.length);
    const order = windows.map((_, i) => i).sort((a, b) => windows[a].length - windows[b].length || a - b);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const idx = order.slice(start, start + this.batchSize);
      const { data } = await this.forward.infer(idx.map((i) => windows[i]));
      idx.forEach((i, row) => {
        vectors[i] = data.slice(row * this.dim, (row + 1) * this.dim);
      });
    }
    return vectors;
  }

  /** Frees the model's forward pass (onnxruntime-web's WebAssembly memory); the Encoder cannot encode after. */
  async release() {
    await this.forward.release();
  }

  /** The cosine of every vector of `a` with every vector of `b` (one vector is one row), as sentence-transformers'. */
  static similarity(a, b) {
    const vector = (v) => (ArrayBuffer.isView(v) || Array.isArray(v)) && v.length > 0 && Array.from(v).every(Number.isFinite);
    const rows = (v) => {
      const out = vector(v) ? [v] : v;
      if (!Array.isArray(out) || !out.length || !out.every(vector)) {
        throw new EdgeRankerError(`similarity takes vectors (arrays of numbers) or lists of them, got ${typeName(v)}`);
      }
      return out;
    };
    const unit = (v) => {
      const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      return Array.from(v, (x) => x / Math.max(n, 1e-12));
    };
    const x = rows(a).map(unit);
    const y = rows(b).map(unit);
    if (x.some((v) => v.length !== y[0]?.length) || y.some((v) => v.length !== x[0]?.length)) {
      throw new EdgeRankerError("similarity takes vectors of one size");
    }
    return x.map((u) => y.map((v) => u.reduce((s, ui, i) => s + ui * v[i], 0)));
  }
}

/** A text's vector from its windows' unit vectors, weighted by their tokens and renormalised (float64, as numpy). */
function pooled(windows, vectors) {
  const dim = vectors[0].length;
  const mean = new Float64Array(dim);
  windows.forEach((w, j) => {
    for (let i = 0; i < dim; i++) mean[i] += w.length * vectors[j][i];
  });
  const norm = Math.max(Math.hypot(...mean), 1e-12);
  return Float32Array.from(mean, (x) => x / norm);
}
