"""``distill``: one recipe end to end, teacher targets -> PCA -> trained student folder (``accelerate launch``
spreads the training over processes or GPUs)."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import torch
from accelerate import PartialState
from tokenizers import Tokenizer

from edge_ranker.datasets.user import ParallelCorpus, read_parallel, read_text
from edge_ranker.distill.checkpoint import claim, run_key
from edge_ranker.distill.losses import LOSSES
from edge_ranker.distill.recipes import Recipe, load_recipe, with_overrides
from edge_ranker.distill.train import teacher_token_embeddings, train_student
from edge_ranker.distill.training_set import build_training_set, vocab_text_groups
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling.pca import fit_pca
from edge_ranker.modeling.student import StudentInfo
from edge_ranker.teachers import CachedTeacher, Teacher, load_teacher


def distill(
    recipe: str | Recipe,
    vocab_dir: str | Path,
    out_dir: str | Path,
    data_root: str | Path | None,
    cache_dir: str | Path,
    teacher: Teacher | None = None,
    overrides: dict | None = None,
    show_progress: bool = True,
) -> dict:
    """Run one recipe end to end and write a student folder (plus ``pca.npz``) to ``out_dir``.

    ``teacher`` may be given directly (tests pass a tiny one); otherwise the recipe's teacher is loaded.
    ``overrides`` replace settings by field name, the recipe's or its TrainConfig's (``with_overrides``).
    """
    r = with_overrides(load_recipe(recipe) if isinstance(recipe, str) else recipe, overrides or {})
    cfg = r.train
    unknown = sorted(set(cfg.losses) - set(LOSSES))
    if unknown:
        raise EdgeRankerError(f"unknown loss(es) {unknown}; choose from {sorted(LOSSES)}")
    tokenizer_path = Path(vocab_dir) / "tokenizer.json"
    if not tokenizer_path.exists():
        raise EdgeRankerError(f"no tokenizer.json in {vocab_dir}: build one with `edge-ranker vocab build`")
    try:
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
    except Exception as exc:  # the tokenizers library raises its own kinds for a damaged file
        raise EdgeRankerError(f"{tokenizer_path} is damaged ({exc}): build the vocabulary again") from exc
    # the user's data is read and checked here, before a teacher phase that can take an hour
    corpora = [read_parallel(spec) for spec in r.parallel]
    check_vocabulary(Path(vocab_dir), tokenizer, corpora, [read_text(spec) for spec in r.text])
    for path in r.extra_passages:  # read after the teacher has embedded the rest: a mistyped name is found now
        if not Path(path).is_file():  # as the training set reads it, without expanding ~
            what = "a folder" if Path(path).is_dir() else "not found" if not Path(path).exists() else "not a file"
            raise EdgeRankerError(f"extra passages file {path} is {what}: give a text file, one passage per line")
    # cpu=True on machines without CUDA: a bare PartialState() there reports one process and gates nothing.
    state = PartialState(cpu=not torch.cuda.is_available())
    key = run_key(asdict(r), tokenizer.to_str(), data_root, out_dir)
    named = cfg.checkpoint_dir is None  # then a folder in the cache, named after the run
    if named:
        cfg = replace(cfg, checkpoint_dir=str(Path(cache_dir) / "checkpoints" / key))
    if state.is_main_process:  # found now, not after a teacher phase that can take an hour
        claim(Path(cfg.checkpoint_dir), key)
    # The teacher runs alone before training, so it gets every core (training then shares them among its
    # processes). Under `accelerate launch` the main process fills the cache first; the others read it.
    started = time.perf_counter()
    with state.main_process_first():
        cached = CachedTeacher(teacher or load_teacher(r.teacher, threads=os.cpu_count()), cache_dir)
        groups, raw, fit_rows = build_training_set(r, cached, data_root, cfg.seed, show_progress)
        if r.vocab_texts:
            vocab_groups, texts = vocab_text_groups(tokenizer, r.prefixes.get("passage", ""), len(raw))
            groups += vocab_groups
            raw = np.concatenate([raw, cached.encode(texts, role="passage", show_progress=show_progress)])
        pca = fit_pca(raw[fit_rows], r.pca_dim, seed=cfg.seed)
        targets = pca.transform(raw)
        init = None
        if r.init_from_teacher:
            if r.pca_dim != cfg.hidden:
                raise EdgeRankerError("init_from_teacher needs pca_dim == hidden size")
            init = teacher_token_embeddings(
                tokenizer, lambda t: cached.encode(t, role="passage"), pca.transform, cfg.init_std
            )
    info = StudentInfo(
        max_length=cfg.max_length,
        prefixes=dict(r.prefixes),
        kind=r.kind,
        teacher=cached.name,
        teacher_dim=int(raw.shape[1]),
        pca_dim=r.pca_dim,
        pca_explained_variance=float(np.sum(pca.explained_variance_ratio)),
        languages=r.languages,
    )
    teacher_seconds = time.perf_counter() - started
    full = raw - pca.mean if cfg.teacher_scores == "full" else None  # the PCA's centring, none of its truncation
    log = train_student(groups, targets, tokenizer, info, out_dir, cfg, init, show_progress, full)
    log["teacher_seconds"] = round(teacher_seconds, 1)  # cache fill, PCA and embedding init
    log["train_seconds"] = round(time.perf_counter() - started - teacher_seconds, 1)
    log["pca_explained_variance"] = info.pca_explained_variance
    log["groups"] = len(groups)
    log["process_index"] = state.process_index
    log["teacher_computed"] = cached.computed  # texts this process embedded (the rest came from the cache)
    if state.is_main_process:
        pca.save(Path(out_dir) / "pca.npz")
        (Path(out_dir) / "train_log.json").write_text(json.dumps(log, indent=2))
        if named:  # only there to resume this run, which is done
            shutil.rmtree(cfg.checkpoint_dir, ignore_errors=True)
    cached.close()
    return log


# Above this share of [UNK] pieces in a language's sample, the vocabulary does not cover that language.
UNKNOWN_SHARE = 0.05


def check_vocabulary(
    vocab_dir: Path,
    tokenizer: Tokenizer,
    corpora: list[ParallelCorpus],
    texts: list[tuple[str, list[str]]],
    sample: int = 2000,
) -> None:
    """Refuse the user's languages that the vocabulary was not built for: their words would come out as [UNK] or
    shredded into letters, and training would still seem to work."""
    lines: dict[str, list[str]] = {}
    for c in corpora:
        lines.setdefault(c.src, []).extend(x for x, _ in c.pairs[:sample])
        lines.setdefault(c.tgt, []).extend(y for _, y in c.pairs[:sample])
    for lang, text in texts:
        lines.setdefault(lang, []).extend(text[:sample])
    report = vocab_dir / "report.json"
    if lines and report.is_file():
        try:
            built = set(json.loads(report.read_text(encoding="utf-8")).get("languages", {}))
        except (ValueError, AttributeError, TypeError):  # not JSON, not an object, languages not a collection
            built = set()
        missing = [lang for lang in lines if built and lang not in built]
        if missing:
            raise EdgeRankerError(
                f"the vocabulary in {vocab_dir} was built for {', '.join(sorted(built))}, not {', '.join(missing)}: "
                f"build one with `edge-ranker vocab build --corpus {missing[0]}=FILE ...` for every language"
            )
    unk = tokenizer.token_to_id("[UNK]")
    if unk is None:  # a vocabulary without an unknown piece (SentencePiece byte fallback) cannot show a gap this way
        return
    for lang, sample_lines in lines.items():
        ids = [i for e in tokenizer.encode_batch(sample_lines[:sample], add_special_tokens=False) for i in e.ids]
        share = ids.count(unk) / max(1, len(ids))
        if share > UNKNOWN_SHARE:
            raise EdgeRankerError(
                f"{share:.0%} of the {lang} text's pieces are [UNK] in the vocabulary in {vocab_dir}: it does not "
                f"cover {lang}; build one with `edge-ranker vocab build --corpus {lang}=FILE ...`"
            )
