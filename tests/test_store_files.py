"""The store's files: paths, permissions, links, sidecars, read-only folders, pipes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from contextlib import suppress
from pathlib import Path

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.store import PreferenceStore


def vec(*xs):
    return np.array(xs, dtype=np.float32)


def test_a_path_that_is_not_a_path_is_refused_and_home_is_expanded(tmp_path, monkeypatch):
    for bad in (5, b"/tmp/x.db", "  "):
        with pytest.raises(EdgeRankerError, match="preference database path"):
            PreferenceStore(bad)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert PreferenceStore("~/prefs.db").path == tmp_path / "prefs.db"


def test_files_are_private_to_the_user(tmp_path):
    old = os.umask(0o022)
    try:
        p = tmp_path / "new-folder" / "inner" / "p.db"
        s = PreferenceStore(p)
        s.space("m").add_feedback("a", vec(1, 0), "like", text="private")
        out = s.export_to(tmp_path / "export.json")
        modes = {q.name: q.stat().st_mode & 0o777 for q in (p, Path(str(p) + "-wal"), out)}
        assert modes == {"p.db": 0o600, "p.db-wal": 0o600, "export.json": 0o600}
        assert p.parent.stat().st_mode & 0o777 == p.parent.parent.stat().st_mode & 0o777 == 0o700
    finally:
        os.umask(old)


def test_an_existing_store_made_readable_by_others_is_made_private_again(tmp_path):
    p = tmp_path / "p.db"
    with PreferenceStore(p) as s:
        s.space("m").add_feedback("a", vec(1, 0), "like", text="private")
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
    s.space("m").add_feedback("a", vec(1, 0), "like")
    s._db.execute("PRAGMA query_only=1")  # SQLite's own read-only error, as a read-only file or mount gives
    with pytest.raises(EdgeRankerError, match="read-only") as exc:
        s.space("m").add_feedback("b", vec(0, 1), "like")
    assert "corrupted" not in str(exc.value)
    assert s.feedback_count() == 1


def test_full_disk_is_reported_as_full_and_loses_nothing(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like")
    pages = s._db.execute("PRAGMA page_count").fetchone()[0]
    s._db.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own SQLITE_FULL, as a full disk gives
    for i in range(3):
        with pytest.raises(EdgeRankerError, match="disk is full"):
            s.space("m").add_feedback(f"big{i}", vec(0, 1), "like", text="x" * 100_000)
    assert s.feedback_count() == 1
    s._db.execute("PRAGMA max_page_count=1000000")
    s.space("m").add_feedback("b", vec(0, 1), "like")
    assert s.feedback_count() == 2


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
    s.space("m").add_feedback("a", np.array([1, 0], np.float32), "like")
os.chmod(db, 0o444)
with PreferenceStore(db, read_only=True) as r:
    assert r.feedback_count() == 1
left = sorted(p.name for p in db.parent.iterdir())
os.chmod(db, 0o600)
with PreferenceStore(db) as s:
    s.space("m").add_feedback("b", np.array([0, 1], np.float32), "like")
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
