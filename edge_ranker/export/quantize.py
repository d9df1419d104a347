"""Quantization variants for the exported graph (onnxruntime.quantization, dynamic int8).

A 1-layer 128-d student is mostly its word-embedding table, so how the table is stored decides size and
much of the quality. onnxruntime's dynamic quantizer puts Gather in its default op list and quantizes the
table per-tensor (one scale for 50k rows); ``int8-rowwise`` instead stores it int8 with one scale per row
(model2vec-style), dequantised right after the Gather, and quantizes the MatMuls dynamically.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.quantization.shape_inference import quant_pre_process

# name -> (table storage, quantize_dynamic options or None for no int8 MatMul)
VARIANTS: dict[str, tuple[str, dict | None]] = {
    "fp32": ("fp32", None),
    "int8-matmul": ("fp32", {"op_types_to_quantize": ["MatMul"]}),
    "int8-matmul-rr": ("fp32", {"op_types_to_quantize": ["MatMul"], "reduce_range": True}),
    "fp16-table": ("fp16", {"op_types_to_quantize": ["MatMul"]}),
    "int8-gather": ("fp32", {"op_types_to_quantize": ["MatMul", "Gather"]}),
    "int8-gather-rr": ("fp32", {"op_types_to_quantize": ["MatMul", "Gather"], "reduce_range": True}),
    "int8-gather-perchannel": ("fp32", {"op_types_to_quantize": ["MatMul", "Gather"], "per_channel": True}),
    "int8-gather-perchannel-rr": (
        "fp32",
        {"op_types_to_quantize": ["MatMul", "Gather"], "per_channel": True, "reduce_range": True},
    ),
    "int8-rowwise": ("int8-rowwise", {"op_types_to_quantize": ["MatMul"]}),
}


def _word_embedding_gather(model: onnx.ModelProto) -> tuple[onnx.NodeProto, onnx.TensorProto]:
    """The Gather that reads the largest 2-D initializer: the word-embedding table."""
    inits = {i.name: i for i in model.graph.initializer}
    best = None
    for node in model.graph.node:
        if node.op_type == "Gather" and node.input[0] in inits and len(inits[node.input[0]].dims) == 2:
            init = inits[node.input[0]]
            if best is None or init.dims[0] > best[1].dims[0]:
                best = (node, init)
    if best is None:
        raise ValueError("no word-embedding Gather found in the graph")
    return best


def _replace_table(model: onnx.ModelProto, storage: str) -> None:
    node, init = _word_embedding_gather(model)
    table = numpy_helper.to_array(init).astype(np.float32)
    out = node.output[0]
    base = init.name
    model.graph.initializer.remove(init)
    if storage == "fp16":
        model.graph.initializer.append(numpy_helper.from_array(table.astype(np.float16), base + "_fp16"))
        node.input[0] = base + "_fp16"
        node.output[0] = out + "_fp16"
        new = [helper.make_node("Cast", [out + "_fp16"], [out], to=TensorProto.FLOAT, name=base + "_cast")]
    else:  # int8-rowwise: symmetric int8 per row, one fp32 scale per row
        scale = np.maximum(np.abs(table).max(axis=1, keepdims=True), 1e-12) / 127.0
        q = np.clip(np.round(table / scale), -127, 127).astype(np.int8)
        model.graph.initializer.extend(
            [
                numpy_helper.from_array(q, base + "_q"),
                numpy_helper.from_array(scale.astype(np.float32), base + "_scale"),
            ]
        )
        node.input[0] = base + "_q"
        node.output[0] = out + "_q"
        ids = node.input[1]
        new = [
            helper.make_node("Cast", [out + "_q"], [out + "_qf"], to=TensorProto.FLOAT, name=base + "_cast"),
            helper.make_node("Gather", [base + "_scale", ids], [out + "_s"], name=base + "_scale_gather"),
            helper.make_node("Mul", [out + "_qf", out + "_s"], [out], name=base + "_dequant"),
        ]
    idx = list(model.graph.node).index(node)
    for k, n in enumerate(new):
        model.graph.node.insert(idx + 1 + k, n)


def quantize_model(src: str | Path, dst: str | Path, variant: str) -> Path:
    """Pre-process (shape inference + graph cleanup), then apply ``variant``; write ``dst``."""
    storage, qopts = VARIANTS[variant]
    dst = Path(dst)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=False)
        if storage != "fp32":
            m = onnx.load(str(pre))
            _replace_table(m, storage)
            onnx.checker.check_model(m)
            onnx.save(m, str(pre))
        if qopts is None:
            shutil.copyfile(pre, dst)
        else:
            quantize_dynamic(str(pre), str(dst), weight_type=QuantType.QInt8, **qopts)
    return dst
