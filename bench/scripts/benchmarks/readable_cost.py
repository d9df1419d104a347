"""What deciding which texts a model can read costs the ranker (``runtime/readable.py``), and how much of the 10
languages it sets apart: SIB-200 train sentences (every language) made 100,000 distinct texts, decided once, then the
same feed again; the same texts each with an emoji glued to its last word (such a word is [UNK] to the model too,
so every text goes word by word); and the largest share of unknown words in any sentence.
``python bench/scripts/benchmarks/readable_cost.py --data DIR [--model semantic]``"""

from __future__ import annotations

import argparse
import time

from edge_ranker.datasets.topics import load_topics
from edge_ranker.paths import data_root
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.readable import VocabularyCoverage

TEXTS = 100_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="the data folder (default: EDGE_RANKER_DATA)")
    parser.add_argument("--model", default="semantic", help="model folder or shipped name")
    a = parser.parse_args()
    model = Encoder.load(a.model)
    sentences = [t for texts in load_topics(data_root(a.data), "train").texts.values() for t in texts]
    feed = [f"{t} {i}" for i in range(TEXTS // len(sentences) + 1) for t in sentences][:TEXTS]
    shares = VocabularyCoverage(model, TEXTS).unknown_share
    print(f"{len(sentences)} sentences: the largest share of unknown words {max(map(shares, sentences)):.2f}")
    for name, texts in (("plain", feed), ("an emoji glued to a word", [f"{t}\U0001f60d" for t in feed])):
        reader = VocabularyCoverage(model, 2 * TEXTS)
        start = time.perf_counter()
        reader.unreadable(texts)
        first = time.perf_counter() - start
        start = time.perf_counter()
        reader.unreadable(list(texts))
        again = 1e3 * (time.perf_counter() - start)
        print(f"{name}: {TEXTS:,} new texts {first:.2f} s, the same feed again {again:.1f} ms")


if __name__ == "__main__":
    main()
