"""Quantization variants for the exported graph (onnxruntime.quantization, dynamic int8).

A 1-layer 128-d student is mostly its word-embedding table, so how the table is stored decides size and
much of the quality. onnxruntime's dynamic quantizer puts Gather in its default op list and quantizes the
table per-tensor (one scale for 50k rows); ``int8-rowwise`` instead stores it int8 with one scale per row
(model2vec-style), dequantised right after the Gather, and quantizes the MatMuls dynamically.
``int4-block32``/``-block64`` halve the table again (4-bit codes, two per byte, one fp16 scale per block of 32 or
64 values), so a 100k-piece vocabulary fits where a 50k one does at int8. They use only standard opset-17 ops
(Gather, Mod, BitShift, Concat, Cast, Reshape, Mul), not ORT's contrib GatherBlockQuantized, so every
onnxruntime build, Android's included, runs them.

``int8-weights`` keeps int8-rowwise's file (the same int8 table and int8 MatMul weights) but computes the MatMuls
in fp32: the weights are dequantised by Cast and Mul, which onnxruntime folds into constants when it loads the
graph. Dynamic activation quantization takes one scale per batch (a text's vector then depends on the texts
beside it) and its integer kernels differ between CPUs (VNNI or not); with fp32 activations a text gets the
same vector in any batch, to float rounding, on any x86 or ARM CPU.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic
from onnxruntime.quantization.shape_inference import quant_pre_process

from edge_ranker.errors import EdgeRankerError
from edge_ranker.export.variants import VARIANTS

# Each block's scale is absmax/7 shrunk by whichever of these factors gives the least squared error: clipping
# a block's one outlier keeps more levels for its other values.
_INT4_CLIPS = np.linspace(1.0, 0.6, 9)


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


def check_table_width(variant: str, dim: int) -> None:
    """Refuse a variant whose int4 blocks do not divide a ``dim``-wide word table: found before any export."""
    found = re.search(r"block(\d+)$", variant)
    block = int(found.group(1)) if found else 0
    if block and dim % block:
        raise EdgeRankerError(f"{variant}: int4 blocks of {block} must divide the table's width; it is {dim} wide")


def int4_blocks(table: np.ndarray, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric 4-bit codes in [-8, 7] and one fp16 scale per ``block`` values of each row."""
    rows, dim = table.shape
    check_table_width(f"int4-block{block}", dim)
    x = table.reshape(rows, dim // block, block)
    # floored so that every scale stays a normal fp16 number (a zero row would otherwise divide by zero)
    absmax = np.maximum(np.abs(x).max(axis=2, keepdims=True), 1e-3)
    best_err = np.full(absmax.shape, np.inf, dtype=np.float32)
    scale = absmax / 7.0
    for clip in _INT4_CLIPS:
        s = (absmax * clip / 7.0).astype(np.float16).astype(np.float32)  # the stored precision
        err = ((np.clip(np.round(x / s), -8, 7) * s - x) ** 2).sum(axis=2, keepdims=True)
        better = err < best_err
        best_err = np.where(better, err, best_err)
        scale = np.where(better, s, scale)
    codes = np.clip(np.round(x / scale), -8, 7).astype(np.int8).reshape(rows, dim)
    return codes, scale[..., 0].astype(np.float16)


def pack_int4(codes: np.ndarray) -> np.ndarray:
    """Two codes per byte, offset by 8: the low nibbles hold the first half of each row, the high ones the rest."""
    u = (codes.astype(np.int16) + 8).astype(np.uint8)
    half = u.shape[1] // 2
    return u[:, :half] | (u[:, half:] << 4)


def _int4_nodes(base: str, out: str, ids: str, dim: int, block: int) -> list[onnx.NodeProto]:
    """Unpack the gathered [batch, seq, dim/2] bytes to [batch, seq, dim] values, each block times its scale."""
    consts = {
        "_base": np.array(16, np.uint8),
        "_shift": np.array(4, np.uint8),
        "_offset": np.array(8.0, np.float32),
        "_blocks": np.array([0, 0, dim // block, block], np.int64),
        "_flat": np.array([0, 0, dim], np.int64),
        "_last": np.array([-1], np.int64),
    }
    nodes = [helper.make_node("Constant", [], [base + k], value=numpy_helper.from_array(v)) for k, v in consts.items()]
    b, p = base, out + "_p"
    return nodes + [
        helper.make_node("Mod", [p, b + "_base"], [p + "_lo"]),
        helper.make_node("BitShift", [p, b + "_shift"], [p + "_hi"], direction="RIGHT"),
        helper.make_node("Concat", [p + "_lo", p + "_hi"], [p + "_u"], axis=-1),
        helper.make_node("Cast", [p + "_u"], [p + "_f"], to=TensorProto.FLOAT),
        helper.make_node("Sub", [p + "_f", b + "_offset"], [p + "_c"]),
        helper.make_node("Reshape", [p + "_c", b + "_blocks"], [p + "_cb"]),
        helper.make_node("Gather", [b + "_scale", ids], [out + "_s16"]),
        helper.make_node("Cast", [out + "_s16"], [out + "_s"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", [out + "_s", b + "_last"], [out + "_s1"]),
        helper.make_node("Mul", [p + "_cb", out + "_s1"], [out + "_vb"]),
        helper.make_node("Reshape", [out + "_vb", b + "_flat"], [out], name=base + "_dequant"),
    ]


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
    elif storage.startswith("int4-block"):
        block = int(storage.removeprefix("int4-block"))
        codes, scale = int4_blocks(table, block)
        model.graph.initializer.extend(
            [numpy_helper.from_array(pack_int4(codes), base + "_q4"), numpy_helper.from_array(scale, base + "_scale")]
        )
        node.input[0] = base + "_q4"
        node.output[0] = out + "_p"
        new = _int4_nodes(base, out, node.input[1], table.shape[1], block)
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


def float_activations(model: onnx.ModelProto) -> onnx.ModelProto:
    """Rewrite each dynamic int8 MatMul (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by both scales)
    as an fp32 MatMul on its int8 weights times their scale; the int8 weights stay in the file."""
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    inits = {i.name: i for i in g.initializer}
    drop: list[onnx.NodeProto] = []
    new: list[onnx.NodeProto] = []
    for mm in [n for n in g.node if n.op_type == "MatMulInteger"]:
        dql = producer[mm.input[0]]
        (cast,) = consumers[mm.output[0]]
        (rescale,) = consumers[cast.output[0]]
        scales = producer[next(i for i in rescale.input if i != cast.output[0])]
        w_scale = next(i for i in scales.input if i != dql.output[1])
        w_q, w_zero = mm.input[1], mm.input[3]
        if dql.op_type != "DynamicQuantizeLinear" or w_q not in inits or numpy_helper.to_array(inits[w_zero]).any():
            raise EdgeRankerError(f"{mm.name}: not a symmetric dynamic int8 MatMul")
        w = w_q + "_fp32"
        new += [
            helper.make_node("Cast", [w_q], [w + "_q"], to=TensorProto.FLOAT, name=w + "_cast"),
            helper.make_node("Mul", [w + "_q", w_scale], [w], name=w + "_dequant"),
            helper.make_node("MatMul", [dql.input[0], w], [rescale.output[0]], name=rescale.output[0] + "_matmul"),
        ]
        drop += [mm, cast, rescale, scales]
        g.initializer.remove(inits[w_zero])
    for n in drop:
        g.node.remove(n)
    needed = {i for n in [*g.node, *new] for i in n.input}
    for n in [n for n in g.node if n.op_type == "DynamicQuantizeLinear" and not needed & set(n.output)]:
        g.node.remove(n)
    ready = {i.name for i in g.initializer} | {i.name for i in g.input} | {""}
    pending, ordered = [*g.node, *new], []
    while pending:  # topological order, as the ONNX checker requires
        runnable = [n for n in pending if all(i in ready for i in n.input)]
        if not runnable:
            raise EdgeRankerError("graph has a cycle after rewriting its MatMuls")
        for n in runnable:
            ordered.append(n)
            ready.update(n.output)
        pending = [n for n in pending if n not in runnable]
    del g.node[:]
    g.node.extend(ordered)
    onnx.checker.check_model(model)
    return model


def quantize_model(src: str | Path, dst: str | Path, variant: str) -> Path:
    """Pre-process (shape inference + graph cleanup), then apply ``variant``; write ``dst``."""
    storage, qopts, fp32_matmuls = VARIANTS[variant]
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
            if fp32_matmuls:
                onnx.save(float_activations(onnx.load(str(dst))), str(dst))
    return dst
