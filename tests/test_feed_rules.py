"""The feed's rules after the scores, and the implicit signals, through the shipped pair: a reader who never presses
like, one story told in several languages, what the user already reacted to, and the store keeping it all."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import SCHEMA_VERSION, PreferenceStore
from edge_ranker.runtime.store.sqlite import MIGRATIONS

NOW = 1_750_000_000.0
FOOD = [
    ("f1", "A quick tomato pasta with garlic and basil, ready in fifteen minutes."),
    ("f2", "How to bake sourdough bread at home with a simple starter."),
    ("f3", "Slow-cooked beef stew with carrots and red wine."),
    ("f4", "A recipe for vegetable soup with beans and fresh herbs."),
]
SPORT = [
    ("s1", "The striker scored twice as the home team won the league match."),
    ("s2", "The tennis champion lost in the first round of the open."),
    ("s3", "The cyclists raced up the mountain stage in heavy rain."),
    ("s4", "The goalkeeper saved a penalty in the cup final."),
]
STORY = {  # one story in three languages, and another story on its topic
    "en": ("e", "The city council approved a new tram line to the airport."),
    "de": ("d", "Der Stadtrat hat eine neue Straßenbahnlinie zum Flughafen genehmigt."),
    "fr": ("r", "Le conseil municipal a approuvé une nouvelle ligne de tramway vers l'aéroport."),
    "other": ("o", "The mayor opened a new public library in the north of the city."),
}


@pytest.fixture(scope="module")
def pair():
    from edge_ranker.runtime.encoder import Encoder

    return Encoder.load("semantic"), Encoder.load("relevance")


def docs(items):
    return [Document(i, t) for i, t in items]


def test_a_reader_who_never_presses_like_gets_a_personal_feed(pair):
    """Reading the food items for a while and scrolling past the sport ones, twice, lifts food above sport."""
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    shown = docs(FOOD[:2] + SPORT[:2])
    for day in range(2):
        ranker.shown(shown, ts=NOW + day)
        for d in shown[:2]:
            ranker.viewed(d, 45.0, ts=NOW + day + 1)
    fresh = docs(FOOD[2:] + SPORT[2:])
    ranked = ranker.rank(fresh, now=NOW + 10)
    assert set(ranked.ids[:2]) == {"f3", "f4"}
    top = ranked[0]
    assert 0 < top.interest["positive_weight"] < 1  # a read weighs less than a like
    assert ranked[3].interest["negative_weight"] < 1  # and a skip less than a dislike


def test_a_glance_is_no_read_and_an_opened_document_is_never_a_skip(pair):
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    (glanced,) = docs(FOOD[:1])
    ranker.viewed(glanced, 2.0, ts=NOW)
    ranker.shown([glanced], ts=NOW + 1)
    ranker.shown([glanced], ts=NOW + 2)
    positive, negative = ranker._interests()
    assert positive == [] and negative == []  # cold still: no read, no skip
    assert ranker.rank(docs(FOOD + SPORT), now=NOW + 3)[0].personal_score is None


def test_undo_of_a_document_takes_its_signals_and_export_lists_them(pair, tmp_path):
    ranker = Ranker(*pair, PreferenceStore(tmp_path / "p.db"))
    read, skipped = docs(FOOD[:1] + SPORT[:1])
    ranker.viewed(read, 60.0, ts=NOW)
    ranker.shown([read, skipped], ts=NOW + 1)
    ranker.shown([skipped], ts=NOW + 2)
    assert [s["doc_id"] for s in ranker.export()["signals"]] == ["f1", "f1", "s1", "s1"]
    assert [(h["id"], h["reaction"]) for h in ranker.history()][:1] == [("f1", "view")]
    assert len(ranker._interests()[0]) == 1 and len(ranker._interests()[1]) == 1
    assert ranker.undo("s1") == 2
    assert ranker._interests()[1] == []  # the skip went with its showings
    assert ranker.undo("f1") == 2 and ranker._interests() == ([], [])
    ranker.store.close()


def test_erase_leaves_no_byte_of_a_shown_or_read_text(pair, tmp_path):
    path = tmp_path / "p.db"
    ranker = Ranker(*pair, PreferenceStore(path))
    secret = Document("x", "Zanzibar spice market tour notes for the weekend.")
    ranker.shown([secret], ts=NOW)
    ranker.viewed(secret, 30.0, ts=NOW + 1)
    ranker.erase()
    ranker.store.close()
    for f in tmp_path.iterdir():
        assert b"Zanzibar" not in f.read_bytes(), f


def schema_1_store(path):
    """A store as an edge-ranker before the signals table wrote it: one like, schema 1."""
    with PreferenceStore(path) as store:
        store.space("m").add_feedback("a", [1.0, 0.0], "like", "a text", NOW)
    con = sqlite3.connect(path)
    con.execute("DROP TABLE signals")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    return path


def test_a_schema_1_store_migrates_and_keeps_its_likes(pair, tmp_path):
    """A store written before the signals table: a writable open adds it, a read-only one reads as having none."""
    path = schema_1_store(tmp_path / "old.db")
    with PreferenceStore(path, read_only=True) as store:
        assert store.history()[0]["id"] == "a" and store.export()["signals"] == []
    assert "signals" in MIGRATIONS[2]
    with PreferenceStore(path) as store:
        assert store.export()["schema_version"] == SCHEMA_VERSION == 2
        store.space("m").add_signals("shown", [("b", "another", [0.0, 1.0], 0.0)], NOW)
        assert [h["id"] for h in store.history()] == ["a", "b"]


def test_one_story_in_three_languages_shows_once_and_two_stories_do_not_fold(pair):
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    feed = docs(list(STORY.values()) + FOOD[:2])
    ranked = ranker.rank(feed, now=NOW)
    folded = {r.id: r.duplicate_of for r in ranked if r.duplicate_of is not None}
    kept = next(i for i in ranked.ids if i in "edr")
    assert set(folded) == set("edr") - {kept} and set(folded.values()) == {kept}
    assert ranked.ids[-len(folded):] == [r.id for r in ranked if r.duplicate_of]  # they follow all the others
    assert "o" not in folded  # another story on the same topic
    assert all(r.duplicate_of is None for r in ranker.rank(feed, now=NOW, duplicates="keep"))


def test_what_the_user_reacted_to_sinks_in_a_feed_and_stays_in_a_search(pair):
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    feed = docs(FOOD + SPORT)
    ranker.like(feed[0], ts=NOW)
    assert ranker.rank(feed, now=NOW)[-1].id == "f1"
    assert "f1" not in ranker.rank(feed, now=NOW, reacted="leave_out").ids
    assert ranker.rank(feed, now=NOW, reacted="keep")[0].id == "f1"
    assert ranker.rank(feed, query="tomato pasta", now=NOW)[0].id == "f1"  # a search finds it, read or not


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"duplicates": "merge"}, "duplicates must be one of 'fold', 'keep', got 'merge'"),
        ({"reacted": "hide"}, "reacted must be one of 'sink', 'keep', 'leave_out', got 'hide'"),
    ],
)
def test_an_unknown_option_is_refused_in_words(pair, kwargs, words):
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    with pytest.raises(EdgeRankerError, match=words):
        ranker.rank(docs(FOOD), **kwargs)
    with pytest.raises(EdgeRankerError, match="shown takes a list of documents"):
        ranker.shown(FOOD[0][1])
    with pytest.raises(EdgeRankerError, match=r"is one \(id, text\) document: pass a list"):
        ranker.shown(("soup", FOOD[0][1]))  # like() takes this pair as one document: shown must not see two texts
    assert ranker.store.history() == [] and ranker.shown([("soup", FOOD[0][1])]) == 1


def test_a_schema_1_store_read_where_no_file_can_be_made_refuses_signals_it_cannot_keep(tmp_path, monkeypatch):
    """In a folder the reader cannot write, a read-only store opens with ``mode=ro``; a schema-1 store's signals are
    an empty temporary table there, and a showing went into it: acknowledged, listed, then lost at the close."""
    import os

    path = schema_1_store(tmp_path / "old.db")
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: not mode & os.W_OK and access(p, mode, **kw))
    with PreferenceStore(path, read_only=True) as store:
        monkeypatch.undo()
        with pytest.raises(EdgeRankerError, match="read-only"):
            store.space("m").add_signals("shown", [("b", "another", [0.0, 1.0], 0.0)], NOW)
        assert [h["id"] for h in store.history()] == ["a"]


def test_a_document_twice_in_one_showing_is_refused_and_makes_no_skip(pair):
    """One call showing a document twice was kept as two showings, at one time: a skip at once, where it takes
    SKIP_AFTER showings; and one id with two texts was kept as both. ``rank`` refuses such a list in these words."""
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    twice = docs(FOOD[:2] + FOOD[:1])
    with pytest.raises(EdgeRankerError, match='document id "f1" appears twice'):
        ranker.shown(twice, ts=NOW)
    with pytest.raises(EdgeRankerError, match='document id "s1" appears twice'):
        ranker.shown([Document("s1", SPORT[0][1]), Document("s1", FOOD[3][1])], ts=NOW)
    assert ranker.history() == [] and ranker._interests() == ([], [])


@pytest.mark.parametrize("ts", [float("nan"), -1.0, NOW * 10, True, "yesterday"])
def test_a_time_that_cannot_be_is_refused_whether_or_not_the_document_is_kept(pair, ts):
    """A showing or a view of a document no interest can be learnt from (no word) is not kept; its time was then
    never looked at, where the web package refuses it first: the app learnt of its bad clock only by chance."""
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    wordless = Document("w", "😀 🎉")
    with pytest.raises(EdgeRankerError, match="feedback time"):
        ranker.shown([wordless], ts=ts)
    with pytest.raises(EdgeRankerError, match="feedback time"):
        ranker.shown([], ts=ts)
    with pytest.raises(EdgeRankerError, match="feedback time"):
        ranker.viewed(wordless, 30.0, ts=ts)
    assert ranker.history() == []


@pytest.mark.parametrize(
    "kwargs", [{"duplicates": np.array(["fold", "keep"])}, {"reacted": np.array(["sink", "keep"])}]
)
def test_an_option_that_is_no_word_is_refused_in_words_not_by_numpy(pair, kwargs):
    """An array for an option was compared with each allowed word, and numpy's "truth value of an array is
    ambiguous" came out of ``rank``."""
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    with pytest.raises(EdgeRankerError, match=f"{next(iter(kwargs))} must be one of"):
        ranker.rank(docs(FOOD), **kwargs)


@pytest.mark.parametrize("bad", [-0.1, float("nan"), "0.1", True])
def test_a_diversity_outside_its_range_is_refused_in_words(pair, bad):
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    with pytest.raises(EdgeRankerError, match="the diversity weight must be a finite number >= 0"):
        ranker.rank(docs(FOOD), diversity=bad)


def test_diversity_reorders_a_feed_and_never_a_search(pair, monkeypatch):
    """The rule runs for a feed ranked by the interests only: a search keeps the query rule's order."""
    from edge_ranker.runtime import ranker as ranker_module

    calls = []
    monkeypatch.setattr(ranker_module, "diversify", lambda order, *a: calls.append(len(order)) or order)
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    ranker.like(FOOD[0])
    ranker.rank(docs(FOOD), query="soup", now=NOW)
    ranker.rank(docs(FOOD), now=NOW, diversity=0)
    assert calls == []
    ranker.rank(docs(FOOD), now=NOW)
    assert calls == [len(FOOD)]


def test_a_huge_diversity_takes_strict_turns_and_never_repeats_or_lifts_an_unread_document(pair):
    """A weight that overflows lowers a document to the lowest score, not below the placed ones: each document once,
    and one the models cannot read still last."""
    from edge_ranker.runtime.diversity import diversify

    got = diversify(np.arange(5), np.array([0.9, -np.inf, 0.8, 0.7, 0.6]), np.array([0, -1, 0, 1, 1]), 1e308, 30)
    assert got.tolist() == [0, 3, 2, 4, 1]
    ranker = Ranker(*pair, PreferenceStore(":memory:"))
    ranker.like(FOOD[0])
    feed = [*docs(FOOD), Document("emoji", "🎉🎉")]
    ids = ranker.rank(feed, now=NOW, diversity=1e308, duplicates="keep", reacted="keep").ids
    assert sorted(ids) == sorted(d.id for d in feed) and ids[-1] == "emoji"
