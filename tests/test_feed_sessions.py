"""``eval --feed-sessions`` on a tiny SIB-200-like split: its arms, the two-topic reader, and diversity's effect."""

from __future__ import annotations

import math
import random

from conftest import SYLLABLES

from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.evaluate.feed_sessions import ARMS, NEW, SESSIONS, evaluate_feed_sessions, simulate_readers
from edge_ranker.runtime.encoder import Encoder


def write_sib(root, items: int = 120):
    """Items of 4 topics, each topic its own 3 words of the tiny vocabulary, the same text in every language."""
    words = SYLLABLES["en"]
    topics = ["science", "travel", "sports", "health"]
    rng = random.Random(0)
    rows = ["index_id\tcategory\ttext"]
    for i in range(items):
        t = i % len(topics)
        own = words[3 * t : 3 * t + 3]
        rows.append(f"{i}\t{topics[t]}\t{' '.join(rng.choice(own) for _ in range(6))}")
    for code in SIB_LANGS.values():
        folder = root / "topics" / "sib200" / code
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "dev.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root


def test_every_arm_is_measured_on_the_same_readers_and_a_reader_of_two_topics_has_a_second(tmp_path, tiny_model):
    root = write_sib(tmp_path)
    enc = Encoder.load(tiny_model)
    res = evaluate_feed_sessions(str(root), enc, None, readers=4, diversity=0.0)
    assert set(ARMS) <= set(res) and res["diversity"] == 0.0
    for arm in ARMS:
        assert 0.0 <= res[arm]["ndcg@10"] <= 1.0 and len(res[arm]["per_session"]) == SESSIONS
    both = res["two_topics"]["both_in_top3"]
    assert math.isnan(both) or 0.0 <= both <= 1.0
    from edge_ranker.datasets.topics import load_topics

    readers = simulate_readers(load_topics(root), 4)
    assert all(r.second not in (r.loved, r.avoided) and r.second for r in readers)
    assert all(len(r.arrivals) == SESSIONS and all(len(s) == NEW for s in r.arrivals) for r in readers)


def test_the_benchmark_ranks_with_the_diversity_it_is_given(tmp_path, tiny_model, monkeypatch):
    """The weight reaches every feed the readers see (a tiny model's interests may all be one, so the spy, not the
    figures, says so); None ranks with the runtime's default, and the report says which."""
    from edge_ranker.runtime import ranker as ranker_module
    from edge_ranker.runtime.constants import DIVERSITY

    seen: list[float] = []
    real = ranker_module.diversify
    monkeypatch.setattr(ranker_module, "diversify", lambda o, s, g, w, n: seen.append(w) or real(o, s, g, w, n))
    root = write_sib(tmp_path)
    enc = Encoder.load(tiny_model)
    strong = evaluate_feed_sessions(str(root), enc, None, readers=2, arms=("two_topics",), diversity=5.0)
    assert seen and set(seen) == {5.0} and strong["diversity"] == 5.0
    seen.clear()
    plain = evaluate_feed_sessions(str(root), enc, None, readers=2, arms=("two_topics",), diversity=0.0)
    assert seen == [] and plain["diversity"] == 0.0
    default = evaluate_feed_sessions(str(root), enc, None, readers=2, arms=("two_topics",))
    assert set(seen) == {DIVERSITY} and default["diversity"] == DIVERSITY


def test_the_cli_refuses_a_diversity_without_feed_sessions_in_one_line():
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "edge_ranker.cli", "eval", "semantic", "relevance", "--diversity", "0.1", "--sts"]
    got = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert got.returncode == 2 and "--diversity sets up --feed-sessions" in got.stderr and "Traceback" not in got.stderr
