"""Which text training may never see: every sentence of the evaluation sets (LASER Tatoeba test, FLORES devtest,
STS dev and test), every query and document of the retrieval sets' evaluation samples, and any outside text that
quotes one of them (an 8-word run is enough). The retrieval sets' own train/dev/test rule is ``retrieval``'s."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from edge_ranker.datasets.retrieval import SETS, load_retrieval
from edge_ranker.datasets.sts import STS_LANGS, load_sts
from edge_ranker.textio import read_lines


def eval_sentences(data_root: Path) -> set[str]:
    """Every sentence of the evaluation sets (LASER Tatoeba test, FLORES devtest, STS dev and test splits),
    to keep them out of training."""
    held: set[str] = set()
    for f in (data_root / "parallel" / "laser_tatoeba_v1").glob("tatoeba.*-eng.*"):
        held.update(read_lines(f))
    for f in (data_root / "parallel" / "flores200_devtest").glob("*.devtest"):
        held.update(read_lines(f))
    if (data_root / "sts").is_dir():
        for lang in STS_LANGS:
            for split in ("dev", "test"):
                try:
                    a, b, _ = load_sts(data_root, lang, split)
                except FileNotFoundError:  # a data root with fewer languages
                    continue
                held.update(a + b)
    return held


def shingles(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """Every run of ``n`` lower-cased words: a text sharing one with an evaluation text quotes it."""
    words = text.lower().split()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@dataclass(frozen=True)
class HeldText:
    """Evaluation texts and every 8-word run of them, built once per recipe (about 2 s here) and
    shared by each outside source: a text equal to one of them, or sharing a run with one, quotes it."""

    exact: frozenset[str]
    runs: frozenset[tuple[str, ...]]

    @classmethod
    def of(cls, texts: list[str]) -> HeldText:
        return cls(frozenset(texts), frozenset(set().union(*(shingles(t) for t in texts))))

    def quotes(self, text: str) -> bool:
        return text in self.exact or not self.runs.isdisjoint(shingles(text))


def drop_held(groups: list[list[str]], held: set[str]) -> list[list[str]]:
    """Remove evaluation sentences; a group whose first text (the one the teacher embeds) is held goes."""
    out = []
    for g in groups:
        if g[0] in held:
            continue
        out.append(list(dict.fromkeys(t for t in g if t and t not in held)))
    return out


def retrieval_eval_texts(data_root: str | Path) -> list[str]:
    """Every query and document of every retrieval evaluation sample whose set is under ``data_root``."""
    out: list[str] = []
    for name in SETS:
        try:
            ds = load_retrieval(name, data_root)
        except FileNotFoundError:
            continue
        out += [*ds.queries.values(), *ds.corpus.values()]
    return out
