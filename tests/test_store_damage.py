"""A damaged, foreign or newer file: refused untouched, repaired from the reactions, or recovered aside."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.store import SCHEMA_VERSION, CorruptedDatabase, PreferenceStore


def vec(*xs):
    return np.array(xs, dtype=np.float32)


def _damaged_interest(db: Path, column: str, value: object, dwell: float = 0.0) -> None:
    """A store of two liked interests, 30 s spent on the second; interest 1's ``column`` set to ``value``."""
    with PreferenceStore(db) as s:
        s.space("m").add_feedback("a", vec(1, 0, 0), "like")
        s.space("m").add_feedback("b", vec(0, 1, 0), "like")
        s.space("m").add_view_time(vec(0, 1, 0), 30.0)
    con = sqlite3.connect(db)
    con.execute(f"UPDATE interests SET {column}=?, view_time=view_time+? WHERE id=1", (value, dwell))
    con.commit()
    con.close()


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
    s.space("m").add_feedback("a", vec(1, 0), "like")
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


def test_recover_refuses_missing_and_healthy_files(tmp_path):
    with pytest.raises(EdgeRankerError, match="nothing to recover"):
        PreferenceStore.recover(tmp_path / "none.db")
    p = tmp_path / "p.db"
    PreferenceStore(p).space("m").add_feedback("a", vec(1, 0), "like")
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


def test_a_damaged_database_with_a_wal_is_refused_untouched(tmp_path):
    """SQLite's own integrity check finds the damage; the refusal must not write the WAL into the damaged file
    (a read-write connection does so when it closes)."""
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    for i in range(200):
        s.space("m").add_feedback(f"d{i}", vec(1, i), "like", text="text " * 50)
    s._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    s._db.execute("PRAGMA wal_autocheckpoint=0")
    s.space("m").add_feedback("late", vec(0, 1), "like", text="only in the WAL")
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
        s.space("m").add_feedback("a", vec(1, 0, 0), "like")
        s.space("m").add_feedback("b", vec(0, 1, 0), "like")
    con = sqlite3.connect(db)
    con.execute(f"UPDATE {table} SET {column}=? WHERE id=1", (value,))
    con.commit()
    con.close()
    for read_only in (False, True):
        with pytest.raises(CorruptedDatabase, match=f"1 row damaged in {table}.*prefs recover"):
            PreferenceStore(db, read_only=read_only)
    moved = PreferenceStore.recover(db)
    assert moved.exists() and not db.exists()


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
        liked, _ = r.space("m").interests()
        assert [c.point.round(3).tolist() for c in liked] == [[1, 0, 0], [0, 1, 0]]
        assert [c.view_time for c in liked] == [0.0, 30.0]
        exported = r.export()
        assert [f["doc_id"] for f in exported["feedback"]] == ["a", "b"]
        assert [i["id"] for i in exported["interests"]] == [2] and exported["damaged_interests"] == 1
    assert db.read_bytes() == before
    with PreferenceStore(db) as s:
        liked, _ = s.space("m").interests()
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
    liked, _ = r.space("m").interests()
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
        s.space("m").add_feedback("a", vec(1, 0, 0), "like")
        s.space("m").add_view_time(vec(1, 0, 0), 100.0)
        s.space("m").add_feedback("b", vec(0, 1, 0), "like")
    con = sqlite3.connect(db)
    con.execute("UPDATE interests SET point='x' WHERE id=2")
    con.commit()
    con.close()
    with PreferenceStore(db, read_only=True) as r:
        exported = r.export()
        assert [i["id"] for i in exported["interests"]] == [1] and exported["damaged_interests"] == 1
    with PreferenceStore(db) as s:
        liked, _ = s.space("m").interests()
        assert [c.view_time for c in liked] == [100.0, 0.0]


def test_a_reaction_that_cannot_be_replayed_makes_forget_say_what_to_do_and_change_nothing(tmp_path):
    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.space("m").add_feedback("a", vec(1, 0, 0), "like")
        s.space("m").add_feedback("b", vec(0, 1, 0), "like")
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


def test_a_damaged_document_vector_is_computed_again(tmp_path):
    from edge_ranker.runtime.cache import VectorCache, text_hash

    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.space("m").save_vectors("", [text_hash("a"), text_hash("b")], np.ones((2, 4), np.float32))
        s._db.execute("UPDATE vectors SET vector=? WHERE text_hash=?", (b"\x01\x02\x03", text_hash("a")))
        s._db.commit()
        computed = []
        got = VectorCache(10, s).get("m", "", ["a", "b"], 4, lambda t: computed.extend(t) or np.zeros((len(t), 4)))
    assert computed == ["a"] and got[:, 0].tolist() == [0.0, 1.0]


def _a_liked_store(db: Path) -> None:
    with PreferenceStore(db) as s:
        s.space("m").add_feedback("a", vec(1, 0, 0), "like", text="a secret liked text")


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", *map(str, args)], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("DROP TABLE vectors", "table vectors is missing"),
        ("DROP TABLE interests", "table interests is missing"),
        ("DROP TABLE left_out", "table left_out is missing"),
        ("DROP TRIGGER left_out_follows_feedback", "trigger left_out_follows_feedback is missing"),
        ("ALTER TABLE interests DROP COLUMN last_view", "table interests is changed"),
        ("PRAGMA user_version=0", "schema version is lost"),
    ],
)
def test_a_store_whose_schema_is_damaged_is_named_and_recovered_then_erased(tmp_path, damage, said):
    """Every command once failed on a raw SQLite line, and ``prefs recover`` called the store healthy."""
    db = tmp_path / "p.db"
    _a_liked_store(db)
    con = sqlite3.connect(db)
    con.execute(damage)
    con.commit()
    con.close()
    for read_only in (False, True):
        with pytest.raises(CorruptedDatabase, match=said):
            PreferenceStore(db, read_only=read_only)
    r = _cli("prefs", "export", "--db", db)
    assert r.returncode == 2 and said in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert _cli("prefs", "recover", "--db", db).returncode == 0
    assert PreferenceStore(db).feedback_count() == 0
    assert _cli("prefs", "erase", "--db", db).returncode == 0
    assert not [p for p in tmp_path.iterdir() if b"secret" in p.read_bytes()]


def test_any_flipped_bit_in_the_schema_page_is_an_error_in_words_and_recoverable(tmp_path):
    """Flips in the schema's text once raised a raw UnicodeDecodeError from the open's check."""
    import random

    base = tmp_path / "base.db"
    _a_liked_store(base)
    data, rng, refused = base.read_bytes(), random.Random(0), 0
    for trial in range(150):
        flipped = bytearray(data)
        flipped[rng.randrange(100, 4096)] ^= 1 << rng.randrange(8)
        db = tmp_path / f"t{trial}.db"
        db.write_bytes(bytes(flipped))
        try:
            PreferenceStore(db).close()
        except EdgeRankerError:
            refused += 1
            PreferenceStore.recover(db)  # whatever the open refused, recover moves aside
            assert PreferenceStore(db).feedback_count() == 0
    assert refused > 20  # the flips reached the schema


def test_a_reaction_whose_text_is_not_utf8_is_named_without_the_text_and_recovered(tmp_path):
    """A damaged byte in a liked text made export say "corrupted, run recover", and recover call the store
    healthy; SQLite's message quoted the text."""
    db = tmp_path / "p.db"
    _a_liked_store(db)
    con = sqlite3.connect(db)
    con.execute("UPDATE feedback SET text = CAST(X'61207365637265740aff6c696b6564' AS TEXT)")
    con.commit()
    con.close()
    r = _cli("prefs", "export", "--db", db)
    assert r.returncode == 2 and "corrupted" in r.stderr and "secret" not in r.stderr, r.stderr
    with PreferenceStore(db, read_only=True) as store, pytest.raises(CorruptedDatabase) as caught:
        store.export()
    assert "\n" not in str(caught.value) and "secret" not in str(caught.value)
    assert PreferenceStore.recover(db).exists()
    assert PreferenceStore(db).feedback_count() == 0


def _a_store_with_signals(db: Path) -> None:
    """A like, a read and a document shown twice (a skip), all of three numbers, under model "m"."""
    with PreferenceStore(db) as s:
        s.space("m").add_feedback("a", vec(1, 0, 0), "like", text="a liked text")
        s.space("m").add_signals("view", [("r", "a read text", vec(0, 1, 0), 60.0)], None, dwell=True)
        for _ in range(2):
            s.space("m").add_signals("shown", [("k", "a skipped text", vec(0, 0, 1), 0.0)], None)


@pytest.mark.parametrize("kind", ["view", "shown"])
def test_a_signal_of_another_size_is_said_in_words_not_by_numpy(tmp_path, kind):
    """A read of two numbers beside a like of three made every open of the Ranker fail on numpy's "all input arrays
    must have the same shape"; it is the damage a replay names, with what to do."""
    db = tmp_path / "p.db"
    _a_store_with_signals(db)
    con = sqlite3.connect(db)
    con.execute("UPDATE signals SET embedding=? WHERE kind=?", (vec(0, 1).tobytes(), kind))
    con.commit()
    con.close()
    for read_only in (False, True):
        with PreferenceStore(db, read_only=read_only) as s, pytest.raises(
            CorruptedDatabase, match="cannot rebuild its interests .*2 numbers beside others of 3.*prefs recover"
        ):
            s.space("m").interests()


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("embedding", np.array([0, np.nan, 1], np.float32).tobytes(), "not a finite number"),
        ("embedding", vec(0, 1).tobytes(), "2 numbers beside others of 3"),
        ("text", b"a read \xff text", None),
        ("doc_id", b"r\xff", "decode to UTF-8"),
    ],
    ids=["nan", "size", "text-not-utf8", "id-not-utf8"],
)
def test_a_damaged_signal_that_every_read_refuses_is_recovered(tmp_path, column, value, said):
    """Each of these made the store's reads say "corrupted, run prefs recover", and recover call it healthy: its
    look at the whole store (``unusable``) read the reactions alone."""
    db = tmp_path / "p.db"
    _a_store_with_signals(db)
    con = sqlite3.connect(db)
    cast = "CAST(? AS TEXT)" if isinstance(value, bytes) and column != "embedding" else "?"
    con.execute(f"UPDATE signals SET {column}={cast} WHERE kind='view'", (value,))
    con.commit()
    con.close()
    with PreferenceStore(db, read_only=True) as s:
        with pytest.raises(CorruptedDatabase, match=f"{said or 'decode to UTF-8'}.*prefs recover"):
            s.space("m").interests() if said else s.history()
        assert s.unusable() is not None
    moved = PreferenceStore.recover(db)
    assert moved.exists() and not db.exists()
