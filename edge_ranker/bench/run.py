"""``edge-ranker bench``: every model in its own process, one results table, JSON and a PNG chart."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from edge_ranker.bench.energy import EnergyUnavailable, open_meter
from edge_ranker.errors import EdgeRankerError

DEFAULT_MODELS = ["semantic", "teacher:use-multilingual-v3", "relevance", "teacher:multilingual-e5-small"]


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def machine_info(threads: int) -> dict:
    cpu = None
    for line in (_read("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    power = None
    for p in Path("/sys/class/power_supply").glob("*/online") if Path("/sys/class/power_supply").exists() else []:
        power = "AC" if _read(str(p)) == "1" else "battery"
    return {
        "cpu": cpu or platform.processor(),
        "logical_cpus": os.cpu_count(),
        "threads": threads,
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") or "unknown",
        "power": power or "unknown",
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def run_bench(
    models: list[str] | None = None,
    threads: int = 1,
    runs: int = 300,
    with_energy: bool = False,
    powercap_root: str = "/sys/class/powercap",
    window_s: float = 2.0,
    repeats: int = 5,
    out_dir: str | Path = "bench/results",
    tag: str | None = None,
) -> dict:
    models = models or DEFAULT_MODELS
    result: dict = {"machine": machine_info(threads), "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "models": []}
    if with_energy:
        try:
            m = open_meter(powercap_root)
            result["energy"] = {
                "backend": m.backend,
                "zones": [z.name for z in m.zones],
                "note": "RAPL measures the whole CPU package, not one process",
            }
        except EnergyUnavailable as exc:
            result["energy"] = {"unavailable": exc.reason, "fix": exc.fix}
    for spec in models:
        cmd = [
            sys.executable,
            "-m",
            "edge_ranker.bench.worker",
            spec,
            "--threads",
            str(threads),
            "--runs",
            str(runs),
            "--powercap-root",
            powercap_root,
            "--window",
            str(window_s),
            "--repeats",
            str(repeats),
        ]
        if with_energy:
            cmd.append("--energy")
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            result["models"].append({"spec": spec, "error": tail[0]})
            continue
        result["models"].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    if not any("error" not in m for m in result["models"]):
        errors = "; ".join(m.get("error", "") for m in result["models"])
        raise EdgeRankerError(f"no model could be benchmarked: {errors}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = tag or "bench-" + time.strftime("%Y%m%d-%H%M%S")
    (out / f"{stem}.json").write_text(json.dumps(result, indent=2))
    from edge_ranker.bench.report import chart

    result["files"] = {"json": str(out / f"{stem}.json"), "png": str(chart(result, out / f"{stem}.png"))}
    return result
