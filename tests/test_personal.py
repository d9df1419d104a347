"""The personalised-feed benchmark on tiny made-up topics: users, metrics, the Ranker path and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.evaluate.personal import (
    CANDIDATES,
    DISLIKES,
    LIKES,
    evaluate_personal,
    load_topics,
    ndcg_at,
    simulate_users,
)
from edge_ranker.runtime.encoder import Encoder

WORDS = {"rivers": "river lake water boat", "stones": "stone wall house brick", "songs": "song music band drum"}


def write_sib(root, langs=("en", "de"), per_topic=30):
    from edge_ranker.evaluate.personal import SIB_LANGS

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
