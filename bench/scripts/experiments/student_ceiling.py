"""How far the semantic student's feed goes with more training steps or a larger body, where the hour on 2 cores
does not bind: the semantic subset recipe's training set (``--max-pairs 3000 --bible 0 --no-news --mono 2000``) is
written once with its PCA-256 targets and teacher-initialised word rows, then each configuration trains on it
(a GPU if there is one) and is scored by the plain rule on SIB-200 dev and train-split users.

``python bench/scripts/experiments/student_ceiling.py dump --data DIR --out SET`` (needs the teacher; stores targets
and word rows as int8 with a scale per row, so the set travels in 25 MB), then
``python bench/scripts/experiments/student_ceiling.py train --data DIR --set SET --out RUNS base-e2 base-e6 ...``"""

from __future__ import annotations

import argparse
import json
import lzma
import time
from pathlib import Path

import numpy as np

# Each configuration's settings over the semantic recipe's (TrainConfig names); "random-rows-" ones start from random
# word rows instead of the teacher's.
CONFIGS: dict[str, dict] = {
    "base-e2": {"epochs": 2},
    "base-e6": {"epochs": 6},
    "base-e18": {"epochs": 18},
    "l1-e3": {"epochs": 3, "layers": 1},  # the work of base-e2: a 1-layer step costs 0.60 of a 2-layer one
    "l4-f1024-e6": {"epochs": 6, "layers": 4, "ffn": 1024, "heads": 4},
    "l4-f1024-e18": {"epochs": 18, "layers": 4, "ffn": 1024, "heads": 4},
    "random-rows-e2": {"epochs": 2},
    "random-rows-e6": {"epochs": 6},
    "random-rows-l4-f1024-e6": {"epochs": 6, "layers": 4, "ffn": 1024, "heads": 4},
}
SUBSET = {"max_pairs_per_lang": 3000, "bible_verses": 0, "news": False, "mono_per_lang": 2000}
# USE-multilingual-v3's plain-rule nDCG@10 (mono, cross, mixed) on the same users (bench/experiments/feed-student.md,
# "The feed: what limits the student"): the denominator of the share of its gain over random.
USE = {"dev": (0.499, 0.450, 0.443), "train": (0.558, 0.519, 0.529)}
SETTINGS = ("mono", "cross", "mixed")
TOKENIZER = "edge_ranker/models/semantic/tokenizer.json"


def _quantized(name: str, x: np.ndarray) -> dict[str, np.ndarray]:
    scale = np.abs(x).max(1, keepdims=True) / 127 + 1e-12
    return {name: np.round(x / scale).astype(np.int8), f"{name}_scale": scale.astype(np.float32)}


def _restored(z, name: str) -> np.ndarray:
    return z[name].astype(np.float32) * z[f"{name}_scale"]


def dump(data: str, out: Path) -> None:
    """The subset's groups, PCA-256 targets and initial word rows, as the recipe builds them at seed 0."""
    from tokenizers import Tokenizer

    from edge_ranker.distill.recipes import load_recipe, with_overrides
    from edge_ranker.distill.train import teacher_token_embeddings
    from edge_ranker.distill.training_set import build_training_set
    from edge_ranker.modeling.pca import fit_pca
    from edge_ranker.paths import cache_root
    from edge_ranker.teachers import CachedTeacher, load_teacher

    recipe = with_overrides(load_recipe("semantic"), SUBSET)
    teacher = CachedTeacher(load_teacher(recipe.teacher), cache_root(None))
    groups, raw, fit_rows = build_training_set(recipe, teacher, data, 0, True)
    pca = fit_pca(raw[fit_rows], recipe.pca_dim, seed=0)
    rows = teacher_token_embeddings(
        Tokenizer.from_file(TOKENIZER),
        lambda texts: teacher.encode(texts, role="passage"),
        pca.transform,
        recipe.train.init_std,
    )
    out.mkdir(parents=True, exist_ok=True)
    np.savez(out / "set.npz", **_quantized("targets", pca.transform(raw)), **_quantized("init", rows))
    with lzma.open(out / "groups.json.xz", "wt", encoding="utf-8") as fh:
        json.dump([[g.texts, g.target] for g in groups], fh, ensure_ascii=False)
    print(f"{len(groups):,} groups, PCA-{recipe.pca_dim} explains {np.sum(pca.explained_variance_ratio):.3f}")


def train(data: str, folder: Path, out: Path, names: list[str]) -> None:
    """Train each named configuration and score its feed; results.json grows after each."""
    from tokenizers import Tokenizer

    from edge_ranker.datasets.topics import load_topics
    from edge_ranker.distill.batch import Group
    from edge_ranker.distill.recipes import load_recipe, with_overrides
    from edge_ranker.distill.train import train_student
    from edge_ranker.evaluate.personal import plain_rule, random_order, simulate_users
    from edge_ranker.modeling.student import StudentInfo, TorchStudentEncoder

    z = np.load(folder / "set.npz")
    targets, init = _restored(z, "targets"), _restored(z, "init")
    with lzma.open(folder / "groups.json.xz", "rt", encoding="utf-8") as fh:
        groups = [Group(texts, target) for texts, target in json.load(fh)]
    tokenizer = Tokenizer.from_file(TOKENIZER)
    recipe = load_recipe("semantic")
    splits = {}
    for split in USE:
        topics = load_topics(data, split)
        users = {s: simulate_users(topics, s, 200, 0) for s in SETTINGS}
        splits[split] = (topics, users, {s: random_order(users[s], topics, 0)["ndcg@10"] for s in SETTINGS})
    results: dict[str, dict] = {}
    for name in names:
        started = time.perf_counter()
        info = StudentInfo(kind="semantic", teacher=recipe.teacher, pca_dim=recipe.pca_dim)
        config = with_overrides(recipe, CONFIGS[name]).train
        rows = None if name.startswith("random-rows-") else init
        log = train_student(groups, targets, tokenizer, info, out / name, config, rows, False)
        encoder = TorchStudentEncoder(out / name)
        row: dict = {"seconds": round(time.perf_counter() - started, 1), "steps": log["steps"]}
        for split, (topics, users, rnd) in splits.items():
            vectors = {lang: encoder.encode(texts) for lang, texts in topics.texts.items()}
            unit = {k: v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12) for k, v in vectors.items()}
            ndcg = [plain_rule(unit.__getitem__, users[s], topics)["ndcg@10"] for s in SETTINGS]
            share = np.mean([(n - rnd[s]) / (u - rnd[s]) for n, u, s in zip(ndcg, USE[split], SETTINGS)])
            row[split] = {"ndcg@10": [round(x, 4) for x in ndcg], "share": round(float(share), 4)}
        results[name] = row
        print(name, json.dumps(row), flush=True)
        (out / "results.json").write_text(json.dumps(results, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("dump", "train"))
    parser.add_argument("names", nargs="*", help=f"configurations to train (default: all of {', '.join(CONFIGS)})")
    parser.add_argument("--data", help="the data folder (default: EDGE_RANKER_DATA)")
    parser.add_argument("--set", type=Path, default=Path("runs/ceiling/set"), help="where the dump is")
    parser.add_argument("--out", type=Path, required=True, help="the dump's folder, or the trained runs' folder")
    a = parser.parse_intermixed_args()
    from edge_ranker.paths import data_root

    unknown = sorted(set(a.names) - set(CONFIGS))
    if unknown:
        parser.error(f"unknown configuration(s) {unknown}; choose from {list(CONFIGS)}")
    data = str(data_root(a.data))
    if a.step == "dump":
        dump(data, a.out)
    else:
        train(data, a.set, a.out, a.names or list(CONFIGS))


if __name__ == "__main__":
    main()
