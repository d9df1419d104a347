"""A recipe's training set: groups of student texts, each with one row of the teacher's targets.

The texts come from ``edge_ranker.datasets`` (which also keeps every evaluation text out); the teacher embeds each
group's first text in its role; queries are linked to the passages that ride in their batch.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.datasets.held_out import HeldText, drop_held, eval_sentences, retrieval_eval_texts
from edge_ranker.datasets.training import (
    Pair,
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
from edge_ranker.datasets.user import read_parallel, read_text, split_held_out
from edge_ranker.distill.batch import Group
from edge_ranker.distill.recipes import PASSAGE_SOURCES, Recipe
from edge_ranker.errors import EdgeRankerError
from edge_ranker.teachers import CachedTeacher
from edge_ranker.textio import read_lines


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
    recipe: Recipe, teacher: CachedTeacher, data_root: str | Path | None, seed: int = 0, show_progress: bool = True
) -> tuple[list[Group], np.ndarray, slice | np.ndarray]:
    """Groups of student texts sharing one teacher target; returns groups, raw targets and the rows to fit
    the PCA on (``recipe.pca_fit``: the first role's Tatoeba sources, the passages, the Wikipedia sentences or all)."""
    if recipe.reads_data_root and data_root is None:
        raise EdgeRankerError("this recipe reads the project's data sets: give their folder with --data DIR")
    root = Path(data_root) if data_root is not None else None
    held = eval_sentences(root) if root is not None else set()
    # the user's pairs take the Tatoeba pairs' path (and role): the teacher embeds the pivot side
    user = [read_parallel(spec) for spec in recipe.parallel]
    user_train, user_held = split_held_out(user, recipe.held_out, seed)
    held |= {text for pairs in user_held for pair in pairs for text in pair}
    pairs = tatoeba_pairs(root, recipe.langs, recipe.max_pairs_per_lang, seed=seed, held=held) if recipe.langs else []
    pairs += [Pair(y, x, c.src) for c, train in zip(user, user_train) for x, y in train]
    sources = sorted({p.source for p in pairs})
    row_of = {s: i for i, s in enumerate(sources)}
    groups: list[Group] = []
    blocks: list[np.ndarray] = []
    offset = 0
    by_source: dict[str, list[str]] = {}
    for p in pairs:
        by_source.setdefault(p.source, [p.source]).append(p.target)
    for role in recipe.roles if sources else ():  # text alone (no pairs): no block rather than an empty one
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
    wikipedia = mono_groups(root, recipe.mono_per_lang, seed) if recipe.mono_per_lang else []
    extra += wikipedia
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

    extra += [[line] for spec in recipe.text for line in read_text(spec)[1]]
    extra = drop_held(extra, held)
    first_extra = offset  # the first role's block of these groups: the Wikipedia rows a PCA may be fitted on
    for role in recipe.roles:
        add(extra, role)
    passages = [[t] for t in _passages(root, recipe.passages_per_lang, recipe.sentences_per_passage, seed)]
    if recipe.news_passages:
        passages += news_passages(root, recipe.langs, recipe.sentences_per_passage)
    # outside text is checked for 8-word runs of every evaluation text, not only for exact sentences
    evaluated = [*held, *(retrieval_eval_texts(root) if root is not None else [])]
    quoted = HeldText.of(evaluated if recipe.wiki_summaries or recipe.extra_passages else [])
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
    if recipe.pca_fit == "targets":
        return groups, raw, slice(0, len(raw))
    if recipe.pca_fit == "wikipedia" and wikipedia:
        sentences = {g[0] for g in wikipedia}
        return groups, raw, np.array([first_extra + i for i, g in enumerate(extra) if g[0] in sentences])
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
