"""The Ranker as an app developer reaches for it: one call to load, reactions by name, documents in any plain form."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edge_ranker import Encoder, Ranker
from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.ranker import Unlearnable
from edge_ranker.runtime.store import PreferenceStore

FEED = [
    "The striker scored twice as the club won the derby",
    "The goalkeeper saved a penalty in the final minute",
    "The central bank raised interest rates to slow inflation",
    "Shares fell as the markets feared a recession",
    "A new telescope photographed a distant galaxy",
]


def test_the_api_block_runs_as_written(tmp_path, monkeypatch):
    """The README's API block, line for line: the shipped pair, a store by path, reactions, ranking, erase."""
    monkeypatch.chdir(tmp_path)
    ranker = Ranker.load("prefs.db")
    doc = {"id": "s1", "text": FEED[0]}
    ranker.like(doc)
    ranker.dislike({"id": "m1", "text": FEED[2]})
    ranker.viewed(doc, 30)
    results = ranker.rank(FEED, query=None)
    assert [r.id for r in results][:2] in (["0", "1"], ["1", "0"])  # plain texts: their positions; sport first
    assert results[-1].id in ("2", "3")
    ranker.shown(FEED[:2])
    assert [(e["id"], e["reaction"]) for e in ranker.history()] == [
        ("s1", "like"), ("m1", "dislike"), ("s1", "view"), ("0", "shown"), ("1", "shown")
    ]
    assert [f["doc_id"] for f in ranker.export()["feedback"]] == ["s1", "m1"]
    assert [s["doc_id"] for s in ranker.export()["signals"]] == ["s1", "0", "1"]
    assert ranker.undo("m1") == 1 and ranker.undo("0") == 1
    assert [e["id"] for e in ranker.history()] == ["s1", "s1", "1"]
    ranker.erase()
    assert ranker.store.feedback_count() == 0 and (tmp_path / "prefs.db").is_file()
    assert ranker.history() == [] and ranker.export()["feedback"] == [] and ranker.export()["signals"] == []
    enc = Encoder.load("semantic")
    a = enc.encode(FEED[:2], batch_size=8, show_progress_bar=False, normalize_embeddings=True, convert_to_numpy=True)
    b = enc.encode(FEED[2:])
    sims = enc.similarity(a, b)
    assert sims.shape == (2, 3) and np.allclose(sims, a @ b.T, atol=1e-6)
    ranker.store.close()


def test_the_readme_quickstart_runs_as_written(tmp_path, monkeypatch, capsys):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(quickstart, "README.md", "exec"), {})  # noqa: S102 - the project's own README
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[0].startswith("1 NASA")  # the liked topic first
    assert (tmp_path / "prefs.db").is_file()


def test_a_store_in_memory_keeps_nothing_on_disk(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ranker = Ranker.load(":memory:")
    ranker.like(("g", FEED[4]))
    assert ranker.rank([("g", FEED[4]), ("m", FEED[3])], reacted="keep")[0].id == "g"
    assert ranker.rank([("g", FEED[4]), ("m", FEED[3])])[0].id == "m"  # a feed sinks what the user reacted to
    assert ranker.undo("g") == 1
    assert not any(tmp_path.iterdir())
    with pytest.raises(EdgeRankerError, match="nothing to open read-only"):
        PreferenceStore(":memory:", read_only=True)


def test_documents_come_as_documents_dicts_pairs_or_texts_and_nothing_else(tmp_path):
    ranker = Ranker.load(":memory:", relevance=None)
    mixed = [{"id": "d", "text": FEED[0]}, ("p", FEED[1]), FEED[2]]
    assert sorted(r.id for r in ranker.rank(mixed)) == ["2", "d", "p"]
    for bad, said in ((FEED[0], "docs must be a list of documents"), ([3.5], "document 0 must be a Document")):
        with pytest.raises(EdgeRankerError, match=said):
            ranker.rank(bad)
    with pytest.raises(Unlearnable, match="no word"):
        ranker.like(("blank", "   "))
    with pytest.raises(EdgeRankerError, match="a reaction needs the document, with its id"):
        ranker.like("a1")  # an id where the document belongs is not learnt as a text


def test_a_store_path_in_a_folder_that_is_not_there_is_refused_not_made(tmp_path):
    """``Ranker.load`` once made the folders of a mistyped path silently, where the CLI refuses them."""
    with pytest.raises(EdgeRankerError, match="there is no folder .*typo"):
        Ranker.load(tmp_path / "typo" / "prefs.db")
    assert not (tmp_path / "typo").exists()
