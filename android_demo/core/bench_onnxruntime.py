"""onnxruntime's side of ``Main bench``: the same inputs (the demo feed's texts joined, cut to 16 and 128
tokens, at most the model's max_length, closed with [SEP]) through the Python runtime's session, one thread.

Run from the repository root: ``python android_demo/core/bench_onnxruntime.py [RUNS]``.
"""

import json
import sys
import time

import numpy as np
import onnxruntime

from edge_ranker.runtime.encoder import Encoder


def bench_ids(enc: Encoder, length: int) -> list[int]:
    with open("edge_ranker/demo/feed.jsonl", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh if line.strip()]
    ids = enc.tokenize([" ".join(texts)])[0]
    n = min(length, enc.max_length, len(ids))
    return ids[: n - 1] + [ids[-1]]


def main(runs: int) -> None:
    version = onnxruntime.__version__
    print(f"model      tokens  p50_ms  p90_ms  (onnxruntime {version}, {runs} runs after as many warm-up runs)")
    for name in ("semantic", "relevance"):
        enc = Encoder.load(name, threads=1)
        for length in (16, 128):
            ids = np.array([bench_ids(enc, length)], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            for _ in range(runs):
                enc.session.run(None, feed)
            ms = []
            for _ in range(runs):
                t0 = time.perf_counter()
                enc.session.run(None, feed)
                ms.append((time.perf_counter() - t0) * 1e3)
            print(f"{name:<10} {ids.shape[1]:6d}  {np.percentile(ms, 50):6.3f}  {np.percentile(ms, 90):6.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
