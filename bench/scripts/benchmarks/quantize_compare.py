"""Compare quantization variants of one student: size, parity with the torch student, latency, quality.

``python bench/scripts/benchmarks/quantize_compare.py STUDENT --out DIR [--variants ...] [--sts] [--retrieval SET ...]``

Parity inputs are built offline from the demo feed and the golden texts (several scripts, empty, emoji,
very short and very long by concatenation), a few hundred in all.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from edge_ranker.export.onnx_graph import export_model
from edge_ranker.export.quantize import VARIANTS, check_table_width
from edge_ranker.modeling.student import TorchStudentEncoder
from edge_ranker.runtime.encoder import Encoder


def parity_texts(n: int = 400, seed: int = 0) -> list[str]:
    from edge_ranker.demo import load_feed
    from spec.tools.golden import TEXTS

    docs, history = load_feed()
    base = [d.text for d in docs] + [h["text"] for h in history["likes"] + history["dislikes"]] + TEXTS
    rng = random.Random(seed)
    out = list(base)
    while len(out) < n:
        k = rng.choice([1, 2, 3, 6])
        out.append(" ".join(rng.sample(base, k)))
    return out[:n]


def _latency_ms(enc: Encoder, text: str, runs: int = 300) -> float:
    for _ in range(20):
        enc.encode([text])
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        enc.encode([text])
        ts.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(ts))


def _text_of_tokens(enc: Encoder, n: int) -> str:
    """A text of ``n`` tokens, or of the model's max length when that is shorter (longer text is cut)."""
    n = min(n, enc.max_length)
    words = "the quick brown fox jumps over a lazy dog and runs far into the green forest".split()
    text = ""
    i = 0
    while len(enc.tokenize([text])[0]) < n:
        text += words[i % len(words)] + " "
        i += 1
    return text.strip()


def compare_variants(
    student_dir: str | Path, out_dir: str | Path, variants: list[str] | None = None, evaluate: dict | None = None
) -> dict:
    """Export each variant to ``out_dir/VARIANT`` and measure it. ``evaluate``: kwargs for evaluate_models."""
    variants = variants or list(VARIANTS)
    texts = parity_texts()
    ref = TorchStudentEncoder(student_dir).encode(texts, role="passage")
    for v in variants:  # before the first export: a variant that cannot be made is found now, not after the others
        check_table_width(v, ref.shape[1])
    iu = np.triu_indices(len(texts), 1)
    ref_sims = (ref @ ref.T)[iu]
    results: dict = {"parity_inputs": len(texts), "variants": {}}
    for v in variants:
        folder = export_model(student_dir, Path(out_dir) / v, quantize=v)
        enc = Encoder.load(folder, threads=1)
        got = enc.encode(texts, role="passage" if enc.roles else None)
        cos = (ref * got).sum(1)
        row = {
            "bytes": (folder / "model.onnx").stat().st_size,
            "cos_mean": float(cos.mean()),
            "cos_min": float(cos.min()),
            "spearman_pairwise": float(spearmanr(ref_sims, (got @ got.T)[iu]).statistic),
            "p50_ms_16tok": _latency_ms(enc, _text_of_tokens(enc, 16)),
            "p50_ms_128tok": _latency_ms(enc, _text_of_tokens(enc, 128), runs=100),
            "max_length": enc.max_length,
        }
        if evaluate:
            from edge_ranker.evaluate.report import evaluate_models

            row["eval"] = next(iter(evaluate_models([str(folder)], **evaluate).values()))
        results["variants"][v] = row
        (Path(out_dir) / "comparison.json").write_text(json.dumps(results, indent=2))
    return results


def main() -> None:
    import argparse

    from edge_ranker.datasets.retrieval import check_set_name
    from edge_ranker.paths import DATA_HELP, cache_root, data_root, output_folder

    p = argparse.ArgumentParser(description="export every quantization variant of a student and measure each")
    p.add_argument("model_dir", help="a student folder written by distill")
    p.add_argument("--out", required=True, help="folder for one model folder per variant")
    p.add_argument("--overwrite", action="store_true", help="write over what --out holds")
    p.add_argument("--variants", nargs="*", help="variants to compare (default: all)")
    p.add_argument("--sts", action="store_true", help="also score STS")
    p.add_argument("--retrieval", nargs="*", default=[], help="also score these retrieval sets")
    p.add_argument("--split", default="test", choices=["test", "dev"], help="STS split (default test)")
    p.add_argument("--data", help=DATA_HELP)
    a = p.parse_args()
    for name in a.retrieval:  # before every variant is exported
        check_set_name(name)
    out = output_folder(a.out, "variants", a.overwrite)
    evaluate = None
    if a.sts or a.retrieval:
        evaluate = {
            "data_root": data_root(a.data),
            "cache_dir": cache_root(None),
            "sts": a.sts,
            "retrieval": a.retrieval,
            "split": a.split,
        }
    print(json.dumps(compare_variants(a.model_dir, out, a.variants or None, evaluate), indent=2))


if __name__ == "__main__":
    main()
