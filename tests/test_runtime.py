"""Runtime robustness on a tiny exported model: any text, no torch, no network, threads."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import warnings
from fractions import Fraction

import numpy as np
import pytest
from conftest import SYLLABLES, VARIED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.lexical import has_word
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore


@pytest.fixture(scope="module")
def enc(tiny_model):
    return Encoder.load(tiny_model)


def test_a_non_list_is_refused(enc, tmp_path):
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"))
    with pytest.raises(EdgeRankerError, match="item 0 is int"):
        ranker.interest_vectors([1, 2])
    for bad in ({"id": "a", "text": "x"}, {"a", "b"}, None):
        with pytest.raises(EdgeRankerError, match="texts must be"):
            ranker.interest_vectors(bad)
    ranker.feedback({"id": "l", "text": "green river"}, "like")
    with warnings.catch_warnings():  # a 'now' long before the likes: they count in full, with no overflow warned
        warnings.simplefilter("error")
        assert ranker.rank([{"id": "a", "text": "green"}], now=0)[0].interest["positive_decay"] == 1.0
    for bad in (None, "a text", {"id": "a", "text": "x"}, 5):
        with pytest.raises(EdgeRankerError, match="docs must be a list"):
            ranker.rank(bad)
    for now in (np.int64(0), Fraction(1, 2)):  # numbers of other types than float are numbers
        assert ranker.rank([{"id": "a", "text": "green"}], now=now).ids == ["a"]


def test_a_bad_query_and_a_closed_store_are_named(enc, tmp_path):
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"))
    with pytest.raises(EdgeRankerError, match="query must be str or bytes-like, got int"):
        ranker.rank([{"id": "a", "text": "x"}], query=5)
    ranker.store.close()
    with pytest.raises(EdgeRankerError, match="was closed; open a new PreferenceStore"):
        ranker.rank([{"id": "a", "text": "x"}])


def test_documents_without_a_word_go_last(enc, tmp_path):
    """Empty, blank, punctuation-only and emoji-only texts hold nothing to match, for a query or for interests."""
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"))
    wordless = ["", "   ", "...", "\U0001f680\U0001f389", "\x00\n"]
    docs = [Document(f"w{i}", t) for i, t in enumerate(wordless)] + [
        Document(f"d{i}", t) for i, t in enumerate(VARIED[3:9])
    ]
    last = {f"w{i}" for i in range(len(wordless))}
    assert set(ranker.rank(docs, query="river").ids[-len(wordless) :]) == last
    ranker.feedback(Document("l", "green river water"), "like")
    # for the interests, texts the model cannot read go last too (test_readable.py); here the tiny vocabulary's
    unread = {d.id for d, u in zip(docs, ranker.reader.unreadable([d.text for d in docs])) if u}
    assert unread and not unread & last
    assert set(ranker.rank(docs).ids[-len(last | unread) :]) == last | unread
    assert set(ranker.rank(docs, query="").ids[-len(last | unread) :]) == last | unread  # an empty query: interests
    fresh = Ranker(enc, enc, PreferenceStore(tmp_path / "cold.db"))
    dated = [Document(d.id, d.text, published=1e9 + i) for i, d in enumerate(docs)]
    assert set(fresh.rank(dated).ids[-len(wordless) :]) == last  # newest first, but not a blank item
    for text in wordless:
        with pytest.raises(EdgeRankerError, match="no word to learn an interest from"):
            ranker.feedback(Document("blank", text), "like")
    assert ranker.store.feedback_count() == 1


def test_wrong_types_get_messages_not_python_errors(enc, tmp_path):
    store = PreferenceStore(tmp_path / "p.db")
    for semantic, relevance, st_, match in [
        (enc, enc, None, "PreferenceStore"),
        ("semantic", enc, store, "semantic model must be an Encoder"),
        (enc, "relevance", store, "relevance model must be an Encoder"),
    ]:
        with pytest.raises(EdgeRankerError, match=match):
            Ranker(semantic, relevance, st_)
    for bad in (None, 5, b"semantic"):
        with pytest.raises(EdgeRankerError, match="folder path or a shipped name"):
            Encoder.load(bad)
    ranker = Ranker(enc, enc, store)
    with pytest.raises(EdgeRankerError, match="array of numbers"):
        ranker.rank([Document("a", "x")], semantic_vectors="abc")
    with pytest.raises(EdgeRankerError, match="non-blank"):
        Document("   ", "x")
    with pytest.raises(EdgeRankerError, match="milliseconds"):
        Document.from_dict({"id": "a", "text": "x", "published": 1.7e12})


TEXT = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(blacklist_categories=()), max_size=200),  # surrogates, controls, anything
    st.sampled_from(["", " ", "\n\t", "\x00" * 50, "😀" * 500, "a" * 1_000_000, "Ελληνικά 中文 العربية ру"]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(TEXT, min_size=1, max_size=5), query=st.one_of(st.none(), TEXT))
def test_never_crashes_on_any_text(enc, tmp_path, texts, query):
    v = enc.encode(texts)
    assert v.shape == (len(texts), enc.dim) and np.isfinite(v).all()
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "h.db"))
    liked = Document("x", texts[0])
    if has_word(liked.text) and ranker.reader.readable(liked.text):
        ranker.feedback(liked, "like")
    else:  # nothing to learn from: a message, not a crash
        with pytest.raises(EdgeRankerError, match="no word|not one the models can read"):
            ranker.feedback(liked, "like")
    out = ranker.rank([Document(str(i), t) for i, t in enumerate(texts)], query=query)
    assert sorted(r.id for r in out) == sorted(str(i) for i in range(len(texts)))


def test_a_document_built_directly_with_a_lone_surrogate_is_liked_and_ranked(enc, tmp_path):
    """Text reaches SQLite cleaned however a Document is built, not only through from_dict."""
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "h.db"))
    doc = Document("x", "caf\ud800e")
    assert doc.text == "caf?e"
    ranker.feedback(doc, "like")
    assert sorted(r.id for r in ranker.rank([doc, Document("y", b"\xff bytes")])) == ["x", "y"]


def test_runtime_imports_no_training_stack(tiny_model, tmp_path):
    code = f"""
import sys, json
from edge_ranker.runtime.encoder import Encoder, split_windows
from edge_ranker.runtime.lexical import has_word
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore
import edge_ranker
e = Encoder.load({str(tiny_model)!r})
r = Ranker(e, e, PreferenceStore({str(tmp_path / "p.db")!r}))
r.feedback({{"id": "a", "text": "the cat"}}, "like")
r.rank([{{"id": "b", "text": "the dog"}}], query="cat")
bad = sorted(m for m in ("torch", "transformers", "sklearn", "accelerate", "scipy") if m in sys.modules)
print(json.dumps(bad))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_concurrent_rank_and_feedback(enc, tmp_path):
    store = PreferenceStore(tmp_path / "c.db")
    ranker = Ranker(enc, enc, store)
    # a text without a word, or one the tiny vocabulary cannot read, is refused as feedback
    likable = [t for t in VARIED if has_word(t) and ranker.reader.readable(t)]
    docs = [Document(str(i), t) for i, t in enumerate(VARIED[:10])]
    expected_ids = sorted(d.id for d in docs)
    reference = [r.id for r in Ranker(enc, enc, PreferenceStore(tmp_path / "ref.db")).rank(docs, query="cat")]
    errors: list[BaseException] = []

    def worker(k):
        try:
            for i in range(15):
                if k % 2:
                    text = likable[(k + i) % len(likable)]
                    ranker.feedback(Document(f"{k}-{i}", text), "like" if i % 2 else "dislike")
                else:
                    out = ranker.rank(docs, query="cat")
                    assert sorted(r.id for r in out) == expected_ids
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors, errors[0]
    assert store.feedback_count() == 4 * 15
    assert reference  # cold-start ranking computed alone, for the record


def test_cold_start_orders(enc, tmp_path):
    r = Ranker(enc, enc, PreferenceStore(tmp_path / "cold.db"))
    docs = [
        {"id": "old", "text": "a", "published": "2020-01-01T00:00:00Z"},
        {"id": "new", "text": "b", "published": "2024-01-01T00:00:00+00:00"},
        {"id": "undated", "text": "c"},
    ]
    assert [x.id for x in r.rank(docs)] == ["new", "old", "undated"]
    out = r.rank(docs, query="b")
    assert all(set(x.contributions) == {"query"} for x in out)
    with pytest.raises(EdgeRankerError, match="published"):
        r.rank([{"id": "x", "text": "a", "published": "yesterday"}])
    with pytest.raises(EdgeRankerError, match="id"):
        r.rank([{"text": "no id"}])


def test_interests_past_the_horizon_count_for_nothing(enc, tmp_path):
    """A like 40 days old has faded to 0: the feed starts cold again (newest first, whatever the input order), and
    beside a living interest it is nobody's nearest (else the documents nearest it would tie and keep input order)."""
    r = Ranker(enc, enc, PreferenceStore(tmp_path / "faded.db"))
    day, now = 86_400.0, 1_750_000_000.0
    r.feedback({"id": "l", "text": "green river water"}, "like", ts=now - 40 * day)
    texts = ["river bank", "blue water", "old stone", "green field", "house party", "cold rain"]
    docs = [{"id": f"d{y}", "text": t, "published": f"20{y}-01-01T00:00:00Z"} for y, t in zip(range(10, 16), texts)]
    newest = [d["id"] for d in reversed(docs)]
    for order in (docs, docs[::-1]):
        out = r.rank(order, now=now)
        assert [x.id for x in out] == newest and all(set(x.contributions) == {"recency"} for x in out)
        assert all(set(x.contributions) == {"query"} for x in r.rank(order, query="river", now=now))
    # a faded interest exactly on one document, a living one apart from the faded one (orthogonal to it)
    on_doc = r.interest_vectors([texts[0]])[0]
    apart = np.random.default_rng(0).normal(size=on_doc.shape)
    r.store.space(r.model_key).add_feedback("f", on_doc, "like", ts=now - 40 * day)
    r.store.space(r.model_key).add_feedback("a", apart - (apart @ on_doc) * on_doc, "like", ts=now - day)
    living = max(r.store.space(r.model_key).interests()[0], key=lambda c: c.last_view)
    out = r.rank(docs, now=now)
    assert {x.interest["positive_interest"] for x in out} == {living.id}
    assert [x.id for x in r.rank(docs[::-1], now=now)] == [x.id for x in out]


def test_explanations_add_up(enc, tmp_path):
    r = Ranker(enc, enc, PreferenceStore(tmp_path / "e.db"))
    r.feedback({"id": "l", "text": "green river water"}, "like")
    r.feedback({"id": "d", "text": "stone house"}, "dislike")
    out = r.rank([{"id": str(i), "text": t} for i, t in enumerate(VARIED[3:12])], query="river", duplicates="keep")
    for x in out:
        assert x.score == pytest.approx(sum(x.contributions.values()), abs=1e-12)
        assert set(x.contributions) == {"personal", "query"}
        assert x.interest["positive_interest"] is not None
    assert [x.rank for x in out] == list(range(1, len(out) + 1))
    assert all(a.score >= b.score for a, b in zip(out, out[1:]))


@pytest.mark.parametrize(
    ("docs", "match"),
    [
        ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], "appears twice"),
        ([{"id": None, "text": "x"}], "'id' must be"),
        ([{"id": True, "text": "x"}], "'id' must be"),
        ([{"id": "a"}], "needs an 'id' and a 'text'"),
        ([{"id": "a", "text": 5}], "'text' must be a string"),
        ([{"id": "a", "text": "x", "published": float("nan")}], "'published'"),
    ],
)
def test_documents_that_cannot_be_ranked_are_refused(enc, tmp_path, docs, match):
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"))
    with pytest.raises(EdgeRankerError, match=match):
        ranker.rank(docs)


@pytest.mark.parametrize("kwargs", [{"personal_weight": float("nan")}, {"lexical_weight": float("inf")}, {"k": 0}])
def test_fusion_settings_must_be_finite(enc, tmp_path, kwargs):
    with pytest.raises(EdgeRankerError):
        Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"), **kwargs)


def test_now_must_be_finite(enc, tmp_path):
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"))
    with pytest.raises(EdgeRankerError, match="'now'"):
        ranker.rank([{"id": "a", "text": "x"}], now=float("nan"))


def test_bm25_reads_what_the_encoder_reads(enc, tmp_path):
    """A huge document is cut for BM25 as for the encoder: a word past the cut does not count."""
    filler = "filler " * (enc.max_length * 64 // 7 + 10)
    docs = [{"id": "far", "text": filler + "zebra"}, {"id": "near", "text": "zebra crossing"}]
    ranked = {r.id: r for r in Ranker(enc, enc, PreferenceStore(tmp_path / "p.db")).rank(docs, query="zebra")}
    assert ranked["far"].lexical_score == 0.0 < ranked["near"].lexical_score
    assert len(enc.cut(filler * 100)) == enc.max_length * 64


class Counting:
    """An encoder wrapper that counts the texts it embeds."""

    def __init__(self, enc):
        self.enc, self.texts = enc, 0

    def __getattr__(self, name):
        return getattr(self.enc, name)

    def encode(self, texts, role=None, **options):
        self.texts += len(texts)
        return self.enc.encode(texts, role=role, **options)


def test_document_vectors_persist_across_processes(enc, tmp_path):
    words = SYLLABLES["en"]  # words the tiny vocabulary reads
    docs = [{"id": str(i), "text": f"river {words[i % 12]} {words[i // 12]}"} for i in range(30)]
    first = Counting(enc)
    r1 = Ranker(first, first, PreferenceStore(tmp_path / "p.db"))
    r1.feedback(docs[0], "like")
    a = r1.rank(docs, query="river")
    assert first.texts == 1 + 29 + 30 + 1  # the liked text, the rest of the feed, the feed as passages, the query
    second = Counting(enc)  # a new process: a fresh in-memory cache over the same file
    b = Ranker(second, second, PreferenceStore(tmp_path / "p.db")).rank(docs, query="river")
    assert second.texts == 1 and b.ids == a.ids  # only the query is embedded
    # standardised cosines of float32 vectors, read back or made anew: equal to BLAS rounding on any x86 CPU
    np.testing.assert_allclose(b.scores, a.scores, atol=1e-5)


def test_an_app_can_pass_the_vectors_it_kept(enc, tmp_path):
    docs = [Document(str(i), f"stone {i}") for i in range(5)]
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback(docs[0], "like")
    sem, pas = ranker.embed(docs, "semantic"), ranker.embed(docs, "relevance")
    counting = Counting(enc)
    fresh = Ranker(counting, counting, PreferenceStore(tmp_path / "q.db"))
    fresh.feedback(docs[0], "like")
    before = counting.texts
    got = fresh.rank(docs, query="stone", semantic_vectors=sem, passage_vectors=pas)
    assert counting.texts == before + 1 and got.ids == ranker.rank(docs, query="stone").ids
    with pytest.raises(EdgeRankerError, match="shape"):
        fresh.rank(docs, semantic_vectors=sem[:3])


def test_the_vector_cache_is_bounded_and_keeps_what_a_call_uses(enc):
    from edge_ranker.runtime.cache import VectorCache

    cache = VectorCache(capacity=10)
    texts = [f"t{i}" for i in range(8)]
    cache.get("m", "", texts, enc.dim, lambda m: enc.encode(m))
    cache.get("m", "", texts[:2] + ["n1", "n2", "n3", "n4"], enc.dim, lambda m: enc.encode(m))
    space = cache._spaces[("m", "")]
    assert len(space.texts) == 10 and {"t0", "t1", "n4"} <= set(space.index)  # t2, t3 were the oldest
    many = [f"x{i}" for i in range(25)]  # more than the cache holds: served, not kept
    np.testing.assert_allclose(cache.get("m", "", many, enc.dim, lambda m: enc.encode(m)), enc.encode(many))
    np.testing.assert_allclose(cache.get("m", "", texts[:2], enc.dim, lambda m: enc.encode(m)), enc.encode(texts[:2]))


def test_a_ranking_builds_results_when_read(enc, tmp_path):
    docs = [{"id": str(i), "text": f"word {i}"} for i in range(50)]
    ranking = Ranker(enc, enc, PreferenceStore(tmp_path / "p.db")).rank(docs, query="word 7")
    assert len(ranking) == 50 and ranking[0].rank == 1 and ranking[-1].rank == 50
    assert [r.id for r in ranking] == ranking.ids and [r.id for r in ranking[:3]] == ranking.ids[:3]
    assert sum(ranking[0].contributions.values()) == pytest.approx(ranking[0].score)
    with pytest.raises(IndexError):
        ranking[50]


def test_documents_are_checked_once_and_cannot_be_changed_after():
    import dataclasses
    from datetime import datetime, timezone

    d = Document("a", None, published="2025-01-02T00:00:00")  # no time zone: UTC, not the machine's
    assert d.text == "" and d.published == datetime(2025, 1, 2, tzinfo=timezone.utc).timestamp()
    assert Document("b", b"caf\xc3\xa9", datetime(2025, 1, 2)).published == d.published
    assert Document.from_dict({"id": 7, "text": None, "published": "2025-01-02T00:00:00Z"}) == Document(
        "7", "", d.published
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.text = None
    with pytest.raises(EdgeRankerError, match="published"):
        Document("c", "x", published="yesterday")


def test_numbers_past_a_float_are_refused_in_words(enc, tmp_path):
    with pytest.raises(EdgeRankerError, match="personal weight"):
        Ranker(enc, enc, PreferenceStore(tmp_path / "p.db"), personal_weight=10**400)
    with pytest.raises(EdgeRankerError, match="'now'"):
        Ranker(enc, enc, PreferenceStore(tmp_path / "p.db")).rank([Document("a", "the cat")], now=10**400)


def test_ranks_on_two_threads_at_once_leave_the_apps_blas_threads_as_they_were():
    """``rank`` holds BLAS to one thread while it runs. Two ranks overlapping on two threads left it at one thread
    for good: the second saved the first's limit as the original and restored it last."""
    from threadpoolctl import threadpool_info

    from edge_ranker.runtime.threads import one_blas_thread

    def blas() -> list[int]:
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    before = blas()
    if not before or max(before) < 2:
        pytest.skip("numpy's BLAS runs one thread here already")
    steps = [threading.Event() for _ in range(3)]  # T1 in, T2 in, T1 out; then T2 out
    inside: list[list[int]] = []

    def first() -> None:
        with one_blas_thread():
            inside.append(blas())
            steps[0].set()
            steps[1].wait(10)
        steps[2].set()

    def second() -> None:
        steps[0].wait(10)
        with one_blas_thread():
            steps[1].set()
            steps[2].wait(10)
            inside.append(blas())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert inside[0] == [1] * len(before) and blas() == before
    with one_blas_thread():  # and a rank after them still holds it to one
        assert blas() == [1] * len(before)
    assert blas() == before
