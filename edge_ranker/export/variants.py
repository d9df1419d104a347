"""The export's quantization variants, by name: light (no onnx), so the CLI offers them as choices.

int8-weights (the default) keeps an int8 word table and int8 weights but computes every MatMul in fp32, so a
text's vector does not depend on its batch; int8-rowwise quantizes the activations too; int4-block* store the
table in 4-bit blocks (with int8-rowwise's MatMuls); int4-weights-block* are int8-weights with the table in 4-bit
blocks, which a 256-d student needs to stay under 8 MB; the others are kept to compare against.
"""

from __future__ import annotations

# name -> (table storage, quantize_dynamic options or None for no int8 MatMul, MatMuls in fp32 after all)
VARIANTS: dict[str, tuple[str, dict | None, bool]] = {
    "fp32": ("fp32", None, False),
    "int8-matmul": ("fp32", {"op_types_to_quantize": ["MatMul"]}, False),
    "int8-matmul-rr": ("fp32", {"op_types_to_quantize": ["MatMul"], "reduce_range": True}, False),
    "fp16-table": ("fp16", {"op_types_to_quantize": ["MatMul"]}, False),
    "int8-gather": ("fp32", {"op_types_to_quantize": ["MatMul", "Gather"]}, False),
    "int8-gather-rr": ("fp32", {"op_types_to_quantize": ["MatMul", "Gather"], "reduce_range": True}, False),
    "int8-gather-perchannel": ("fp32", {"op_types_to_quantize": ["MatMul", "Gather"], "per_channel": True}, False),
    "int8-gather-perchannel-rr": (
        "fp32",
        {"op_types_to_quantize": ["MatMul", "Gather"], "per_channel": True, "reduce_range": True},
        False,
    ),
    "int8-rowwise": ("int8-rowwise", {"op_types_to_quantize": ["MatMul"]}, False),
    "int8-weights": ("int8-rowwise", {"op_types_to_quantize": ["MatMul"]}, True),
    "int4-block32": ("int4-block32", {"op_types_to_quantize": ["MatMul"]}, False),
    "int4-block64": ("int4-block64", {"op_types_to_quantize": ["MatMul"]}, False),
    "int4-weights-block32": ("int4-block32", {"op_types_to_quantize": ["MatMul"]}, True),
    "int4-weights-block64": ("int4-block64", {"op_types_to_quantize": ["MatMul"]}, True),
}
