"""Thin CLI: each command parses arguments and calls one library function. Errors print, never trace."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from edge_ranker.errors import EdgeRankerError


def data_root(arg: str | None) -> Path:
    return Path(arg or os.environ.get("EDGE_RANKER_DATA") or "../shared/data")


def cache_root(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    if os.environ.get("EDGE_RANKER_CACHE"):
        return Path(os.environ["EDGE_RANKER_CACHE"])
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("edge-ranker")) / "teachers"


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def cmd_vocab(a: argparse.Namespace) -> None:
    from edge_ranker.vocab.builder import build_vocab, load_recipe

    if a.recipe:
        corpora = load_recipe(a.recipe, data_root(a.data))
    else:
        corpora = {}
        for spec in a.corpus or []:
            lang, _, path = spec.partition("=")
            if not path:
                raise EdgeRankerError(f"--corpus expects LANG=PATH, got {spec!r}")
            corpora.setdefault(lang, []).append(path)
    if not corpora:
        raise EdgeRankerError("give --recipe or at least one --corpus LANG=PATH")
    rep = build_vocab(corpora, a.out, vocab_size=a.size, alpha=a.alpha, budget_chars=a.budget, seed=a.seed,
                      lowercase=not a.cased, strip_accents=a.strip_accents)
    print(rep.to_json())


def cmd_distill(a: argparse.Namespace) -> None:
    from dataclasses import replace

    from edge_ranker.distill.recipes import RECIPES, distill

    overrides = {k: v for k, v in {"epochs": a.epochs, "lr": a.lr, "batch_size": a.batch_size,
                                   "seed": a.seed}.items() if v is not None}
    if a.loss:
        overrides["losses"] = {k: float(v) for k, v in (x.split("=") for x in a.loss)}
    recipe = RECIPES[a.recipe]
    if a.max_pairs is not None:
        recipe = replace(recipe, max_pairs_per_lang=a.max_pairs)
    if a.no_init:
        recipe = replace(recipe, init_from_teacher=False)
    if a.pca_dim is not None:
        recipe = replace(recipe, pca_dim=a.pca_dim)
        overrides.setdefault("hidden", a.pca_dim)
    if a.teacher:
        recipe = replace(recipe, teacher=a.teacher)
    log = distill(recipe, a.vocab, a.out, data_root(a.data), cache_root(a.cache), overrides=overrides)
    _print_json({k: log[k] for k in ("epochs", "world_size", "groups", "pca_explained_variance") if k in log})


def cmd_eval(a: argparse.Namespace) -> None:
    from edge_ranker.evaluate.report import evaluate_models

    res = evaluate_models(a.models, data_root(a.data), cache_root(a.cache), sts=a.sts, retrieval=a.retrieval,
                          docs=a.docs, split=a.split)
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(res, indent=2))
    _print_json(res)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="edge-ranker", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("vocab", help="vocabulary tooling")
    vs = v.add_subparsers(dest="vocab_command", required=True)
    b = vs.add_parser("build", help="build a smoothed multilingual WordPiece vocabulary")
    b.add_argument("--recipe", help="recipe JSON (e.g. vocab/recipe.json)")
    b.add_argument("--corpus", action="append", help="LANG=PATH (repeatable; plain, Leipzig or .gz)")
    b.add_argument("--data", help="data root for recipe globs (default $EDGE_RANKER_DATA or ../shared/data)")
    b.add_argument("--out", required=True)
    b.add_argument("--size", type=int, default=50_000)
    b.add_argument("--alpha", type=float, default=0.7)
    b.add_argument("--budget", type=int, default=20_000_000, help="total characters sampled")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--cased", action="store_true", help="keep case (default: lowercase)")
    b.add_argument("--strip-accents", action="store_true", help="strip accents (default: keep them)")
    b.set_defaults(func=cmd_vocab)

    d = sub.add_parser("distill", help="distil a teacher into a 1-layer student (accelerate launch works)")
    d.add_argument("recipe", choices=["semantic", "relevance"])
    d.add_argument("--vocab", required=True, help="folder with tokenizer.json")
    d.add_argument("--out", required=True)
    d.add_argument("--data")
    d.add_argument("--cache", help="teacher cache folder (default $EDGE_RANKER_CACHE or the user cache)")
    d.add_argument("--epochs", type=int)
    d.add_argument("--lr", type=float)
    d.add_argument("--batch-size", type=int)
    d.add_argument("--seed", type=int)
    d.add_argument("--max-pairs", type=int, help="cap on Tatoeba pairs per language")
    d.add_argument("--no-init", action="store_true", help="random word embeddings instead of teacher-initialised")
    d.add_argument("--pca-dim", type=int, help="target dimension (and student width); default 128")
    d.add_argument("--teacher", help="override the recipe's teacher: alias or sentence-transformers id/folder")
    d.add_argument("--loss", action="append", help="NAME=WEIGHT, repeatable: mse l2 cosine relational contrastive")
    d.set_defaults(func=cmd_distill)

    e = sub.add_parser("eval", help="STS and retrieval figures for any encoders, in one run")
    e.add_argument("models", nargs="+", help="model folder, shipped name, student folder, teacher:NAME, reduced:DIR")
    e.add_argument("--sts", action="store_true")
    e.add_argument("--retrieval", nargs="*", default=[], help="scifact squad-it")
    e.add_argument("--docs", help="encoder for documents (asymmetric mode), e.g. reduced:DIR")
    e.add_argument("--split", default="test")
    e.add_argument("--data")
    e.add_argument("--cache")
    e.add_argument("--out", help="write JSON here")
    e.set_defaults(func=cmd_eval)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except EdgeRankerError as exc:
        print(f"edge-ranker: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
