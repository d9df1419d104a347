"""The public API as users of sentence-transformers, model2vec and fastembed reach for it."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import edge_ranker
from edge_ranker import EdgeRankerError, Encoder, PreferenceStore, Ranked, Ranker, Ranking, __version__


@pytest.fixture(scope="module")
def semantic():
    return Encoder.load("semantic")


def test_a_single_text_gives_one_vector_and_a_list_a_matrix(semantic):
    one = semantic.encode("Where is the station?")
    many = semantic.encode(["Where is the station?", "Wo ist der Bahnhof?"])
    assert one.shape == (128,) and many.shape == (2, 128)
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
