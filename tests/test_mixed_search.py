"""``eval --mixed-search`` on a tiny FLORES-like devtest: its report's shape, its counts and its refusals."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SYLLABLES, HashTeacher

from edge_ranker.datasets.topics import SIB_LANGS
from edge_ranker.evaluate.mixed_search import evaluate_mixed_search
from edge_ranker.runtime.encoder import Encoder


def write_flores(root: Path, articles: int = 12) -> Path:
    """A FLORES-like devtest in the 10 languages, of 3-sentence articles the tiny models read: each language
    writes the same words of one of the tiny vocabulary's languages, so every translation is word for word."""
    folder = root / "parallel" / "flores200_devtest"
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    concepts = [[[rng.randrange(12) for _ in range(rng.randint(4, 8))] for _ in range(3)] for _ in range(articles)]
    meta = ["URL\tdomain\ttopic\thas_image\thas_hyperlink"] + [f"https://x/{i}\twikinews\tt\tno\tno" for i in
                                                                 range(articles) for _ in range(3)]
    (folder / "metadata_devtest.tsv").write_text("\n".join(meta) + "\n", encoding="utf-8")
    for n, code in enumerate(SIB_LANGS.values()):
        words = list(SYLLABLES.values())[n % len(SYLLABLES)]
        lines = [" ".join(words[c] for c in sentence) for article in concepts for sentence in article]
        (folder / f"{code}.devtest").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_a_mixed_feed_is_searched_through_the_ranker_and_by_the_baselines_cosine(tmp_path, tiny_model):
    root = write_flores(tmp_path)
    enc = Encoder.load(tiny_model)
    res = evaluate_mixed_search(enc, enc, root, HashTeacher(), layouts=2)
    assert (res["documents"], res["layouts"], res["queries"]) == (12, 2, 24)
    assert 0 <= res["same_language_queries"] <= 24
    for arm in ("empty", "unrelated", "baseline"):
        assert set(res[arm]) == {"all", "same_language", "other_language"}
        assert 0.0 <= res[arm]["all"] <= 1.0
    assert res["kept"] == pytest.approx(res["unrelated"]["all"] / res["empty"]["all"])
    traps = res["traps"]
    assert 0 <= traps["carried_by_the_like"] <= traps["above_answer"] <= traps["traps"] <= res["same_language_queries"]
    assert "baseline" not in evaluate_mixed_search(enc, enc, root, None, layouts=1)


def test_the_cli_refuses_a_baseline_without_mixed_search_in_one_line(tmp_path):
    cmd = [sys.executable, "-m", "edge_ranker.cli", "eval", "semantic", "relevance", "--baseline", "none", "--sts"]
    got = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert got.returncode == 2 and "--baseline sets up --mixed-search" in got.stderr
    assert "Traceback" not in got.stderr
