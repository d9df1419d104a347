"""``edge-ranker bench``: every model in its own process, one results table, JSON and (with the ``bench`` extra)
a PNG chart."""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from edge_ranker.bench.energy import EnergyUnavailable, open_meter
from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import output_folder, write_files
from edge_ranker.runtime.encoder import resolve_model_path

DEFAULT_MODELS = ["semantic", "teacher:use-multilingual-v3", "relevance", "teacher:multilingual-e5-small"]


def default_out_dir() -> Path:
    """The user's data folder: an installed package has no repository folder to write into."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("edge-ranker")) / "bench"


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
    out_dir: str | Path | None = None,
    tag: str | None = None,
    overwrite: bool = False,
) -> dict:
    """Benchmark each model in its own process; teachers that are not installed land in ``skipped``. A model
    that is neither a folder nor a shipped name is refused before anything is measured.

    Writes ``STEM.json`` (and ``STEM.png`` when matplotlib is installed) under ``out_dir``, by default
    ``default_out_dir()``; ``files`` in the result names them (``png`` is None without matplotlib). Results of that
    stem already there are refused before anything is measured, unless ``overwrite``; both files are replaced
    together, once both are made.
    """
    models = models or DEFAULT_MODELS
    for spec in models:  # a mistyped name is refused now, not after minutes of measuring the models before it
        if not spec.startswith("teacher:"):
            resolve_model_path(spec)
    if tag is not None and (not tag.strip() or tag != Path(tag).name or tag in (".", "..")):
        raise EdgeRankerError(f"the tag {tag!r} must be a plain file stem, without a folder (--out says where)")
    out = output_folder(out_dir or default_out_dir(), "benchmark results", overwrite=True)  # before measuring
    stem = tag or "bench-" + time.strftime("%Y%m%d-%H%M%S")
    for path in (out / f"{stem}.json", out / f"{stem}.png"):
        if path.is_dir() or path.is_symlink() or (path.exists() and not path.is_file()):
            raise EdgeRankerError(f"{path} is not a file the results can be written to: give another --tag")
        if path.exists() and not overwrite:
            raise EdgeRankerError(f"{path} already exists: give another --tag, or --overwrite to replace it")
    result: dict = {
        "machine": machine_info(threads),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "models": [],
        "skipped": [],
    }
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
        record = json.loads(proc.stdout.strip().splitlines()[-1])
        result["skipped" if "skipped" in record else "models"].append(record)
    if not any("error" not in m for m in result["models"]):
        reasons = [m["error"] for m in result["models"]] + [f"{s['spec']}: {s['skipped']}" for s in result["skipped"]]
        raise EdgeRankerError(f"no model could be benchmarked: {'; '.join(reasons)}")
    result["files"] = _write(result, out, stem)
    return result


def has_matplotlib() -> bool:
    """The chart is the only part of the benchmark that needs the ``bench`` extra."""
    return importlib.util.find_spec("matplotlib") is not None


def _write(result: dict, out: Path, stem: str) -> dict[str, str | None]:
    """The JSON always; the PNG chart only where matplotlib is installed; written together (``write_files``)."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, png = out / f"{stem}.json", out / f"{stem}.png"
    made = {json_path: json.dumps(result, indent=2).encode("utf-8")}
    if has_matplotlib():
        from edge_ranker.bench.report import chart

        made[png] = chart(result)
    write_files(made)
    if png not in made:  # an earlier run's chart would stand beside these results as theirs
        png.unlink(missing_ok=True)
    return {"json": str(json_path), "png": str(png) if png in made else None}
