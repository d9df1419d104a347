"""Measuring one model in this process: latency percentiles, throughput, CPU time, energy per inference.

Energy method: windows of ``window_s`` seconds (RAPL updates about every 1 ms), an idle window of the same
length before each active one; net J/inference = (E_active - P_idle * t) / n, gross = E_active / n;
median and quartiles over ``repeats`` windows.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from edge_ranker.bench.energy import EnergyUnavailable

SHORT = [  # ~16 tokens each, several languages
    "The city council approved the new bicycle lanes downtown.",
    "Der Stadtrat hat neue Radwege in der Innenstadt genehmigt.",
    "Le conseil municipal a approuvé de nouvelles pistes cyclables.",
    "Городской совет одобрил новые велосипедные дорожки в центре.",
]
LONG = [  # 65-95 tokens each: a model with windows (the semantic one) reads each in 2
    " ".join(
        [
            "Researchers at the university published a long study on how small language models can run on phones,",
            "measuring latency, memory and battery drain across a dozen devices, and found that careful quantization",
            "of the embedding table mattered more than the number of layers, while tokenization overhead became the",
            "bottleneck for short queries; they released their benchmark so that app developers can reproduce it.",
        ]
    ),
    " ".join(
        [
            "Die Forschenden veröffentlichten eine lange Studie darüber, wie kleine Sprachmodelle",
            "auf Telefonen laufen, maßen Latenz, Speicherbedarf und Akkuverbrauch auf einem Dutzend",
            "Geräten und stellten fest, dass die",
            "Quantisierung der Einbettungstabelle wichtiger war als die Zahl der Schichten.",
        ]
    ),
]


def percentiles(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs, dtype=np.float64)
    q1, p50, q3, p90 = np.percentile(a, [25, 50, 75, 90])
    return {"p50": float(p50), "q1": float(q1), "q3": float(q3), "p90": float(p90), "n": len(xs)}


def latency(fn: Callable[[], object], runs: int, warmup: int = 5) -> dict[str, float]:
    """Per-call wall time in milliseconds."""
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return percentiles(ts)


def cpu_seconds_per_call(fn: Callable[[], object], min_seconds: float = 1.0) -> float:
    """user+sys CPU seconds per call (all threads of this process): a proxy for energy that every machine can
    measure. Runs for at least ``min_seconds`` of wall time so the clock's resolution does not matter."""
    n = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < min_seconds or n < 3:
        fn()
        n += 1
    return (time.process_time() - c0) / n


def energy(meter, fn: Callable[[], object], window_s: float = 2.0, repeats: int = 5) -> dict:
    """Net and gross joules per call over ``repeats`` windows (see module docstring)."""
    net, gross = [], []
    moved = False
    for _ in range(repeats):
        a = meter.read()
        time.sleep(window_s)
        b = meter.read()
        idle_w = meter.total(meter.delta_joules(a, b)) / window_s
        n = 0
        a = meter.read()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < window_s:
            fn()
            n += 1
        b = meter.read()
        t = time.perf_counter() - t0
        e = meter.total(meter.delta_joules(a, b))
        moved = moved or e > 0 or idle_w > 0
        gross.append(e / n)
        net.append(max(e - idle_w * t, 0.0) / n)
    if not moved:  # a frozen counter (a copy of the tree, a VM's stub) measured nothing
        raise EnergyUnavailable(
            f"the energy counters ({', '.join(z.name for z in meter.zones)}) did not move in {repeats} windows of "
            f"{window_s:g} s of work",
            "measure on bare-metal Linux whose RAPL counters count, with a --window longer than their update interval",
        )
    return {
        "net_j": percentiles(net),
        "gross_j": percentiles(gross),
        "backend": meter.backend,
        "zones": [z.name for z in meter.zones],
        "note": "RAPL measures the whole CPU package (every process), not this process alone",
    }
