"""Dynamic int8 activations (int8-rowwise) against fp32 activations on the same int8 weights (int8-weights).

For each model folder: how far a text's vector moves with its batch (alone, beside a 300-word text, inside a
400-text batch), how far onnxruntime's kernel paths move it (every optimisation level, 1 and 2 threads,
batches of 1, 7 and 64), latency at batch 1 for a 16- and a 128-token text (one thread, tokenization
included) and throughput for news-length documents at batch 32. Quality is measured by ``edge-ranker eval``.

Usage: python bench/scripts/benchmarks/activation_quantization.py DIR [DIR ...]   (prints a Markdown table)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from quantize_compare import _latency_ms, _text_of_tokens, parity_texts  # beside this script

from edge_ranker.runtime.encoder import Encoder


def batch_shift(enc: Encoder, texts: list[str], role: str | None) -> float:
    alone = np.stack([enc.encode([t], role=role)[0] for t in texts])
    beside = np.stack([enc.encode([t, "x " * 300], role=role)[0] for t in texts])
    together = enc.encode(texts, role=role)
    return float(max(np.abs(alone - beside).max(), np.abs(alone - together).max()))


def kernel_spread(folder: Path, texts: list[str], role: str | None) -> float:
    import onnxruntime as ort  # after edge_ranker, which turns its telemetry off before it loads

    ref = np.stack([Encoder.load(folder).encode([t], role=role)[0] for t in texts])
    worst = 0.0
    for level in ("ORT_DISABLE_ALL", "ORT_ENABLE_BASIC", "ORT_ENABLE_EXTENDED", "ORT_ENABLE_ALL"):
        for threads in (1, 2):
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads
            opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, level)
            enc = Encoder.load(folder, session_options=opts)
            for size in (1, 7, 64):
                enc.batch_size = size
                worst = max(worst, float(np.abs(enc.encode(texts, role=role) - ref).max()))
    return worst


def docs_per_second(enc: Encoder, role: str | None) -> float:
    docs = [" ".join(f"word{i * 7 + j}" for j in range(60)) for i in range(256)]
    enc.encode(docs[:32], role=role)
    start = time.perf_counter()
    enc.encode(docs, role=role)
    return len(docs) / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folders", nargs="+", type=Path)
    a = p.parse_args()
    texts = parity_texts()
    print(
        "| model | quantization | model.onnx MB | batch shift max abs | kernel-path spread max abs "
        "| p50 ms 16 tok | p50 ms 128 tok | docs/s batch 32 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for folder in a.folders:
        enc = Encoder.load(folder, threads=1)
        role = "passage" if enc.manifest.prefixes else None
        size = (folder / enc.manifest.onnx).stat().st_size / 1e6
        print(
            f"| {enc.manifest.name} | {enc.manifest.quantization} | {size:.2f} | {batch_shift(enc, texts, role):.1e} "
            f"| {kernel_spread(folder, texts, role):.1e} | {_latency_ms(enc, _text_of_tokens(enc, 16)):.3f} "
            f"| {_latency_ms(enc, _text_of_tokens(enc, 128)):.3f} | {docs_per_second(enc, role):.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
