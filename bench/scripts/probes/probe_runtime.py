"""Attack the runtime as a careless user and a hostile environment would, and count what happens.

Probes: bad CLI input; processes killed while writing; processes opening one new database at once; a full
disk (a 512 kB tmpfs when run as root, else SQLite's page limit); paths that are not databases, and a database on a
read-only mount (as root); crafted model
folders; ``forget`` while another process reads; 20 s of ranking under strace. Each row counts the runs and
the failures of what must hold: no traceback, no false "corrupted", no acknowledged write lost, no network
attempt, no byte of forgotten text left.

Usage: python bench/scripts/probes/probe_runtime.py [--quick]   (prints a Markdown table; run as root for the
tmpfs and the read-only probe)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import MODELS_DIR, Encoder
from edge_ranker.runtime.store import PreferenceStore

PY = sys.executable
PROCESSES = Path(__file__).resolve().parents[3] / "tests" / "processes"  # the scripts the tests run as other processes
ROWS: list[tuple[str, int, str, int]] = []  # probe, runs, what must hold, failures


def record(probe: str, runs: int, holds: str, failures: int) -> None:
    ROWS.append((probe, runs, holds, failures))
    print(f"{probe}: {runs} runs, {failures} failures of '{holds}'", file=sys.stderr, flush=True)


def cli(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    cmd = [PY, "-m", "edge_ranker.cli", *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=600, env=env)


def clean_error(r: subprocess.CompletedProcess) -> bool:
    lines = r.stderr.strip().splitlines()
    return r.returncode == 2 and "Traceback" not in r.stderr and bool(lines) and "error:" in lines[-1]


def probe_cli(tmp: Path) -> None:
    db = str(tmp / "cli.db")
    good = tmp / "good.jsonl"
    good.write_text('{"id": "a", "text": "x"}\n')
    lines = [
        '{"id": "a"}',
        '{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}',
        '{"id": null, "text": "x"}',
        '{"id": [1], "text": "x"}',
        '{"id": "a", "text": 5}',
        "[" * 100_000 + "]" * 100_000,
        "{not json",
        '{"id": "a", "text": "x", "published": "yesterday"}',
        '{"id": "a", "text": "x", "published": NaN}',
    ]
    options = [
        ["--top", "-3"],
        ["--threads", "0"],
        ["--personal-weight", "nan"],
        ["--lexical-weight", "-1"],
        ["--semantic", str(tmp / "no-model")],
    ]
    runs = fails = 0
    for text in lines:
        runs += 1
        fails += not clean_error(cli("rank", "-", "--db", db, stdin=text + "\n"))
    for opts in options:
        runs += 1
        fails += not clean_error(cli("rank", str(good), "--db", db, *opts))
    for args in (
        ["rank", str(tmp / "missing.jsonl"), "--db", db],
        ["rank", str(tmp), "--db", db],
        ["prefs", "export", "--db", db, "--out", str(tmp / "no" / "x.json")],
        ["prefs", "export", "--db", str(tmp)],
        ["prefs", "recover", "--db", str(tmp / "none.db")],
        ["prefs", "recover", "--db", db],
    ):
        runs += 1
        fails += not clean_error(cli(*args))
    blocked = "import sys\nfor m in ('torch', 'transformers', 'onnx', 'sklearn', 'scipy'):\n    sys.modules[m] = None\n"
    for args in (["distill", "semantic", "--vocab", str(tmp), "--out", str(tmp / "o")], ["eval", "semantic"]):
        runs += 1
        r = subprocess.run(
            [PY, "-c", f"{blocked}from edge_ranker.cli import main\nsys.exit(main({args!r}))"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        fails += not (clean_error(r) and "edge-ranker[train]" in r.stderr)
    runs += 1  # a reader that stops early: output well past a pipe's 64 kB buffer
    big = tmp / "big.jsonl"
    big.write_text("".join(json.dumps({"id": str(i), "text": f"document {i} " * 10}) + "\n" for i in range(2000)))
    r = subprocess.run(
        ["bash", "-o", "pipefail", "-c", f"{PY} -m edge_ranker.cli rank {big} --json --db {db} | head -c 1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    fails += "Traceback" in r.stderr or r.returncode != 0
    record(
        "CLI: bad lines, options, paths, missing extras, a closed pipe",
        runs,
        "exit 2 with a one-line error, no traceback",
        fails,
    )


WRITER = """
import sys, numpy as np
from edge_ranker.runtime.store import PreferenceStore
s = PreferenceStore(sys.argv[1])
rng = np.random.default_rng(int(sys.argv[2]))
i = 0
while True:
    s.space("m").add_feedback(f"{sys.argv[2]}-{i}", rng.normal(size=128), "like", text="t" * 200)
    print(f"{sys.argv[2]}-{i}", flush=True)
    i += 1
"""


def probe_kills(tmp: Path, runs: int) -> None:
    db = tmp / "kill.db"
    PreferenceStore(db).close()
    acked: list[str] = []
    for run in range(runs):
        proc = subprocess.Popen([PY, "-c", WRITER, str(db), str(run)], stdout=subprocess.PIPE, text=True)
        first = proc.stdout.readline()
        time.sleep(0.01 * (run % 7))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        acked += [x.strip() for x in [first, *out.splitlines()] if x.strip()]
    con = sqlite3.connect(db)
    stored = {r[0] for r in con.execute("SELECT doc_id FROM feedback")}
    healthy = con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    lost = sum(a not in stored for a in acked)
    record(
        f"SIGKILL while writing ({len(acked)} acknowledged writes)",
        runs,
        "no acknowledged write lost, file intact",
        lost + (not healthy),
    )


def probe_concurrent_opens(tmp: Path, per_process: int) -> None:
    start = str(time.time() + 2.0)
    procs = [
        subprocess.Popen(
            [PY, PROCESSES / "open_stores.py", str(tmp), start, str(per_process)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outs = [p.communicate() for p in procs]
    failed = sum(int(o[0] or 0) for o in outs)
    record("4 processes opening one new database at once", 4 * per_process, "every open succeeds", failed)


def probe_full_disk(tmp: Path) -> None:
    mount = tmp / "small"
    mount.mkdir()
    real = (
        os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True
        ).returncode
        == 0
    )
    try:
        s = PreferenceStore(mount / "p.db")
        if not real:
            pages = s._db.execute("PRAGMA page_count").fetchone()[0]
            s._db.execute(f"PRAGMA max_page_count={pages + 40}")
        written = fails = attempts = 0
        for i in range(2000):
            try:
                s.space("m").add_feedback(f"d{i}", np.ones(128, np.float32), "like", text="x" * 4000)
                written += 1
            except EdgeRankerError as exc:
                attempts += 1
                fails += "disk is full" not in str(exc) or "rollback" in str(exc)
                if attempts == 20:
                    break
        fails += s.feedback_count() != written
        s.close()
    finally:
        if real:
            subprocess.run(["umount", str(mount)], check=True)
    where = "a full 512 kB tmpfs" if real else "SQLite's page limit"
    record(
        f"writes on {where} ({written} fitted)",
        attempts,
        "'disk is full' named, nothing half-written, count exact",
        fails,
    )


def probe_open_failures(tmp: Path) -> None:
    cases = tmp / "paths"
    cases.mkdir()
    (cases / "folder.db").mkdir()
    (cases / "link.db").symlink_to(cases / "gone" / "x.db")
    (cases / "file").write_text("x")
    paths = [cases / "folder.db", cases / "link.db", cases / "file" / "p.db"]
    runs = fails = 0
    for p in paths:
        runs += 1
        try:
            PreferenceStore(p)
            fails += 1
        except EdgeRankerError as exc:
            fails += "corrupted" in str(exc)
    ro = cases / "ro"
    ro.mkdir()
    if os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(ro)]).returncode == 0:
        try:  # root ignores file modes: a read-only mount is read-only for root too
            PreferenceStore(ro / "p.db").close()
            subprocess.run(["mount", "-o", "remount,ro", str(ro)], check=True)
            runs += 1
            try:
                PreferenceStore(ro / "p.db").space("m").add_feedback("a", np.ones(4, np.float32), "like")
                fails += 1
            except EdgeRankerError as exc:
                fails += "corrupted" in str(exc) or not re.search("read-only|cannot open", str(exc))
        finally:
            subprocess.run(["umount", str(ro)], check=True)
    record(
        "opening a folder, a dangling link, a path under a file, a file on a read-only mount",
        runs,
        "refused with what is wrong, never 'corrupted'",
        fails,
    )


def probe_recover(tmp: Path) -> None:
    p = tmp / "rec.db"
    runs = fails = 0
    for n in range(3):
        runs += 1
        p.write_bytes(f"damaged {n} ".encode() * 500)
        Path(str(p) + "-wal").write_bytes(f"wal {n}".encode())
        moved = PreferenceStore.recover(p)
        fails += not (
            moved.read_bytes().startswith(f"damaged {n}".encode())
            and Path(str(moved) + "-wal").read_bytes() == f"wal {n}".encode()
        )
    runs += 1
    fails += sum(not c.name.endswith(("-wal", "-shm")) for c in PreferenceStore.recovery_copies(p)) != 3
    record("recover three times within a second", runs, "every copy kept whole, with its WAL", fails)


def probe_models(tmp: Path) -> None:
    crafted = [
        {"onnx": "/etc/hostname"},
        {"onnx": "../other/model.onnx"},
        {"tokenizer": "/etc/passwd"},
        {"files": {"/etc/passwd": {"sha256": "0" * 64, "bytes": 1}}},
        {"max_length": 0},
        {"max_length": -5},
        {"max_length": 100000},
        {"max_length": 4000},
        {"max_length": "64"},
        {"dim": 64},
        {"dim": None},
        {"prefixes": ["x"]},
        {"files": []},
        {"files": {"model.onnx": None}},
        {"languages": "en"},
        {"schema_version": "1"},
        {"name": 5},
    ]
    runs = fails = 0
    for change in [*crafted, "deep", "not-json", "empty"]:
        runs += 1
        folder = tmp / f"model-{runs}"
        shutil.copytree(MODELS_DIR / "semantic", folder)
        m = json.loads((folder / "manifest.json").read_text())
        if isinstance(change, dict):
            m.update(change)
            text = json.dumps(m)
        else:
            text = {"deep": "[" * 100_000 + "]" * 100_000, "not-json": "{", "empty": ""}[change]
        (folder / "manifest.json").write_text(text)
        try:
            Encoder.load(folder)
            fails += 1
        except EdgeRankerError:
            pass
        except Exception:  # any other type is a failure of the probe
            fails += 1
        shutil.rmtree(folder)
    record("crafted model folders", runs, "one clear EdgeRankerError, nothing read outside the folder", fails)


def probe_forget(tmp: Path) -> None:
    p = tmp / "forget.db"
    runs = fails = 0
    for reader in (False, True, False):
        runs += 1
        s = PreferenceStore(p)
        for i in range(200):
            s.space("m").add_feedback(f"d{i}", np.ones(128, np.float32), "like", text="FORGET-ME-PLEASE " * 20)
        proc = None
        if reader:
            proc = subprocess.Popen(
                [PY, PROCESSES / "read_store.py", str(p)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
            )
            proc.stdout.readline()
        try:
            s.erase()
            said_deleted = True
        except EdgeRankerError:
            said_deleted = False
        left = sum(q.read_bytes().count(b"FORGET-ME") for q in tmp.iterdir() if q.name.startswith(p.name))
        fails += said_deleted and left > 0
        if proc:
            proc.communicate(b"\n")
        s.close()
    record(
        "forget, alone and while another process reads", runs, "never 'deleted' while a byte of the text remains", fails
    )


LOOP = """
import sys, time
from edge_ranker import Encoder, PreferenceStore, Ranker
ranker = Ranker(Encoder.load("semantic"), Encoder.load("relevance"), PreferenceStore(sys.argv[1]))
docs = [{"id": str(i), "text": f"document {i} about rivers and trains"} for i in range(50)]
ranker.feedback(docs[0], "like")
end = time.time() + float(sys.argv[2])
while time.time() < end:
    ranker.rank(docs, query="train")
"""


def probe_network(tmp: Path, seconds: float) -> None:
    if shutil.which("strace") is None:
        return
    home = tmp / "home"
    home.mkdir()
    log = tmp / "strace.log"
    env = {**os.environ, "HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run(
        [
            "strace",
            "-f",
            "-qq",
            "-e",
            "trace=connect,sendto,sendmsg",
            "-o",
            str(log),
            PY,
            "-c",
            LOOP,
            str(tmp / "net" / "p.db"),
            str(seconds),
        ],
        env=env,
        check=True,
        timeout=600,
    )
    calls = [x for x in log.read_text().splitlines() if "AF_UNIX" not in x and re.search(r"connect|send", x)]
    record(
        f"{seconds:.0f} s of ranking under strace, fresh HOME",
        1,
        "no connect or send outside Unix sockets, nothing written to HOME",
        len(calls) + any(home.rglob("*")),
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer kills and opens, 5 s of ranking")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, probe in (
            ("cli", lambda t: probe_cli(t)),
            ("kills", lambda t: probe_kills(t, 10 if a.quick else 40)),
            ("opens", lambda t: probe_concurrent_opens(t, 5 if a.quick else 15)),
            ("disk", probe_full_disk),
            ("paths", probe_open_failures),
            ("recover", probe_recover),
            ("models", probe_models),
            ("forget", probe_forget),
            ("network", lambda t: probe_network(t, 5 if a.quick else 20)),
        ):
            (tmp / name).mkdir()
            probe(tmp / name)
    print("| probe | runs | what must hold | failures |\n|---|---|---|---|")
    for row in ROWS:
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
