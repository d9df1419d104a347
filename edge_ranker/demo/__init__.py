"""``edge-ranker demo``: the shipped default models rank a small multilingual feed for a scripted user.

The feed and history are written for this project (no third-party text). The demo uses a temporary
preference database so it never touches the user's own.
"""

from __future__ import annotations

import json
import tempfile
import time
from importlib import resources
from pathlib import Path

from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.ranking import Ranked
from edge_ranker.runtime.store import PreferenceStore


def load_feed() -> tuple[list[Document], dict]:
    base = resources.files("edge_ranker.demo")
    docs = [
        Document.from_dict(json.loads(line))
        for line in base.joinpath("feed.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]
    return docs, json.loads(base.joinpath("history.json").read_text("utf-8"))


def _show(title: str, ranked: list[Ranked], docs: dict[str, Document], top: int | None, out) -> None:
    print(f"\n== {title} ==", file=out)
    for r in ranked[: top or None]:
        why = []
        if r.personal_score is not None:
            i = r.interest or {}
            why.append(
                f"interest {r.personal_score:+.2f} (like-sim {i.get('positive_similarity', 0):.2f}, "
                f"dislike-sim {i.get('negative_similarity', 0):.2f})"
            )
        if r.relevance_score is not None:
            why.append(f"query {r.relevance_score:.2f}")
        if r.lexical_score:
            why.append(f"words {r.lexical_score:.1f}")
        if "recency" in r.contributions:
            why.append("newest first (no interests yet)")
        text = docs[r.id].text
        print(f"{r.rank:2d}. {r.id:<14} {text[:62]:<62}  {'; '.join(why)}", file=out)


def run_demo(semantic: str = "semantic", relevance: str | None = "relevance", top: int | None = 8, out=None) -> dict:
    """Cold start, then after the scripted likes/dislikes, then with the scripted query (none without a relevance
    model); returns the orders. ``top``: documents shown per ranking (0 or None: all)."""
    import sys

    out = out or sys.stdout
    docs, history = load_feed()
    by_id = {d.id: d for d in docs}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = PreferenceStore(Path(tmp) / "demo.sqlite")
        ranker = Ranker(Encoder.load(semantic), Encoder.load(relevance) if relevance is not None else None, store)
        now = time.time()
        result = {"cold": [r.id for r in ranker.rank(docs, now=now)]}
        _show("cold start: no feedback yet", ranker.rank(docs, now=now), by_id, top, out)
        print("\nsimulated user:", file=out)
        for reaction, key in (("like", "likes"), ("dislike", "dislikes")):
            for d in history[key]:
                ranker.feedback(d, reaction, ts=now - 86_400)
                print(f"  {reaction:<7} {d['text']}", file=out)
        ranked = ranker.rank(docs, now=now)
        result["personal"] = [r.id for r in ranked]
        _show("after the likes and dislikes", ranked, by_id, top, out)
        if ranker.relevance is not None:
            ranked = ranker.rank(docs, query=history["query"], now=now)
            result["query"] = [r.id for r in ranked]
            _show(f"personalised search: {history['query']!r}", ranked, by_id, top, out)
            print(
                "(the query decides what answers it; the interests order the answers, and never lift what does "
                "not answer above what does)",
                file=out,
            )
        store.close()
    seconds = time.perf_counter() - t0
    print(f"\n(ranked {len(docs)} documents {len(result)} times in {seconds:.2f} s, on this device)", file=out)
    return result
