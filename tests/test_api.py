"""The public API as users of sentence-transformers, model2vec and fastembed reach for it."""

from __future__ import annotations

import logging
import pydoc
from pathlib import Path

import numpy as np
import pytest

import edge_ranker
from edge_ranker import (
    CorruptedDatabase,
    Document,
    EdgeRankerError,
    Encoder,
    PreferenceStore,
    Ranked,
    Ranker,
    Ranking,
    __version__,
)
from edge_ranker.runtime.ranker import SEMANTIC_SHARE, model_key


@pytest.fixture(scope="module")
def semantic():
    return Encoder.load("semantic")


def test_a_single_text_gives_one_vector_and_a_list_a_matrix(semantic):
    one = semantic.encode("Where is the station?")
    many = semantic.encode(["Where is the station?", "Wo ist der Bahnhof?"])
    assert one.shape == (semantic.dim,) and many.shape == (2, semantic.dim) and semantic.dim == 128
    np.testing.assert_allclose(one, many[0], atol=1e-6)
    assert semantic.encode(b"bytes too").shape == (128,)


def test_batch_size_per_call_and_a_progress_bar(semantic, capsys):
    texts = [f"sentence number {i}" for i in range(40)]
    a = semantic.encode(texts)
    b = semantic.encode(texts, batch_size=3, show_progress_bar=True)
    assert np.abs(a - b).max() <= 1e-6
    assert "embedding" in capsys.readouterr().err
    with pytest.raises(EdgeRankerError, match="batch_size"):
        semantic.encode(texts, batch_size=0)


def test_a_role_for_a_model_without_roles_is_an_error(semantic, tiny_model):
    assert semantic.roles == []
    with pytest.raises(EdgeRankerError, match="has no roles"):
        semantic.encode(["x"], role="query")
    tiny = Encoder.load(tiny_model)
    assert tiny.roles == ["passage", "query"] and tiny.encode("x", role="query").shape == (32,)


def test_encode_query_and_encode_document_take_the_roles_the_model_has(semantic, tiny_model):
    """sentence-transformers' ``encode_query`` / ``encode_document``: the role's prefix where the model has roles,
    plain ``encode`` where it has none, so search code embeds queries one way whichever model it holds."""
    tiny = Encoder.load(tiny_model)
    texts = ["a green river", "ein grüner Fluss"]
    np.testing.assert_array_equal(tiny.encode_query(texts), tiny.encode(texts, role="query"))
    np.testing.assert_array_equal(tiny.encode_document(texts[0]), tiny.encode(texts[0], role="passage"))
    assert np.abs(tiny.encode_query(texts) - tiny.encode_document(texts)).max() > 1e-3
    np.testing.assert_allclose(semantic.encode_query(texts, batch_size=1), semantic.encode(texts), atol=1e-6)
    np.testing.assert_array_equal(semantic.encode_document(texts), semantic.encode(texts))


def test_readable_reprs_and_exports(semantic, tmp_path):
    store = PreferenceStore(tmp_path / "p.db")
    ranker = Ranker(semantic, None, store)
    assert repr(semantic).startswith("Encoder('semantic', dim=128")
    assert "p.db" in repr(store) and repr(ranker).startswith("Ranker(semantic='semantic', relevance=None")
    ranking = ranker.rank([{"id": "a", "text": "x"}, {"id": "b", "text": "y"}])
    assert isinstance(ranking, Ranking) and repr(ranking) == "Ranking(2 documents: 'a', 'b')"
    assert isinstance(ranking[0], Ranked) and "score=" in repr(ranking[0])
    assert __version__ == edge_ranker.__version__ and issubclass(EdgeRankerError, Exception)
    assert (Path(edge_ranker.__file__).parent / "py.typed").exists()


def test_docstrings_on_the_public_api():
    for obj in (Encoder, Encoder.encode, Ranker, Ranker.rank, Ranker.feedback, PreferenceStore, Ranked, Ranking):
        assert obj.__doc__ and len(obj.__doc__.split()) >= 8, obj


def test_logging_is_silent_by_default_and_speaks_when_asked(tiny_model, capfd, caplog):
    Encoder.load(tiny_model)
    assert capfd.readouterr().err == ""
    with caplog.at_level(logging.DEBUG, logger="edge_ranker"):
        Encoder.load(tiny_model)
    assert any("loaded" in r.getMessage() for r in caplog.records)


def _snapshot(store, key):
    pos, neg = store.space(key).interests()
    return [(c.positive, c.view_count, c.last_view, np.round(c.point, 5).tolist()) for c in pos + neg]


def test_undo_a_document_is_as_if_it_had_never_been_liked(tiny_model, tmp_path):
    enc = Encoder.load(tiny_model)
    docs = [{"id": i, "text": t} for i, t in enumerate(["green river", "river water", "stone wall", "old house"])]
    history = [(docs[0], "like", 100.0), (docs[1], "like", 200.0), (docs[2], "dislike", 300.0)]
    never = Ranker(enc, enc, PreferenceStore(tmp_path / "never.db"))
    undone = Ranker(enc, enc, PreferenceStore(tmp_path / "undone.db"))
    for d, reaction, ts in history:
        never.feedback(d, reaction, ts=ts)
        undone.feedback(d, reaction, ts=ts)
        if d is docs[0]:
            undone.feedback(docs[3], "like", ts=150.0)  # the reaction to undo, between the others
            undone.feedback(docs[3], "dislike", ts=160.0)
    assert undone.undo("3") == 2 and undone.undo("3") == 0
    assert _snapshot(undone.store, undone.model_key) == _snapshot(never.store, never.model_key)
    assert undone.rank(docs).ids == never.rank(docs).ids


def test_a_new_semantic_model_re_embeds_the_stored_likes(tiny_model, tmp_path, semantic):
    old = Encoder.load(tiny_model)
    first = Ranker(old, None, PreferenceStore(tmp_path / "p.db"))
    first.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    first.feedback({"id": "b", "text": "football scores"}, "dislike")
    first.store.close()
    updated = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))  # the app ships a new model
    pos, neg = updated.store.space(updated.model_key).interests()
    assert len(pos) == 1 and len(neg) == 1 and pos[0].point.shape == (128,)
    np.testing.assert_allclose(pos[0].point, semantic.encode("rivers and lakes"), atol=1e-5)
    ranked = updated.rank([{"id": "x", "text": "football match"}, {"id": "y", "text": "a lake and a river"}])
    assert ranked.ids == ["y", "x"] and ranked[0].interest["positive_interest"] is not None


def test_a_running_ranker_takes_back_the_reactions_another_pair_of_models_moved(tiny_model, tmp_path, semantic):
    """Two Rankers of other models on one store (an app and a command line of other --relevance): each start moves
    the reactions into its models' space, so a Ranker already running finds none in its own; it takes them back
    rather than rank cold, and its dwell time is not lost with them."""
    tiny = Encoder.load(tiny_model)
    feed = [{"id": "x", "text": "football match"}, {"id": "y", "text": "a lake and a river"}]
    first = Ranker(semantic, tiny, PreferenceStore(tmp_path / "p.db"))
    second = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    second.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    assert first.rank(feed)[0].personal_score is not None  # the other pair's like, moved into this one's space
    assert [r.personal_score is not None for r in second.rank(feed)] == [True, True]  # and taken back
    assert second.rank(feed).ids == ["y", "x"]
    second.feedback({"id": "b", "text": "football scores"}, "dislike")
    first.viewed({"id": "c", "text": "a lake"}, 30.0)  # counted, though its interests had been moved away
    (liked,), (disliked,) = first.store.space(first.model_key).interests()
    # the like and the read of "a lake", which joins its interest (spec/rules/implicit.md)
    assert liked.view_count == 2 and disliked.view_count == 1 and liked.view_time == 30.0


def test_with_a_relevance_model_interests_hold_both_models_vectors(semantic, tmp_path):
    """An interest's similarity is the two models' cosines weighted by the semantic model's share; likes stored
    with the semantic model alone are embedded again into the pair's space, from their text."""
    relevance = Encoder.load("relevance")
    alone = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    alone.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    alone.store.close()
    both = Ranker(semantic, relevance, PreferenceStore(tmp_path / "p.db"))
    assert both.model_key == f"{alone.model_key}+{model_key(relevance)}@{SEMANTIC_SHARE:g}"
    (interest,), _ = both.store.space(both.model_key).interests()
    a, b = "rivers and lakes", "a lake and a river"
    np.testing.assert_allclose(interest.point, both.interest_vectors([a])[0], atol=1e-6)
    weighted = SEMANTIC_SHARE * (semantic.encode(a) @ semantic.encode(b)) + (1 - SEMANTIC_SHARE) * (
        relevance.encode(a, role="passage") @ relevance.encode(b, role="passage")
    )
    assert both.interest_vectors([a])[0] @ both.interest_vectors([b])[0] == pytest.approx(float(weighted), abs=1e-6)
    assert np.linalg.norm(both.interest_vectors([a])[0]) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(EdgeRankerError, match="a list of texts"):
        both.interest_vectors(a)
    ranked = both.rank([{"id": "x", "text": "football match"}, {"id": "y", "text": b}])
    assert ranked.ids == ["y", "x"] and ranked[0].interest["positive_similarity"] == pytest.approx(
        float(interest.point @ both.interest_vectors([b])[0]), abs=1e-5
    )


def test_interests_stored_under_an_even_mean_are_embedded_again_with_the_share(semantic, tmp_path):
    """A release that weighed the two models evenly stored its interests under the pair's key without a share:
    the ranker embeds them again from their text at ``SEMANTIC_SHARE`` instead of comparing them as they were, and
    the time the user spent on them comes along."""
    relevance = Encoder.load("relevance")
    text, before = "rivers and lakes", f"{model_key(semantic)}+{model_key(relevance)}"
    even = np.concatenate([semantic.encode(text), relevance.encode(text, role="passage")]) / np.sqrt(2.0)
    with PreferenceStore(tmp_path / "p.db") as store:
        store.space(before).add_feedback("a", even, "like", text=text)
        store.space(before).add_view_time(even, 30.0)
    both = Ranker(semantic, relevance, PreferenceStore(tmp_path / "p.db"))
    (interest,), _ = both.store.space(both.model_key).interests()
    np.testing.assert_allclose(interest.point, both.interest_vectors([text])[0], atol=1e-6)
    assert np.abs(interest.point - even).max() > 0.01 and interest.view_time == 30.0


def test_a_folder_read_differently_under_the_same_graph_gets_a_new_key_and_its_history_is_embedded_again(
    tiny_model, tmp_path
):
    """The key covers what makes a text's vector, not the graph alone: a folder whose max_length, prefixes or tokenizer
    changed would otherwise keep interests the model no longer makes."""
    import shutil

    from edge_ranker.runtime.manifest import read_manifest, write_manifest

    text = "rivers and lakes " * 20
    folder = Path(shutil.copytree(tiny_model, tmp_path / "model"))
    before = Encoder.load(folder)
    Ranker(before, None, PreferenceStore(tmp_path / "p.db")).feedback({"id": "a", "text": text}, "like")
    keys = {model_key(before)}
    manifest = read_manifest(folder)
    for change in ("max_length", "prefixes", "tokenizer"):
        if change == "max_length":
            manifest.max_length //= 2
        elif change == "prefixes":
            manifest.prefixes = {"query": "question: ", "passage": "answer: "}
        else:  # the same vocabulary, its JSON written otherwise
            tokenizer = folder / manifest.tokenizer
            tokenizer.write_text(tokenizer.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        write_manifest(folder, manifest)
        after = Encoder.load(folder)
        assert model_key(after) not in keys
        keys.add(model_key(after))
        ranker = Ranker(after, None, PreferenceStore(tmp_path / "p.db"))
        (interest,), _ = ranker.store.space(ranker.model_key).interests()
        np.testing.assert_allclose(interest.point, ranker.interest_vectors([text])[0], atol=1e-6)
    assert model_key(before) == model_key(Encoder.load(tiny_model))  # a copy of the same folder keeps its key


def test_ranking_scores_follow_ids_and_embeddings_are_the_callers(semantic, tmp_path):
    ranker = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback({"id": "l", "text": "rivers and lakes"}, "like")
    docs = [{"id": "x", "text": "football"}, {"id": "y", "text": "a lake"}, {"id": "z", "text": "a river"}]
    ranking = ranker.rank(d for d in docs)  # a generator is read once, fully
    assert len(ranking) == 3 and [r.score for r in ranking] == list(ranking.scores) == sorted(ranking.scores)[::-1]
    assert ranking.ids == [r.id for r in ranking]
    with pytest.raises(TypeError):
        ranking["x"]
    vectors = ranker.embed(docs)
    vectors /= 2  # the caller's own array
    assert ranker.embed(docs)[0] @ ranker.embed(docs)[0] == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(EdgeRankerError, match="cache_vectors"):
        Ranker(semantic, None, ranker.store, cache_vectors=0)
    assert Ranker(semantic, None, ranker.store, cache_vectors=np.int64(8), k=np.int64(60)).rank(docs).ids  # as k takes


def test_time_spent_on_a_document_weighs_its_interest(semantic, tmp_path):
    ranker = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    ranker.viewed({"id": "b", "text": "a lake"}, 30.0)
    (interest,) = ranker.store.space(ranker.model_key).interests()[0]
    assert interest.view_time == 30.0
    ranker.viewed({"id": "b", "text": "a lake"}, np.float32(5))  # numpy's numbers too, stored as floats
    ranker.viewed({"id": "b", "text": "a lake"}, np.int64(5))
    assert ranker.store.space(ranker.model_key).interests()[0][0].view_time == 40.0
    for seconds in (86_400.5, 1e308, float("inf"), -1.0, np.float32("nan")):  # summed, 1e308 twice: infinity
        with pytest.raises(EdgeRankerError, match="view time must be from 0 to 86400 seconds"):
            ranker.viewed({"id": "b", "text": "a lake"}, seconds)
    for seconds in (True, np.bool_(True), "5", None):
        with pytest.raises(EdgeRankerError, match="view time must be a number of seconds"):
            ranker.viewed({"id": "b", "text": "a lake"}, seconds)
    assert ranker.store.space(ranker.model_key).interests()[0][0].view_time == 40.0


def test_undo_refuses_what_is_not_a_document_id(semantic, tmp_path):
    ranker = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    ranker.feedback({"id": 7, "text": "seas"}, "like")
    for wrong in (None, ["a"], 1.5, True, np.bool_(True), np.float64(7)):
        with pytest.raises(EdgeRankerError, match="undo takes a document id"):
            ranker.undo(wrong)
    assert ranker.store.feedback_count() == 2 and ranker.undo("a") == 1 and ranker.undo(np.int64(7)) == 1


def test_import_star_gives_the_runtime_and_training_names_say_what_to_install(monkeypatch):
    namespace: dict = {}
    exec("from edge_ranker import *", namespace)
    assert {"Encoder", "Ranker", "PreferenceStore", "EdgeRankerError"} <= set(namespace)
    assert "export_model" not in namespace and "export_model" in dir(edge_ranker)
    monkeypatch.setitem(edge_ranker._LAZY, "export_model", "edge_ranker_missing_module")
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'edge-ranker\[train\]'"):
        _ = edge_ranker.export_model
    # without the extra, dir() leaves the name out, so help() and inspect, which read all it lists, work
    monkeypatch.setattr(edge_ranker, "_TRAINING_NEEDS", "edge_ranker_missing_module")
    assert "export_model" not in dir(edge_ranker) and "Ranker" in dir(edge_ranker)
    assert "PreferenceStore" in pydoc.render_doc(edge_ranker)


def test_a_vector_of_another_size_than_the_interests_is_refused_and_nothing_is_stored(tmp_path):
    store = PreferenceStore(tmp_path / "p.db")
    store.space("m").add_feedback("a", np.ones(4), "like")
    for call in (
        lambda: store.space("m").add_feedback("b", np.ones(6), "like"),
        lambda: store.space("m").add_feedback("b", np.ones(6), "dislike"),  # likes and dislikes of one model alike
        lambda: store.space("m").add_view_time(np.ones(6), 5),
    ):
        with pytest.raises(EdgeRankerError, match="a vector of 6 numbers for interests of 4"):
            call()
    assert store.feedback_count() == 1
    other = PreferenceStore(tmp_path / "q.db")
    other.space("m").add_feedback("a", np.ones(4), "dislike")
    with pytest.raises(EdgeRankerError, match="a vector of 6 numbers for interests of 4"):
        other.space("m").add_view_time(np.ones(6), 5)


def test_interests_of_another_size_than_the_models_give_are_refused_by_name_and_recovered(semantic, tmp_path):
    """One interest of another size is consistent with itself, so the open (which reads no reaction) passes it;
    ranking names it rather than fail in numpy, and ``recover``, which compares the interests with the reactions,
    takes the store as damaged."""
    import sqlite3

    ranker = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    ranker.store.close()
    con = sqlite3.connect(tmp_path / "p.db")
    con.execute("UPDATE interests SET point=?", (np.ones(64, np.float32).tobytes(),))
    con.commit()
    con.close()
    with pytest.raises(CorruptedDatabase, match="interests of 64 numbers .* whose models give 128.*prefs recover"):
        Ranker(semantic, None, PreferenceStore(tmp_path / "p.db")).rank([{"id": "x", "text": "a lake"}])
    assert PreferenceStore.recover(tmp_path / "p.db").exists() and not (tmp_path / "p.db").exists()


def test_a_failed_adoption_is_tried_again_at_the_next_rank(tiny_model, semantic, tmp_path, monkeypatch):
    from edge_ranker.runtime.store import LockedDatabase

    tiny = Encoder.load(tiny_model)
    first = Ranker(semantic, tiny, PreferenceStore(tmp_path / "p.db"))
    for model in ("semantic", "relevance"):  # its vectors kept: taking the like in writes none
        first.embed([{"id": "r", "text": "rivers"}], model)
    Ranker(semantic, None, PreferenceStore(tmp_path / "p.db")).feedback({"id": "a", "text": "rivers"}, "like")
    real = first.adoption.space.move_here
    calls = []

    def locked_once(*args):
        calls.append(args)
        if len(calls) == 1:
            raise LockedDatabase("locked by another process; retry later")
        return real(*args)

    monkeypatch.setattr(first.adoption.space, "move_here", locked_once)
    feed = [{"id": "x", "text": "a lake"}]
    with pytest.raises(LockedDatabase):
        first.rank(feed)
    assert first.rank(feed)[0].personal_score is not None and len(calls) == 2


def test_ranking_a_new_feed_does_not_look_at_the_reactions_again(semantic, tmp_path, monkeypatch):
    """Its document vectors are written to the store, which changes it; only a store that holds no interest in
    these models' space is looked at for reactions to take in."""
    ranker = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    looked = []
    monkeypatch.setattr(ranker.adoption.space, "stale_texts", lambda *a: looked.append(a) or [])
    for k in range(3):
        ranker.rank([{"id": f"{k}", "text": f"a new text number {k}"}])
    assert looked == []


def test_an_integer_id_is_its_decimal_string_in_every_way_in_and_swapped_models_are_refused(semantic, tmp_path):
    relevance = Encoder.load("relevance")
    assert Document(7, "seven").id == "7" == Document.from_dict({"id": 7, "text": "seven"}).id
    # numpy's integers and numbers too: ids and times often come from a numpy or pandas column
    assert Document(np.int64(7), "seven").id == "7" == Document.from_dict({"id": np.uint8(7), "text": "seven"}).id
    assert Document("a", "x", np.float32(1.5e9)).published == float(np.float32(1.5e9))
    assert Document("a", "x", np.int64(1_500_000_000)).published == 1.5e9
    for bad in (True, np.bool_(True), 7.0, np.float64(7), None, 10**5000):
        with pytest.raises(EdgeRankerError, match="id"):
            Document(bad, "x")
    with pytest.raises(EdgeRankerError, match="at most 4,300 digits"):
        Document.from_dict({"id": 10**5000, "text": "x"})
    with pytest.raises(EdgeRankerError, match="the models are swapped") as caught:
        Ranker(relevance, semantic, PreferenceStore(tmp_path / "p.db"))
    assert "\n" not in str(caught.value)
    with pytest.raises(EdgeRankerError, match="--relevance relevance"):
        Ranker(semantic, None, PreferenceStore(tmp_path / "p.db")).rank([Document("a", "rivers")], query="rivers")


def test_a_new_semantic_model_takes_the_stored_reads_and_skips_along(tiny_model, tmp_path, semantic):
    """What the reader opened and scrolled past is kept with its text, so a model update embeds it again with the
    likes: the skipped football story still counts against football under the new model."""
    old = Encoder.load(tiny_model)
    first = Ranker(old, None, PreferenceStore(tmp_path / "p.db"))
    first.feedback({"id": "a", "text": "rivers and lakes"}, "like")
    for _ in range(2):
        first.shown([{"id": "s", "text": "football scores"}])
    first.viewed({"id": "r", "text": "a lake and a river"}, 60.0)
    first.store.close()
    updated = Ranker(semantic, None, PreferenceStore(tmp_path / "p.db"))
    pos, neg = updated.store.space(updated.model_key).interests()
    assert len(pos) == 1 and len(neg) == 1 and neg[0].point.shape == (128,)  # the skip, in the new space
    np.testing.assert_allclose(neg[0].point, semantic.encode("football scores"), atol=1e-5)
    assert updated.store.space(updated.model_key).stale_signals() == []
    ranked = updated.rank([{"id": "x", "text": "football match"}, {"id": "y", "text": "a lake"}], reacted="keep")
    assert ranked.ids == ["y", "x"] and ranked[1].interest["negative_interest"] is not None
