"""Texts the models cannot read (a script their vocabulary lacks) teach no interest and are ranked by their words."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.adoption import LEARNABLE_RULE
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.readable import UNKNOWN_LIMIT, VocabularyCoverage
from edge_ranker.runtime.store import PreferenceStore

# one sentence in each of the 10 languages the shipped vocabulary was built for
READ = [
    "The council approved the new budget for public transport.",
    "Der Stadtrat hat den neuen Haushalt für den Nahverkehr beschlossen.",
    "Le conseil a approuvé le nouveau budget des transports publics.",
    "Il consiglio ha approvato il nuovo bilancio per i trasporti pubblici.",
    "El consejo aprobó el nuevo presupuesto para el transporte público.",
    "O conselho aprovou o novo orçamento para os transportes públicos.",
    "De gemeenteraad keurde de nieuwe begroting voor het openbaar vervoer goed.",
    "Rada miasta zatwierdziła nowy budżet na transport publiczny.",
    "Совет утвердил новый бюджет на общественный транспорт.",
    "Meclis toplu taşıma için yeni bütçeyi onayladı.",
]
# Thai (football, a tax, a cat), Arabic, Hindi, Korean: scripts it lacks
UNREAD = [
    "ฟุตบอลทีมชาติไทยชนะการแข่งขันเมื่อวานนี้",
    "รัฐบาลประกาศนโยบายภาษีใหม่",
    "แมวของฉันชอบนอนบนโซฟา",
    "مباراة كرة القدم انتهت بالتعادل",
    "भारत ने क्रिकेट मैच जीत लिया",
    "서울에서 새로운 박물관이 문을 열었다",
]


@pytest.fixture(scope="module")
def shipped() -> tuple[Encoder, Encoder]:
    return Encoder.load("semantic"), Encoder.load("relevance")


def test_the_ten_languages_are_read_and_other_scripts_are_not(shipped):
    reader = VocabularyCoverage(shipped[0], 100)
    assert all(reader.unknown_share(t) <= 0.2 for t in READ)
    assert all(reader.unknown_share(t) > UNKNOWN_LIMIT for t in UNREAD)
    assert reader.unreadable(READ + UNREAD).tolist() == [False] * len(READ) + [True] * len(UNREAD)
    # emoji and punctuation are no words either way; a text without words is not unreadable
    assert reader.unknown_share("Great match tonight \U0001f389\U0001f389\U0001f389 !!") == 0.0
    assert reader.unknown_share("") == 0.0 and reader.unknown_share("\U0001f389 \u2026") == 0.0
    assert reader.unknown_share("iPhone 15 \u0e23\u0e32\u0e04\u0e32 \u0e25\u0e14\u0e25\u0e07") == 0.5  # half: read


def test_why_such_texts_are_set_apart(shipped):
    """The premise: texts of a script the vocabulary lacks share one vector whatever they say."""
    v = shipped[0].encode(UNREAD[:3])
    assert (v @ v.T).min() > 0.99


@pytest.fixture(scope="module")
def readers(shipped) -> tuple[VocabularyCoverage, VocabularyCoverage]:
    """The quick path and the word-by-word count alone (no quick path: every text goes word by word)."""
    quick, slow = VocabularyCoverage(shipped[0], 10), VocabularyCoverage(shipped[0], 10)
    slow._odd = None
    return quick, slow


_ALPHABET = st.sampled_from(
    [*"abcXYZ \u00e9\u00c9\u00df\u0130\u00a9-\u2026\x1c\u200b\t\n\u2028\u0301", "\u0e1f", "\u4e2d", "\U0001f389"]
    + ["[UNK]", "a" * 60]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_the_quick_path_agrees_with_the_word_by_word_count(readers, text):
    """Most texts are decided by one regular expression search; every text must get the count word by word."""
    quick, slow = readers
    assert quick.unknown_share(text) == slow.unknown_share(text)


@pytest.mark.parametrize("n", [99, 100, 101, 150])
def test_a_word_longer_than_wordpiece_spells_is_unknown_on_either_path(readers, n):
    quick, slow = readers
    text = "river " + "a" * n
    assert quick.unknown_share(text) == slow.unknown_share(text) == (0.5 if n > 100 else 0.0)


def test_only_the_words_the_model_reads_count(shipped):
    """An English article that ends in Chinese is read; a Thai text that ends in English is not."""
    reader = VocabularyCoverage(shipped[0], 10)
    assert reader.readable("The council approved the new budget for public transport. " * 60 + "\u4e2d\u6587" * 300)
    assert not reader.readable(UNREAD[0] + " " + " ".join(["\u0e1f\u0e38\u0e15\u0e1a\u0e2d\u0e25"] * 600) + READ[0])


def test_a_like_of_an_unreadable_text_is_refused_in_words_and_stores_nothing(shipped, tmp_path):
    ranker = Ranker(*shipped, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback(Document("fc", "The striker scored twice in the derby."), "like")
    with pytest.raises(EdgeRankerError, match="not one the models can read") as caught:
        ranker.feedback(Document("th", UNREAD[0]), "like")
    assert "\n" not in str(caught.value) and "100%" in str(caught.value)
    assert ranker.store.feedback_count() == 1
    before = [c.view_time for c in ranker.store.space(ranker.model_key).interests()[0]]
    ranker.viewed(Document("th", UNREAD[0]), 30.0)  # its closest interest would be chance: counts towards none
    assert [c.view_time for c in ranker.store.space(ranker.model_key).interests()[0]] == before
    ranker.viewed(Document("fc2", "The home team won the cup final."), 30.0)
    assert sum(c.view_time for c in ranker.store.space(ranker.model_key).interests()[0]) == sum(before) + 30.0


def test_likes_of_unreadable_texts_stored_by_other_models_teach_these_none_and_are_kept(shipped, tmp_path, caplog):
    """A store from before the rule, or from models that read Thai: such a like stays with its text under its own
    key, while the readable like moves into these models' space; one stored without its text cannot move, and the
    first start says so."""
    semantic, relevance = shipped
    old = "semantic:0000000000000000"
    with PreferenceStore(tmp_path / "p.db") as store:
        for n, text in enumerate((READ[0], UNREAD[0], "\U0001f389 !!", None)):
            store.space(old).add_feedback(f"d{n}", semantic.encode(text or READ[1]), "like", text=text)
    for start in range(2):  # a second start does not look at them again
        with caplog.at_level(logging.WARNING, logger="edge_ranker"):
            ranker = Ranker(semantic, relevance, PreferenceStore(tmp_path / "p.db"))
        assert ("1 stored reaction has no text" in caplog.text) == (start == 0)
        caplog.clear()
        (interest,), _ = ranker.store.space(ranker.model_key).interests()
        np.testing.assert_allclose(interest.point, ranker.interest_vectors([READ[0]])[0], atol=1e-6)
        assert ranker.store.space(ranker.model_key).stale_texts(LEARNABLE_RULE) == []
        assert ranker.store.space(old).interests()[0]  # still there, under the key they were stored with
        ranker.store.close()
    with PreferenceStore(tmp_path / "p.db") as store:
        assert len(store.space("other models").stale_texts(LEARNABLE_RULE)) == 4  # which look at every one of them once
        assert [t for _, t in store.space(ranker.model_key).stale_texts("another rule")] == [
            UNREAD[0],
            "\U0001f389 !!",
            None,
        ]
        assert store.undo("d1") == 1
        assert [x["event"] for x in store.export()["left_out"]] == [3, 4]  # the forgotten like's row went
        store.erase()
        assert store.export()["left_out"] == []


def test_a_ranker_starts_on_a_read_only_store_whose_old_likes_it_leaves_out(shipped, tmp_path):
    with PreferenceStore(tmp_path / "p.db") as store:
        store.space("semantic:0000000000000000").add_feedback("t", shipped[0].encode(UNREAD[0]), "like", text=UNREAD[0])
    with PreferenceStore(tmp_path / "p.db", read_only=True) as store:
        ranker = Ranker(*shipped, store)
        assert ranker.store.space(ranker.model_key).interests() == ([], [])
        assert [x["model"] for x in ranker.store.export()["feedback"]] == ["semantic:0000000000000000"]


def test_a_ranker_on_a_read_only_store_takes_its_old_readable_likes_in_memory_and_changes_nothing(shipped, tmp_path):
    """A store of an earlier release that this process may not write: the likes these models can read are embedded
    again for this ranker alone, into the interests a writable start would store (dwell time aside: none here)."""
    path = tmp_path / "p.db"
    old = "semantic:0000000000000000"
    with PreferenceStore(path) as store:
        for n, text in enumerate((READ[0], UNREAD[0], READ[1])):
            store.space(old).add_feedback(f"d{n}", shipped[0].encode(text), "like" if n < 2 else "dislike", text=text)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with PreferenceStore(path, read_only=True) as store:
        ranker = Ranker(*shipped, store)
        likes, dislikes = ranker.store.space(ranker.model_key).interests()
        ranked = ranker.rank([Document(f"r{i}", t) for i, t in enumerate(READ)])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    with PreferenceStore(path) as store:
        writable = Ranker(*shipped, store)
        assert [(c.point.tolist(), c.view_count) for c in likes + dislikes] == [
            (c.point.tolist(), c.view_count) for c in sum(writable.store.space(writable.model_key).interests(), [])
        ]
        assert len(likes) == len(dislikes) == 1
        assert ranked.ids == writable.rank([Document(f"r{i}", t) for i, t in enumerate(READ)]).ids


def test_unreadable_documents_go_last_for_the_interests(shipped, tmp_path):
    """A like of football lifts the football news, not every Thai item (as their shared vector would)."""
    ranker = Ranker(*shipped, PreferenceStore(tmp_path / "p.db"))
    ranker.feedback(Document("l", "The striker scored twice as the home team won the derby."), "like")
    docs = [Document(f"u{i}", t) for i, t in enumerate(UNREAD)] + [Document(f"r{i}", t) for i, t in enumerate(READ)]
    ids = ranker.rank(docs).ids
    assert set(ids[-len(UNREAD) :]) == {f"u{i}" for i in range(len(UNREAD))}
    assert ids[-len(UNREAD) :] == [f"u{i}" for i in range(len(UNREAD))]  # tied: input order


def test_an_unreadable_query_or_document_is_matched_by_its_words(shipped, tmp_path):
    """Their cosines say nothing, so they are neutral and BM25 decides: a Thai query finds the Thai item that has
    its word, and among readable documents an unreadable one sits at their mean cosine."""
    ranker = Ranker(*shipped, PreferenceStore(tmp_path / "p.db"))
    football = "\u0e1f\u0e38\u0e15\u0e1a\u0e2d\u0e25"
    docs = [Document(f"u{i}", t) for i, t in enumerate(UNREAD[1:])] + [
        Document("match", f"{football} \u0e17\u0e35\u0e21\u0e0a\u0e32\u0e15\u0e34 \u0e0a\u0e19\u0e30"),
        *(Document(f"r{i}", t) for i, t in enumerate(READ)),
    ]
    out = ranker.rank(docs, query=football, duplicates="keep")  # READ is one story: the scores alone here
    assert out.ids[0] == "match" and out[0].lexical_score > 0
    assert out.ids[1:] == [d.id for d in docs if d.id != "match"]  # the rest tie: input order
    others = [d for d in docs if d.id != "match"]
    nothing = ranker.rank(others, query=football, duplicates="keep")  # no document has its word: no order added
    assert all(set(r.contributions) == {"recency"} for r in nothing) and nothing.ids == [d.id for d in others]
    cosine_only = Ranker(*shipped, PreferenceStore(tmp_path / "q.db"), lexical_weight=0, semantic_query_weight=0)
    news = [Document("th", UNREAD[1])] + [Document(f"r{i}", t) for i, t in enumerate(READ)]
    ranked = cosine_only.rank(news, query="budget for public transport", duplicates="keep")
    cosines = np.array([r.relevance_score for r in ranked if r.id != "th"])
    assert ranked.ids.index("th") == int((cosines > cosines.mean()).sum())  # at the readable documents' mean
    assert ranked[ranked.ids.index("th")].relevance_score is not None  # its own cosine is still shown


def test_an_unreadable_document_sits_at_the_readable_ones_mean_for_the_semantic_query_cosine_too(shipped, tmp_path):
    """A query whose words no document has is carried by the semantic cosine (and the relevance one); both are
    neutral for a document the models cannot read, even one whose vectors are the query's own (cosine 1): its
    fused query score is 0, standardised, not the top."""
    semantic, relevance = shipped
    query = "zzzq tramway subvention"
    ranker = Ranker(semantic, relevance, PreferenceStore(tmp_path / "p.db"), lexical_weight=0)
    news = [Document(f"r{i}", t) for i, t in enumerate(READ)] + [Document("th", UNREAD[1])]
    sem, pas = ranker.embed(news, "semantic"), ranker.embed(news, "relevance")
    sem[-1], pas[-1] = semantic.encode(query), relevance.encode(query, role="query")
    ranked = ranker.rank(news, query=query, semantic_vectors=sem, passage_vectors=pas, duplicates="keep")
    assert ranked.query_coverage == 0.0 and ranked[ranked.ids.index("th")].semantic_score > 0.99
    rows = [r for r in ranked if r.id != "th"]
    rel, cos = (np.array([getattr(r, f) for r in rows]) for f in ("relevance_score", "semantic_score"))
    combined = (rel - rel.mean()) / rel.std() + 2.0 * (cos - cos.mean()) / cos.std()  # the semantic query weight
    assert ranked.ids.index("th") == int((combined > 0).sum()) > 0


def test_long_runs_of_symbols_and_letters_newer_than_pythons_unicode(readers):
    """A run of emoji is looked at once, not once per emoji (its word ends where it ends); a character Python's
    Unicode leaves unassigned may be a letter to the tokenizer's newer one (U+A7CB lowercases to U+0264, which the
    vocabulary lacks), so the quick path leaves it to the word-by-word count."""
    quick, slow = readers
    run = "\U0001f389" * 30_000
    assert quick.unknown_share(run) == slow.unknown_share(run) == 0.0
    assert quick.unknown_share("\ua7cb") == slow.unknown_share("\ua7cb") == 1.0


def test_the_refusal_gives_the_share_of_unknown_words(shipped, tmp_path):
    ranker = Ranker(*shipped, PreferenceStore(tmp_path / "p.db"))
    text = " ".join(["\u0e1f\u0e38\u0e15\u0e1a\u0e2d\u0e25"] * 11 + ["river"] * 9)  # 11 of 20 words: 55%
    with pytest.raises(EdgeRankerError, match=r"55% of its words"):
        ranker.feedback(Document("t", text), "like")
    assert Ranker(*shipped, PreferenceStore(tmp_path / "q.db"), k=np.int64(60)).k == 60  # numpy numbers are numbers
