"""``demo``: a scripted user's multilingual feed, ranked with the shipped models."""

from __future__ import annotations

import argparse

from edge_ranker.cli.common import SEMANTIC_HELP, count, model_or_none, shipped


def cmd_demo(a: argparse.Namespace) -> None:
    from edge_ranker.demo import run_demo

    run_demo(shipped(a.semantic, "semantic"), model_or_none(shipped(a.relevance, "relevance")), top=a.top)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """demo"""
    dm = sub.add_parser("demo", help="rank a small multilingual feed for a scripted user with the shipped models")
    dm.add_argument("--semantic", help=SEMANTIC_HELP)
    dm.add_argument(
        "--relevance",
        help="relevance model folder or shipped name (default: the shipped one; 'none': no query ranking)",
    )
    dm.add_argument("--top", type=count, default=8, help="documents shown per ranking (default 8; 0: all)")
    dm.set_defaults(func=cmd_demo)
