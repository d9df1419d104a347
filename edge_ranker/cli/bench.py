"""``bench``: speed, size and energy of the models beside their teachers."""

from __future__ import annotations

import argparse

from edge_ranker.cli.common import positive, seconds, threads
from edge_ranker.errors import EdgeRankerError


def cmd_bench(a: argparse.Namespace) -> None:
    from edge_ranker.bench.report import notes, ratios, table
    from edge_ranker.bench.run import run_bench

    res = run_bench(
        a.models or None,
        threads=a.threads,
        runs=a.runs,
        with_energy=a.energy,
        powercap_root=a.powercap_root,
        window_s=a.window,
        repeats=a.repeats,
        out_dir=a.out,
        tag=a.tag,
        overwrite=a.overwrite,
    )
    print(table(res))
    specs = [m["spec"] for m in res["models"]]
    pairs = [(s, t) for s in specs for t in specs if t.startswith("teacher:") and not s.startswith("teacher:")]
    for k, v in ratios(res, pairs).items():
        print(f"latency ratio {k}: {v:.1f}x")
    for line in notes(res):
        print(line)
    print("wrote " + " and ".join(f for f in (res["files"]["json"], res["files"]["png"]) if f))
    failed = [f"{m['spec']}: {m['error']}" for m in res["models"] if "error" in m]
    if failed:  # the others were measured and written; a model that could not be is an error, not a table row
        raise EdgeRankerError(f"not benchmarked: {'; '.join(failed)}")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """bench"""
    bn = sub.add_parser("bench", help="latency, size, memory, CPU time and energy: students vs teachers")
    bn.add_argument(
        "models",
        nargs="*",
        help="model folders, shipped names or teacher:NAME (default: both shipped models and their teachers; "
        "teachers that are not installed are skipped with a note)",
    )
    bn.add_argument("--energy", action="store_true", help="also measure energy per inference (RAPL/powercap)")
    bn.add_argument("--threads", type=threads, default=1, help="threads per model, teachers included (default 1)")
    bn.add_argument("--runs", type=positive, default=300, help="timed batch-1 calls per model (default 300)")
    bn.add_argument("--window", type=seconds, default=2.0, help="energy window seconds (default 2)")
    bn.add_argument("--repeats", type=positive, default=5, help="energy windows per model (default 5)")
    bn.add_argument(
        "--powercap-root", default="/sys/class/powercap", help="powercap sysfs folder to read energy counters from"
    )
    bn.add_argument(
        "--out",
        help="folder for the JSON and PNG (default: the user data folder's edge-ranker/bench; "
        "the repository's committed results use --out bench/results)",
    )
    bn.add_argument("--tag", help="file stem for the JSON and PNG (default: bench-DATE-TIME)")
    bn.add_argument("--overwrite", action="store_true", help="replace results of the same --tag (default: refuse)")
    bn.set_defaults(func=cmd_bench)
