// The forward pass of the shipped int8-weight BERT graph in plain JavaScript (Float32Array, no WebAssembly), as the
// JVM core's Encoder.java runs it: weights read from model.onnx itself (forward/onnx.js), dequantised as the graph
// does (int8 * fp32 scale, one fp32 product; a word table in 4-bit blocks as (code - 8) * its block's fp16 scale),
// laid out once at load in the order the products read them. Activations are fp32 and every sum is accumulated in
// double, each over its inputs in order, as the JVM core's, so the vectors agree with onnxruntime's to about 1e-7.
// One window at a time (no padding: every token attends to every other, as with an all-ones attention mask).
import { gelu } from "./erf.js";
import { FLOAT, FLOAT16, Graph, INT8, UINT8 } from "./onnx.js";

const { fround } = Math;

/**
 * y = x W + b, W kept as the graph's dequantised fp32 weights in blocks of four outputs, each block's weights by input
 * ([block][in][4]: the four weights an input meets in a row), the outputs padded with zero weights to a multiple of
 * four. Four tokens by four outputs at a time: each weight is read once per four tokens and each input once per four
 * outputs, one stream of weights, the sixteen sums in registers (more than twice the speed of one token by one output
 * in V8; two tokens at a time does as well in Node's V8, a third worse in Chromium's).
 */
class Dense {
  constructor(w, rows, cols, bias) {
    this.in = rows;
    this.out = cols;
    const blocks = Math.ceil(cols / 4);
    this.w = new Float32Array(blocks * 4 * rows);
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) this.w[(j >> 2) * 4 * rows + i * 4 + (j & 3)] = w[i * cols + j];
    }
    this.bias = new Float32Array(blocks * 4); // the maps of a layer wider than the vectors have none
    if (bias && bias.length !== cols) throw new Error(`a bias of ${bias.length} beside a ${rows}x${cols} weight`);
    if (bias) this.bias.set(bias);
  }

  /** n rows of x (n x in) times W, + b. */
  apply(x, n) {
    const k = this.in;
    const out = this.out;
    const { w, bias } = this;
    const y = new Float32Array(n * out);
    let t = 0;
    for (; t + 4 <= n; t += 4) { // four tokens at a time; then two, then one
      const a0 = t * k;
      const a1 = a0 + k;
      const a2 = a1 + k;
      const a3 = a2 + k;
      for (let j = 0; j < out; j += 4) {
        let p = j * k;
        let s00 = 0;
        let s01 = 0;
        let s02 = 0;
        let s03 = 0;
        let s10 = 0;
        let s11 = 0;
        let s12 = 0;
        let s13 = 0;
        let s20 = 0;
        let s21 = 0;
        let s22 = 0;
        let s23 = 0;
        let s30 = 0;
        let s31 = 0;
        let s32 = 0;
        let s33 = 0;
        for (let i = 0; i < k; i = (i + 1) | 0, p = (p + 4) | 0) {
          const w0 = w[p];
          const w1 = w[(p + 1) | 0];
          const w2 = w[(p + 2) | 0];
          const w3 = w[(p + 3) | 0];
          let u = x[(a0 + i) | 0];
          s00 += u * w0;
          s01 += u * w1;
          s02 += u * w2;
          s03 += u * w3;
          u = x[(a1 + i) | 0];
          s10 += u * w0;
          s11 += u * w1;
          s12 += u * w2;
          s13 += u * w3;
          u = x[(a2 + i) | 0];
          s20 += u * w0;
          s21 += u * w1;
          s22 += u * w2;
          s23 += u * w3;
          u = x[(a3 + i) | 0];
          s30 += u * w0;
          s31 += u * w1;
          s32 += u * w2;
          s33 += u * w3;
        }
        this.store(y, t * out + j, j, s00, s01, s02, s03);
        this.store(y, (t + 1) * out + j, j, s10, s11, s12, s13);
        this.store(y, (t + 2) * out + j, j, s20, s21, s22, s23);
        this.store(y, (t + 3) * out + j, j, s30, s31, s32, s33);
      }
    }
    for (; t + 2 <= n; t += 2) {
      const a0 = t * k;
      const a1 = a0 + k;
      for (let j = 0; j < out; j += 4) {
        let p = j * k;
        let s00 = 0;
        let s01 = 0;
        let s02 = 0;
        let s03 = 0;
        let s10 = 0;
        let s11 = 0;
        let s12 = 0;
        let s13 = 0;
        for (let i = 0; i < k; i = (i + 1) | 0, p = (p + 4) | 0) {
          const w0 = w[p];
          const w1 = w[(p + 1) | 0];
          const w2 = w[(p + 2) | 0];
          const w3 = w[(p + 3) | 0];
          const u = x[(a0 + i) | 0];
          const v = x[(a1 + i) | 0];
          s00 += u * w0;
          s01 += u * w1;
          s02 += u * w2;
          s03 += u * w3;
          s10 += v * w0;
          s11 += v * w1;
          s12 += v * w2;
          s13 += v * w3;
        }
        this.store(y, t * out + j, j, s00, s01, s02, s03);
        this.store(y, (t + 1) * out + j, j, s10, s11, s12, s13);
      }
    }
    if (t < n) { // the last token, alone
      const a0 = t * k;
      for (let j = 0; j < out; j += 4) {
        let p = j * k;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let i = 0; i < k; i = (i + 1) | 0, p = (p + 4) | 0) {
          const u = x[(a0 + i) | 0];
          s0 += u * w[p];
          s1 += u * w[(p + 1) | 0];
          s2 += u * w[(p + 2) | 0];
          s3 += u * w[(p + 3) | 0];
        }
        this.store(y, t * out + j, j, s0, s1, s2, s3);
      }
    }
    return y;
  }

  /** Four sums of outputs j.. as fp32, their bias added, at y[at..]: as many as there are outputs from j. */
  store(y, at, j, s0, s1, s2, s3) {
    const { bias, out } = this;
    if (j + 4 <= out) {
      y[at] = fround(s0) + bias[j];
      y[at + 1] = fround(s1) + bias[j + 1];
      y[at + 2] = fround(s2) + bias[j + 2];
      y[at + 3] = fround(s3) + bias[j + 3];
      return;
    }
    const sums = [s0, s1, s2, s3]; // the last block, padded with zero weights
    for (let c = 0; j + c < out; c++) y[at + c] = fround(sums[c]) + bias[j + c];
  }
}

/** LayerNormalization over the last axis, in double, each value rounded to fp32. */
class Norm {
  constructor(gamma, beta, epsilon) {
    this.gamma = gamma;
    this.beta = beta;
    this.epsilon = epsilon;
  }

  apply(x, n) {
    const { gamma, beta, epsilon } = this;
    const width = gamma.length;
    for (let t = 0; t < n; t++) {
      const at = t * width;
      let mean = 0;
      for (let i = 0; i < width; i++) mean += x[at + i];
      mean /= width;
      let v = 0;
      for (let i = 0; i < width; i++) {
        const d = x[at + i] - mean;
        v += d * d;
      }
      const inv = 1 / Math.sqrt(v / width + epsilon);
      for (let i = 0; i < width; i++) x[at + i] = (x[at + i] - mean) * inv * gamma[i] + beta[i];
    }
  }
}

function norm(g, part) {
  const n = g.node("LayerNormalization", part);
  const eps = n.attributes.epsilon;
  return new Norm(g.tensor(n.inputs[1]).floats(), g.tensor(n.inputs[2]).floats(), eps ?? 1e-5); // 1e-5: ONNX's default
}

/** MatMul(x, Cast(q) * scale), + bias where biased: the weight traced back to its int8 tensor and scale. */
function dense(g, matmul, part, biased) {
  const mul = g.producer(matmul.inputs[1]);
  const cast = mul && g.producer(mul.inputs[0]);
  if (mul?.opType !== "Mul" || cast?.opType !== "Cast") throw new Error(`${part}: expected an int8 weight dequantised as Cast * scale`);
  const q = g.tensor(cast.inputs[0]);
  if (q.dims.length !== 2) throw new Error(`${part}: the weight ${q.name} is not a matrix`);
  const scale = g.tensor(mul.inputs[1]).scalar();
  const v = q.floats();
  for (let i = 0; i < v.length; i++) v[i] = fround(v[i] * scale); // an fp32 product, as the graph's Mul
  if (!biased) return new Dense(v, q.dims[0], q.dims[1], null);
  const add = g.consumers(matmul.outputs[0], "Add")[0];
  if (!add) throw new Error(`${part}: no bias added to the product`);
  const bias = add.inputs[0] === matmul.outputs[0] ? add.inputs[1] : add.inputs[0];
  return new Dense(v, q.dims[0], q.dims[1], g.tensor(bias).floats());
}

/** The bias-free map of the graph's top-level module `module` (/up/, /down/), or null when it has none. */
function map(g, module) {
  const n = g.nodes.find((m) => m.opType === "MatMul" && m.outputs[0].startsWith(module));
  return n ? dense(g, n, module, false) : null;
}

/** The last dimension of the Reshape that splits the query into heads. */
function headDim(g, at) {
  const add = g.consumers(g.node("MatMul", `${at}attention/self/query/`).outputs[0], "Add")[0];
  const reshape = g.consumers(add.outputs[0], "Reshape")[0];
  const concat = g.producer(reshape.inputs[1]);
  return g.tensor(concat.inputs[concat.inputs.length - 1]).longs()[0];
}

/** The constant the query-key products are multiplied by (1/sqrt(head_dim)). */
function attentionScale(g, at) {
  const scores = g.node("MatMul", `${at}attention/self/MatMul_output`);
  const mul = g.consumers(scores.outputs[0], "Mul")[0];
  return g.tensor(mul.inputs[0] === scores.outputs[0] ? mul.inputs[1] : mul.inputs[0]).scalar();
}

export class Model {
  /** The graph of model.onnx's bytes, its weights read and dequantised once. */
  constructor(bytes) {
    const g = Graph.read(bytes);
    const inputs = [...g.inputs].sort().join(",");
    if (inputs !== "attention_mask,input_ids") throw new Error(`the graph's inputs are ${inputs}, not input_ids and attention_mask`);
    let q = null;
    let s = null;
    for (const n of g.nodes) { // the word table: its codes and their scales, both gathered by id
      if (n.opType === "Gather" && n.inputs[1] === "input_ids") {
        const t = g.tensor(n.inputs[0]);
        if (t.dataType === INT8 || t.dataType === UINT8) q = t;
        else s = t;
      }
    }
    const packed = q?.dataType === UINT8;
    const shaped = q && s && q.dims.length === 2 && s.dims.length === 2 && q.dims[0] === s.dims[0];
    const blocks = shaped ? s.dims[1] : 0;
    this.dim = shaped ? q.dims[1] * (packed ? 2 : 1) : 0; // two 4-bit codes a byte
    const rows = shaped && !packed && blocks === 1 && s.dataType === FLOAT;
    const halves = shaped && packed && blocks > 0 && this.dim % blocks === 0 && s.dataType === FLOAT16;
    if (!rows && !halves) {
      throw new Error("expected a word table with a row per vocabulary token, int8 with per-row scales or 4-bit with fp16 block scales");
    }
    this.words = q.dims[0];
    this.wordQ = q.bytes();
    this.wordScale = s.floats();
    this.wordBlock = this.dim / blocks;
    this.packed = packed;
    this.up = map(g, "/up/");
    this.down = map(g, "/down/");
    const dim = this.dim;
    const hidden = (this.hidden = this.up ? this.up.out : dim);
    const mapped = this.up ? this.down && this.up.in === dim && this.down.in === hidden && this.down.out === dim : !this.down;
    if (!mapped) throw new Error(`a layer wider than the ${dim}-d vectors needs a map up from the table and one back down`);
    const positions = g.tensor(g.node("Gather", "/position_embeddings/").inputs[0]);
    const types = g.tensor(g.node("Gather", "/token_type_embeddings/").inputs[0]);
    this.embeddingNorm = norm(g, "/embeddings/LayerNorm/");
    if (positions.dims.length !== 2 || positions.dims[1] !== hidden || types.dims.length !== 2 || types.dims[1] !== hidden ||
        this.embeddingNorm.gamma.length !== hidden) {
      throw new Error(`the position and token-type tables and the embeddings' LayerNorm must be ${hidden} wide, as the layer is`);
    }
    this.position = positions.floats();
    this.positions = positions.dims[0];
    this.tokenType = types.floats().subarray(0, hidden);
    this.layers = [];
    for (let l = 0; g.has(`/layer.${l}/`); l++) {
      const at = `/layer.${l}/`;
      const d = (part) => dense(g, g.node("MatMul", at + part), at + part, true);
      const layer = {
        query: d("attention/self/query/"),
        key: d("attention/self/key/"),
        value: d("attention/self/value/"),
        attentionOut: d("attention/output/dense/"),
        attentionNorm: norm(g, `${at}attention/output/LayerNorm/`),
        intermediate: d("intermediate/dense/"),
        output: d("output/dense/"),
        outputNorm: norm(g, `${at}output/LayerNorm/`),
        headDim: headDim(g, at),
        scale: attentionScale(g, at),
      };
      if (!g.has(`${at}intermediate/intermediate_act_fn/Erf`)) throw new Error("expected the exact (erf) GELU");
      const wide = [layer.query.in, layer.attentionOut.out, layer.output.out, layer.attentionNorm.gamma.length, layer.outputNorm.gamma.length];
      if (wide.some((w) => w !== hidden) || !(layer.headDim > 0) || hidden % layer.headDim !== 0) {
        throw new Error(`layer ${l} is not ${hidden} wide, as its embeddings are`);
      }
      this.layers.push(layer);
    }
    if (!this.layers.length) throw new Error("no encoder layers found in the graph");
  }

  /** The token's row of the word table, as the graph dequantises it (one fp32 product), into x at `at`. */
  word(id, x, at) {
    const { dim, wordQ, wordScale, wordBlock } = this;
    if (!Number.isInteger(id) || id < 0 || id >= this.words) throw new Error(`token id ${id} is past the word table's ${this.words} rows`);
    const scales = id * (dim / wordBlock);
    if (!this.packed) {
      const scale = wordScale[scales];
      for (let c = 0; c < dim; c++) x[at + c] = wordQ[id * dim + c] * scale;
      return;
    }
    const half = dim / 2; // byte j of a row: column j in its low nibble, column j + dim/2 in its high one, each + 8
    for (let c = 0; c < dim; c++) {
      const b = wordQ[id * half + (c % half)];
      x[at + c] = ((c < half ? b & 0x0f : b >>> 4) - 8) * wordScale[scales + Math.trunc(c / wordBlock)];
    }
  }

  /** The unit vector of one window of token ids (all attended, as a batch of one). */
  forward(ids) {
    const n = ids.length;
    const { dim, hidden } = this;
    if (n > this.positions) throw new Error(`a window of ${n} tokens is past the model's ${this.positions} positions`);
    let x = new Float32Array(n * dim);
    for (let t = 0; t < n; t++) this.word(ids[t], x, t * dim);
    if (this.up) x = this.up.apply(x, n);
    const { tokenType, position } = this;
    for (let t = 0; t < n; t++) {
      for (let c = 0; c < hidden; c++) x[t * hidden + c] = fround(x[t * hidden + c] + tokenType[c]) + position[t * hidden + c];
    }
    this.embeddingNorm.apply(x, n);
    for (const layer of this.layers) x = this.layer(layer, x, n);
    let pooled = new Float32Array(hidden); // fp32, as the graph's mean
    for (let c = 0; c < hidden; c++) {
      let sum = 0;
      for (let t = 0; t < n; t++) sum += x[t * hidden + c];
      pooled[c] = sum / n;
    }
    if (this.down) pooled = this.down.apply(pooled, 1);
    let sq = 0;
    for (let c = 0; c < dim; c++) sq += pooled[c] * pooled[c];
    const length = Math.max(Math.sqrt(sq), 1e-12);
    const out = new Float32Array(dim);
    for (let c = 0; c < dim; c++) out[c] = pooled[c] / length;
    return out;
  }

  layer(l, x, n) {
    const q = l.query.apply(x, n);
    const k = l.key.apply(x, n);
    const v = l.value.apply(x, n);
    const hidden = this.hidden;
    const hd = l.headDim;
    const context = new Float32Array(n * hidden);
    const p = new Float64Array(n * n);
    for (let off = 0; off < hidden; off += hd) {
      scores(q, k, n, hidden, off, hd, l.scale, p);
      for (let i = 0; i < n; i++) softmax(p, i * n, n);
      attend(p, v, n, hidden, off, hd, context);
    }
    const a = l.attentionOut.apply(context, n);
    for (let i = 0; i < n * hidden; i++) a[i] += x[i];
    l.attentionNorm.apply(a, n);
    const mid = l.intermediate.apply(a, n);
    gelu(mid);
    const o = l.output.apply(mid, n);
    for (let i = 0; i < n * hidden; i++) o[i] += a[i];
    l.outputNorm.apply(o, n);
    return o;
  }
}

/**
 * One head's query-key products times `scale`, into p (n x n): two queries by four keys at a time, each a dot product
 * over the head's dimensions in order.
 */
function scores(q, k, n, hidden, off, hd, scale, p) {
  for (let i = 0; i < n; i += 2) {
    const q0 = i * hidden + off;
    const q1 = i + 1 < n ? q0 + hidden : q0; // a last query alone is computed twice, kept once
    let j = 0;
    for (; j + 4 <= n; j += 4) {
      const k0 = j * hidden + off;
      const k1 = k0 + hidden;
      const k2 = k1 + hidden;
      const k3 = k2 + hidden;
      let s00 = 0;
      let s01 = 0;
      let s02 = 0;
      let s03 = 0;
      let s10 = 0;
      let s11 = 0;
      let s12 = 0;
      let s13 = 0;
      for (let d = 0; d < hd; d++) {
        const a = q[q0 + d];
        const b = q[q1 + d];
        const c0 = k[k0 + d];
        const c1 = k[k1 + d];
        const c2 = k[k2 + d];
        const c3 = k[k3 + d];
        s00 += a * c0;
        s01 += a * c1;
        s02 += a * c2;
        s03 += a * c3;
        s10 += b * c0;
        s11 += b * c1;
        s12 += b * c2;
        s13 += b * c3;
      }
      const r = i * n + j;
      p[r] = s00 * scale;
      p[r + 1] = s01 * scale;
      p[r + 2] = s02 * scale;
      p[r + 3] = s03 * scale;
      if (i + 1 < n) {
        p[r + n] = s10 * scale;
        p[r + n + 1] = s11 * scale;
        p[r + n + 2] = s12 * scale;
        p[r + n + 3] = s13 * scale;
      }
    }
    for (; j < n; j++) {
      const kj = j * hidden + off;
      let s0 = 0;
      let s1 = 0;
      for (let d = 0; d < hd; d++) {
        s0 += q[q0 + d] * k[kj + d];
        s1 += q[q1 + d] * k[kj + d];
      }
      p[i * n + j] = s0 * scale;
      if (i + 1 < n) p[(i + 1) * n + j] = s1 * scale;
    }
  }
}

/** Row `at` of p (n values) as the softmax of itself, in double. */
function softmax(p, at, n) {
  let max = -Infinity;
  for (let j = 0; j < n; j++) if (p[at + j] > max) max = p[at + j];
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const e = Math.exp(p[at + j] - max);
    p[at + j] = e;
    sum += e;
  }
  for (let j = 0; j < n; j++) p[at + j] /= sum;
}

/** One head's context: each query's weights p (n x n) over the values, two queries by four dimensions at a time. */
function attend(p, v, n, hidden, off, hd, context) {
  for (let i = 0; i < n; i += 2) {
    const p0 = i * n;
    const p1 = i + 1 < n ? p0 + n : p0;
    let d = 0;
    for (; d + 4 <= hd; d += 4) {
      let c00 = 0;
      let c01 = 0;
      let c02 = 0;
      let c03 = 0;
      let c10 = 0;
      let c11 = 0;
      let c12 = 0;
      let c13 = 0;
      for (let j = 0, at = off + d; j < n; j++, at += hidden) {
        const a = p[p0 + j];
        const b = p[p1 + j];
        const v0 = v[at];
        const v1 = v[at + 1];
        const v2 = v[at + 2];
        const v3 = v[at + 3];
        c00 += a * v0;
        c01 += a * v1;
        c02 += a * v2;
        c03 += a * v3;
        c10 += b * v0;
        c11 += b * v1;
        c12 += b * v2;
        c13 += b * v3;
      }
      const r = i * hidden + off + d;
      context[r] = c00;
      context[r + 1] = c01;
      context[r + 2] = c02;
      context[r + 3] = c03;
      if (i + 1 < n) {
        context[r + hidden] = c10;
        context[r + hidden + 1] = c11;
        context[r + hidden + 2] = c12;
        context[r + hidden + 3] = c13;
      }
    }
    for (; d < hd; d++) {
      let c0 = 0;
      let c1 = 0;
      for (let j = 0; j < n; j++) {
        c0 += p[p0 + j] * v[j * hidden + off + d];
        c1 += p[p1 + j] * v[j * hidden + off + d];
      }
      context[i * hidden + off + d] = c0;
      if (i + 1 < n) context[(i + 1) * hidden + off + d] = c1;
    }
  }
}

/** The backend the Encoder runs: a batch of windows of token ids to their vectors ({dims, data}, as a tensor). */
export async function create(graph) {
  const model = new Model(graph);
  return {
    name: "js",
    async infer(windows) {
      const data = new Float32Array(windows.length * model.dim);
      windows.forEach((ids, row) => data.set(model.forward(ids), row * model.dim));
      return { dims: [windows.length, model.dim], data };
    },
    async release() {},
  };
}
