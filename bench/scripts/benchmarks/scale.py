"""How ranking scales with the feed: repeated ranks of 1,000 to 100,000 already-embedded documents against 100
interests and a query, one thread, each size in its own process (so peak memory is that size's alone).

``--compare DIR`` runs the same measurement on another checkout of edge-ranker (e.g. a ``git worktree`` of an
earlier commit), side by side in one run. Only the public API both share is used: ``Ranker(semantic,
relevance, store)``, ``PreferenceStore.add_feedback`` and ``Ranker.rank``.

``python bench/scripts/benchmarks/scale.py --sizes 1000 10000 100000 --compare /tmp/old --out DIR``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

WORKER = """
import json, resource, sys, tempfile, time
from pathlib import Path
import numpy as np
from edge_ranker.runtime.encoder import Encoder
from edge_ranker import Document
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore

n, repeats = int(sys.argv[1]), int(sys.argv[2])
sem, rel = Encoder.load("semantic", threads=1), Encoder.load("relevance", threads=1)
docs = [Document(str(i), f"item {i} about topic {i % 97} and region {i % 13}") for i in range(n)]
query = "topic 5 in region 3"
rng = np.random.default_rng(0)
with tempfile.TemporaryDirectory() as tmp:
    store = PreferenceStore(Path(tmp) / "p.db")
    ranker = Ranker(sem, rel, store)
    # an interest's size: both models' side by side here, the semantic model's in a release before that (--compare)
    dim = ranker.interest_vectors(["x"]).shape[1] if hasattr(ranker, "interest_vectors") else sem.dim
    for i in range(100):  # spread-out random interests: each is its own center
        reaction = "like" if i % 4 else "dislike"
        store.space(ranker.model_key).add_feedback(f"h{i}", rng.normal(size=dim), reaction)
    t0 = time.perf_counter()
    ranker.rank(docs, query=query)  # embeds the feed (the cost of a new feed, not measured below)
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ranker.rank(docs, query=query)
        times.append(time.perf_counter() - t0)
    store.close()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"docs": n, "first_s": first, "p50_ms": float(np.median(times)) * 1e3, "peak_rss_mb": peak}))
"""


def measure(n: int, repeats: int, checkout: Path | None) -> dict:
    """One size in a fresh process; ``checkout``: the edge-ranker source tree to import (default: this one)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "ORT_DISABLE_TELEMETRY": "1"}
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    cwd = checkout if checkout is not None else Path(__file__).resolve().parents[3]  # `python -c` imports from cwd
    out = subprocess.run(
        [sys.executable, "-c", WORKER, str(n), str(repeats)], env=env, cwd=cwd, capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"the {n}-document run failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def chart(rows: dict[str, list[dict]], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart skipped: pip install 'edge-ranker[bench]' for matplotlib", file=sys.stderr)
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, series in rows.items():
        docs = [r["docs"] for r in series]
        axes[0].plot(docs, [r["p50_ms"] for r in series], marker="o", label=name)
        axes[1].plot(docs, [r["peak_rss_mb"] for r in series], marker="o", label=name)
    axes[0].set(xscale="log", yscale="log", xlabel="documents", ylabel="rank p50 ms (one thread)")
    axes[1].set(xscale="log", xlabel="documents", ylabel="peak resident MB")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle("Ranking an embedded feed against 100 interests and a query")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 5000, 10000, 20000, 50000, 100000])
    p.add_argument("--repeats", type=int, default=20, help="timed ranks per size after the first")
    p.add_argument("--compare", type=Path, help="another edge-ranker checkout to measure beside this one")
    p.add_argument("--out", type=Path, required=True, help="folder for scale.json and scale.png")
    a = p.parse_args()
    rows: dict[str, list[dict]] = {"this checkout": []}
    if a.compare:
        rows[f"{a.compare.name}"] = []
    for n in a.sizes:
        for name in rows:
            checkout = a.compare if name != "this checkout" else None
            repeats = a.repeats if checkout is None or n < 20_000 else 3  # re-embedding ranks take seconds
            rows[name].append(measure(n, repeats, checkout))
            r = rows[name][-1]
            print(f"{name:>14} {n:>7} docs: p50 {r['p50_ms']:9.2f} ms, peak {r['peak_rss_mb']:7.0f} MB", flush=True)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "scale.json").write_text(json.dumps(rows, indent=2))
    chart(rows, a.out / "scale.png")
    print("| documents | " + " | ".join(f"{k} p50 ms | {k} peak MB" for k in rows) + " |")
    print("|---|" + "---|---|" * len(rows))
    for i, n in enumerate(a.sizes):
        cells = " | ".join(f"{rows[k][i]['p50_ms']:.2f} | {rows[k][i]['peak_rss_mb']:.0f}" for k in rows)
        print(f"| {n:,} | {cells} |")


if __name__ == "__main__":
    main()
