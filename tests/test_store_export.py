"""What the store gives back: its export, erase (and the copies recover left), on a full disk too."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.store import SCHEMA_VERSION, PreferenceStore


def vec(*xs):
    return np.array(xs, dtype=np.float32)


PROCESSES = Path(__file__).parent / "processes"  # scripts run as other processes


def _bytes_of(p: Path, needle: bytes) -> int:
    return sum(q.read_bytes().count(needle) for q in p.parent.iterdir() if q.name.startswith(p.name))


def test_export_and_forget(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like", text="héllo 😀")
    e = s.export()
    assert e["schema_version"] == SCHEMA_VERSION
    assert e["feedback"][0]["text"] == "héllo 😀" and len(e["interests"]) == 1
    s.erase()
    assert s.export()["feedback"] == [] and s.export()["interests"] == []
    files = [q for q in tmp_path.iterdir() if q.name.startswith("p.db")]  # while the store is open: WAL included
    assert not any("héllo".encode() in q.read_bytes() for q in files)


def test_an_export_never_replaces_the_database_or_an_earlier_export(tmp_path, monkeypatch):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like", text="kept")
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
    s.space("m").add_feedback("b", vec(0, 1), "like", text="new")
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
    s.space("m").add_feedback("a", vec(1, 0), "like", text="kept")
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


def test_export_lists_cached_document_vectors_and_odd_files_are_refused(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").save_vectors("", [b"\x01" * 16], np.ones((1, 4), np.float32))
    assert [v["text_hash"] for v in s.export()["document_vectors"]] == ["01" * 16]
    for bad in (float("inf"), -1, "5"):
        with pytest.raises(EdgeRankerError, match="view time"):
            s.space("m").add_view_time(vec(1, 0), bad)
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    with pytest.raises(EdgeRankerError, match="not a regular file"):
        PreferenceStore(fifo)


def test_a_read_only_export_in_a_writable_folder_leaves_nothing_beside_the_store(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like")
    s.close()
    r = PreferenceStore(tmp_path / "p.db", read_only=True)
    assert [f["doc_id"] for f in r.export()["feedback"]] == ["a"]
    with pytest.raises(EdgeRankerError, match="read-only"):
        r.space("m").add_feedback("b", vec(0, 1), "like")
    r.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.db"]


def test_an_export_file_may_be_named_like_a_sqlite_uri(tmp_path, monkeypatch):
    """``file:`` and ``:memory:`` are refused as a store's path, which SQLite would misread, not as an export's."""
    monkeypatch.chdir(tmp_path)
    with PreferenceStore(tmp_path / "p.db") as s:
        assert s.export_to("file:backup.json") == tmp_path / "file:backup.json"
    assert json.loads((tmp_path / "file:backup.json").read_text())["feedback"] == []


def test_forget_never_reports_success_while_another_process_reads(tmp_path, monkeypatch):
    monkeypatch.setattr("edge_ranker.runtime.store.preferences.ERASE_WAIT_S", 0.5)
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    for i in range(50):
        s.space("m").add_feedback(f"d{i}", vec(1, i), "like", text="SECRET-LIKED-TEXT")
    reader = subprocess.Popen(
        [sys.executable, PROCESSES / "read_store.py", str(p)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
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
        store.space("k").add_feedback("d", vec(1, 0), "like", text="kept")
    fill()
    with PreferenceStore(path, read_only=True) as store:
        assert store.feedback_count() == 1
        out = store.export_to(tmp_path / "export.json")
    assert [e["text"] for e in json.loads(out.read_text())["feedback"]] == ["kept"]
