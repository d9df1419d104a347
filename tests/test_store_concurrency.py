"""Threads and processes on one store: nothing acknowledged is lost, locks are waited on once."""

from __future__ import annotations

import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.interests import CoIConfig
from edge_ranker.runtime.store import PreferenceStore

PROCESSES = Path(__file__).parent / "processes"  # scripts run as other processes


def vec(*xs):
    return np.array(xs, dtype=np.float32)


def test_eight_threads(tmp_path):
    s = PreferenceStore(tmp_path / "p.db", CoIConfig())
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(8, 50, 16)).astype(np.float32)
    errors = []

    def work(t):
        try:
            for i in range(50):
                s.space("m").add_feedback(f"{t}-{i}", vecs[t, i], "like" if i % 3 else "dislike")
                s.space("m").interests()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors
    assert s.feedback_count() == 400
    e = s.export()
    pos_views = sum(i["view_count"] for i in e["interests"] if i["positive"])
    assert pos_views == sum(1 for t in range(8) for i in range(50) if i % 3)  # every like counted once


WRITER = """
import sys, numpy as np
from edge_ranker.runtime.store import PreferenceStore
s = PreferenceStore(sys.argv[1])
rng = np.random.default_rng(int(sys.argv[2]))
i = 0
while True:
    s.space("m").add_feedback(f"{sys.argv[2]}-{i}", rng.normal(size=32), "like" if i % 2 else "dislike")
    print(f"{sys.argv[2]}-{i}", flush=True)  # acknowledged only after the commit returned
    i += 1
"""


def test_sigkill_while_writing_loses_nothing_acknowledged(tmp_path):
    db = tmp_path / "p.db"
    PreferenceStore(db).close()
    acked: list[str] = []
    for run in range(50):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(run)], stdout=subprocess.PIPE, text=True)
        time.sleep(0.05 + (run % 5) * 0.02)
        deadline = time.time() + 10
        first = proc.stdout.readline()  # make sure it is writing when killed
        assert first or time.time() > deadline
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        acked += [first.strip()] + [x for x in out.splitlines() if x.strip()]
        acked = [a for a in acked if a]
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {r[0] for r in con.execute("SELECT doc_id FROM feedback")}
    missing = [a for a in acked if a not in stored]
    assert not missing, missing[:5]
    # every event's interest update landed in the same transaction
    events = con.execute("SELECT COUNT(*) FROM feedback WHERE reaction='like'").fetchone()[0]
    views = con.execute("SELECT COALESCE(SUM(view_count), 0) FROM interests WHERE positive=1").fetchone()[0]
    assert views == events
    con.close()


def test_four_processes_opening_a_new_database_at_once(tmp_path):
    """60 rounds of four processes creating one store together: a look at a store between another process's two
    steps of creating it once read as another application's database."""
    start = str(time.time() + 2.0)
    procs = [
        subprocess.Popen(
            [sys.executable, PROCESSES / "open_stores.py", str(tmp_path), start, "60", "0.04"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outcomes = [p.communicate() for p in procs]
    assert [int(out) for out, _ in outcomes] == [0, 0, 0, 0], [err for _, err in outcomes if err]
    for i in range(60):
        assert PreferenceStore(tmp_path / f"db{i}.sqlite").feedback_count() == 0


def create(path: Path) -> None:
    """What a store's first open writes, in one transaction (``PreferenceStore._create``)."""
    from edge_ranker.runtime.store.sqlite import APPLICATION_ID, SCHEMA, SCHEMA_VERSION

    con = sqlite3.connect(path, isolation_level=None)
    pragmas = f"PRAGMA user_version={SCHEMA_VERSION}; PRAGMA application_id={APPLICATION_ID};"
    con.executescript(f"BEGIN IMMEDIATE; {SCHEMA} {pragmas} COMMIT;")
    con.close()


class _CreatedMidway:
    """A connection whose store another process creates right after its first read of the file's header."""

    def __init__(self, con: sqlite3.Connection, path: Path) -> None:
        self.con, self.path, self.done = con, path, False

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        cursor = self.con.execute(sql, *args)
        if "application_id" in sql and not self.done:
            self.done = True
            create(self.path)  # another process's first open, between this look's reads
        return cursor

    def close(self) -> None:
        self.con.close()


def test_a_store_created_while_it_is_looked_at_reads_as_being_created(tmp_path, monkeypatch):
    """The look before the open reads the header and the tables in one snapshot: read across another process's
    creation, they called a new store "another application's SQLite database" (a race four processes met)."""
    from edge_ranker.runtime.store import sqlite as store_sqlite

    db = tmp_path / "p.db"
    db.touch()
    sqlite3.connect(db).execute("PRAGMA journal_mode=WAL").fetchone()  # as another process's open leaves it
    wrap = store_sqlite.with_functions
    monkeypatch.setattr(store_sqlite, "with_functions", lambda con: _CreatedMidway(wrap(con), db))
    assert store_sqlite.inspect_file(db) == 0
    monkeypatch.undo()
    assert PreferenceStore(db).feedback_count() == 0


def test_a_lock_held_elsewhere_costs_a_cache_write_little_and_a_reaction_one_wait(tmp_path, monkeypatch):
    """Saving document vectors is a cache's write: it gives up after ``CACHE_WAIT_S``, so that a reaction behind it
    waits ``BUSY_TIMEOUT_S`` once, not once per step."""
    from edge_ranker.runtime.store import space, sqlite

    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(space, "CACHE_WAIT_S", 0.1)
    db = tmp_path / "p.db"
    s = PreferenceStore(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        with pytest.raises(EdgeRankerError, match="locked"):
            s.space("m").save_vectors("", [b"h" * 16], np.ones((1, 4), np.float32))
        assert time.monotonic() - start < 0.8
        with pytest.raises(EdgeRankerError, match="locked by another process"):
            s.space("m").add_feedback("a", vec(1, 0), "like")
        assert time.monotonic() - start < 2.5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    s.space("m").add_feedback("a", vec(1, 0), "like")
    assert s.feedback_count() == 1


def test_a_second_store_on_an_open_file_keeps_the_first_ones_locks_and_so_its_writes(tmp_path):
    """Closing any descriptor of a file drops the process's POSIX locks on it, SQLite's included: a second store's
    look at the file's header made the next process to close think itself the last, delete the WAL under the first
    store, and lose what it wrote after (and what that process wrote, when the first closed last)."""
    path = tmp_path / "p.db"
    first = PreferenceStore(path)
    first.space("m").add_feedback("app0", vec(1, 0), "like")
    PreferenceStore(path, read_only=True).close()  # an app showing the user their data
    PreferenceStore(path).close()
    for name in ("", "-shm"):  # the same files under other names: their locks are the same
        os.link(f"{path}{name}", tmp_path / "backup.json")
        with pytest.raises(EdgeRankerError, match="is a SQLite database"):
            first.export_to(tmp_path / "backup.json")
        os.unlink(tmp_path / "backup.json")
    if Path("/proc/self/fd").is_dir():  # SQLite's own descriptor of the file (opening one here would drop the locks)
        fds = [f for f in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{f}") == str(path.resolve())]
        with pytest.raises(EdgeRankerError, match="is a SQLite database"):
            first.export_to(f"/proc/self/fd/{fds[0]}")
    unclosed = PreferenceStore(path)  # collected unclosed: its connection closes before its file counts as free
    connection = unclosed._db
    del unclosed
    gc.collect()
    with pytest.raises(sqlite3.ProgrammingError):
        connection.execute("SELECT 1")
    write = "import sys; from edge_ranker.runtime.store import PreferenceStore as S; s = S(sys.argv[1]); "
    write += "s.space('m').add_feedback(sys.argv[2], [0.0, 1.0], 'like'); s.close()"
    for n in (1, 3):
        subprocess.run([sys.executable, "-c", write, str(path), f"other{n}"], check=True)
        first.space("m").add_feedback(f"app{n + 1}", vec(1, 0), "like")
    assert Path(f"{path}-wal").exists()  # the first store's WAL is still there, where other processes look
    read = "import sys, json; from edge_ranker.runtime.store import PreferenceStore as S; "
    read += "print(json.dumps([f['doc_id'] for f in S(sys.argv[1], read_only=True).export()['feedback']]))"
    seen = json.loads(subprocess.run([sys.executable, "-c", read, str(path)], check=True, capture_output=True).stdout)
    first.close()
    assert seen == ["app0", "other1", "app2", "other3", "app4"]
    with PreferenceStore(path, read_only=True) as s:
        assert [f["doc_id"] for f in s.export()["feedback"]] == seen


def test_stores_collected_unclosed_in_any_code_let_go_without_a_deadlock(tmp_path):
    """The garbage collector frees an unclosed store wherever it runs, within the registry's own code too: letting go
    takes no lock. Each store counts once, and none is left held."""
    code = """
import gc, sys
from pathlib import Path
from edge_ranker.runtime.store import files, preferences as st
paths = [Path(sys.argv[1]) / f"{i}.db" for i in range(2)]
for p in paths:
    st.PreferenceStore(p).close()
gc.set_threshold(7)
for i in range(300):
    s = st.PreferenceStore(paths[i % 2])
    s.me = s  # a cycle: freed by the collector, at any allocation
    del s
    for _ in range(5):
        files.is_sqlite(paths[(i + 1) % 2])
gc.collect()
print(files.held(paths[0]), files.held(paths[1]))
"""
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_a_store_still_being_created_reads_as_empty(tmp_path):
    """A first open writes the file's header (switching it to WAL) before its schema: a reader in between sees a
    store with no table yet, which is an empty store, not an error."""
    path = tmp_path / "p.db"
    creating = sqlite3.connect(path)
    creating.execute("PRAGMA journal_mode=WAL")
    with PreferenceStore(path, read_only=True) as reader:
        assert reader.feedback_count() == 0
        assert reader.export()["feedback"] == [] and reader.space("k").interests() == ([], [])
    creating.close()
    with PreferenceStore(path) as store:  # and the creating open then finishes the store as ever
        store.space("k").add_feedback("d", vec(1, 0), "like", text="t")
    with PreferenceStore(path, read_only=True) as reader:
        assert reader.feedback_count() == 1
