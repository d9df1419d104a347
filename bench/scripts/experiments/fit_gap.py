"""How closely a relevance student reproduces its PCA-128 teacher on the retrieval sets' training texts and
on their held-out evaluation texts: the mean (and 10th percentile) cosine of student vector to target, per
set, split and role. A large train/eval gap means the student memorises the texts it trained on rather than
learning what generalises (bench/experiments/relevance-data.md, "A second seed; memorisation").

Usage: python bench/scripts/experiments/fit_gap.py runs/relevance-seed0 --train-cache CACHE [--eval-cache CACHE]
    [--docs N] [--seed S] [--doc-words W]
(``--train-cache``: the teacher cache the run was distilled with; the defaults are the user cache. ``--docs``,
``--seed`` and ``--doc-words``: the run's own, which draw and cut its training documents.)
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from edge_ranker.datasets.retrieval import load_retrieval, training_remainder
from edge_ranker.datasets.training import first_words, retrieval_texts
from edge_ranker.distill.recipes import RECIPES
from edge_ranker.evaluate.encoders import resolve_encoder
from edge_ranker.evaluate.sts import row_cosines
from edge_ranker.paths import cache_root, data_root


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a torch student folder (runs/relevance-seed0)")
    p.add_argument("--train-cache", help="teacher cache the run was distilled with")
    p.add_argument("--eval-cache", help="teacher cache holding the evaluation texts' vectors")
    p.add_argument("--sets", nargs="+", default=["squad-it", "scifact"], choices=RECIPES["relevance"].retrieval_train)
    p.add_argument("--n", type=int, default=400, help="texts per set, split and role")
    p.add_argument("--docs", type=int, default=1000, help="the run's --retrieval-docs")
    p.add_argument("--seed", type=int, default=0, help="the run's --seed (it draws the training documents)")
    p.add_argument("--doc-words", type=int, default=RECIPES["relevance"].doc_words, help="the run's --doc-words")
    a = p.parse_args()
    root = data_root(None)
    student = resolve_encoder(a.run, cache_root(a.train_cache))
    targets = {
        "train": resolve_encoder(f"reduced:{a.run}", cache_root(a.train_cache)),
        "eval": resolve_encoder(f"reduced:{a.run}", cache_root(a.eval_cache)),
    }
    recipe = RECIPES["relevance"]  # the run's own training texts: same sets, seed, document count and cut
    train_q, train_d = retrieval_texts(root, recipe.retrieval_train, a.docs, words=a.doc_words, seed=a.seed)
    out: dict[str, dict[str, float]] = {}
    for name in a.sets:
        rest = training_remainder(name, root)
        ev = load_retrieval(name, root)
        rest_q, rest_d = set(rest.queries.values()), {first_words(t, a.doc_words) for t in rest.corpus.values()}
        texts_of = {  # trained texts as cut for training, evaluation texts whole as evaluated
            "train": ([q for q in train_q if q in rest_q], [d for d in train_d if d in rest_d]),
            "eval": (list(ev.queries.values()), list(ev.corpus.values())),
        }
        for split, (queries, docs) in texts_of.items():
            for role, texts in (("query", queries), ("passage", docs)):
                texts = texts[: a.n]
                c = row_cosines(student.encode(texts, role=role), targets[split].encode(texts, role=role))
                out[f"{name}/{split}/{role}"] = {"mean": float(c.mean()), "p10": float(np.percentile(c, 10))}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
