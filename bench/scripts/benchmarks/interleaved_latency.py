"""Batch-1 encode time of several models, interleaved, as ratios to the last one.

On a shared machine a bench run's figures drift by nearly 2x from one run to the next, and a model's figure moves
with its place in a run of several (bench/experiments/student-shape.md, "A layer twice as wide inside"). Here
every round times each model in turn (100 encodes of one short text, their median), starting one model later each
round, so drift and place hit all of them alike; the ratio to the last model is taken within each round and its
median over the rounds is reported.

``python bench/scripts/benchmarks/interleaved_latency.py MODEL... relevance [--rounds 40]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from edge_ranker.runtime.encoder import Encoder

TEXT = ["The derby ended in a goalless draw."]
CALLS = 100  # encodes per model per round
WARMUP = 50


def round_medians(encoders: dict[str, Encoder], start: int) -> dict[str, float]:
    """Each model's median encode time in ms over ``CALLS`` calls, the models timed one after the other from the
    ``start``-th."""
    names = list(encoders)
    out = {}
    for name in names[start % len(names) :] + names[: start % len(names)]:
        enc = encoders[name]
        times = []
        for _ in range(CALLS):
            t = time.perf_counter()
            enc.encode(TEXT)
            times.append(time.perf_counter() - t)
        out[name] = 1000 * statistics.median(times)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("models", nargs="+", help="model folders or shipped names; ratios are to the last")
    p.add_argument("--rounds", type=int, default=40)
    args = p.parse_args()
    encoders = {m: Encoder.load(m) for m in args.models}
    for enc in encoders.values():
        for _ in range(WARMUP):
            enc.encode(TEXT)
    rounds = [round_medians(encoders, r) for r in range(args.rounds)]
    base = args.models[-1]
    print(f"| model | median ms | ratio to {base}: median [Q1, Q3] |\n|---|---|---|")
    for m in args.models:
        ms = np.array([r[m] for r in rounds])
        ratio = ms / np.array([r[base] for r in rounds])
        q1, q3 = np.percentile(ratio, [25, 75])
        print(f"| {m} | {np.median(ms):.3f} | {np.median(ratio):.2f} [{q1:.2f}, {q3:.2f}] |")


if __name__ == "__main__":
    main()
