"""The committed golden vectors (checked by the JVM core in android_demo/core) match the Python runtime.

Token ids must be identical; rankings identical and scores within 1e-4 (int8 kernels may differ in the
last bits between CPUs). Regenerate with ``python -m edge_ranker.demo.golden android_demo/golden``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_ranker.demo.golden import generate

GOLDEN = Path(__file__).resolve().parent.parent / "android_demo" / "golden"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("golden"))


@pytest.mark.parametrize(
    "name", ["semantic_tokens.tsv", "relevance_tokens.tsv", "semantic_config.tsv", "relevance_config.tsv"]
)
def test_tokens_identical(fresh, name):
    assert (fresh / name).read_text() == (GOLDEN / name).read_text()


@pytest.mark.parametrize("name", ["expected_personal.tsv", "expected_search.tsv"])
def test_rankings_identical(fresh, name):
    new = [line.split("\t") for line in (fresh / name).read_text().splitlines()]
    old = [line.split("\t") for line in (GOLDEN / name).read_text().splitlines()]
    assert [r[1] for r in new] == [r[1] for r in old]
    for a, b in zip(new, old):
        for x, y in zip(a[2:], b[2:]):
            assert x == y == "None" or abs(float(x) - float(y)) <= 1e-4
