"""How reactions build interests: likes, dislikes, views, undo, moves to other models, and what is refused."""

from __future__ import annotations

import json
import math
import sqlite3
import time

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.interests import CoIConfig
from edge_ranker.runtime.store import PreferenceStore


def vec(*xs):
    return np.array(xs, dtype=np.float32)


def test_like_shifts_close_interest_and_creates_far_one(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0, 0), "like", ts=100)
    s.space("m").add_feedback("b", vec(0.9, 0.1, 0), "like", ts=200)  # cos > 0.67: shift
    pos, neg = s.space("m").interests()
    assert len(pos) == 1 and pos[0].view_count == 2 and pos[0].last_view == 200
    expected = 0.9 * vec(1, 0, 0) + 0.1 * vec(0.9, 0.1, 0) / np.linalg.norm(vec(0.9, 0.1, 0))
    np.testing.assert_allclose(pos[0].point, expected / np.linalg.norm(expected), rtol=1e-5)
    s.space("m").add_feedback("c", vec(0, 1, 0), "like")  # far: new interest
    s.space("m").add_feedback("d", vec(0, 0, 1), "dislike")
    pos, neg = s.space("m").interests()
    assert len(pos) == 2 and len(neg) == 1
    assert s.space("other-model").interests() == ([], [])


def test_bad_input_keeps_what_is_stored(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like")
    for bad in [
        ("a", vec(0, 0), "like"),
        ("a", vec(np.nan, 1), "like"),
        ("a", vec(1, 0), "love"),
        ("", vec(1, 0), "like"),
        ("lone \ud800 id", vec(1, 0), "like"),
    ]:
        with pytest.raises(EdgeRankerError):
            s.space("m").add_feedback(*bad)
    assert s.feedback_count() == 1 and len(s.space("m").interests()[0]) == 1
    s.space("m").add_feedback("b", vec(1, 0), "like", text="caf\ud800e")  # text is cleaned, as everywhere else
    assert [e["text"] for e in s.export()["feedback"]][-1] == "caf?e"


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


def test_view_time_goes_to_closest_positive_interest(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like")
    s.space("m").add_feedback("b", vec(0, 1), "like")
    s.space("m").add_view_time(vec(0.1, 1), 42.0)
    pos, _ = s.space("m").interests()
    assert [c.view_time for c in pos] == [0.0, 42.0]
    with pytest.raises(EdgeRankerError):
        s.space("m").add_view_time(vec(1, 0), -1)


def test_public_api_names_resolve():
    import edge_ranker
    from edge_ranker.runtime.store import LockedDatabase

    for name in edge_ranker.__all__:
        assert callable(getattr(edge_ranker, name))
    assert edge_ranker.LockedDatabase is LockedDatabase  # where callers have caught it from
    from edge_ranker.distill import distill

    assert callable(distill)


def test_a_dwell_time_stored_as_infinity_reads_back_finite(tmp_path):
    """A store may hold an infinite dwell time (views without the per-view bound): read back, it stays finite."""
    p = tmp_path / "p.db"
    with PreferenceStore(p) as s:
        s.space("m").add_feedback("a", vec(1, 0), "like")
        s.space("m").add_feedback("b", vec(0, 1), "like")
        s._db.execute("UPDATE interests SET view_time = 9e999 WHERE id = 1")
    with PreferenceStore(p) as s:
        times = [c.view_time for c in s.space("m").interests()[0]]
        assert all(math.isfinite(t) for t in times) and times[0] > times[1]
        assert all(math.isfinite(i["view_time"]) for i in s.export()["interests"])
        json.loads(s.export_json(), parse_constant=lambda c: pytest.fail(f"{c} in the export"))


@pytest.mark.parametrize("ts", [float("nan"), float("inf"), -1.0, 253402300799.0, "soon", "123", True])
def test_reaction_times_that_cannot_be_are_refused(tmp_path, ts):
    s = PreferenceStore(tmp_path / "p.db")
    with pytest.raises(EdgeRankerError, match="feedback time"):
        s.space("m").add_feedback("a", vec(1, 0), "like", ts=ts)
    assert s.feedback_count() == 0
    s.space("m").add_feedback("a", vec(1, 0), "like", ts=time.time() + 60)  # a clock a minute ahead is fine


def test_undo_removes_the_text_from_the_files(tmp_path):
    p = tmp_path / "p.db"
    s = PreferenceStore(p)
    s.space("m").add_feedback("keep", vec(1, 0), "like", text="kept text")
    s.space("m").add_feedback("gone", vec(0, 1), "like", text="UNDONE-SECRET")
    assert s.undo("gone") == 1
    assert not any(b"UNDONE-SECRET" in q.read_bytes() for q in tmp_path.iterdir() if q.name.startswith("p.db"))


def test_dwell_time_of_an_undone_interest_goes_with_it(tmp_path):
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("keep", vec(1, 0), "like")
    s.space("m").add_feedback("gone", vec(0, 1), "like")
    s.space("m").add_view_time(vec(0, 1), 500.0)
    s.undo("gone")
    (only,) = s.space("m").interests()[0]
    assert only.view_time == 0.0


def test_dwell_time_moves_with_its_like_to_a_new_models_space(tmp_path):
    """A model update re-embeds the likes; each interest's dwell time goes to the new interest of the like it was
    closest to (the new space is the old one turned, so the documents' interests swap places)."""
    s = PreferenceStore(tmp_path / "p.db")
    a = s.space("old").add_feedback("a", vec(1, 0), "like", text="a")
    b = s.space("old").add_feedback("b", vec(0, 1), "like", text="b")
    s.space("old").add_view_time(vec(0.1, 1), 30.0)
    s.space("new").move_here([a, b], np.stack([vec(0, 1), vec(1, 0)]))
    assert s.space("old").interests() == ([], [])
    times = {tuple(np.round(c.point, 3)): c.view_time for c in s.space("new").interests()[0]}
    assert times == {(0.0, 1.0): 0.0, (1.0, 0.0): 30.0}


def test_dwell_time_of_an_interest_whose_like_stays_is_not_copied(tmp_path):
    """A like without text cannot move: its interest keeps its time in the old space, none is added in the new."""
    s = PreferenceStore(tmp_path / "p.db")
    a = s.space("old").add_feedback("a", vec(1, 0), "like", text="a")
    s.space("old").add_feedback("b", vec(0, 1), "like")
    s.space("old").add_view_time(vec(0, 1), 30.0)
    s.space("new").move_here([a], vec(0, 1)[None])
    assert [c.view_time for c in s.space("old").interests()[0]] == [30.0]
    assert [c.view_time for c in s.space("new").interests()[0]] == [0.0]


def test_dwell_time_is_moved_once_and_held_in_one_space_only(tmp_path):
    """A move repeated (two processes starting at once after an update) carries nothing again; an interest whose
    like moves while a close like without text stays gives its time to the new space, not to both."""
    s = PreferenceStore(tmp_path / "p.db")
    a = s.space("old").add_feedback("a", vec(1, 0), "like", text="a")
    s.space("old").add_feedback("b", vec(np.cos(0.7), np.sin(0.7)), "like")  # cosine 0.76: merged into a's interest
    s.space("old").add_view_time(vec(1, 0), 30.0)
    for _ in range(2):
        s.space("new").move_here([a], vec(0, 1)[None])
    spent = [c.view_time for m in ("old", "new") for c in s.space(m).interests()[0]]
    assert sum(spent) == 30.0 and [c.view_time for c in s.space("new").interests()[0]] == [30.0]
    with pytest.raises(EdgeRankerError, match="one vector per event"):
        s.space("new").move_here([a], vec(0, 1))


def test_leaving_out_a_reaction_forgotten_meanwhile_stores_nothing(tmp_path):
    """Another process's forget between a start's look and its record must not leave a row of the user behind."""
    with PreferenceStore(tmp_path / "p.db") as s:
        event = s.space("m").add_feedback("a", vec(1, 0), "like", text="rivers")
        s.undo("a")
        s.space("other").leave_out("rule", [event])
        assert s.export()["left_out"] == []


def test_vectors_moved_into_a_model_of_another_size_are_refused_and_nothing_changes(tmp_path):
    db = tmp_path / "p.db"
    with PreferenceStore(db) as s:
        s.space("B").add_feedback("a", vec(1, 0, 0), "like")
        s.space("A").add_feedback("b", vec(0, 1, 0), "like")
        before = s.export()
        with pytest.raises(EdgeRankerError, match="vectors of 4 numbers for 'B', whose reactions have 3"):
            s.space("B").move_here([2], np.ones((1, 4)))
        assert s.export() == before
        s.space("B").move_here([2], np.ones((1, 3)))  # the same size: moved
        assert [f["model"] for f in s.export()["feedback"]] == ["B", "B"]


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
            s.space("m").add_feedback("a", vec(1, 0), "like", ts=10**400)
        with pytest.raises(EdgeRankerError, match="array of numbers"):
            s.space("m").add_feedback("a", "abc", "like")
        assert s.feedback_count() == 0


def test_a_reactions_left_out_rows_go_with_it_whatever_deletes_it(tmp_path):
    """A process of a release before the left_out table deletes reactions without knowing it: the store's trigger
    deletes their rows all the same. Ids are never reused (a move still running elsewhere addresses reactions by id)."""
    with PreferenceStore(tmp_path / "p.db") as s:
        events = [s.space("m").add_feedback(d, vec(1, 0), "like", text="rivers") for d in "abc"]
        s.space("other").leave_out("rule", events)
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
        assert s.space("m").add_feedback("e", vec(0, 1), "like") == 4


def test_256d_vectors_take_about_their_size_on_disk(tmp_path):
    """A row of a WITHOUT ROWID table keeps about 1,000 bytes in its page: each 256-d vector spilled into an overflow
    page of 4 KB, 4.7 times its size. In a rowid table it takes its own size and its key's."""
    s = PreferenceStore(tmp_path / "v.db")
    vectors = np.random.default_rng(0).normal(size=(2000, 256)).astype(np.float32)
    s.space("semantic:0123456789abcdef:8w").save_vectors("", [i.to_bytes(16, "big") for i in range(2000)], vectors)
    s.close()
    assert (tmp_path / "v.db").stat().st_size < 1.6 * vectors.nbytes


def test_erase_that_cannot_rebuild_the_file_says_the_rows_are_gone_and_how_to_finish(tmp_path, monkeypatch):
    """On a nearly full disk the rows' deletion commits and the rebuild fails: erase once said "nothing of this
    change was stored" of a store that held 0 rows."""
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", np.ones(4, np.float32), "like", text="the cat")

    def full(step, seconds=None):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(s, "_until_unlocked", full)
    with pytest.raises(EdgeRankerError, match=r"are deleted, but its files could not be rebuilt .* again to finish"):
        s.erase()
    assert s.feedback_count() == 0
    monkeypatch.undo()
    s.erase()


@pytest.mark.parametrize("how", ["replaced", "deleted"])
def test_a_write_to_a_store_whose_file_was_replaced_while_open_is_refused(tmp_path, how):
    """SQLite writes into the file it holds open: with another file put at the path, writes were acknowledged and
    then lost."""
    import os
    import shutil

    db = tmp_path / "p.db"
    s = PreferenceStore(db)
    s.space("m").add_feedback("a", np.ones(4, np.float32), "like", text="the cat")
    if how == "replaced":
        shutil.copy(db, tmp_path / "copy.db")
        os.replace(tmp_path / "copy.db", db)
    else:
        db.unlink()
    with pytest.raises(EdgeRankerError, match="was replaced, moved or deleted while this store had it open"):
        s.space("m").add_feedback("b", np.ones(4, np.float32), "like", text="the dog")
    s.close()


def test_a_store_opened_by_a_relative_path_still_writes_after_a_chdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s = PreferenceStore("p.db")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    s.space("m").add_feedback("a", np.ones(4, np.float32), "like", text="the cat")
    assert s.feedback_count() == 1
    s.close()


def test_undo_of_a_view_takes_its_seconds_back_from_the_interest_they_went_to(tmp_path):
    """A view's seconds go to the closest liked interest; undoing the viewed document (never liked itself) takes
    them back, never below 0, and leaves another view's seconds where they are."""
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("liked", vec(1, 0), "like")
    s.space("m").add_signals("view", [("read", "a text read", vec(1, 0.1), 40.0)], None, dwell=True)
    s.space("m").add_signals("view", [("other", "another text read", vec(1, 0.2), 25.0)], None, dwell=True)
    assert s.space("m").interests()[0][0].view_time == pytest.approx(65.0)
    assert s.undo("read") == 1
    assert s.space("m").interests()[0][0].view_time == pytest.approx(25.0)
    assert s.undo("other") == 1 and s.space("m").interests()[0][0].view_time == 0.0


def test_undo_of_a_liked_and_read_document_leaves_another_interests_seconds(tmp_path):
    """The view's seconds leave the interest they went to before the rebuild drops it: another, far interest keeps
    its own seconds."""
    s = PreferenceStore(tmp_path / "p.db")
    s.space("m").add_feedback("a", vec(1, 0), "like")
    s.space("m").add_signals("view", [("a", "a text", vec(1, 0), 40.0)], None, dwell=True)
    s.space("m").add_feedback("b", vec(0, 1), "like")
    s.space("m").add_signals("view", [("b", "b text", vec(0, 1), 25.0)], None, dwell=True)
    assert s.undo("a") == 2
    (only,) = s.space("m").interests()[0]
    assert only.view_time == pytest.approx(25.0)
