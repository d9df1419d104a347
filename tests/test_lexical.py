"""The runtime's lexical half of the relevance score: terms, BM25 against hand-computed values, the fusion."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import VARIED, make_sentences
from tokenizers import Tokenizer

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.fusion import SEMANTIC_QUERY_WEIGHT, query_scores
from edge_ranker.runtime.lexical import Bag, TermIndex, bm25, coverage, matched, standardise, terms
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore


@pytest.fixture(scope="module")
def tok(tiny_vocab) -> Tokenizer:
    return Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))


def test_terms_are_the_tokenizers_words_with_a_letter_or_number(tok):
    assert terms(tok, "The CAT, the cat!") == ["the", "cat", "the", "cat"]
    assert terms(tok, "日本語 😀 -- x-ray 42 ①") == ["日", "本", "語", "x", "ray", "42", "①"]
    assert terms(tok, "") == [] and terms(tok, "?! 🎉") == []


def test_bm25_matches_a_hand_computed_value():
    fruit = "kiwi mango mango lime", "kiwi plum", "fig pear apple peach cherry melon"  # no language's function words
    docs = TermIndex.of([Bag.of(fruit[0].split()), Bag.of([]), Bag.of(fruit[1].split()), Bag.of(fruit[2].split())])
    assert docs.lengths.tolist() == [4, 0, 2, 6] and len(docs) == 4
    got = bm25(["mango", "kiwi", "mango", "zzz"], docs)  # a repeated query term counts once; an unseen one adds nothing
    k1, b, n, avg = 1.2, 0.75, 4, 12 / 4

    def part(tf: int, df: int, length: int) -> float:
        return math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))

    want = [part(2, 1, 4) + part(1, 2, 4), 0.0, part(1, 2, 2), 0.0]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert bm25([], docs).tolist() == [0.0] * 4 and bm25(["kiwi"], TermIndex.of([])).shape == (0,)


def test_fusion_standardises_both_and_leaves_the_cosine_alone_without_shared_words():
    cos = np.array([0.9, 0.1, 0.5], dtype=np.float32)
    assert query_scores(cos, None, 1.0) is cos and query_scores(cos, np.ones(3), 0.0) is cos
    np.testing.assert_allclose(query_scores(cos, np.zeros(3), 1.0), standardise(cos))  # no shared word
    fused = query_scores(np.array([0.9, 0.8, 0.1, 0.1, 0.1]), np.array([0.0, 5.0, 0.0, 0.0, 0.0]), 1.0)
    assert np.argmax(fused) == 1  # the second-best cosine, with the only shared word, goes first
    np.testing.assert_allclose(standardise(np.array([3.0, 5.0])), [-1.0, 1.0])


def test_ranker_orders_by_cosine_without_and_by_words_with_a_heavy_lexical_weight(tiny_model, tmp_path):
    enc = Encoder.load(tiny_model)
    docs = [{"id": str(i), "text": t} for i, t in enumerate(make_sentences("en", 9, seed=3))]  # words it reads
    query = docs[2]["text"]
    plain = Ranker(enc, enc, PreferenceStore(tmp_path / "a.db"), lexical_weight=0.0).rank(
        docs, query=query, duplicates="keep"  # the scores' order: a tiny model's vectors may fold
    )
    cos = enc.encode([d["text"] for d in docs], role="passage") @ enc.encode([query], role="query")[0]
    assert [r.id for r in plain] == [docs[i]["id"] for i in np.argsort(-cos, kind="stable")]
    assert all(r.lexical_score is None for r in plain)
    heavy = Ranker(enc, enc, PreferenceStore(tmp_path / "b.db"), lexical_weight=1e6).rank(
        docs, query=query, duplicates="keep"
    )
    words = bm25(terms(enc.tokenizer, query), TermIndex.of([Bag.of(terms(enc.tokenizer, d["text"])) for d in docs]))
    assert heavy[0].id == docs[int(np.argmax(words))]["id"] == "2"  # the query's own text
    assert {r.id: r.lexical_score for r in heavy} == pytest.approx({d["id"]: w for d, w in zip(docs, words)})


def test_coverage_is_the_share_of_the_querys_distinct_content_words_some_document_has():
    feed = TermIndex.of([Bag.of("kiwi mango".split()), Bag.of("lime".split())])
    assert coverage(["kiwi", "lime", "zzz", "kiwi"], feed) == pytest.approx(2 / 3)  # a repeated word counts once
    assert coverage(["zzz"], feed) == 0.0 and coverage(["mango"], feed) == 1.0
    assert coverage([], feed) == 1.0  # a query without words says nothing about its language
    assert coverage(["the", "kiwi"], feed) == 1.0  # a function word says which language, not what about


def test_a_function_word_of_the_documents_language_matches_nothing_there(tok):
    """'in' is English and German: a German recipe holding it shares nothing with an English query, so neither
    BM25 nor the interests' word share can lift it (spec/rules/stopwords.md)."""
    german = Bag.of("nudeln mit käse in der pfanne".split())
    english = Bag.of("the budget debate in parliament".split())
    feed = TermIndex.of([german, english, Bag.of("kiwi in mango".split())])
    assert [b.lang for b in (german, english)] == [1, 0] and feed.langs.tolist() == [1, 0, 0]
    got = bm25(["budget", "in"], feed)
    assert got[0] == 0.0 and got[1] > 0.0 and got[2] == 0.0
    np.testing.assert_allclose(matched(["in", "pfanne"], feed), [1.0, 0.0, 0.0])


def test_query_scores_weigh_bm25_by_the_shared_words_and_the_semantic_cosine_by_the_missing_ones():
    cos, lex, sem = np.array([0.9, 0.1, 0.5, 0.3]), np.array([0.0, 2.0, 0.0, 1.0]), np.array([0.1, 0.2, 0.9, 0.4])
    want = standardise(cos) + 0.25 * standardise(lex) + 0.75 * standardise(sem)
    np.testing.assert_allclose(query_scores(cos, lex, 1.0, sem, 0.25, 1.0), want)
    np.testing.assert_allclose(query_scores(cos, lex, 1.0, sem, 1.0, 1.0), query_scores(cos, lex, 1.0))
    np.testing.assert_allclose(query_scores(cos, lex, 1.0, sem, 0.25, 0.0), standardise(cos) + 0.25 * standardise(lex))
    np.testing.assert_allclose(query_scores(cos, None, 0.0, sem, 0.0, 2.0), standardise(cos) + 2 * standardise(sem))
    assert query_scores(cos, None, 0.0, sem, 1.0, 1.0) is cos  # nothing joins the cosine


@pytest.fixture(scope="module")
def shipped() -> tuple[Encoder, Encoder]:
    return Encoder.load("semantic"), Encoder.load("relevance")


NEWS = [
    "The central bank raised interest rates to slow inflation.",
    "A simple recipe for tomato soup with fresh basil and garlic.",
    "The striker scored twice as the home team won the derby.",
    "Astronomers found water vapour on a distant planet.",
]


def _rank(ranker: Ranker, query: str, **kwargs):
    """Rank NEWS for ``query`` and close the ranker's store."""
    with ranker.store:
        return ranker.rank([{"id": str(i), "text": t} for i, t in enumerate(NEWS)], query=query, **kwargs)


def test_a_query_with_all_its_words_in_the_documents_ranks_as_before(shipped, tmp_path):
    semantic, relevance = shipped
    ranking = _rank(Ranker(semantic, relevance, PreferenceStore(tmp_path / "a.db")), "tomato soup recipe")
    cos = relevance.encode(NEWS, role="passage") @ relevance.encode(["tomato soup recipe"], role="query")[0]
    feed = TermIndex.of([Bag.of(terms(relevance.tokenizer, t)) for t in NEWS])
    before = standardise(cos) + standardise(bm25(terms(relevance.tokenizer, "tomato soup recipe"), feed))
    assert ranking.query_coverage == 1.0 and all(r.semantic_score is None for r in ranking)
    assert ranking.ids == [str(i) for i in np.argsort(-before, kind="stable")]  # the formula before the change


def test_a_query_in_another_language_adds_the_semantic_cosine_by_the_share_of_missing_words(shipped, tmp_path):
    semantic, relevance = shipped
    query = "Astrónomos encuentran agua en un planet"  # reordered by the 1- and 2-layer semantic models
    ranking = _rank(Ranker(semantic, relevance, PreferenceStore(tmp_path / "a.db")), query)
    words = terms(relevance.tokenizer, query)
    feed = TermIndex.of([Bag.of(terms(relevance.tokenizer, t)) for t in NEWS])
    cover = coverage(words, feed)
    assert 0.0 < cover < 1.0 and ranking.query_coverage == pytest.approx(cover)  # "planet" is shared
    sem = semantic.encode(NEWS) @ semantic.encode([query])[0]
    assert {r.id: r.semantic_score for r in ranking} == pytest.approx({str(i): s for i, s in enumerate(sem)}, abs=1e-6)
    cos = relevance.encode(NEWS, role="passage") @ relevance.encode([query], role="query")[0]
    base = standardise(cos) + cover * standardise(bm25(words, feed))
    want = [str(i) for i in np.argsort(-(base + SEMANTIC_QUERY_WEIGHT * (1 - cover) * standardise(sem)), kind="stable")]
    assert ranking.ids == want and want[0] == "3"
    without = _rank(Ranker(semantic, relevance, PreferenceStore(tmp_path / "b.db"), semantic_query_weight=0.0), query)
    assert without.ids == [str(i) for i in np.argsort(-base, kind="stable")] != want  # the semantic cosine reorders
    assert all(r.semantic_score is None for r in without)


@pytest.mark.parametrize("query", ["🚀", "!!! …", " 🇫🇷 ?"])
def test_a_query_without_a_word_ranks_as_no_query(shipped, tmp_path, query):
    """Punctuation or emoji hold nothing to match: their vector would reorder the feed by noise."""
    semantic, relevance = shipped
    wordless = _rank(Ranker(semantic, relevance, PreferenceStore(tmp_path / "a.db")), query)
    none = _rank(Ranker(semantic, relevance, PreferenceStore(tmp_path / "b.db")), None)
    assert wordless.ids == none.ids and all(r.relevance_score is None for r in wordless)
    assert Ranker(semantic, None, PreferenceStore(tmp_path / "c.db")).rank([{"id": "a", "text": "x"}], query="🚀")


def test_the_semantic_cosine_joins_without_bm25_and_uses_the_apps_vectors(shipped, tmp_path):
    semantic, relevance = shipped
    query = "Die Zentralbank erhöht die Zinsen"
    given = np.eye(len(NEWS), semantic.dim, dtype=np.float32)  # an app's own vectors, not the model's
    ranker = Ranker(semantic, relevance, PreferenceStore(tmp_path / "a.db"), lexical_weight=0.0)
    ranking = _rank(ranker, query, semantic_vectors=given)
    q = semantic.encode([query])[0]
    assert ranking.query_coverage == 0.0 and all(r.lexical_score is None for r in ranking)
    assert {r.id: r.semantic_score for r in ranking} == pytest.approx({str(i): q[i] for i in range(len(NEWS))})


def test_a_semantic_model_with_roles_meets_the_query_without_one(tmp_path, tiny_model):
    """Documents are embedded by the semantic model without a role, so its query is too."""
    enc = Encoder.load(tiny_model)
    docs = VARIED[3:8]
    with PreferenceStore(tmp_path / "a.db") as store:
        ranking = Ranker(enc, enc, store).rank([{"id": str(i), "text": t} for i, t in enumerate(docs)], query="zzzz")
    want = enc.encode(docs) @ enc.encode(["zzzz"])[0]
    assert ranking.query_coverage == 0.0
    assert {r.id: r.semantic_score for r in ranking} == pytest.approx({str(i): w for i, w in enumerate(want)}, abs=1e-6)


def test_passage_vectors_without_a_relevance_model_are_an_error(shipped, tmp_path):
    semantic, _ = shipped
    with PreferenceStore(tmp_path / "a.db") as store, pytest.raises(EdgeRankerError, match="need a relevance model"):
        Ranker(semantic, None, store).rank([{"id": "a", "text": "x"}], passage_vectors=np.zeros((1, 128)))


@pytest.mark.parametrize("weight", [-1.0, float("nan"), "1"])
def test_the_semantic_query_weight_must_be_a_finite_number_at_least_zero(shipped, tmp_path, weight):
    with PreferenceStore(tmp_path / "a.db") as store, pytest.raises(EdgeRankerError, match="semantic query weight"):
        Ranker(*shipped, store, semantic_query_weight=weight)


def test_has_word_agrees_with_the_jvm_on_the_golden_test_texts():
    """The same texts as GoldenTest.documents (android_demo/core)."""
    from edge_ranker.runtime.lexical import has_word

    assert not any(has_word(t) for t in ["", "   ", "...", "\U0001f680\U0001f389", "\x00\n", "\u2026 !!"])
    assert all(has_word(t) for t in ["a", "... 7", "\u00e9t\u00e9", "\u4e2d", "\u00bd"])
    assert not has_word("... word", end=3) and has_word("-" * 10_000 + "x")
