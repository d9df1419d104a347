"""``vocab build`` and ``vocab convert-spm``: the students' WordPiece vocabularies."""

from __future__ import annotations

import argparse
import re

from edge_ranker.cli.common import OVERWRITE_HELP, vocab_size
from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import DATA_HELP, data_root, output_folder


def cmd_vocab(a: argparse.Namespace) -> None:
    from edge_ranker.datasets.user import LANGUAGE_CODE
    from edge_ranker.vocab.builder import build_vocab, load_recipe

    if a.recipe:
        corpora = load_recipe(a.recipe, data_root(a.data))
    else:
        corpora = {}
        for spec in a.corpus or []:
            lang, _, path = spec.partition("=")
            if not path or not re.fullmatch(LANGUAGE_CODE, lang):
                raise EdgeRankerError(f"--corpus expects LANG=PATH, LANG a code such as en or tur, got {spec!r}")
            corpora.setdefault(lang, []).append(path)
    if not corpora:
        raise EdgeRankerError("give --recipe or at least one --corpus LANG=PATH")
    a.out = output_folder(a.out, "vocabulary", a.overwrite)
    rep = build_vocab(
        corpora,
        a.out,
        vocab_size=a.size,
        alpha=a.alpha,
        budget_chars=a.budget,
        seed=a.seed,
        lowercase=not a.cased,
        strip_accents=a.strip_accents,
    )
    print(rep.to_json())


def cmd_vocab_convert(a: argparse.Namespace) -> None:
    from edge_ranker.vocab.convert import from_sentencepiece

    a.out = output_folder(a.out, "tokenizer", a.overwrite)
    print(from_sentencepiece(a.sp_model, a.out))


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """vocab build, vocab convert-spm"""
    v = sub.add_parser("vocab", help="vocabulary tooling")
    vs = v.add_subparsers(dest="vocab_command", required=True)
    b = vs.add_parser("build", help="build a smoothed multilingual WordPiece vocabulary")
    b.add_argument("--recipe", help="recipe JSON (e.g. vocab/recipe.json)")
    b.add_argument("--corpus", action="append", help="LANG=PATH (repeatable; plain, Leipzig or .gz)")
    b.add_argument("--data", help=DATA_HELP)
    b.add_argument("--out", required=True, help="folder for tokenizer.json, vocab.txt and report.json")
    b.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    b.add_argument("--size", type=vocab_size, default=50_000, help="vocabulary size in pieces (default 50,000)")
    b.add_argument(
        "--alpha", type=float, default=0.7, help="smoothing: each language sampled by its share^alpha (default 0.7)"
    )
    b.add_argument("--budget", type=int, default=20_000_000, help="total characters sampled")
    b.add_argument("--seed", type=int, default=0, help="sampling seed")
    b.add_argument("--cased", action="store_true", help="keep case (default: lowercase)")
    b.add_argument("--strip-accents", action="store_true", help="strip accents (default: keep them)")
    b.set_defaults(func=cmd_vocab)
    c = vs.add_parser("convert-spm", help="a teacher's SentencePiece model as a tokenizer.json (baseline)")
    c.add_argument("sp_model", help="the SentencePiece .model file")
    c.add_argument("--out", required=True, help="folder for the converted tokenizer")
    c.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    c.set_defaults(func=cmd_vocab_convert)
