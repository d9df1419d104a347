"""Rewrite an int8-rowwise model folder as int8-weights: the same int8 table and MatMul weights, MatMuls in fp32.

The shipped models were exported as int8-rowwise from students that are not kept in the repository; this
rewrites their graphs in place of a re-export, so the weights stay bit-identical and only the activations'
quantization goes (bench/RESULTS.md, "Quantization").

Usage: python bench/scripts/experiments/float_activations.py edge_ranker/models/semantic OUT_DIR
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import onnx

from edge_ranker.export.quantize import float_activations
from edge_ranker.runtime.manifest import MANIFEST, read_manifest, write_manifest


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src", help="an int8-rowwise model folder")
    p.add_argument("out", help="the int8-weights model folder to write (may be src itself)")
    a = p.parse_args()
    src, out = Path(a.src), Path(a.out)
    manifest = read_manifest(src)
    if manifest.quantization != "int8-rowwise":
        raise SystemExit(f"{src} is {manifest.quantization}, not int8-rowwise")
    out.mkdir(parents=True, exist_ok=True)
    graph = float_activations(onnx.load(str(src / manifest.onnx)))
    for name in (manifest.tokenizer, manifest.vocab):
        if (src / name).resolve() != (out / name).resolve():
            shutil.copyfile(src / name, out / name)
    onnx.save(graph, str(out / manifest.onnx))
    manifest.quantization = "int8-weights"
    print(write_manifest(out, manifest).parent / MANIFEST)


if __name__ == "__main__":
    main()
