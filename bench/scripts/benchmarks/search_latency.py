"""Times ``Ranker.rank`` of 1,000 documents with a query and a stored history: the median of 30 calls after one
warm call (document vectors cached, as a search box re-ranks the same feed). Run it from two checkouts, one after the
other, to compare fusion rules side by side:

``python bench/scripts/benchmarks/search_latency.py --data ../shared/data``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from edge_ranker.datasets.topics import load_topics
from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.ranker import Ranker
from edge_ranker.runtime.store import PreferenceStore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True, help="the data folder (SIB-200's train split gives the documents)")
    ap.add_argument("--calls", type=int, default=30)
    a = ap.parse_args()
    topics = load_topics(a.data, "train", ["en", "de"])
    texts = (topics.texts["en"] + topics.texts["de"])[:1000]
    docs = [Document(str(i), t) for i, t in enumerate(texts)]
    with tempfile.TemporaryDirectory() as tmp:
        ranker = Ranker(Encoder.load("semantic"), Encoder.load("relevance"), PreferenceStore(Path(tmp) / "p.db"))
        for i in range(5):
            ranker.feedback(docs[i], "like")
        for i in range(5, 8):
            ranker.feedback(docs[i], "dislike")
        ranker.rank(docs, query="government election")
        seconds = []
        for _ in range(a.calls):
            t0 = time.perf_counter()
            ranker.rank(docs, query="government election")
            seconds.append(time.perf_counter() - t0)
        ranker.store.close()
    print(
        f"rank of {len(docs)} documents with a query and a history: median {1000 * statistics.median(seconds):.1f} ms"
    )


if __name__ == "__main__":
    main()
