from __future__ import annotations

import gc
import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.interests import CoIConfig
from edge_ranker.runtime.store import SCHEMA_VERSION, CorruptedDatabase, PreferenceStore


def vec(*xs):
    return np.array(xs, dtype=np.float32)


def test_like_shifts_close_interest_and_creates_far_one(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0, 0), "like", "m", ts=100)
    s.add_feedback("b", vec(0.9, 0.1, 0), "like", "m", ts=200)  # cos > 0.67: shift
    pos, neg = s.interests("m")
    assert len(pos) == 1 and pos[0].view_count == 2 and pos[0].last_view == 200
    expected = 0.9 * vec(1, 0, 0) + 0.1 * vec(0.9, 0.1, 0) / np.linalg.norm(vec(0.9, 0.1, 0))
    np.testing.assert_allclose(pos[0].point, expected / np.linalg.norm(expected), rtol=1e-5)
    s.add_feedback("c", vec(0, 1, 0), "like", "m")  # far: new interest
    s.add_feedback("d", vec(0, 0, 1), "dislike", "m")
    pos, neg = s.interests("m")
    assert len(pos) == 2 and len(neg) == 1
    assert s.interests("other-model") == ([], [])


def test_bad_input_keeps_what_is_stored(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m")
    for bad in [
        ("a", vec(0, 0), "like"),
        ("a", vec(np.nan, 1), "like"),
        ("a", vec(1, 0), "love"),
        ("", vec(1, 0), "like"),
        ("lone \ud800 id", vec(1, 0), "like"),
    ]:
        with pytest.raises(EdgeRankerError):
            s.add_feedback(*bad, "m")
    assert s.feedback_count() == 1 and len(s.interests("m")[0]) == 1
    s.add_feedback("b", vec(1, 0), "like", "m", text="caf\ud800e")  # text is cleaned, as everywhere else
    assert [e["text"] for e in s.export()["feedback"]][-1] == "caf?e"


def test_export_and_forget(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m", text="héllo 😀")
    e = s.export()
    assert e["schema_version"] == SCHEMA_VERSION
    assert e["feedback"][0]["text"] == "héllo 😀" and len(e["interests"]) == 1
    s.erase()
    assert s.export()["feedback"] == [] and s.export()["interests"] == []
    files = [q for q in tmp_path.iterdir() if q.name.startswith("p.db")]  # while the store is open: WAL included
    assert not any("héllo".encode() in q.read_bytes() for q in files)


def test_an_export_never_replaces_the_database_or_an_earlier_export(tmp_path, monkeypatch):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m", text="kept")
    PreferenceStore(tmp_path / "other.db").close()  # another profile's store
    (tmp_path / "link.db").symlink_to(tmp_path / "p.db")
    for target in ("p.db", "p.db-wal", "p.db-shm", "p.db-journal", "sub/../p.db-journal", "link.db", "other.db"):
        with pytest.raises(EdgeRankerError, match="SQLite database or one of its files"):
            s.export_to(tmp_path / target)
    assert PreferenceStore(tmp_path / "p.db").export()["feedback"][0]["text"] == "kept"
    (tmp_path / "real").mkdir()
    (tmp_path / "backup.json").symlink_to(tmp_path / "real" / "backup.json")
    out = s.export_to(tmp_path / "backup.json")  # a link is followed: the file it names is written
    assert out == tmp_path / "real" / "backup.json" and (tmp_path / "backup.json").is_symlink()
    earlier = out.read_bytes()
    s.add_feedback("b", vec(0, 1), "like", "m", text="new")
    for failure, expected in (
        (OSError(28, "No space left on device"), "No space left on device; the earlier file there is unchanged"),
        (KeyboardInterrupt(), None),
    ):

        def fail(fd, failure=failure):
            raise failure

        monkeypatch.setattr(os, "fsync", fail)
        with pytest.raises(EdgeRankerError if expected else KeyboardInterrupt, match=expected):
            s.export_to(out)
        assert out.read_bytes() == earlier
        assert [q.name for q in out.parent.iterdir()] == ["backup.json"]  # no temporary file left, with its data


def test_an_export_refuses_another_databases_wal_and_writes_into_a_pipe(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m", text="kept")
    con = sqlite3.connect(tmp_path / "app.db")  # another application's database, its rows still in its WAL
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("CREATE TABLE t (x)")
    con.execute("INSERT INTO t VALUES ('precious')")
    con.commit()
    before = (tmp_path / "app.db-wal").read_bytes()
    with pytest.raises(EdgeRankerError, match="SQLite database or one of its files"):
        s.export_to(tmp_path / "app.db-wal")
    assert (tmp_path / "app.db-wal").read_bytes() == before
    con.close()
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    assert s.export_to(fifo) == fifo and fifo.exists() and not fifo.is_file()
    assert json.loads(reader.communicate(timeout=60)[0])["feedback"][0]["text"] == "kept"
    with pytest.raises(EdgeRankerError, match="is a file, not a folder"):
        s.export_to(tmp_path / "p.db" / "x.json")


def test_store_settings_are_checked(tmp_path):
    for kwargs, match in (
        ({"max_vectors": "5"}, "max_vectors"),
        ({"max_vectors": 0}, "max_vectors"),
        ({"config": "x"}, "CoIConfig"),
        ({"read_only": "no"}, "read_only must be True or False"),  # a non-empty string would open read-only
    ):
        with pytest.raises(EdgeRankerError, match=match):
            PreferenceStore(tmp_path / "p.db", **kwargs)
    with PreferenceStore(tmp_path / "p.db", max_vectors=np.int64(3)) as s:  # numpy's integers are whole numbers
        assert s.max_vectors == 3 and type(s.max_vectors) is int


def test_a_path_that_is_not_a_path_is_refused_and_home_is_expanded(tmp_path, monkeypatch):
    for bad in (5, b"/tmp/x.db", "  "):
        with pytest.raises(EdgeRankerError, match="preference database path"):
            PreferenceStore(bad)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert PreferenceStore("~/prefs.db").path == tmp_path / "prefs.db"


def test_newer_schema_refused(tmp_path):
    p = tmp_path / "p.db"
    PreferenceStore(p).close()
    con = sqlite3.connect(p)
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(EdgeRankerError, match="newer"):
        PreferenceStore(p)


def test_corrupted_database_clear_error_and_recovery(tmp_path):
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    s.add_feedback("a", vec(1, 0), "like", "m")
    s.close()
    data = bytearray(p.read_bytes())
    data[:16] = b"garbage garbage!"
    p.write_bytes(bytes(data))
    with pytest.raises(EdgeRankerError, match="corrupted") as exc:
        PreferenceStore(p)
    assert "prefs recover" in str(exc.value)
    assert p.exists()  # nothing deleted
    moved = PreferenceStore.recover(p)
    assert moved.exists() and moved.read_bytes() == bytes(data)  # kept for inspection
    fresh = PreferenceStore(p)
    assert fresh.feedback_count() == 0


def test_eight_threads(tmp_path):
    s = PreferenceStore(tmp_path / "p.db", CoIConfig())
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(8, 50, 16)).astype(np.float32)
    errors = []

    def work(t):
        try:
            for i in range(50):
                s.add_feedback(f"{t}-{i}", vecs[t, i], "like" if i % 3 else "dislike", "m")
                s.interests("m")
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
    s.add_feedback(f"{sys.argv[2]}-{i}", rng.normal(size=32), "like" if i % 2 else "dislike", "m")
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


def test_view_time_goes_to_closest_positive_interest(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m")
    s.add_feedback("b", vec(0, 1), "like", "m")
    s.add_view_time(vec(0.1, 1), 42.0, "m")
    pos, _ = s.interests("m")
    assert [c.view_time for c in pos] == [0.0, 42.0]
    with pytest.raises(EdgeRankerError):
        s.add_view_time(vec(1, 0), -1, "m")


def test_public_api_names_resolve():
    import edge_ranker
    from edge_ranker.runtime.store import LockedDatabase

    for name in edge_ranker.__all__:
        assert callable(getattr(edge_ranker, name))
    assert edge_ranker.LockedDatabase is LockedDatabase  # where callers have caught it from
    from edge_ranker.distill import distill

    assert callable(distill)


def test_files_are_private_to_the_user(tmp_path):
    old = os.umask(0o022)
    try:
        p = tmp_path / "new-folder" / "inner" / "p.db"
        s = PreferenceStore(p)
        s.add_feedback("a", vec(1, 0), "like", "m", text="private")
        out = s.export_to(tmp_path / "export.json")
        modes = {q.name: q.stat().st_mode & 0o777 for q in (p, Path(str(p) + "-wal"), out)}
        assert modes == {"p.db": 0o600, "p.db-wal": 0o600, "export.json": 0o600}
        assert p.parent.stat().st_mode & 0o777 == p.parent.parent.stat().st_mode & 0o777 == 0o700
    finally:
        os.umask(old)


def test_a_dwell_time_stored_as_infinity_reads_back_finite(tmp_path):
    """A store may hold an infinite dwell time (views without the per-view bound): read back, it stays finite."""
    p = tmp_path / "p.db"
    with PreferenceStore(p) as s:
        s.add_feedback("a", vec(1, 0), "like", "m")
        s.add_feedback("b", vec(0, 1), "like", "m")
        s._db.execute("UPDATE interests SET view_time = 9e999 WHERE id = 1")
    with PreferenceStore(p) as s:
        times = [c.view_time for c in s.interests("m")[0]]
        assert all(math.isfinite(t) for t in times) and times[0] > times[1]
        assert all(math.isfinite(i["view_time"]) for i in s.export()["interests"])
        json.loads(s.export_json(), parse_constant=lambda c: pytest.fail(f"{c} in the export"))


def test_an_existing_store_made_readable_by_others_is_made_private_again(tmp_path):
    p = tmp_path / "p.db"
    with PreferenceStore(p) as s:
        s.add_feedback("a", vec(1, 0), "like", "m", text="private")
    os.chmod(p, 0o644)
    with PreferenceStore(p) as s:
        assert p.stat().st_mode & 0o777 == 0o600 and s.feedback_count() == 1
    link, wal = tmp_path / "link.db", Path(f"{p}-wal")
    link.symlink_to(p)
    os.chmod(p, 0o644)
    wal.write_bytes(b"")
    os.chmod(wal, 0o644)
    with PreferenceStore(link) as s:  # SQLite's WAL lies beside the link's target
        assert p.stat().st_mode & 0o777 == wal.stat().st_mode & 0o777 == 0o600 and s.feedback_count() == 1


def test_secure_delete_is_set_by_the_store(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    assert s._db.execute("PRAGMA secure_delete").fetchone()[0] == 1


READER = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN")
con.execute("SELECT COUNT(*) FROM feedback").fetchone()
print("reading", flush=True)
sys.stdin.readline()
"""


def _bytes_of(p: Path, needle: bytes) -> int:
    return sum(q.read_bytes().count(needle) for q in p.parent.iterdir() if q.name.startswith(p.name))


def test_forget_never_reports_success_while_another_process_reads(tmp_path, monkeypatch):
    monkeypatch.setattr("edge_ranker.runtime.store.preferences.ERASE_WAIT_S", 0.5)
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    for i in range(50):
        s.add_feedback(f"d{i}", vec(1, i), "like", "m", text="SECRET-LIKED-TEXT")
    reader = subprocess.Popen([sys.executable, "-c", READER, str(p)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert reader.stdout.readline().strip() == b"reading"
    with pytest.raises(EdgeRankerError, match="remain"):
        s.erase()
    assert _bytes_of(p, b"SECRET-LIKED-TEXT") > 0  # the error told the truth
    reader.communicate(b"\n")
    s.erase()
    assert s.feedback_count() == 0 and _bytes_of(p, b"SECRET-LIKED-TEXT") == 0


def test_forget_removes_the_copies_recover_left(tmp_path):
    p = tmp_path / "p.db"
    p.write_bytes(b"not a database at all" * 100)
    moved = PreferenceStore.recover(p)
    s = PreferenceStore(p)
    assert s.erase() == [moved] and not moved.exists()


def test_four_processes_opening_a_new_database_at_once(tmp_path):
    code = """
import sys, time
from edge_ranker.runtime.store import PreferenceStore
start, errors = float(sys.argv[2]), 0
for i in range(15):
    while time.time() < start + i * 0.2:
        time.sleep(0.001)
    try:
        PreferenceStore(f"{sys.argv[1]}/db{i}.sqlite").close()
    except Exception as exc:
        errors += 1
        print(exc, file=sys.stderr)
print(errors)
"""
    start = str(time.time() + 2.0)
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path), start], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    assert [int(p.communicate()[0]) for p in procs] == [0, 0, 0, 0]
    for i in range(15):
        assert PreferenceStore(tmp_path / f"db{i}.sqlite").feedback_count() == 0


@pytest.mark.parametrize("kind", ["folder", "dangling-link", "parent-is-a-file"])
def test_open_failures_say_what_is_wrong_not_corrupted(tmp_path, kind):
    if kind == "folder":
        p = tmp_path / "d"
        p.mkdir()
        (p / "keep").write_text("x")
        match = "is a folder"
    elif kind == "dangling-link":
        p = tmp_path / "link.db"
        p.symlink_to(tmp_path / "missing" / "x.db")
        match = "does not exist"
    else:
        (tmp_path / "file").write_text("x")
        p = tmp_path / "file" / "p.db"
        match = "it is a file, not a folder"
    with pytest.raises(EdgeRankerError, match=match) as exc:
        PreferenceStore(p)
    assert "corrupted" not in str(exc.value) and "recover" not in str(exc.value)
    if kind == "folder":
        with pytest.raises(EdgeRankerError, match="is a folder"):
            PreferenceStore.recover(p)
        assert (p / "keep").exists()


def test_a_read_only_database_is_named_so(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m")
    s._db.execute("PRAGMA query_only=1")  # SQLite's own read-only error, as a read-only file or mount gives
    with pytest.raises(EdgeRankerError, match="read-only") as exc:
        s.add_feedback("b", vec(0, 1), "like", "m")
    assert "corrupted" not in str(exc.value)
    assert s.feedback_count() == 1


def test_full_disk_is_reported_as_full_and_loses_nothing(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m")
    pages = s._db.execute("PRAGMA page_count").fetchone()[0]
    s._db.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own SQLITE_FULL, as a full disk gives
    for i in range(3):
        with pytest.raises(EdgeRankerError, match="disk is full"):
            s.add_feedback(f"big{i}", vec(0, 1), "like", "m", text="x" * 100_000)
    assert s.feedback_count() == 1
    s._db.execute("PRAGMA max_page_count=1000000")
    s.add_feedback("b", vec(0, 1), "like", "m")
    assert s.feedback_count() == 2


def test_recover_refuses_missing_and_healthy_files(tmp_path):
    with pytest.raises(EdgeRankerError, match="nothing to recover"):
        PreferenceStore.recover(tmp_path / "none.db")
    p = tmp_path / "p.db"
    PreferenceStore(p).add_feedback("a", vec(1, 0), "like", "m")
    with pytest.raises(EdgeRankerError, match="healthy"):
        PreferenceStore.recover(p)
    assert PreferenceStore(p).feedback_count() == 1
    with PreferenceStore(p) as held:  # moved, the open store would write into the copy
        with pytest.raises(EdgeRankerError, match="open in this process: close the store"):
            PreferenceStore.recover(p)
        assert held.feedback_count() == 1


def test_recover_twice_in_one_second_keeps_both_copies(tmp_path):
    p = tmp_path / "p.db"
    copies = []
    for content in (b"first damaged file " * 200, b"second damaged file " * 200):
        p.write_bytes(content)
        copies.append(PreferenceStore.recover(p))
    assert copies[0] != copies[1]
    assert [c.read_bytes()[:6] for c in copies] == [b"first ", b"second"]


def test_recover_copies_wal_before_removing_anything(tmp_path, monkeypatch):
    p = tmp_path / "p.db"
    p.write_bytes(b"damaged main file " * 200)
    Path(str(p) + "-wal").write_bytes(b"committed rows live here")

    def killed(self, *a, **k):
        raise KeyboardInterrupt  # the process dies at its first removal

    monkeypatch.setattr(Path, "unlink", killed)
    with pytest.raises(KeyboardInterrupt):
        PreferenceStore.recover(p)
    monkeypatch.undo()
    (copy,) = PreferenceStore.recovery_copies(p)[:1]
    assert Path(str(copy) + "-wal").read_bytes() == b"committed rows live here"
    assert p.exists() and Path(str(p) + "-wal").exists()  # nothing removed before the copy was whole


@pytest.mark.parametrize("ts", [float("nan"), float("inf"), -1.0, 253402300799.0, "soon", "123", True])
def test_reaction_times_that_cannot_be_are_refused(tmp_path, ts):
    s = PreferenceStore(tmp_path / "p.db")
    with pytest.raises(EdgeRankerError, match="feedback time"):
        s.add_feedback("a", vec(1, 0), "like", "m", ts=ts)
    assert s.feedback_count() == 0
    s.add_feedback("a", vec(1, 0), "like", "m", ts=time.time() + 60)  # a clock a minute ahead is fine


def test_a_damaged_database_with_a_wal_is_refused_untouched(tmp_path):
    """SQLite's own integrity check finds the damage; the refusal must not write the WAL into the damaged file
    (a read-write connection does so when it closes)."""
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    for i in range(200):
        s.add_feedback(f"d{i}", vec(1, i), "like", "m", text="text " * 50)
    s._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    s._db.execute("PRAGMA wal_autocheckpoint=0")
    s.add_feedback("late", vec(0, 1), "like", "m", text="only in the WAL")
    data = bytearray(p.read_bytes())
    data[4096 * 10 : 4096 * 10 + 64] = b"\xff" * 64  # a damaged page in the middle (not one the WAL rewrites)
    p.write_bytes(bytes(data))
    wal = Path(str(p) + "-wal")
    before = (p.read_bytes(), wal.read_bytes())
    with pytest.raises(CorruptedDatabase):
        PreferenceStore(p)
    assert (p.read_bytes(), wal.read_bytes()) == before


def test_another_applications_database_is_refused_untouched(tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE notes (body TEXT)")
    con.execute("PRAGMA user_version=53")
    con.commit()
    con.close()
    before = p.read_bytes()
    with pytest.raises(EdgeRankerError, match="another application"):
        PreferenceStore(p)
    assert p.read_bytes() == before and not Path(str(p) + "-wal").exists()


def test_paths_are_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EdgeRankerError, match="non-empty path"):
        PreferenceStore("")
    odd = tmp_path / "prefs[1].db"
    odd.write_bytes(b"damaged" * 100)
    PreferenceStore.recover(odd)
    (copy,) = PreferenceStore.recovery_copies(odd)
    with PreferenceStore(odd) as s:  # the export, everything stored about the user, names the copy too
        assert s.export()["recovery_copies"] == [str(copy)]
        assert s.erase() == [copy] and s.export()["recovery_copies"] == []


def test_undo_removes_the_text_from_the_files(tmp_path):
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    s.add_feedback("keep", vec(1, 0), "like", "m", text="kept text")
    s.add_feedback("gone", vec(0, 1), "like", "m", text="UNDONE-SECRET")
    assert s.undo("gone") == 1
    assert not any(b"UNDONE-SECRET" in q.read_bytes() for q in tmp_path.iterdir() if q.name.startswith("p.db"))


def test_dwell_time_of_an_undone_interest_goes_with_it(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("keep", vec(1, 0), "like", "m")
    s.add_feedback("gone", vec(0, 1), "like", "m")
    s.add_view_time(vec(0, 1), 500.0, "m")
    s.undo("gone")
    (only,) = s.interests("m")[0]
    assert only.view_time == 0.0


def test_dwell_time_moves_with_its_like_to_a_new_models_space(tmp_path):
    """A model update re-embeds the likes; each interest's dwell time goes to the new interest of the like it was
    closest to (the new space is the old one turned, so the documents' interests swap places)."""
    s = PreferenceStore(tmp_path / "p.db")
    a = s.add_feedback("a", vec(1, 0), "like", "old", text="a")
    b = s.add_feedback("b", vec(0, 1), "like", "old", text="b")
    s.add_view_time(vec(0.1, 1), 30.0, "old")
    s.move_to_model("new", [a, b], np.stack([vec(0, 1), vec(1, 0)]))
    assert s.interests("old") == ([], [])
    times = {tuple(np.round(c.point, 3)): c.view_time for c in s.interests("new")[0]}
    assert times == {(0.0, 1.0): 0.0, (1.0, 0.0): 30.0}


def test_dwell_time_of_an_interest_whose_like_stays_is_not_copied(tmp_path):
    """A like without text cannot move: its interest keeps its time in the old space, none is added in the new."""
    s = PreferenceStore(tmp_path / "p.db")
    a = s.add_feedback("a", vec(1, 0), "like", "old", text="a")
    s.add_feedback("b", vec(0, 1), "like", "old")
    s.add_view_time(vec(0, 1), 30.0, "old")
    s.move_to_model("new", [a], vec(0, 1)[None])
    assert [c.view_time for c in s.interests("old")[0]] == [30.0]
    assert [c.view_time for c in s.interests("new")[0]] == [0.0]


def test_dwell_time_is_moved_once_and_held_in_one_space_only(tmp_path):
    """A move repeated (two processes starting at once after an update) carries nothing again; an interest whose
    like moves while a close like without text stays gives its time to the new space, not to both."""
    s = PreferenceStore(tmp_path / "p.db")
    a = s.add_feedback("a", vec(1, 0), "like", "old", text="a")
    s.add_feedback("b", vec(np.cos(0.7), np.sin(0.7)), "like", "old")  # cosine 0.76: merged into a's interest
    s.add_view_time(vec(1, 0), 30.0, "old")
    for _ in range(2):
        s.move_to_model("new", [a], vec(0, 1)[None])
    spent = [c.view_time for m in ("old", "new") for c in s.interests(m)[0]]
    assert sum(spent) == 30.0 and [c.view_time for c in s.interests("new")[0]] == [30.0]
    with pytest.raises(EdgeRankerError, match="one vector per event"):
        s.move_to_model("new", [a], vec(0, 1))


def test_export_lists_cached_document_vectors_and_odd_files_are_refused(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.save_vectors("m", "", [b"\x01" * 16], np.ones((1, 4), np.float32))
    assert [v["text_hash"] for v in s.export()["document_vectors"]] == ["01" * 16]
    for bad in (float("inf"), -1, "5"):
        with pytest.raises(EdgeRankerError, match="view time"):
            s.add_view_time(vec(1, 0), bad, "m")
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    with pytest.raises(EdgeRankerError, match="not a regular file"):
        PreferenceStore(fifo)


def test_256d_vectors_take_about_their_size_on_disk(tmp_path):
    """A row of a WITHOUT ROWID table keeps about 1,000 bytes in its page: each 256-d vector spilled into an overflow
    page of 4 KB, 4.7 times its size. In a rowid table it takes its own size and its key's."""
    s = PreferenceStore(tmp_path / "v.db")
    vectors = np.random.default_rng(0).normal(size=(2000, 256)).astype(np.float32)
    s.save_vectors("semantic:0123456789abcdef:8w", "", [i.to_bytes(16, "big") for i in range(2000)], vectors)
    s.close()
    assert (tmp_path / "v.db").stat().st_size < 1.6 * vectors.nbytes


def test_leaving_out_a_reaction_forgotten_meanwhile_stores_nothing(tmp_path):
    """Another process's forget between a start's look and its record must not leave a row of the user behind."""
    with PreferenceStore(tmp_path / "p.db") as s:
        event = s.add_feedback("a", vec(1, 0), "like", "m", text="rivers")
        s.undo("a")
        s.leave_out("other", "rule", [event])
        assert s.export()["left_out"] == []


def test_a_read_only_export_in_a_writable_folder_leaves_nothing_beside_the_store(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.add_feedback("a", vec(1, 0), "like", "m")
    s.close()
    r = PreferenceStore(tmp_path / "p.db", read_only=True)
    assert [f["doc_id"] for f in r.export()["feedback"]] == ["a"]
    with pytest.raises(EdgeRankerError, match="read-only"):
        r.add_feedback("b", vec(0, 1), "like", "m")
    r.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.db"]


def test_sidecars_a_read_only_reader_left_do_not_block_later_writes(tmp_path):
    """Read while the store file was read-only (0444), SQLite leaves its -wal and -shm files beside it with that
    mode, since a read-only connection cannot remove them. Once the user makes the store writable again, a writable
    open makes them writable too: else every write, ``forget`` included, was refused. Run without the power to
    override file modes (root's is dropped with setpriv), as an app runs."""
    code = """
import os, sys, numpy as np
from pathlib import Path
from edge_ranker.runtime.store import PreferenceStore
db = Path(sys.argv[1]) / "p.db"
with PreferenceStore(db) as s:
    s.add_feedback("a", np.array([1, 0], np.float32), "like", "m")
os.chmod(db, 0o444)
with PreferenceStore(db, read_only=True) as r:
    assert r.feedback_count() == 1
left = sorted(p.name for p in db.parent.iterdir())
os.chmod(db, 0o600)
with PreferenceStore(db) as s:
    s.add_feedback("b", np.array([0, 1], np.float32), "like", "m")
    s.erase()
print(left)
"""
    command = [sys.executable, "-c", code, str(tmp_path)]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv to drop the power to override file modes")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-600:]
    assert done.stdout.split() == ["['p.db',", "'p.db-shm',", "'p.db-wal']"]  # the case is the one described


def test_a_link_in_place_of_a_sidecar_is_not_followed(tmp_path):
    """Only the store's own files are made writable: a link named like its WAL leaves its target as it was."""
    db = tmp_path / "p.db"
    PreferenceStore(db).close()
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    victim.chmod(0o400)
    Path(f"{db}-wal").symlink_to(victim)
    with suppress(EdgeRankerError):  # SQLite may refuse the link; the mode is what is asked here
        PreferenceStore(db).close()
    assert victim.stat().st_mode & 0o777 == 0o400


def test_an_export_file_may_be_named_like_a_sqlite_uri(tmp_path, monkeypatch):
    """``file:`` and ``:memory:`` are refused as a store's path, which SQLite would misread, not as an export's."""
    monkeypatch.chdir(tmp_path)
    with PreferenceStore(tmp_path / "p.db") as s:
        assert s.export_to("file:backup.json") == tmp_path / "file:backup.json"
    assert json.loads((tmp_path / "file:backup.json").read_text())["feedback"] == []


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("feedback", "embedding", b"\x01\x02"),
        ("feedback", "ts", "yesterday"),
        ("feedback", "doc_id", b"x"),
    ],
    ids=["odd-bytes", "ts-text", "id-bytes"],
)
def test_rows_no_edge_ranker_writes_are_named_at_the_open_and_recovered(tmp_path, table, column, value):
    """SQLite's own check passes a row whose value is of another type or size than the store writes; the open
    names it (rather than a numpy error deep in a read) and ``recover`` takes such a file as the damaged one."""
    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.add_feedback("a", vec(1, 0, 0), "like", "m")
        s.add_feedback("b", vec(0, 1, 0), "like", "m")
    con = sqlite3.connect(db)
    con.execute(f"UPDATE {table} SET {column}=? WHERE id=1", (value,))
    con.commit()
    con.close()
    for read_only in (False, True):
        with pytest.raises(CorruptedDatabase, match=f"1 row damaged in {table}.*prefs recover"):
            PreferenceStore(db, read_only=read_only)
    moved = PreferenceStore.recover(db)
    assert moved.exists() and not db.exists()


def _damaged_interest(db: Path, column: str, value: object, dwell: float = 0.0) -> None:
    """A store of two liked interests, 30 s spent on the second; interest 1's ``column`` set to ``value``."""
    with PreferenceStore(db) as s:
        s.add_feedback("a", vec(1, 0, 0), "like", "m")
        s.add_feedback("b", vec(0, 1, 0), "like", "m")
        s.add_view_time(vec(0, 1, 0), 30.0, "m")
    con = sqlite3.connect(db)
    con.execute(f"UPDATE interests SET {column}=?, view_time=view_time+? WHERE id=1", (value, dwell))
    con.commit()
    con.close()


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("point", "zz"),
        ("point", b"\x01\x02"),
        ("view_count", "many"),
        ("point", np.array([np.nan, 0, 1], np.float32).tobytes()),  # would make every score NaN
        ("point", np.array([1, 0, 0, np.inf], np.float32).tobytes()),
        ("point", vec(1, 0).tobytes()),  # another size than the reactions: ranking's matrix product would fail
    ],
    ids=["text", "odd-bytes", "count-text", "nan", "inf", "size"],
)
def test_damaged_interests_are_rebuilt_from_the_reactions(tmp_path, column, value):
    """Interests are derived from the reactions: a damaged row of them no longer makes the whole store refuse to
    open (``prefs export`` included). Read as it is, the store replays the interests in memory, with the intact
    ones' dwell time, and exports the intact rows, counting the others; a writable open rebuilds them once."""
    db = tmp_path / "p.db"
    _damaged_interest(db, column, value, dwell=12.0)  # the damaged row's own dwell time goes with it
    before = db.read_bytes()
    with PreferenceStore(db, read_only=True) as r:
        liked, _ = r.interests("m")
        assert [c.point.round(3).tolist() for c in liked] == [[1, 0, 0], [0, 1, 0]]
        assert [c.view_time for c in liked] == [0.0, 30.0]
        exported = r.export()
        assert [f["doc_id"] for f in exported["feedback"]] == ["a", "b"]
        assert [i["id"] for i in exported["interests"]] == [2] and exported["damaged_interests"] == 1
    assert db.read_bytes() == before
    with PreferenceStore(db) as s:
        liked, _ = s.interests("m")
        assert [c.point.round(3).tolist() for c in liked] == [[1, 0, 0], [0, 1, 0]]
        assert [c.view_time for c in liked] == [0.0, 30.0] and s.export()["damaged_interests"] == 0


def test_damaged_interests_are_found_in_a_folder_the_reader_cannot_write(tmp_path):
    """There the look before opening cannot read a WAL store (no shared-memory file can be made beside it), so the
    read-only connection itself looks: the interests are replayed, not read damaged. Run without root's power to
    override file modes (setpriv), as an app runs."""
    folder = tmp_path / "ro"
    folder.mkdir()
    _damaged_interest(folder / "p.db", "point", "zz")
    folder.chmod(0o555)
    code = """
import sys
from edge_ranker.runtime.store import PreferenceStore
with PreferenceStore(sys.argv[1], read_only=True) as r:
    liked, _ = r.interests("m")
    print(len(liked), r.export()["damaged_interests"])
"""
    command = [sys.executable, "-c", code, str(folder / "p.db")]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv to drop the power to override file modes")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--", *command]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        folder.chmod(0o755)
    assert done.returncode == 0 and done.stdout.split() == ["2", "1"], done.stderr[-600:]


def test_recover_says_it_found_damaged_interests_and_leaves_them_for_the_app(tmp_path):
    db = tmp_path / "p.db"
    _damaged_interest(db, "point", "zz")
    before = db.read_bytes()
    with pytest.raises(EdgeRankerError, match="healthy .*1 row damaged in its interests, which its next writable"):
        PreferenceStore.recover(db)
    assert db.read_bytes() == before  # looked at, not rebuilt with a config that may not be the app's
    PreferenceStore(db).close()
    with pytest.raises(EdgeRankerError, match="healthy preference database: nothing"):
        PreferenceStore.recover(db)


@pytest.mark.parametrize(
    ("embedding", "said"),
    [
        (vec(0, 1), "1 row damaged in interests, which its reactions cannot rebuild"),
        (np.array([0, np.nan, 1], np.float32), "cannot rebuild .*not a finite number"),
    ],
    ids=["size", "nan"],
)
def test_damaged_interests_the_reactions_cannot_rebuild_are_refused_for_recover(tmp_path, embedding, said):
    """A reaction of another size, or one that is not finite, beside a damaged interest: the rebuild fails (the open
    reads no reaction, a replay does, and refuses to spread a NaN into the interests), so the store is refused as
    corrupted (it was left as it was), and ``recover`` can still move it aside."""
    db = tmp_path / "p.db"
    _damaged_interest(db, "point", "zz")
    con = sqlite3.connect(db)
    con.execute("UPDATE feedback SET embedding=? WHERE id=2", (embedding.tobytes(),))
    con.commit()
    con.close()
    before = db.read_bytes()
    for read_only in (True, False):
        with pytest.raises(CorruptedDatabase, match=said):
            PreferenceStore(db, read_only=read_only)
    assert db.read_bytes() == before
    moved = PreferenceStore.recover(db)
    assert moved.exists() and not db.exists()


def test_a_damaged_newest_interest_leaves_the_others_and_their_dwell_time(tmp_path):
    """Sizes are measured against the model's newest whole interest, so a damaged newest one (text) is not the size
    the others must have."""
    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.add_feedback("a", vec(1, 0, 0), "like", "m")
        s.add_view_time(vec(1, 0, 0), 100.0, "m")
        s.add_feedback("b", vec(0, 1, 0), "like", "m")
    con = sqlite3.connect(db)
    con.execute("UPDATE interests SET point='x' WHERE id=2")
    con.commit()
    con.close()
    with PreferenceStore(db, read_only=True) as r:
        exported = r.export()
        assert [i["id"] for i in exported["interests"]] == [1] and exported["damaged_interests"] == 1
    with PreferenceStore(db) as s:
        liked, _ = s.interests("m")
        assert [c.view_time for c in liked] == [100.0, 0.0]


def test_a_reaction_that_cannot_be_replayed_makes_forget_say_what_to_do_and_change_nothing(tmp_path):
    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.add_feedback("a", vec(1, 0, 0), "like", "m")
        s.add_feedback("b", vec(0, 1, 0), "like", "m")
    con = sqlite3.connect(db)
    con.execute("UPDATE feedback SET embedding=? WHERE id=1", (np.array([np.nan, 0, 1], np.float32).tobytes(),))
    con.commit()
    con.close()
    with PreferenceStore(db) as s:
        with pytest.raises(CorruptedDatabase, match="cannot rebuild its interests .*not a finite.*prefs recover"):
            s.undo("b")
        assert s.feedback_count() == 2
    moved = PreferenceStore.recover(db)  # which looks at every reaction, so the advice leads somewhere
    assert moved.exists() and not db.exists()


def test_vectors_moved_into_a_model_of_another_size_are_refused_and_nothing_changes(tmp_path):
    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.add_feedback("a", vec(1, 0, 0), "like", "B")
        s.add_feedback("b", vec(0, 1, 0), "like", "A")
        before = s.export()
        with pytest.raises(EdgeRankerError, match="vectors of 4 numbers for 'B', whose reactions have 3"):
            s.move_to_model("B", [2], np.ones((1, 4)))
        assert s.export() == before
        s.move_to_model("B", [2], np.ones((1, 3)))  # the same size: moved
        assert [f["model"] for f in s.export()["feedback"]] == ["B", "B"]


def test_a_damaged_document_vector_is_computed_again(tmp_path):
    from edge_ranker.runtime.cache import VectorCache, text_hash

    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.save_vectors("m", "", [text_hash("a"), text_hash("b")], np.ones((2, 4), np.float32))
        s._db.execute("UPDATE vectors SET vector=? WHERE text_hash=?", (b"\x01\x02\x03", text_hash("a")))
        s._db.commit()
        computed = []
        got = VectorCache(10, s).get("m", "", ["a", "b"], 4, lambda t: computed.extend(t) or np.zeros((len(t), 4)))
    assert computed == ["a"] and got[:, 0].tolist() == [0.0, 1.0]


@pytest.mark.parametrize(
    ("path", "match"),
    [
        (":memory:", "not a SQLite name"),
        ("file:p.db?mode=ro", "not a SQLite URI"),
        ("a\0b", "NUL"),
        ("x" * 300, "cannot use"),
    ],
)
def test_paths_sqlite_or_the_file_system_would_misread_are_refused(tmp_path, monkeypatch, path, match):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EdgeRankerError, match=match):
        # a Path of ":memory:" is a file name SQLite would misread; the string ":memory:" is a store in memory
        PreferenceStore(Path(path) if path == ":memory:" else path if path.startswith("file:") else tmp_path / path)
    assert list(Path.cwd().iterdir()) == []


def test_an_empty_file_holds_nothing_to_read(tmp_path):
    (tmp_path / "p.db").touch()
    with pytest.raises(EdgeRankerError, match="nothing is stored there"):
        PreferenceStore(tmp_path / "p.db", read_only=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": "x"},
        {"horizon_days": math.nan},
        {"horizon_days": 10**400},
        {"decay_rate_per_day": -math.inf},
        {"min_positive_cois": 1.5},
    ],
)
def test_interest_settings_must_be_finite_numbers(kwargs):
    with pytest.raises(EdgeRankerError, match="must be a"):
        CoIConfig(**kwargs)
    assert CoIConfig(shift_factor=np.float32(0.5), min_positive_cois=np.int64(2)).min_positive_cois == 2


def test_values_past_a_float_or_not_numbers_are_refused_in_words(tmp_path):
    with PreferenceStore(tmp_path / "p.db") as s:
        with pytest.raises(EdgeRankerError, match="unix seconds"):
            s.add_feedback("a", vec(1, 0), "like", "m", ts=10**400)
        with pytest.raises(EdgeRankerError, match="array of numbers"):
            s.add_feedback("a", "abc", "like", "m")
        assert s.feedback_count() == 0


def test_a_lock_held_elsewhere_costs_a_cache_write_little_and_a_reaction_one_wait(tmp_path, monkeypatch):
    """Saving document vectors is a cache's write: it gives up after ``CACHE_WAIT_S``, so that a reaction behind it
    waits ``BUSY_TIMEOUT_S`` once, not once per step."""
    from edge_ranker.runtime.store import preferences, sqlite

    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_S", 1.0)
    monkeypatch.setattr(preferences, "CACHE_WAIT_S", 0.1)
    db = tmp_path / "p.db"
    s = PreferenceStore(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        with pytest.raises(EdgeRankerError, match="locked"):
            s.save_vectors("m", "", [b"h" * 16], np.ones((1, 4), np.float32))
        assert time.monotonic() - start < 0.8
        with pytest.raises(EdgeRankerError, match="locked by another process"):
            s.add_feedback("a", vec(1, 0), "like", "m")
        assert time.monotonic() - start < 2.5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    s.add_feedback("a", vec(1, 0), "like", "m")
    assert s.feedback_count() == 1


def test_a_reactions_left_out_rows_go_with_it_whatever_deletes_it(tmp_path):
    """A process of a release before the left_out table deletes reactions without knowing it: the store's trigger
    deletes their rows all the same. Ids are never reused (a move still running elsewhere addresses reactions by id)."""
    with PreferenceStore(tmp_path / "p.db") as s:
        events = [s.add_feedback(d, vec(1, 0), "like", "m", text="rivers") for d in "abc"]
        s.leave_out("other", "rule", events)
    con = sqlite3.connect(tmp_path / "p.db")  # as an earlier release's forget_document and forget delete
    con.execute("DELETE FROM feedback WHERE doc_id='a'")
    con.commit()
    assert [e for (e,) in con.execute("SELECT event FROM left_out")] == events[1:]
    con.execute("DELETE FROM feedback")
    con.commit()
    assert con.execute("SELECT COUNT(*) FROM left_out").fetchone() == (0,)
    con.close()
    with PreferenceStore(tmp_path / "p.db") as s:
        s.erase()
        assert s.add_feedback("e", vec(0, 1), "like", "m") == 4


def test_a_second_store_on_an_open_file_keeps_the_first_ones_locks_and_so_its_writes(tmp_path):
    """Closing any descriptor of a file drops the process's POSIX locks on it, SQLite's included: a second store's
    look at the file's header made the next process to close think itself the last, delete the WAL under the first
    store, and lose what it wrote after (and what that process wrote, when the first closed last)."""
    path = tmp_path / "p.db"
    first = PreferenceStore(path)
    first.add_feedback("app0", vec(1, 0), "like", "m")
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
    write += "s.add_feedback(sys.argv[2], [0.0, 1.0], 'like', 'm'); s.close()"
    for n in (1, 3):
        subprocess.run([sys.executable, "-c", write, str(path), f"other{n}"], check=True)
        first.add_feedback(f"app{n + 1}", vec(1, 0), "like", "m")
    assert Path(f"{path}-wal").exists()  # the first store's WAL is still there, where other processes look
    read = "import sys, json; from edge_ranker.runtime.store import PreferenceStore as S; "
    read += "print(json.dumps([f['doc_id'] for f in S(sys.argv[1], read_only=True).export()['feedback']]))"
    seen = json.loads(subprocess.run([sys.executable, "-c", read, str(path)], check=True, capture_output=True).stdout)
    first.close()
    assert seen == ["app0", "other1", "app2", "other3", "app4"]
    with PreferenceStore(path, read_only=True) as s:
        assert [f["doc_id"] for f in s.export()["feedback"]] == seen


def test_a_pipe_put_where_a_store_was_is_not_waited_on(tmp_path):
    from edge_ranker.runtime.store.files import _head

    os.mkfifo(tmp_path / "pipe")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(_head(tmp_path / "pipe")), daemon=True)
    reader.start()
    reader.join(10)  # no writer: a blocking open would wait for ever, holding every store's check
    assert got == [b""]
    if reader.is_alive():  # let the stuck open return, so the test process can end
        os.close(os.open(tmp_path / "pipe", os.O_WRONLY | os.O_NONBLOCK))


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
        assert reader.export()["feedback"] == [] and reader.interests("k") == ([], [])
    creating.close()
    with PreferenceStore(path) as store:  # and the creating open then finishes the store as ever
        store.add_feedback("d", vec(1, 0), "like", "k", text="t")
    with PreferenceStore(path, read_only=True) as reader:
        assert reader.feedback_count() == 1


@pytest.fixture
def full_disk(tmp_path):
    """A 1 MB file system that the test fills: needs root (mount), as `make test` runs in CI."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode:
        pytest.skip(f"cannot mount a small file system here: {made.stderr.decode().strip()[:100]}")

    def fill() -> None:
        fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
        with suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
        os.close(fd)

    yield mount, fill
    subprocess.run(["umount", str(mount)], check=True)


def test_a_store_on_a_full_disk_is_read_and_exported_to_another(full_disk, tmp_path):
    mount, fill = full_disk
    path = mount / "p.db"
    with PreferenceStore(path) as store:
        store.add_feedback("d", vec(1, 0), "like", "k", text="kept")
    fill()
    with PreferenceStore(path, read_only=True) as store:
        assert store.feedback_count() == 1
        out = store.export_to(tmp_path / "export.json")
    assert [e["text"] for e in json.loads(out.read_text())["feedback"]] == ["kept"]
