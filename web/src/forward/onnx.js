// An ONNX model's graph read with protobufjs (onnx-proto.js: its static decoders of the part of onnx.proto the
// forward pass needs, which pbjs generated): the initializers (name, dims, type and data) and the nodes (op type,
// inputs, outputs, attributes). Enough for forward/js.js to find its weights in the shipped model.onnx, as the JVM
// core's OnnxWeights does.
import { onnx } from "./onnx-proto.js";

export const FLOAT = 1;
export const UINT8 = 2;
export const INT8 = 3;
export const INT32 = 6;
export const INT64 = 7;
export const BOOL = 9;
export const FLOAT16 = 10;
export const DOUBLE = 11;
const WIDTH = { [FLOAT]: 4, [UINT8]: 1, [INT8]: 1, [INT32]: 4, [INT64]: 8, [BOOL]: 1, [FLOAT16]: 2, [DOUBLE]: 8 };

/** int64 fields: a Long where protobufjs found the long package, else a number. */
const number = (v) => (typeof v === "number" ? v : typeof v?.toNumber === "function" ? v.toNumber() : Number(v));

/** A graph's initializer with its data read as the forward pass wants it. */
export class Tensor {
  constructor(proto) {
    this.name = proto.name;
    this.dims = (proto.dims ?? []).map(number);
    this.dataType = proto.data_type;
    this.proto = proto;
    if (proto.data_location === 1) throw new Error(`${this.name}: external tensor data is not supported`);
  }

  /** The number of values, checked against the data before anything is allocated. */
  size() {
    let n = 1;
    for (const d of this.dims) {
      n *= d;
      if (!Number.isSafeInteger(d) || d < 0 || n > 0x7fffffff) throw new Error(`${this.name}: dims [${this.dims}] hold no array`);
    }
    const raw = this.proto.raw_data;
    let have;
    if (raw?.length) {
      const width = WIDTH[this.dataType];
      if (!width) throw new Error(`${this.name}: unsupported data type ${this.dataType}`);
      if (raw.length % width !== 0) throw new Error(`${this.name}: data does not match dims`);
      have = raw.length / width;
    } else {
      const list = { [FLOAT]: "float_data", [INT64]: "int64_data", [DOUBLE]: "double_data" }[this.dataType] ?? "int32_data";
      have = this.proto[list]?.length ?? 0;
    }
    if (have !== n) throw new Error(`${this.name}: data does not match dims`);
    return n;
  }

  /** The values as fp32, whatever the stored type (int8 stays exact: it is the quantized integer). */
  floats() {
    const n = this.size();
    const out = new Float32Array(n);
    const raw = this.proto.raw_data;
    if (raw?.length) {
      const b = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      for (let i = 0; i < n; i++) {
        switch (this.dataType) {
          case FLOAT: out[i] = b.getFloat32(4 * i, true); break;
          case UINT8: case BOOL: out[i] = b.getUint8(i); break;
          case INT8: out[i] = b.getInt8(i); break;
          case INT32: out[i] = b.getInt32(4 * i, true); break;
          case INT64: out[i] = b.getInt32(8 * i + 4, true) * 4294967296 + b.getUint32(8 * i, true); break;
          case DOUBLE: out[i] = b.getFloat64(8 * i, true); break;
          default: out[i] = half(b.getUint16(2 * i, true)); // FLOAT16: size() refused every type not listed
        }
      }
    } else if (this.dataType === FLOAT || this.dataType === DOUBLE) {
      out.set(this.dataType === FLOAT ? this.proto.float_data : this.proto.double_data);
    } else {
      const list = this.dataType === INT64 ? this.proto.int64_data : this.proto.int32_data;
      // int32_data holds a float16's bits, as it holds an int8's or uint8's value
      for (let i = 0; i < n; i++) out[i] = this.dataType === FLOAT16 ? half(number(list[i]) & 0xffff) : number(list[i]);
    }
    return out;
  }

  /** An int8 or uint8 tensor's values as stored (Int8Array, Uint8Array): a quarter of floats()' memory. */
  bytes() {
    if (this.dataType !== INT8 && this.dataType !== UINT8) throw new Error(`${this.name} is not int8 or uint8`);
    const n = this.size();
    const out = this.dataType === INT8 ? new Int8Array(n) : new Uint8Array(n);
    const raw = this.proto.raw_data;
    if (raw?.length) out.set(this.dataType === INT8 ? new Int8Array(raw.buffer, raw.byteOffset, n) : raw);
    else for (let i = 0; i < n; i++) out[i] = number(this.proto.int32_data[i]);
    return out;
  }

  /** The values as whole numbers (shape constants). */
  longs() {
    return Array.from(this.floats());
  }

  scalar() {
    const f = this.floats();
    if (f.length !== 1) throw new Error(`${this.name} is not a scalar`);
    return f[0];
  }
}

/** An IEEE 754 half-precision value's bits as the number it is (exact: every half is a float). */
export function half(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** A node: op type, inputs, outputs and its numeric attributes (f or i) by name. */
function nodeOf(proto) {
  const attributes = {};
  for (const a of proto.attribute ?? []) {
    if (a.type === 1 || (a.type === undefined && a.f)) attributes[a.name] = a.f;
    else if (a.type === 2 || (a.type === undefined && a.i)) attributes[a.name] = number(a.i);
  }
  return { opType: proto.op_type, inputs: [...proto.input], outputs: [...proto.output], attributes };
}

export class Graph {
  /** Reads model.onnx's bytes. */
  static read(bytes) {
    let model;
    try {
      model = onnx.ModelProto.decode(bytes);
    } catch (err) {
      throw new Error(`not an ONNX model (${err.message})`);
    }
    const nodes = (model.graph?.node ?? []).map(nodeOf);
    if (!nodes.length) throw new Error("not an ONNX model: no graph nodes");
    const initializers = new Map((model.graph.initializer ?? []).map((t) => [t.name, new Tensor(t)]));
    return new Graph(nodes, initializers, (model.graph.input ?? []).map((i) => i.name));
  }

  constructor(nodes, initializers, inputs) {
    this.nodes = nodes;
    this.initializers = initializers;
    this.inputs = inputs;
  }

  tensor(name) {
    const t = this.initializers.get(name);
    if (!t) throw new Error(`the graph has no initializer ${name}`);
    return t;
  }

  /** The node that outputs `value`, or null for a graph input or initializer. */
  producer(value) {
    return this.nodes.find((n) => n.outputs.includes(value)) ?? null;
  }

  /** The nodes of type `op` that read `value`. */
  consumers(value, op) {
    return this.nodes.filter((n) => n.opType === op && n.inputs.includes(value));
  }

  /** The first node of type `op` whose first output's name holds `part`. */
  node(op, part) {
    const n = this.nodes.find((m) => m.opType === op && m.outputs[0]?.includes(part));
    if (!n) throw new Error(`the graph has no ${op} node for ${part}`);
    return n;
  }

  /** Whether a node's output's name holds `part`. */
  has(part) {
    return this.nodes.some((n) => n.outputs.some((o) => o.includes(part)));
  }
}
