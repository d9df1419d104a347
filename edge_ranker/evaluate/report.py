"""Evaluate several encoders on the same data in one run, so teacher and students are comparable."""

from __future__ import annotations

import time
from pathlib import Path

from edge_ranker.datasets.retrieval import load_retrieval
from edge_ranker.datasets.user import read_parallel
from edge_ranker.evaluate.encoders import check_spec, resolve_encoder
from edge_ranker.evaluate.retrieval import cosine_scores, fused_scores, lexical_scores, scores_metrics
from edge_ranker.evaluate.sts import evaluate_sts
from edge_ranker.evaluate.translation import evaluate_bitext, evaluate_translation


def evaluate_models(
    models: list[str],
    data_root: Path | None,
    cache_dir: Path,
    sts: bool = True,
    retrieval: list[str] | None = None,
    docs: str | None = None,
    split: str = "test",
    translation: list[str] | None = None,
    lexical_weight: float = 0.0,
    personal_users: int = 0,
    personal_split: str = "dev",
    item_sentences: int = 1,
    personal_seed: int = 0,
    search: bool = False,
    bitexts: list[str] | None = None,
    ranker_semantic: str = "semantic",
    ranker_relevance: str | None = "relevance",
) -> dict:
    """``{model: {set: metrics}}``; with ``lexical_weight`` each retrieval set is also scored by cosine and
    BM25 fused (the runtime's query score within a language), under the key ``SET+lexical``. ``personal_users`` > 0
    adds the personalised-feed benchmark (``evaluate.personal``) for all the models on the same simulated users, under
    the key ``personal`` (SIB-200's ``personal_split``, ``item_sentences`` sentences of a topic per item, users drawn
    with ``personal_seed``; each runtime model's Ranker holds ``ranker_relevance`` beside it, whose passage vectors
    join the interests);
    ``search`` the cross-language search benchmark (``evaluate.crosslingual``), under ``search``, with
    ``ranker_semantic`` as the ranker's semantic model beside each model; each of ``bitexts``
    (the user's ``XX-YY=FILE``) translation retrieval, under ``bitext:SPEC``."""
    for spec in [*models, *([docs] if docs else [])]:
        check_spec(spec)
    sets = {name: load_retrieval(name, data_root) for name in retrieval or []}
    pairs = {spec: read_parallel(spec, "--bitext") for spec in bitexts or []}  # read and checked before any model runs
    words = {name: lexical_scores(ds) for name, ds in sets.items()} if lexical_weight else {}  # encoder-free
    doc_encoder = resolve_encoder(docs, cache_dir) if docs else None
    out: dict = {}
    resolved = {}
    for spec in models:
        enc = resolved[spec] = resolve_encoder(spec, cache_dir)
        t0 = time.perf_counter()
        res: dict = {}
        if sts:
            res["sts"] = evaluate_sts(enc, data_root, split=split)
        for name, ds in sets.items():
            cosine = cosine_scores(enc, ds, doc_encoder)
            res[name] = scores_metrics(cosine, ds)
            if lexical_weight:
                res[f"{name}+lexical"] = scores_metrics(fused_scores(cosine, words[name], lexical_weight), ds)
        for name in translation or []:
            res[f"translation-{name}"] = evaluate_translation(enc, data_root, name)
        for bitext, corpus in pairs.items():
            res[f"bitext:{bitext}"] = evaluate_bitext(enc, corpus)
        res["seconds"] = round(time.perf_counter() - t0, 1)
        out[spec + (f" (docs: {docs})" if docs else "")] = res
    if personal_users:
        from edge_ranker.evaluate.personal import evaluate_personal
        from edge_ranker.runtime.encoder import Encoder

        out["personal"] = evaluate_personal(
            resolved,
            data_root,
            users=personal_users,
            split=personal_split,
            item_sentences=item_sentences,
            seed=personal_seed,
            relevance=Encoder.load(ranker_relevance) if ranker_relevance else None,
        )
    if search:
        from edge_ranker.evaluate.crosslingual import evaluate_search
        from edge_ranker.runtime.encoder import Encoder

        out["search"] = evaluate_search(resolved, data_root, semantic=Encoder.load(ranker_semantic))
    return out
