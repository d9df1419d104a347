"""The committed golden vectors (spec/golden, checked by the JVM core and web/) match the Python runtime.

Token ids must be identical. Vectors and scores must agree within ``TOL``: the shipped models compute in fp32
(int8 weights, fp32 activations), and over 400 texts onnxruntime's kernel paths (every graph optimisation
level, 1 and 2 threads, batches of 1, 7 and 64) differ by at most 2.8e-7 per coordinate (bench/RESULTS.md,
"Quantization"), so 1e-5 leaves a margin of 36x for other CPUs. Rankings must be identical, which is sound
only because no two candidates' scores in the golden scenario lie within a few tolerances of each other
(checked below). Regenerate with ``python -m spec.tools.golden``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edge_ranker.runtime.fusion import neutral, query_scores
from spec.tools.golden import UNREADABLE, WORDLESS, generate

GOLDEN = Path(__file__).resolve().parent.parent / "spec" / "golden"
TOL = 1e-5


def _rows(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize(
    "name",
    [
        "semantic_tokens.tsv",
        "relevance_tokens.tsv",
        "semantic_config.tsv",
        "relevance_config.tsv",
        "windows.tsv",
        "steps.tsv",
        "cold.tsv",
        "adopted.tsv",
        "semantic_unknown.tsv",
        "relevance_unknown.tsv",
    ],
)
def test_tokens_identical(fresh, name):
    assert (fresh / name).read_text() == (GOLDEN / name).read_text()


@pytest.mark.parametrize(
    ("name", "columns"),
    [
        ("semantic_embeddings.tsv", [2]),  # text, role ("-": none), vector of the text encoded alone
        ("relevance_embeddings.tsv", [2]),
        ("documents.tsv", [1, 2]),
        ("history.tsv", [2]),
    ],
)
def test_vectors_within_tolerance(fresh, name, columns):
    new, old = _rows(fresh / name), _rows(GOLDEN / name)
    assert len(new) == len(old)
    for a, b in zip(new, old):
        assert [v for c, v in enumerate(a) if c not in columns] == [v for c, v in enumerate(b) if c not in columns]
        for c in columns:
            x, y = np.array(a[c].split(","), float), np.array(b[c].split(","), float)
            assert np.abs(x - y).max() <= TOL


@pytest.mark.parametrize(
    "name",
    [
        "expected_personal.tsv",
        "expected_search.tsv",
        "expected_crossing.tsv",
        "expected_script.tsv",
        "expected_blind.tsv",
        "expected_sinking.tsv",
        "expected_steps.tsv",
        "expected_steps_sunk.tsv",
        "expected_cold.tsv",
        "expected_adopted.tsv",
    ],
)
def test_rankings_identical(fresh, name):
    new, old = _rows(fresh / name), _rows(GOLDEN / name)
    assert [r[1] for r in new] == [r[1] for r in old]
    for a, b in zip(new, old):
        for x, y in zip(a[2:], b[2:]):
            assert x == y == "None" or abs(float(x) - float(y)) <= TOL


def test_scenario_identical_but_for_vectors(fresh):
    new, old = dict(_rows(fresh / "scenario.tsv")), dict(_rows(GOLDEN / "scenario.tsv"))
    assert new.keys() == old.keys()
    for key in new:
        if key.endswith(("_relevance", "_semantic")):
            x, y = np.array(new[key].split(","), float), np.array(old[key].split(","), float)
            assert np.abs(x - y).max() <= TOL
        else:
            assert new[key] == old[key]


def test_the_wide_fixture_is_wide_and_its_vectors_are_the_runtimes(tmp_path):
    """The JVM core checks its map up from the word table and down after pooling against these vectors
    (``spec/tools/wide.py`` made them): the runtime must still give them."""
    import onnx

    from edge_ranker.runtime.encoder import Encoder
    from spec.tools.golden import write_embeddings

    graph = onnx.load(str(GOLDEN / "wide" / "model.onnx")).graph
    assert {n.output[0].split("/")[1] for n in graph.node if n.op_type == "MatMul"} >= {"up", "down"}
    write_embeddings(Encoder.load(GOLDEN / "wide"), tmp_path / "wide_embeddings.tsv")
    new, old = _rows(tmp_path / "wide_embeddings.tsv"), _rows(GOLDEN / "wide_embeddings.tsv")
    assert [r[:2] for r in new] == [r[:2] for r in old]
    for a, b in zip(new, old):
        assert np.abs(np.array(a[2].split(","), float) - np.array(b[2].split(","), float)).max() <= TOL


def test_golden_scenario_has_no_near_ties_and_crosses_languages():
    """Each ranked list that the fusion reads (personal scores; each query's score) must have no two candidates
    closer than 10 x TOL, or identical rankings would be luck rather than a property; the one exception is the
    query in a script the models cannot read, whose cosines are all 0, so that its candidates without its words tie
    exactly, and BM25 alone puts the document that has them first. The crossing query must use every part of the
    query score: some but not all of its words are in the documents."""
    scenario = dict(_rows(GOLDEN / "scenario.tsv"))
    unread = {r[0] for r in _rows(GOLDEN / "documents.tsv") if r[4] == "1"}
    assert unread == {UNREADABLE.id}
    by_rule = {WORDLESS.id, *unread}  # ranked last for the interests by rule, not by their scores
    personal = _rows(GOLDEN / "expected_personal.tsv")
    lists = {
        name: np.array([float(r[3]) for r in _rows(GOLDEN / f"expected_{name}.tsv") if r[1] not in by_rule])
        for name in ("personal", "steps", "adopted")
    }
    for name in ("search", "crossing", "script", "blind"):
        rows = _rows(GOLDEN / f"expected_{name}.tsv")
        blind = scenario[f"{name}_blind"] == "1"
        assert blind == (name in ("script", "blind"))
        cosine, bm25 = (np.array([float(r[c]) for r in rows]) for c in (4, 5))
        semantic = None if rows[0][6] == "None" else np.array([float(r[6]) for r in rows])
        mask = np.array([r[1] in unread for r in rows])
        cosine = neutral(cosine, mask, blind)
        semantic = None if semantic is None else neutral(semantic, mask, blind)
        weights = float(scenario["lexical_weight"]), float(scenario["semantic_query_weight"])
        cover = float(scenario[f"{name}_coverage"])
        wordful = np.array([r[1] != WORDLESS.id for r in rows])  # ranked last by rule, not by its score
        scores = query_scores(cosine, bm25, weights[0], semantic, cover, weights[1])
        if name == "blind":  # no document has its words: every score ties, and the query adds no order
            assert np.ptp(scores) == 0 and [r[1] for r in rows] == [r[1] for r in personal]
            continue
        if blind:
            assert rows[int(np.argmax(np.where(wordful, scores, -np.inf)))][1] == UNREADABLE.id
            assert len(set(scores[wordful & ~mask])) == 1  # the rest tie exactly: input order decides, everywhere
            continue
        lists[name] = scores[wordful]
    assert 0.0 < float(scenario["crossing_coverage"]) < 1.0
    # an interest past the 30-day horizon sits in the history, so the JVM must leave it out as Python does
    assert float(scenario["now"]) - float(_rows(GOLDEN / "history.tsv")[0][1]) > 30 * 86_400.0
    for name, scores in lists.items():
        assert np.diff(np.sort(scores)).min() > 10 * TOL, name


def test_the_jvm_unicode_table_is_the_tokenizers_librarys():
    """The JVM tokenizer drops, spaces, splits and lowercases non-ASCII characters by a table written from the
    tokenizers library (spec/tools/unicode_table.py): a newer library with newer Unicode tables must
    come with a new table, or the JVM reads some characters apart from Python. Its letters and numbers are those of
    the Python that wrote it (Python 3.11, as CI runs); under another Python only the rest is compared."""
    import importlib

    from tokenizers import Tokenizer

    module = importlib.import_module("spec.tools.unicode_table")
    fresh_table = module.table(Tokenizer.from_file(str(module.TOKENIZER)))
    committed = module.TABLE.read_text(encoding="ascii").splitlines()
    if module.UNICODE not in committed[2]:  # another Python's Unicode: its letters and numbers are its own
        committed, fresh_table = ([x for x in t[3:] if not x.startswith("A ")] for t in (committed, fresh_table))
    assert committed == fresh_table
