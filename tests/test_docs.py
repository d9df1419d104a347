"""What the docs and the command line say of the query rule matches what the code does: none of the sentences the
rule made untrue is left."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STALE = [
    "fused by rank",  # the demo's note: a liked document never outranks a closer match of the query
    "reciprocal-rank fusion (Ranker)",  # android_demo/README.md: the Ranker runs the query rule
    "fused with the stored interests",  # the CLI's --query help
    "a Document or a text",  # docs/runtime.md: a reaction to a plain text is refused
]
SOURCES = ["README.md", "docs", "android_demo/README.md", "web/README.md", "edge_ranker"]


def _texts():
    for source in SOURCES:
        path = ROOT / source
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.suffix in (".md", ".py") and file.is_file():
                yield file, file.read_text(encoding="utf-8")


@pytest.mark.parametrize("sentence", STALE)
def test_no_doc_says_what_the_query_rule_made_untrue(sentence):
    found = [str(f.relative_to(ROOT)) for f, text in _texts() if sentence in text]
    assert not found, f"{sentence!r} in {found}"
