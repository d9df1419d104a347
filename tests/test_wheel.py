"""The package as a new user gets it: sdist and wheel built from this tree, the wheel installed (runtime only) into a
fresh virtual environment, and every runtime command run from a folder outside the repository with HOME in a temp
folder. Catches what the editable install hides: files missing from the package, imports of extras, writes into
the current folder. Needs the package index (or pip's cache) for the build backend and the runtime's dependencies.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PIP_QUIET = ["--quiet", "--disable-pip-version-check"]


@dataclass
class Install:
    sdist: Path
    wheel: Path
    venv: Path
    tmp: Path

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """``edge-ranker ARGS`` from the fresh venv, in a folder outside the repository, HOME in tmp."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "EDGE_RANKER_", "PYTHON", "VIRTUAL"))}
        env.update(HOME=str(self.tmp / "home"), PATH=f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
        return subprocess.run(
            [str(self.venv / "bin" / "edge-ranker"), *args],
            cwd=self.tmp / "work",
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _check(cmd: list[str], **kw) -> None:
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert out.returncode == 0, f"{cmd}\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"


@pytest.fixture(scope="module")
def install(tmp_path_factory) -> Install:
    """One build and one venv for the whole module: the install is the slow part."""
    pytest.importorskip("build", reason="the dev extra's `build` builds the sdist and wheel")
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    _check([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)])  # the wheel is built from the sdist
    (sdist,), (wheel,) = dist.glob("*.tar.gz"), dist.glob("*.whl")
    venv = tmp / "venv"
    _check([sys.executable, "-m", "venv", str(venv)])
    _check([str(venv / "bin" / "python"), "-m", "pip", "install", *PIP_QUIET, str(wheel)])
    (tmp / "work").mkdir()
    (tmp / "home").mkdir()
    return Install(sdist, wheel, venv, tmp)


def test_sdist_leaves_the_tests_out_and_carries_the_license(install):
    with tarfile.open(install.sdist) as tar:
        names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    assert "LICENSE" in names and "edge_ranker/models/semantic/model.onnx" in names
    assert not [n for n in names if n.startswith("tests")]


def test_wheel_metadata_and_files(install):
    with zipfile.ZipFile(install.wheel) as whl:
        names = whl.namelist()
        meta = next(whl.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: Apache-2.0" in meta and "License-File: LICENSE" in meta
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert {"edge_ranker/demo/feed.jsonl", "edge_ranker/models/relevance/tokenizer.json"} <= set(names)
    assert {"edge_ranker/recipes/semantic.json", "edge_ranker/recipes/relevance.json"} <= set(names)
    # the product only: comparisons against old checkouts, variants and vocabularies live in bench/ and vocab/
    experiments = {"bench/scale.py", "bench/ranking.py", "vocab/compare.py", "export/compare.py"}
    assert not {f"edge_ranker/{m}" for m in experiments} & set(names)
    if (ROOT / "edge_ranker" / "py.typed").exists():
        assert "edge_ranker/py.typed" in names


def test_the_training_commands_explain_themselves_on_the_runtime_install(install):
    """Their options come from the recipe files and dataclasses, which need no training extra to list."""
    helped = install.run("distill", "--help")
    assert helped.returncode == 0 and "relevance or semantic" in helped.stdout and "--parallel" in helped.stdout
    missing = install.run("distill", "semantic", "--vocab", "v", "--out", "o", "--parallel", "sv-en=none.tsv")
    assert (
        missing.returncode == 2
        and missing.stderr.startswith("edge-ranker: error:")
        and "Traceback" not in missing.stderr
    )


def test_runtime_install_has_no_training_stack(install):
    extras = ("torch", "transformers", "matplotlib")
    probe = f"import importlib.util as u, sys; sys.exit(any(u.find_spec(m) for m in {extras!r}))"
    _check([str(install.venv / "bin" / "python"), "-c", probe])
    _check([str(install.venv / "bin" / "python"), "-c", "from edge_ranker import *; Ranker, Encoder, build_vocab"])
    # help() and inspect read every name dir() lists: the training ones, which cannot load here, are not listed
    helped = subprocess.run(
        [str(install.venv / "bin" / "python"), "-c", "import edge_ranker; help(edge_ranker)"],
        capture_output=True,
        text=True,
        env={**os.environ, "PAGER": "cat"},
        timeout=120,
    )
    assert helped.returncode == 0 and "PreferenceStore" in helped.stdout, helped.stderr[-600:]


def test_demo(install):
    out = install.run("demo", "--top", "3")
    assert out.returncode == 0, out.stderr
    assert "simulated user:" in out.stdout and "on this device" in out.stdout


def test_rank_feedback_and_prefs(install):
    db = str(install.tmp / "prefs" / "preferences.sqlite")
    feed = install.tmp / "work" / "feed.jsonl"
    docs = [
        {"id": "d1", "text": "NASA launches a new space telescope"},
        {"id": "d2", "text": "Derby ends in a draw after a late goal"},
        {"id": "d3", "text": "Die Raumsonde hat Wasser auf einem Jupitermond gefunden."},
    ]
    feed.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")

    liked = install.run("feedback", "like", "a1", "--text", "Astronomers find water on a moon of Jupiter", "--db", db)
    assert liked.returncode == 0, liked.stderr
    assert json.loads(liked.stdout)["reaction"] == "like"

    ranked = install.run("rank", "feed.jsonl", "--query", "space telescope", "--db", db)
    assert ranked.returncode == 0, ranked.stderr
    ids = [json.loads(line)["id"] for line in ranked.stdout.splitlines()]
    assert sorted(ids) == ["d1", "d2", "d3"] and ids[-1] == "d2"

    exported = install.run("prefs", "export", "--db", db)
    assert exported.returncode == 0, exported.stderr
    assert "a1" in exported.stdout

    forgot = install.run("prefs", "erase", "--db", db)
    assert forgot.returncode == 0, forgot.stderr
    assert "deleted all feedback and interests" in forgot.stdout
    assert "a1" not in install.run("prefs", "export", "--db", db).stdout


def test_bench_without_the_bench_extra(install):
    """The base install has neither matplotlib nor teachers: the table prints, both are named, exit 0."""
    out_dir = install.tmp / "bench-out"
    out = install.run("bench", "semantic", "teacher:use-multilingual-v3", "--runs", "20", "--out", str(out_dir))
    assert out.returncode == 0, out.stderr
    assert "p50 ms b1 short" in out.stdout and "semantic (int8-weights)" in out.stdout
    assert "chart skipped: it needs matplotlib, which comes with pip install 'edge-ranker[bench]'" in out.stdout
    assert "skipped teacher:use-multilingual-v3: not installed" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
    assert [p.suffix for p in out_dir.iterdir()] == [".json"]
    assert not list((install.tmp / "work").glob("bench*"))  # nothing written into the current folder
