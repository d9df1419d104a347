"""The personalised-feed benchmark on tiny made-up topics: users, metrics, the Ranker path and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from edge_ranker.datasets.topics import Topics, as_articles, load_topics
from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.personal import CANDIDATES, DISLIKES, LIKES, evaluate_personal, ndcg_at, simulate_users
from edge_ranker.runtime.encoder import Encoder

WORDS = {"rivers": "river lake water boat", "stones": "stone wall house brick", "songs": "song music band drum"}


def write_sib(root, langs=("en", "de"), per_topic=30):
    from edge_ranker.datasets.topics import SIB_LANGS

    rng = np.random.default_rng(0)
    rows = [(i, topic) for i, topic in enumerate(t for t in WORDS for _ in range(per_topic))]
    for lang in langs:
        folder = root / "topics" / "sib200" / SIB_LANGS[lang]
        folder.mkdir(parents=True, exist_ok=True)
        lines = ["index_id\tcategory\ttext"]
        for i, topic in rows:
            words = WORDS[topic].split()
            lines.append(f"{i}\t{topic}\t{lang} " + " ".join(rng.choice(words, 5)))
        (folder / "dev.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_ndcg_by_hand():
    assert ndcg_at(np.array([1.0, 0, 0])) == 1.0
    assert ndcg_at(np.array([0.0, 1, 0])) == pytest.approx(1 / np.log2(3))
    assert ndcg_at(np.zeros(5)) == 0.0


def test_users_follow_the_protocol(tmp_path):
    topics = load_topics(write_sib(tmp_path), "dev", ["en", "de"])
    for setting in ("mono", "cross", "mixed"):
        users = simulate_users(topics, setting, 20, seed=1)
        assert users == simulate_users(topics, setting, 20, seed=1)  # seeded
        for u in users:
            assert len(u.likes) == LIKES and len(u.dislikes) == DISLIKES and len(u.candidates) == CANDIDATES
            assert u.liked != u.disliked and {topics.topics[i] for i, _ in u.likes} == {u.liked}
            history = {i for i, _ in u.likes + u.dislikes}
            assert not history & {i for i, _ in u.candidates}
            langs = {lang for _, lang in u.likes + u.dislikes}, {lang for _, lang in u.candidates}
            if setting == "mono":
                assert langs == ({"en"}, {"en"})
            if setting == "cross":
                assert len(langs[0]) == len(langs[1]) == 1 and langs[0] != langs[1]
    with pytest.raises(EdgeRankerError, match="test split"):
        load_topics(tmp_path, "test")


def test_a_model_beats_random_through_the_ranker_and_the_plain_rule(tmp_path, tiny_model):
    res = evaluate_personal({"tiny": Encoder.load(tiny_model)}, write_sib(tmp_path), users=15, settings=("mono",))
    mono = res["mono"]
    assert 0.05 < mono["random"]["ndcg@10"] < 0.6
    for way in ("plain", "ranker"):
        assert mono["tiny"][way]["ndcg@10"] > mono["random"]["ndcg@10"] + 0.2  # word overlap is easy


def test_reactions_the_ranker_refuses_are_left_out_and_counted(tmp_path, tiny_model):
    from edge_ranker.datasets.topics import SIB_LANGS

    root = write_sib(tmp_path, langs=("en", "ru"))
    unread = root / "topics" / "sib200" / SIB_LANGS["ru"] / "dev.tsv"
    rows = [line.split("\t") for line in unread.read_text(encoding="utf-8").splitlines()]
    thai = [rows[0]] + [[i, topic, "ภาษาไทย ตัวอักษร แม่น้ำ"] for i, topic, _ in rows[1:]]  # a script the model lacks
    unread.write_text("\n".join("\t".join(r) for r in thai) + "\n", encoding="utf-8")
    res = evaluate_personal({"tiny": Encoder.load(tiny_model)}, root, users=10, settings=("mixed",))
    ranker = res["mixed"]["tiny"]["ranker"]
    assert ranker["refused"] > 0 and 0.0 <= ranker["ndcg@10"] <= 1.0


def test_eval_personal_from_the_cli(tmp_path, tiny_model):
    cmd = [sys.executable, "-m", "edge_ranker.cli", "eval", str(tiny_model), "--personal", "--users", "5"]
    r = subprocess.run(
        [*cmd, "--data", str(write_sib(tmp_path)), "--cache", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    personal = json.loads(r.stdout)["personal"]
    assert set(personal) == {"mono", "cross", "mixed"} and "ranker" in personal["cross"][str(tiny_model)]
    other = subprocess.run(
        [*cmd, "--seed", "1", "--data", str(tmp_path), "--cache", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout)["personal"]["mono"]["random"] != personal["mono"]["random"]  # other users

    damaged = tmp_path / "topics" / "sib200" / "eng_Latn" / "dev.tsv"  # one byte that is not UTF-8
    damaged.write_bytes(damaged.read_bytes().replace(b"\n", b"\xff\n", 1))
    r = subprocess.run([*cmd, "--data", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "a bug" not in r.stderr, r.stderr
    assert "a file is not in the format it should be (UnicodeDecodeError" in r.stderr


def test_articles_join_one_topics_sentences_alike_in_every_language():
    texts = {"en": ["a1", "b1", "a2", "a3", "b2", "a4", "a5"], "de": ["A1", "B1", "A2", "A3", "B2", "A4", "A5"]}
    topics = Topics(texts, ["a", "b", "a", "a", "b", "a", "a"])
    arts = as_articles(topics, 2)
    assert arts.topics == ["a", "a", "b"]  # a5 is left over
    assert arts.texts == {"en": ["a1 a2", "a3 a4", "b1 b2"], "de": ["A1 A2", "A3 A4", "B1 B2"]}
    with pytest.raises(EdgeRankerError, match="1 or more"):
        as_articles(topics, 0)


def test_eval_personal_on_article_length_items_from_the_cli(tmp_path, tiny_model):
    root = write_sib(tmp_path, per_topic=72)
    for folder in (root / "topics" / "sib200").iterdir():
        (folder / "dev.tsv").rename(folder / "train.tsv")
    cmd = [sys.executable, "-m", "edge_ranker.cli", "eval", str(tiny_model), "--personal", "--users", "5"]
    r = subprocess.run(
        [*cmd, "--topics-split", "train", "--item-sentences", "3", "--data", str(root), "--cache", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    mono = json.loads(r.stdout)["personal"]["mono"]
    assert mono[str(tiny_model)]["ranker"]["ndcg@10"] > mono["random"]["ndcg@10"]
    too_few = subprocess.run(  # 216 sentences make 36 items of 6: fewer than one user needs
        [*cmd, "--topics-split", "train", "--item-sentences", "6", "--data", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert too_few.returncode == 2 and "makes only 36 items" in too_few.stderr and "Traceback" not in too_few.stderr
    alone = subprocess.run([*cmd[:5], "--item-sentences", "3"], capture_output=True, text=True, timeout=300)
    assert alone.returncode == 2 and "add --personal" in alone.stderr


def write_flores(root, langs=("en", "de"), articles=12):
    """Tiny FLORES-like devtest: articles of 3 sentences about distinct made-up subjects, 'translated' by a
    language tag."""
    from edge_ranker.datasets.topics import SIB_LANGS

    folder = root / "parallel" / "flores200_devtest"
    folder.mkdir(parents=True, exist_ok=True)
    subjects = [f"subject{i} place{i} name{i}" for i in range(articles)]
    rows = [(i, k) for i in range(articles) for k in range(3)]
    meta = ["URL\tdomain\ttopic\thas_image\thas_hyperlink"] + [f"https://x/{i}\twikinews\tt\tno\tno" for i, _ in rows]
    (folder / "metadata_devtest.tsv").write_text("\n".join(meta) + "\n", encoding="utf-8")
    for lang in langs:
        lines = [f"{lang} {subjects[i]} sentence {k} about {subjects[i]}" for i, k in rows]
        (folder / f"{SIB_LANGS[lang]}.devtest").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_search_across_languages_through_the_ranker_and_by_cosine(tmp_path, tiny_model):
    from edge_ranker.datasets.articles import load_articles
    from edge_ranker.evaluate.crosslingual import evaluate_search

    root = write_flores(tmp_path)
    articles = load_articles(root, ["en", "de"])
    assert len(articles.queries["de"]) == 12 and articles.bodies["en"][0].count("sentence") == 2
    res = evaluate_search({"tiny": Encoder.load(tiny_model)}, root, [("de", "en"), ("en", "de"), ("de", "de")])
    # chance is about 0.38 with 12 articles; the made-up languages share the subject words, so BM25 in the
    # Ranker finds every article, while the untrained tiny model's cosine is near chance
    assert res["avg"]["tiny"]["ranker"] > 0.9 and 0.0 < res["avg"]["tiny"]["cosine"] <= 1.0
    assert set(res) == {"de->en", "en->de", "de->de", "avg", "within"}
    assert res["within"]["tiny"] == res["de->de"]["tiny"]  # "avg" is across languages only
    (tmp_path / "parallel" / "flores200_devtest" / "deu_Latn.devtest").write_text("one line\n")
    with pytest.raises(EdgeRankerError, match="lines"):
        load_articles(root, ["de"])
