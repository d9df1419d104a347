"""``eval``: STS, retrieval, translation, the feed and search figures of any encoders, in one run."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from edge_ranker.cli.common import model_or_none, positive, print_json, seed, weight
from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import DATA_HELP, cache_root, data_root, output_folder, write_files


def cmd_eval(a: argparse.Namespace) -> None:
    from edge_ranker.datasets.retrieval import check_set_name
    from edge_ranker.evaluate.personal import USERS
    from edge_ranker.evaluate.report import evaluate_models

    pair = [flag for flag, on in PAIR_FLAGS.items() if getattr(a, on)]  # each ranks with a SEMANTIC RELEVANCE pair
    users = a.personal or a.personal_search or a.feed_sessions
    if not users and (a.topics_split != "dev" or a.users is not None or a.seed is not None):
        raise EdgeRankerError(f"--users, --topics-split and --seed set up {USER_FLAGS}: add {USER_FLAGS}")
    if not users and a.item_sentences != 1:
        raise EdgeRankerError(f"--item-sentences sets up {USER_FLAGS}: add {USER_FLAGS}")
    if a.diversity is not None and not a.feed_sessions:
        raise EdgeRankerError("--diversity sets up --feed-sessions: add --feed-sessions")
    if a.baseline is not None and not a.mixed_search:
        raise EdgeRankerError("--baseline sets up --mixed-search: add --mixed-search")
    if a.strengths and not a.personal_search:
        raise EdgeRankerError("--strengths sets up --personal-search: add --personal-search")
    if pair and len(a.models) != 2:
        raise EdgeRankerError(
            f"{pair[0]} ranks with a pair of runtime models, SEMANTIC RELEVANCE (e.g. `eval semantic "
            f"relevance {pair[0]}`); got {len(a.models)} model{'s' if len(a.models) != 1 else ''}"
        )
    others = a.sts or a.retrieval or a.translation or a.personal or a.search or a.bitext
    if not (others or pair):
        raise EdgeRankerError(
            "nothing to evaluate: give --sts, --retrieval, --translation, --personal, --search, --bitext or "
            f"{', '.join(PAIR_FLAGS)}"
        )
    for name in a.retrieval or []:
        check_set_name(name)
    out = None
    if a.out is not None:  # checked before the evaluation, which can take an hour
        if not a.out.strip():
            raise EdgeRankerError("--out is empty: give a file name for the JSON")
        out = Path(a.out).expanduser()
        output_folder(out.parent, "evaluation results", overwrite=True)
        if out.is_dir():
            raise EdgeRankerError(f"--out {out} is a folder; give a file name for the JSON")
        if out.exists() and not a.overwrite:
            raise EdgeRankerError(f"{out} already exists: give a new file name, or --overwrite to replace it")
    baseline = None  # loaded before the evaluations, so a baseline that cannot load fails at once
    if a.mixed_search and a.baseline != "none":
        from edge_ranker.evaluate.encoders import resolve_encoder

        baseline = resolve_encoder(a.baseline or MIXED_BASELINE, cache_root(a.cache))
    reads_data = a.sts or a.retrieval or a.translation or a.personal or a.search or pair
    if a.personal_search:  # its items refused now, not after the other evaluations
        from edge_ranker.evaluate.personal_search import search_topics

        search_topics(data_root(a.data), a.topics_split, a.item_sentences)
    res = (
        {}
        if not others
        else evaluate_models(
            a.models,
            data_root(a.data) if reads_data else None,
            cache_root(a.cache),
            sts=a.sts,
            retrieval=a.retrieval,
            docs=a.docs,
            split=a.split,
            translation=a.translation,
            lexical_weight=a.lexical_weight,
            personal_users=(a.users or USERS) if a.personal else 0,
            personal_split=a.topics_split,
            item_sentences=a.item_sentences,
            personal_seed=a.seed or 0,
            search=a.search,
            bitexts=a.bitext,
            ranker_semantic=a.ranker_semantic,
            ranker_relevance=model_or_none(a.ranker_relevance),
        )
    )
    if a.personal_search:
        from edge_ranker.evaluate.personal_search import USERS, evaluate_personal_search
        from edge_ranker.runtime.encoder import Encoder

        semantic, relevance = (Encoder.load(m) for m in a.models)
        res["personal_search"] = evaluate_personal_search(
            semantic,
            relevance,
            data_root(a.data),
            a.topics_split,
            a.users or USERS,
            strengths=tuple(a.strengths),
            seed=a.seed or 0,
            item_sentences=a.item_sentences,
        )
    if a.feed_sessions or a.duplicates or a.mixed_search:
        from edge_ranker.runtime.encoder import Encoder

        semantic, relevance = (Encoder.load(m) for m in a.models)
    if a.feed_sessions:
        from edge_ranker.evaluate.feed_sessions import READERS, evaluate_feed_sessions

        res["feed_sessions"] = evaluate_feed_sessions(
            data_root(a.data), semantic, relevance, a.users or READERS, a.seed or 0, a.topics_split, a.item_sentences,
            diversity=a.diversity,
        )
    if a.duplicates:
        from edge_ranker.evaluate.duplicates import evaluate_duplicates

        res["duplicates"] = evaluate_duplicates(data_root(a.data), semantic, relevance)
    if a.mixed_search:
        from edge_ranker.evaluate.mixed_search import evaluate_mixed_search

        res["mixed_search"] = evaluate_mixed_search(semantic, relevance, data_root(a.data), baseline)
        res["mixed_search"]["baseline_model"] = None if baseline is None else a.baseline or MIXED_BASELINE
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out = out.resolve() if out.is_symlink() else out  # written through a link, as the user linked it
        write_files({out: json.dumps(res, indent=2).encode("utf-8")})  # a full disk leaves the earlier file as it was
    print_json(res)


MIXED_BASELINE = "teacher:multilingual-e5-small"  # a retrieval model of ~100 languages: search across them
USER_FLAGS = "--personal, --personal-search or --feed-sessions"  # the evaluations of simulated users
PAIR_FLAGS = {
    "--personal-search": "personal_search",
    "--feed-sessions": "feed_sessions",
    "--duplicates": "duplicates",
    "--mixed-search": "mixed_search",
}


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """eval"""
    e = sub.add_parser("eval", help="STS, retrieval and translation-retrieval figures for any encoders, in one run")
    e.add_argument("models", nargs="+", help="model folder, shipped name, student folder, teacher:NAME, reduced:DIR")
    e.add_argument("--sts", action="store_true", help="multilingual STS Spearman, 10 languages and 9 en-xx pairs")
    e.add_argument(
        "--retrieval",
        nargs="*",
        default=[],
        help="scifact squad-it wikiqa (test); wikiqa-dev, and scifact-dev squad-it-dev for runs trained with "
        "--hold-dev (to choose between runs)",
    )
    e.add_argument(
        "--translation",
        nargs="*",
        default=[],
        choices=["tatoeba", "flores"],
        help="translation retrieval accuracy, xx->en and en->xx, 9 languages: LASER Tatoeba test, FLORES devtest",
    )
    e.add_argument(
        "--personal",
        action="store_true",
        help="the personalised feed: simulated users like one SIB-200 topic and dislike another (mono, cross- and "
        "mixed-language), through the Ranker and with a plain max-cosine rule, beside random (nDCG@10)",
    )
    e.add_argument(
        "--users",
        type=positive,
        help="simulated users per setting for --personal and --personal-search (default 200), readers of "
        "--feed-sessions (default 60)",
    )
    e.add_argument(
        "--topics-split",
        choices=["dev", "train"],
        default="dev",
        help="SIB-200 split of --personal and --personal-search (test is kept out)",
    )
    e.add_argument(
        "--seed",
        type=seed,
        help="seed of the simulated users of --personal and --personal-search (default 0): another seed, other users",
    )
    e.add_argument(
        "--item-sentences",
        type=positive,
        default=1,
        metavar="K",
        help="--personal and --personal-search items of K sentences of one topic, article-length (dev has too few: "
        "--topics-split train; --personal-search needs it for any K over 1)",
    )
    e.add_argument(
        "--bitext",
        action="append",
        default=[],
        metavar="XX-YY=FILE",
        help="translation retrieval accuracy both ways on your own pairs (TSV or XX-YY=XX_FILE,YY_FILE); repeatable",
    )
    e.add_argument(
        "--search",
        action="store_true",
        help="search across languages: a FLORES article's first words in one language over the articles' bodies "
        "in another (xx->en and en->xx; 'avg'), and within each language ('within'), through the Ranker and by "
        "cosine (nDCG@10)",
    )
    e.add_argument(
        "--personal-search",
        action="store_true",
        help="search with a history, MODELS being the Ranker's SEMANTIC RELEVANCE pair: users whose history is about "
        "other topics search the QA dev sets and SIB-200 across languages (robustness: the share of the empty "
        "store's nDCG@10 kept), and users whose history favours one topic search a word of several topics "
        "(usefulness: graded nDCG@10); beside the query alone, the interests alone and reciprocal-rank fusion",
    )
    e.add_argument(
        "--feed-sessions",
        action="store_true",
        help="a feed read over days, MODELS being the Ranker's SEMANTIC RELEVANCE pair: simulated readers of SIB-200 "
        "items in the 10 languages who open, read and scroll past (implicit), who like and dislike (explicit), and "
        "who do nothing (cold); nDCG@10 of sessions 2 onward",
    )
    e.add_argument(
        "--duplicates",
        action="store_true",
        help="feeds holding the same story in several languages (SIB-200 dev items), MODELS being the Ranker's "
        "SEMANTIC RELEVANCE pair: distinct stories in the top 10, the folds' precision and recall, nDCG@10 over "
        "stories, with duplicates folded and not",
    )
    e.add_argument(
        "--diversity",
        type=weight,
        help="--feed-sessions ranks with this diversity (default: the runtime's DIVERSITY)",
    )
    e.add_argument(
        "--mixed-search",
        action="store_true",
        help="search in a feed of mixed languages (FLORES-200 devtest articles, each body and query in a random one "
        "of the 10 languages), MODELS being the Ranker's SEMANTIC RELEVANCE pair: nDCG@10 with an empty store, an "
        "unrelated history and --baseline's raw cosine, by answers in the query's language and in another; and "
        "stop-word traps, liked documents that share only frequent words with the query",
    )
    e.add_argument(
        "--baseline",
        help=f"--mixed-search's raw-cosine baseline (teacher:NAME, a model folder; 'none' to leave it out; default "
        f"{MIXED_BASELINE})",
    )
    e.add_argument(
        "--strengths",
        type=weight,
        nargs="+",
        default=[],
        metavar="W",
        help="--personal-search also measures the Ranker at these personal weights",
    )
    e.add_argument(
        "--ranker-semantic",
        default="semantic",
        metavar="MODEL",
        help="the semantic model the Ranker holds beside each model in --search (default: the shipped one); its "
        "cosine joins a query by the share of the query's words no document has",
    )
    e.add_argument(
        "--ranker-relevance",
        default="relevance",
        metavar="MODEL",
        help="the relevance model the Ranker holds beside each model in --personal (default: the shipped one), whose "
        "passage vectors join the interests; 'none' for interests of the semantic model alone",
    )
    e.add_argument("--docs", help="encoder for documents (asymmetric mode), e.g. reduced:DIR")
    e.add_argument(
        "--lexical-weight",
        type=weight,
        default=0.0,
        help="also score each retrieval set by cosine + W x BM25, both standardised (reported as SET+lexical; the "
        "runtime's default W is 1, and it adds the semantic cosine by the share of the query's words no document "
        "has: bench/scripts/experiments/search_fusion.py)",
    )
    e.add_argument("--split", default="test", choices=["test", "dev"], help="STS split: test (default) or dev")
    e.add_argument("--data", help=DATA_HELP)
    e.add_argument("--cache", help="teacher embedding cache (default $EDGE_RANKER_CACHE or the user cache)")
    e.add_argument("--out", help="write JSON here")
    e.add_argument("--overwrite", action="store_true", help="replace the --out file if it exists")
    e.set_defaults(func=cmd_eval)
