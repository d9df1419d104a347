"""Benchmark one model in a fresh process (``python -m edge_ranker.bench.worker SPEC``) so its peak memory is
its own; prints one JSON object: the measurements, or ``{"spec", "skipped"}`` for a teacher that is not installed."""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from edge_ranker.bench.energy import EnergyUnavailable, open_meter
from edge_ranker.bench.measure import LONG, SHORT, cpu_seconds_per_call, energy, latency
from edge_ranker.errors import EdgeRankerError


class NotInstalled(Exception):
    """A teacher whose packages are missing: the benchmark skips it with a note instead of failing."""


def _load(spec: str, threads: int):
    """(encode function taking a list of texts, size on disk in bytes, description)."""
    if spec.startswith("teacher:"):
        t = _load_teacher(spec.split(":", 1)[1], threads)
        size = _teacher_size(t)
        return (lambda xs: t.encode(xs, role="query")), size, t.name
    from edge_ranker.runtime.encoder import Encoder

    enc = Encoder.load(spec, threads=threads)
    size = sum((enc.folder / f).stat().st_size for f in (enc.manifest.onnx, enc.manifest.tokenizer))
    role = "query" if enc.roles else None
    return (lambda xs: enc.encode(xs, role=role)), size, f"{enc.manifest.name} ({enc.manifest.quantization})"


def _load_teacher(name: str, threads: int):
    """The teacher, or ``NotInstalled`` when it (or ``edge_ranker.teachers`` itself) needs a missing package."""
    import os

    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    try:
        from edge_ranker.teachers import load_teacher

        return load_teacher(name)
    except (ImportError, EdgeRankerError) as exc:
        if isinstance(exc, ImportError) or isinstance(exc.__cause__, ImportError):
            raise NotInstalled(str(exc)) from exc
        raise


def _teacher_size(t) -> int:
    """Bytes of the weight files the teacher loads: its ``weight_files`` when it names them, else its package
    folder's weight files (for PyPI teachers)."""
    named = getattr(t, "weight_files", None)
    if named:
        return sum(Path(f).stat().st_size for f in named)
    mod = type(getattr(t, "_model", t)).__module__.split(".")[0]
    try:
        folder = Path(sys.modules[mod].__file__).parent
    except (KeyError, AttributeError, TypeError):
        return 0
    return sum(
        p.stat().st_size
        for p in folder.rglob("*")
        if p.is_file() and p.suffix in {".npz", ".bin", ".onnx", ".safetensors", ".model"}
    )


def run(
    spec: str, threads: int, runs: int, with_energy: bool, powercap_root: str, window_s: float, repeats: int
) -> dict:
    t0 = time.perf_counter()
    encode, size, desc = _load(spec, threads)
    load_s = time.perf_counter() - t0
    short1, long1 = [SHORT[0]], [LONG[0]]
    batch_short = (SHORT * 8)[:32]
    batch_long = (LONG * 16)[:32]
    res: dict = {"spec": spec, "model": desc, "threads": threads, "size_bytes": size, "load_s": load_s}
    res["latency_ms_b1_short"] = latency(lambda: encode(short1), runs)
    res["latency_ms_b1_long"] = latency(lambda: encode(long1), max(runs // 4, 10))
    bs = latency(lambda: encode(batch_short), max(runs // 20, 5), warmup=2)
    bl = latency(lambda: encode(batch_long), max(runs // 40, 3), warmup=1)
    res["throughput_b32_short"] = 32 / (bs["p50"] / 1e3)
    res["throughput_b32_long"] = 32 / (bl["p50"] / 1e3)
    res["cpu_s_b1_short"] = cpu_seconds_per_call(lambda: encode(short1))
    if with_energy:
        try:
            meter = open_meter(powercap_root)
            res["energy_b1_short"] = energy(meter, lambda: encode(short1), window_s, repeats)
        except EnergyUnavailable as exc:
            res["energy_unavailable"] = {"reason": exc.reason, "fix": exc.fix}
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return res


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("spec")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--energy", action="store_true")
    p.add_argument("--powercap-root", default="/sys/class/powercap")
    p.add_argument("--window", type=float, default=2.0)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    try:
        res = run(a.spec, a.threads, a.runs, a.energy, a.powercap_root, a.window, a.repeats)
    except NotInstalled as exc:
        res = {"spec": a.spec, "skipped": f"not installed ({exc})"}
    except EdgeRankerError as exc:  # the parent reports the message's last line as this model's error
        sys.exit(f"{a.spec}: {exc}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
