"""The user's own corpora, in any language: parallel pairs (``xx-yy=FILE``) and monolingual text (``xx=FILE``), and
the held-out slice of each parallel corpus that training never sees and the check after training scores.

A parallel corpus is a TSV file (``xx text<TAB>yy text`` per line) or two line-aligned files (``xx-yy=A,B``); the
teacher embeds the ``yy`` side (the pivot, usually English) and the student learns both sides towards it, as the
project's own Tatoeba pairs. Every problem is an error naming the file and line: training on misaligned pairs
would teach wrong translations without a sign.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from edge_ranker.errors import EdgeRankerError

LANGUAGE_CODE = r"[a-z]{2,3}"  # what --parallel, --text and vocab build --corpus take as a language
_PARALLEL = re.compile(rf"^(?P<src>{LANGUAGE_CODE})-(?P<tgt>{LANGUAGE_CODE})=(?P<paths>.+)$")
_TEXT = re.compile(rf"^(?P<lang>{LANGUAGE_CODE})=(?P<path>.+)$")


@dataclass(frozen=True)
class ParallelCorpus:
    src: str  # the language of the first side
    tgt: str  # the pivot: the side the teacher embeds
    pairs: list[tuple[str, str]]
    name: str  # as given, for messages and reports


def parse_parallel(spec: str, flag: str = "--parallel") -> tuple[str, str, list[Path]]:
    """``xx-yy=FILE.tsv`` or ``xx-yy=XX_FILE,YY_FILE`` -> (xx, yy, paths). Language codes are 2-3 lower-case
    letters; a path cannot contain a comma."""
    m = _PARALLEL.match(spec)
    if not m:
        raise EdgeRankerError(
            f"{flag} expects XX-YY=FILE.tsv or XX-YY=XX_FILE,YY_FILE (e.g. sv-en=pairs.tsv), got {spec!r}"
        )
    if m["src"] == m["tgt"]:
        raise EdgeRankerError(f"{flag} {spec!r}: the two sides must be different languages")
    parts = m["paths"].split(",")
    if len(parts) > 2 or not all(parts):
        raise EdgeRankerError(f"{flag} {spec!r}: give one TSV file or two line-aligned files separated by a comma")
    return m["src"], m["tgt"], [Path(p) for p in parts]


def parse_text(spec: str) -> tuple[str, Path]:
    """``xx=FILE`` -> (xx, path)."""
    m = _TEXT.match(spec)
    if not m:
        raise EdgeRankerError(f"--text expects XX=FILE (e.g. sv=news.txt), got {spec!r}")
    return m["lang"], Path(m["path"])


def spec_languages(parallel: list[str], text: list[str]) -> list[str]:
    """The languages the specs name, in order of first mention (no file is read)."""
    langs = [lang for s in parallel for lang in parse_parallel(s)[:2]] + [parse_text(s)[0] for s in text]
    return list(dict.fromkeys(langs))


# Above this share of lines with bytes that are not UTF-8 a file is in another encoding: training on it would teach
# the replacement character. Below it, the odd bad byte becomes U+FFFD, as everywhere else in the project.
BAD_LINES = 0.01


def _read(path: Path) -> list[str]:
    """Every line, empty ones included (alignment counts them), tabs kept, a final CR dropped."""
    if path.is_dir() or not path.exists():  # a pipe (`<(...)`) is read as a file is
        raise EdgeRankerError(f"{path} is {'a folder' if path.is_dir() else 'not found'}")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EdgeRankerError(f"cannot read {path}: {exc.strerror}") from exc
    head = raw[:4096]
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or head.count(b"\x00") > len(head) // 4:  # not one stray NUL
        raise EdgeRankerError(f"{path} looks like UTF-16 (NUL bytes): save it as UTF-8")
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    if not text.strip():
        raise EdgeRankerError(f"{path} has no text")
    lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]  # a final newline starts none
    bad = [n for n, line in enumerate(lines, start=1) if "\ufffd" in line]
    if len(bad) > BAD_LINES * len(lines):
        raise EdgeRankerError(
            f"{len(bad)} of the {len(lines)} lines of {path} are not valid UTF-8 (the first: line {bad[0]}): "
            "save it as UTF-8"
        )
    return lines


def _lines(path: Path) -> list[str]:
    """``_read``'s lines with their whitespace folded."""
    return [" ".join(line.split()) for line in _read(path)]


def read_parallel(spec: str, flag: str = "--parallel") -> ParallelCorpus:
    """The pairs of one ``--parallel`` spec; blank lines (blank on both sides) are skipped, one-sided ones refused."""
    src, tgt, paths = parse_parallel(spec, flag)
    pairs: list[tuple[str, str]] = []
    if len(paths) == 1:
        for n, line in enumerate(_read(paths[0]), start=1):
            if not line.strip():
                continue
            cells = [" ".join(c.split()) for c in line.split("\t")]
            if len(cells) != 2:
                raise EdgeRankerError(
                    f"{paths[0]} line {n}: expected 2 tab-separated columns ({src}, {tgt}), got {len(cells)}"
                )
            pairs.append(_pair(cells[0], cells[1], paths[0], n, src, tgt))
    else:
        a, b = _lines(paths[0]), _lines(paths[1])
        if len(a) != len(b):
            raise EdgeRankerError(f"{paths[0]} and {paths[1]} are not line-aligned ({len(a)} vs {len(b)} lines)")
        pairs = [_pair(x, y, paths[0], n, src, tgt) for n, (x, y) in enumerate(zip(a, b), start=1) if x or y]
    return ParallelCorpus(src, tgt, list(dict.fromkeys(pairs)), spec)


def _pair(x: str, y: str, path: Path, n: int, src: str, tgt: str) -> tuple[str, str]:
    if not x or not y:
        side = src if not x else tgt
        raise EdgeRankerError(f"{path} line {n}: the {side} side is empty (a pair needs both sides)")
    return x, y


def read_text(spec: str) -> tuple[str, list[str]]:
    """The language and the distinct non-empty lines of one ``--text`` spec."""
    lang, path = parse_text(spec)
    return lang, list(dict.fromkeys(line for line in _lines(path) if line))


def held_out_pairs(corpus: ParallelCorpus, size: int, seed: int = 0) -> list[tuple[str, str]]:
    """A seeded ``size`` pairs of the corpus (at most a fifth of it), set aside to score the student after training."""
    pairs = list(corpus.pairs)
    random.Random(seed).shuffle(pairs)
    return pairs[: min(size, len(pairs) // 5)]


def split_held_out(
    corpora: list[ParallelCorpus], size: int, seed: int = 0
) -> tuple[list[list[tuple[str, str]]], list[list[tuple[str, str]]]]:
    """Per corpus, (training pairs, held-out pairs): every training pair that shares a text with any corpus's
    held-out pairs is dropped, so no held-out sentence is trained on in either role, even where two corpora share
    their pivot side (sv-en and fi-en share English)."""
    held = [held_out_pairs(c, size, seed) for c in corpora]
    texts = {t for pairs in held for pair in pairs for t in pair}
    train = [[p for p in c.pairs if p[0] not in texts and p[1] not in texts] for c in corpora]
    return train, held
