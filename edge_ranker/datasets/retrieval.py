"""Retrieval sets and their splits: what is evaluated, what is a dev split, what training may use.

Sets available here (MS MARCO, the paper's benchmark, is not): SciFact (English claims -> abstracts, the
BEIR train judgments), SQuAD-it (Italian question -> paragraph) and WikiQA (English question -> sentence,
never trained on).

The corpora are sub-sampled so that the teacher (multilingual-e5-small, 12 layers, ~2 long documents/s on 2
CPU cores) can be scored in minutes: a seeded sample of queries, every document relevant to them, and
seeded random distractors up to ``max_docs`` (as the paper sub-sampled MS MARCO to 1M passages). Every
encoder is scored on the same sample.

``training_remainder`` gives the part of each set that its evaluation sample never touches, so a student may
train on it while every evaluated query and document stays held out. ``scifact-dev`` and ``squad-it-dev`` are
passage retrieval dev splits drawn from that remainder; a run trained with ``hold_dev`` never sees them, so they
can choose between relevance recipes (wikiqa-dev alone, questions over answer sentences, cannot judge the options
that change how passages are read).
"""

from __future__ import annotations

import ast
import csv
import gzip
import json
import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from edge_ranker.errors import EdgeRankerError


@dataclass
class RetrievalSet:
    name: str
    queries: dict[str, str]
    corpus: dict[str, str]
    qrels: dict[str, set[str]]


def subsample(ds: RetrievalSet, max_queries: int, max_docs: int, seed: int = 0) -> RetrievalSet:
    """Seeded query sample; keeps every relevant document, fills up to ``max_docs`` with random others."""
    rng = random.Random(seed)
    qids = sorted(ds.qrels)  # judged queries only (SciFact's queries file also has unjudged claims)
    rng.shuffle(qids)
    qids = sorted(qids[:max_queries])
    relevant = sorted({d for q in qids for d in ds.qrels[q]})
    others = sorted(set(ds.corpus) - set(relevant))
    rng.shuffle(others)
    docs = relevant + others[: max(0, max_docs - len(relevant))]
    return RetrievalSet(
        ds.name,
        {q: ds.queries[q] for q in qids},
        {d: ds.corpus[d] for d in sorted(docs)},
        {q: ds.qrels[q] for q in qids},
    )


def _scifact(data_root: str | Path) -> RetrievalSet:
    """Every claim (judged or not), every abstract, the train judgments."""
    root = Path(data_root) / "retrieval" / "scifact"
    csv.field_size_limit(10**8)
    corpus: dict[str, str] = {}
    with (root / "corpus_train.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            raw = row["abstract"].strip()
            try:  # numpy-style list repr: "['s1'\n 's2']" -> make it a Python list literal
                sents = ast.literal_eval(
                    raw.replace("'\n '", "', '")
                    .replace("\"\n '", "\", '")
                    .replace("'\n \"", "', \"")
                    .replace('"\n "', '", "')
                )
            except (ValueError, SyntaxError):
                sents = [raw.strip("[]")]
            corpus[row["doc_id"]] = (row["title"] + ". " + " ".join(sents)).strip()
    queries = {}
    for line in (root / "queries.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        queries[q["_id"]] = q["text"]
    qrels: dict[str, set[str]] = {}
    with (root / "train.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if int(row["score"]) > 0 and row["corpus-id"] in corpus and row["query-id"] in queries:
                qrels.setdefault(row["query-id"], set()).add(row["corpus-id"])
    return RetrievalSet("scifact", queries, corpus, qrels)


def _squad_it(data_root: str | Path) -> RetrievalSet:
    """Every paragraph is a document, every question a query with its paragraph as the one relevant answer."""
    path = Path(data_root) / "retrieval" / "squad-it" / "SQuAD_it-test.json.gz"
    data = json.load(gzip.open(path, "rt", encoding="utf-8"))["data"]
    corpus, queries, qrels = {}, {}, {}
    for a, art in enumerate(data):
        for p, par in enumerate(art["paragraphs"]):
            pid = f"{a}-{p}"
            corpus[pid] = par["context"]
            for qa in par["qas"]:
                queries[qa["id"]] = qa["question"]
                qrels[qa["id"]] = {pid}
    return RetrievalSet("squad-it", queries, corpus, qrels)


def _wikiqa(data_root: str | Path, split: str = "test") -> RetrievalSet:
    """WikiQA: English questions against every candidate sentence of every question of the split (pooled),
    the sentences labelled 1 relevant. No recipe trains on it: a check on a set the students never saw. The
    dev split is the one to choose between relevance runs on, as the STS dev split is for semantic ones."""
    path = Path(data_root) / "retrieval" / "wikiqa" / ("WikiQA-test-gold.tsv" if split == "test" else "WikiQA-dev.tsv")
    corpus, queries, qrels = {}, {}, {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            queries[row["QuestionID"]] = row["Question"]
            corpus[row["SentenceID"]] = row["Sentence"]
            if row["Label"] == "1":
                qrels.setdefault(row["QuestionID"], set()).add(row["SentenceID"])
    return RetrievalSet("wikiqa" if split == "test" else f"wikiqa-{split}", queries, corpus, qrels)


# name -> (reader of the whole set, evaluated queries, documents in the evaluated corpus)
SETS = {
    "scifact": (_scifact, 300, 1000),
    "squad-it": (_squad_it, 500, 1000),
    "wikiqa": (_wikiqa, 1000, 10**6),
    "wikiqa-dev": (partial(_wikiqa, split="dev"), 1000, 10**6),
}


# set -> (queries, documents) of its dev split, drawn (seed 1) from what its test sample leaves; with it held out,
# training keeps 708 of SQuAD-it's 1,008 paragraphs and 150 of SciFact's 301 judged claims (others share documents)
DEV_SPLITS = {"scifact": (100, 400), "squad-it": (150, 300)}
TRAINABLE = tuple(DEV_SPLITS)  # the sets a recipe may train on (their remainder); WikiQA never is


def check_set_name(name: str) -> None:
    """Refuse a name that is no retrieval set here, before any work that would come before reading it."""
    if name not in SETS and name.removesuffix("-dev") not in DEV_SPLITS:
        names = sorted([*SETS, *(f"{n}-dev" for n in DEV_SPLITS)])
        raise EdgeRankerError(f"unknown retrieval set {name!r}; choose from {names}")


def load_retrieval(name: str, data_root: str | Path) -> RetrievalSet:
    """The evaluation sample of a set (seeded, so training can hold out exactly these texts)."""
    check_set_name(name)
    if name not in SETS:
        base = name.removesuffix("-dev")
        return _dev_split(base, _remainder(base, data_root))
    read, max_queries, max_docs = SETS[name]
    return subsample(read(data_root), max_queries, max_docs)


def _without(full: RetrievalSet, held: RetrievalSet) -> RetrievalSet:
    """Documents outside ``held``'s corpus, and queries outside it whose relevant documents are all outside it
    too (a question about a held paragraph stays out)."""
    held_docs = set(held.corpus)
    held_text = set(held.queries.values()) | set(held.corpus.values())
    queries = {
        q: t
        for q, t in full.queries.items()
        if q not in held.queries and t not in held_text and not (full.qrels.get(q, set()) & held_docs)
    }
    corpus = {d: t for d, t in full.corpus.items() if d not in held_docs and t not in held_text}
    qrels = {q: full.qrels[q] & set(corpus) for q in queries if full.qrels.get(q)}
    return RetrievalSet(full.name, queries, corpus, {q: r for q, r in qrels.items() if r})


def _remainder(name: str, data_root: str | Path) -> RetrievalSet:
    read, max_queries, max_docs = SETS[name]
    full = read(data_root)
    return _without(full, subsample(full, max_queries, max_docs))


def _dev_split(name: str, remainder: RetrievalSet) -> RetrievalSet:
    dev = subsample(remainder, *DEV_SPLITS[name], seed=1)
    return RetrievalSet(f"{name}-dev", dev.queries, dev.corpus, dev.qrels)


def training_remainder(name: str, data_root: str | Path, hold_dev: bool = False) -> RetrievalSet:
    """What the evaluation sample never touches (and with ``hold_dev``, what the set's dev split never touches
    either), by the rule of ``_without``."""
    check_set_name(name)
    rest = _remainder(name, data_root)
    if hold_dev and name in DEV_SPLITS:
        rest = _without(rest, _dev_split(name, rest))
    return rest
