// src/forward/onnx-proto.js, the JavaScript forward pass's decoder of model.onnx, is what scripts/onnx-proto.js
// generates with protobufjs's pbjs from part of onnx.proto, and it reads the graph without eval (a page whose content
// security policy allows no 'unsafe-eval' runs it).
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { moduleText, TARGET } from "../scripts/onnx-proto.js";
import { Graph } from "../src/forward/onnx.js";
import { MODELS } from "./golden.js";

test("the ONNX decoder is scripts/onnx-proto.js's", async () => {
  assert.equal(await readFile(TARGET, "utf8"), moduleText(), "run: node scripts/onnx-proto.js");
});

test("the graph is read without eval or new Function", async () => {
  const bytes = new Uint8Array(await readFile(`${MODELS}semantic/model.onnx`));
  const saved = globalThis.Function;
  const refuse = function Function() {
    throw new EvalError("no eval here");
  };
  try {
    globalThis.Function = refuse;
    const graph = Graph.read(bytes);
    assert.equal(graph.nodes.length > 100, true);
    assert.deepEqual(graph.tensor("student.bert.embeddings.word_embeddings.weight_q").dims, [50000, 128]);
  } finally {
    globalThis.Function = saved;
  }
});
