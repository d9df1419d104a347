"""Search with a history: the rule through the Ranker, and the benchmark of the joined job on tiny topics."""

from __future__ import annotations

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.personal_search import evaluate_personal_search, graded_ndcg
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.fusion import SINK, personal_lift, query_part
from edge_ranker.runtime.interests import CoIConfig
from edge_ranker.runtime.lexical import Bag, TermIndex, matched, terms
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore
from tests.test_personal import write_sib


def test_matched_is_each_documents_idf_share_of_the_query():
    feed = TermIndex.of([Bag.of(w.split()) for w in ("river stone", "river", "song", "stone stone")])
    m = matched(["river", "stone", "absent"], feed)
    # river and stone are each in 2 of 4 documents: equal idf, so a half each; a word no document has counts for none
    np.testing.assert_allclose(m, [1.0, 0.5, 0.0, 0.5])
    assert not matched([], feed).any() and not matched(["absent"], feed).any()


def test_the_lift_is_centred_and_leaves_unmatched_and_unknown_documents_alone():
    personal = np.array([0.9, 0.1, 0.5, 0.3, 0.7])
    known = np.array([True, True, True, True, False])
    score = np.array([3.0, 9.0, 0.0, 5.0, 1.0])  # no answer comes near the one non-answer (index 2)
    lift = personal_lift(personal, np.array([1.0, 1.0, 0.0, 0.5, 1.0]), known, 2.0, score)
    # the median over the known documents is 0.4
    np.testing.assert_allclose(lift, [1.0, -0.6, 0.0, -0.1, 0.0])
    assert not personal_lift(personal, np.ones(5), known, 0.0, score).any()


def test_an_answer_sinks_at_most_nine_tenths_of_the_way_to_the_next_non_answer_below_it():
    personal = np.array([-1.0, 0.0, 0.0, 0.0, 1.0])
    matched = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    score = np.array([2.0, 1.5, 1.0, 3.0, 0.0])
    lift = personal_lift(personal, matched, np.ones(5, bool), 10.0, score)
    # the disliked answer (2.0) may sink to 1.5 + 0.1 * 0.5, above the non-answer at 1.5; the liked one rises freely
    np.testing.assert_allclose(lift, [-0.45, 0.0, 0.0, 0.0, 10.0])
    total = score + lift
    assert total[0] > total[1] and total[4] > total[3]
    # with no non-answer below it, an answer sinks as far as the interests say
    alone = personal_lift(personal, matched, np.ones(5, bool), 10.0, np.array([2.0, 3.0, 1.0, 4.0, 0.0]))
    assert alone[0] == -10.0


@pytest.fixture()
def enc(tiny_model):
    return Encoder.load(tiny_model)


def test_a_history_orders_what_answers_the_query_and_never_lifts_what_does_not(enc, tmp_path):
    ranker = Ranker(enc, enc, PreferenceStore(tmp_path / "h.db"))
    empty = Ranker(enc, enc, PreferenceStore(tmp_path / "e.db"))
    for text in ("river lake water", "lake water boat", "river boat water"):
        ranker.feedback({"id": text, "text": text}, "like")
    ranker.feedback({"id": "d", "text": "song music drum"}, "dislike")
    docs = [
        {"id": "song", "text": "stone song music drum"},
        {"id": "river", "text": "stone river lake water"},
        {"id": "wall", "text": "stone wall house brick"},
        {"id": "none", "text": "river lake water boat"},  # liked most, but without the query's word
        {"id": "band", "text": "song band"},
    ]
    alone = empty.rank(docs, query="stone")
    assert ranker.rank(docs, query="stone", personal_weight=0).ids == alone.ids  # 0: the query alone
    out = ranker.rank(docs, query="stone", personal_weight=1000)
    by_id = {r.id: r for r in out}
    assert out.ids[0] == "river"  # the interests order the matches: the liked one rises freely
    song = by_id["song"]
    assert song.contributions["personal"] < 0 < by_id["river"].contributions["personal"]
    # the disliked one sinks below the other answer, but never below 9/10 of the way to the next non-answer under it
    below = [by_id[d].query_score for d in ("none", "band") if by_id[d].query_score < song.query_score]
    bound = max(below) + (1 - SINK) * (song.query_score - max(below)) if below else None
    if below:
        assert song.score >= bound - 1e-9
    assert out.ids.index("wall") < out.ids.index("song") or song.score == pytest.approx(bound, abs=1e-9)
    for r in out:
        assert r.score == pytest.approx(sum(r.contributions.values()), abs=1e-9)
        assert r.contributions["query"] == pytest.approx(r.query_score)
    assert by_id["none"].contributions["personal"] == 0.0 and by_id["band"].contributions["personal"] == 0.0
    # however strong the history, a document without the query's words keeps its place among the non-matches
    rest = [d for d in out.ids if d in ("none", "band")]
    assert rest == [d for d in alone.ids if d in ("none", "band")]
    with pytest.raises(EdgeRankerError, match="personal weight"):
        ranker.rank(docs, query="stone", personal_weight=float("nan"))
    assert ranker.rank(docs).ids == ranker.rank(docs, personal_weight=0).ids  # a feed is the interests' order


def test_graded_ndcg_by_hand():
    assert graded_ndcg(np.array([2.0, 1.0, 0.0])) == 1.0
    worse = graded_ndcg(np.array([1.0, 2.0, 0.0]))
    ideal = 2 + 1 / np.log2(3)
    assert worse == pytest.approx((1 + 2 / np.log2(3)) / ideal)
    assert graded_ndcg(np.zeros(4)) == 0.0


def with_market(root, every: int):
    """``root``'s tiny topics with a word of every topic in every ``every``-th item: the usefulness query."""
    for tsv in root.glob("topics/sib200/*/dev.tsv"):
        lines = tsv.read_text(encoding="utf-8").splitlines()
        lines[1:] = [f"{line} market" if n % every == 0 else line for n, line in enumerate(lines[1:])]
        tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_the_benchmark_measures_every_system_on_tiny_topics(tmp_path, tiny_model):
    root = with_market(write_sib(tmp_path), 12)
    enc = Encoder.load(tiny_model)
    res = evaluate_personal_search(enc, enc, root, users=8, directions=[("de", "en")], strengths=(0.0,), qa_sets={})
    kept = res["robustness"]["kept"]
    systems = {"query", "interests", "rrf", "ranker", "ranker@0"}
    assert set(kept) == systems and kept["query"] == {"across": 1.0}
    assert kept["ranker@0"]["across"] == pytest.approx(1.0)  # weight 0 is the query alone, with the history stored
    use = res["usefulness"]
    assert set(use["lift"]) == systems and use["lift"]["query"] == 0.0
    for setting in ("mono", "within", "cross"):
        assert use[setting]["users"] > 0 and all(0.0 <= use[setting][s] <= 1.0 for s in systems)


def test_article_items_are_searched_and_too_few_are_refused_in_words(tmp_path, tiny_model, monkeypatch):
    from edge_ranker.evaluate import personal_search as ps

    # 60 sentences per topic, 20 articles of 3; the word in 5 sentences 40 apart, so in 5 of the 60 articles (of the 3
    # topics), within the 10% of the items a usefulness query may match
    root = with_market(write_sib(tmp_path, per_topic=60), 40)
    enc = Encoder.load(tiny_model)
    items, users = [], ps.Users
    monkeypatch.setattr(ps, "Users", lambda *a: items.append(a[2]) or users(*a))  # the items the users search
    res = evaluate_personal_search(enc, enc, root, users=4, directions=[("de", "en")], qa_sets={}, item_sentences=3)
    assert [len(t.topics) for t in items] == [60] and items[0].texts["en"][0].count("en ") == 3  # 3 sentences joined
    assert res["robustness"]["kept"]["query"] == {"across": 1.0}
    assert all(res["usefulness"][s]["users"] > 0 for s in ("mono", "within", "cross"))
    with pytest.raises(EdgeRankerError, match="makes 4 item.* fewer than a user's 5 likes"):
        evaluate_personal_search(enc, enc, root, users=4, qa_sets={}, item_sentences=13)  # 4 articles per topic
    two = tmp_path / "two" / "topics" / "sib200" / "eng_Latn"
    two.mkdir(parents=True)
    rows = [f"{i}\t{'ab'[i % 2]}\tword {i}" for i in range(20)]
    (two / "dev.tsv").write_text("\n".join(["index_id\tcategory\ttext", *rows]) + "\n", encoding="utf-8")
    with pytest.raises(EdgeRankerError, match="has 2 topic.* need 3"):
        ps.search_topics(tmp_path / "two", "dev")


def test_the_cli_passes_its_settings_and_refuses_too_few_items_before_other_work(tmp_path, monkeypatch):
    from edge_ranker.cli import app as cli_mod
    from edge_ranker.evaluate import personal_search as ps
    from edge_ranker.evaluate import report

    root = write_sib(tmp_path, per_topic=60)
    for folder in (root / "topics" / "sib200").iterdir():
        (folder / "dev.tsv").rename(folder / "train.tsv")
    seen = {}
    monkeypatch.setattr(ps, "evaluate_personal_search", lambda *a, **kw: seen.update(kw, split=a[3]) or {})
    monkeypatch.setattr(report, "evaluate_models", lambda *a, **kw: pytest.fail("evaluated before the refusal"))
    parse = cli_mod.build_parser().parse_args
    common = ["eval", "semantic", "relevance", "--personal-search", "--data", str(root), "--cache", str(tmp_path)]
    a = parse([*common, "--topics-split", "train", "--item-sentences", "3", "--seed", "2", "--strengths", "4"])
    a.func(a)
    assert seen == {"split": "train", "item_sentences": 3, "seed": 2, "strengths": (4.0,)}
    a = parse([*common, "--sts", "--topics-split", "train", "--item-sentences", "13"])
    with pytest.raises(EdgeRankerError, match="makes 4 item"):
        a.func(a)  # before --sts runs


def _centers(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The centers of interest a store builds from fresh reactions in order (``interests.react``): points, counts."""
    cfg = CoIConfig()
    points: list[np.ndarray] = []
    counts: list[int] = []
    for e in vectors:
        if points:
            sims = np.array(points) @ e
            i = int(sims.argmax())
            if sims[i] >= cfg.threshold:
                p = (1 - cfg.shift_factor) * points[i] + cfg.shift_factor * e
                points[i], counts[i] = p / np.linalg.norm(p), counts[i] + 1
                continue
        points.append(e.copy())
        counts.append(1)
    return np.array(points), np.array(counts, float)


def _nearest_centers(docs: np.ndarray, likes: np.ndarray, dislikes: np.ndarray) -> np.ndarray:
    """The personal score with fresh reactions: the nearest like's cosine plus its share of the reactions, less the
    nearest dislike's cosine (``interests.personal_scores``)."""
    pos, count = _centers(likes)
    neg, _ = _centers(dislikes)
    sims = docs @ pos.T
    return sims.max(1) + (count / count.sum())[sims.argmax(1)] - (docs @ neg.T).max(1)


def _replayed(semantic, relevance, root, weights, seed, users, qa_sets, directions) -> tuple[dict, dict]:
    """Mean graded nDCG@10 of each part, group and weight (0: the query alone) of ``evaluate_personal_search``'s
    searches (dev split, items of one sentence), drawn by its own generators and ranked again by the rule as the
    runtime's parts state it: the query part plus each document's personal lift, from the query scores, the matched
    shares and the interest vectors the Ranker computes."""
    import tempfile
    from pathlib import Path

    from edge_ranker.evaluate import personal_search as ps

    topics = ps.search_topics(root, "dev", 1)
    searches: dict = {"robustness": {}, "usefulness": {}}
    with tempfile.TemporaryDirectory() as tmp:
        drawn = ps.Users(semantic, relevance, topics, Path(tmp), seed)
        empty = drawn.empty
        vectors: dict[int, np.ndarray] = {}  # each corpus's interest vectors, by the corpus's id
        corpora: list = []  # kept alive, so that no later corpus takes a freed one's id

        def of(corpus) -> int:
            if id(corpus) not in vectors:
                corpora.append(corpus)
                texts = [d.text for d in corpus.docs]
                vectors[id(corpus)] = empty.interest_vectors(texts, corpus.semantic, corpus.passages)
            return id(corpus)

        for part, found in (
            ("robustness", ps.robustness_searches(drawn, root, directions, qa_sets)),
            ("usefulness", ps.usefulness_searches(drawn, ps.SETTINGS, users)),
        ):
            for s in found:
                texts = [s.corpus.docs[i].text for i in s.keep]
                m = matched(terms(relevance.tokenizer, relevance.cut(s.query)), empty.terms.feed(relevance, texts))
                q = s.corpus.rank(empty, s.keep, s.query, 0.0)._query
                searches[part].setdefault(s.group, []).append((s.user, s.keep, s.gains, of(s.corpus), q, m))
        history = {lang: vectors[of(ps.Corpus(drawn, topics.texts[lang]))] for lang in sorted(topics.texts)}
        empty.store.close()
    out: dict = {}
    for part, groups in searches.items():
        for group, found in groups.items():
            for user, keep, gains, docs, q, m in found:
                likes, dislikes = history[user.lang][list(user.likes)], history[user.lang][list(user.dislikes)]
                p = _nearest_centers(vectors[docs][keep], likes, dislikes)
                known, wordless = np.ones(p.size, bool), np.zeros(p.size, bool)
                for w in (0, *weights):
                    lift = personal_lift(p, m, known, w, q)
                    order = np.argsort(-(query_part(q, lift, wordless) + lift), kind="stable")
                    out.setdefault((part, group, w), []).append(graded_ndcg(np.asarray(gains, float)[order]))
    return {k: float(np.mean(v)) for k, v in out.items()}, {g: len(f) for g, f in searches["usefulness"].items()}


def test_the_rankers_search_figures_are_the_query_part_plus_the_nearest_centers_lift(tmp_path, tiny_model):
    """Ranked again from the Ranker's query scores, matched shares and interest vectors, with each document's lift
    from the nearest centers of interest, the eval's searches give the eval's figures: what the Ranker does with a
    query and a history is the rule its parts state, on the same searches."""
    root = with_market(write_sib(tmp_path), 12)
    enc = Encoder.load(tiny_model)
    settings = dict(users=6, directions=[("de", "en")], qa_sets={}, seed=3)
    res = evaluate_personal_search(enc, enc, root, strengths=(4.0,), **settings)
    again, searched = _replayed(enc, enc, root, (4.0, 16.0), **settings)
    assert again[("robustness", "across", 16.0)] == pytest.approx(res["robustness"]["across"]["ranker"], abs=1e-12)
    assert again[("robustness", "across", 0)] == pytest.approx(res["robustness"]["across"]["query"], abs=1e-12)
    for setting in ("mono", "within", "cross"):
        assert searched[setting] == res["usefulness"][setting]["users"] > 0
        for w, system in ((0, "query"), (4.0, "ranker@4"), (16.0, "ranker")):
            assert again[("usefulness", setting, w)] == pytest.approx(res["usefulness"][setting][system], abs=1e-12)


def test_a_usefulness_query_is_a_content_word_held_by_the_liked_topic_and_another():
    """"with" answers nothing, so it is never the query: it matches no document under the stopwords rule, and
    the graded relevance (holding the word) would count documents no search could find."""
    import numpy as np

    from edge_ranker.evaluate.personal_search import _query_word

    bags = [{"with", "football"}, {"with", "football"}, {"with", "football"}, {"with", "budget"}] + [{"x"}] * 36
    labels = np.array(["sports", "sports", "politics", "politics"] + ["other"] * 36)
    keep, rng = np.arange(40), np.random.default_rng(0)
    assert _query_word(bags, keep, labels, "sports", rng, set()) in {"with", "football"}
    assert all(_query_word(bags, keep, labels, "sports", rng, {"with"}) == "football" for _ in range(5))
    assert _query_word(bags, keep, labels, "sports", rng, {"with", "football"}) is None
