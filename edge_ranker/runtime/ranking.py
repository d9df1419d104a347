"""What ``Ranker.rank`` returns: a ``Ranking``, arrays computed once from which each ``Ranked`` result (and its
explanation) is built only when read, so ranking 100,000 documents costs no Python object per document."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from edge_ranker.runtime.interests import PersonalScores


@dataclass
class Ranked:
    """One ranked document. ``score`` only orders: with a query, the query score plus the interests' lift (``fusion``);
    without one, ``1 / (k + rank)`` of the interests' order or, on a cold start, of the newest-first order.
    ``personal_score`` is the interest score (see ``interest``), ``query_score`` the query's score (its parts,
    standardised over the documents, added: ``relevance_score`` the relevance model's query-passage cosine,
    ``lexical_score`` the query's BM25, ``semantic_score`` the semantic model's query-document cosine, when some of
    the query's words are in no document); ``contributions`` are the parts of ``score`` ("query" and "personal", or
    "personal" or "recency" alone), which add up to it. ``interest``:
    ``positive_interest`` / ``negative_interest`` are the ids of the closest liked / disliked center of interest,
    ``*_similarity`` the document's cosine to it, ``*_decay`` its freshness (1 now, 0 after 30 days), and
    ``interest_relevance`` how much the user has engaged with the liked one (its share of reactions plus its share
    of view time, decayed: 0 to 2). A document without a word, or one the models cannot read, goes last for the
    interests whatever its ``personal_score``."""

    id: str
    score: float
    rank: int
    personal_score: float | None = None
    relevance_score: float | None = None
    lexical_score: float | None = None
    semantic_score: float | None = None
    query_score: float | None = None
    contributions: dict[str, float] = field(default_factory=dict)  # sum == score
    interest: dict | None = None  # which interest matched, and the parts of the personal score
    duplicate_of: str | None = None  # the id of the document of the same story ranked above, when folded

    def to_dict(self) -> dict:
        return dict(self.__dict__)


class Ranking(Sequence[Ranked]):
    """The ranked documents, best first: a sequence of ``Ranked`` built when read, over arrays computed once."""

    def __init__(
        self,
        ids: list[str],
        total: np.ndarray,
        parts: dict[str, np.ndarray],
        personal: PersonalScores | None,
        relevance: np.ndarray | None,
        lexical: np.ndarray | None,
        semantic: np.ndarray | None = None,
        query_coverage: float | None = None,
        query: np.ndarray | None = None,
        order: np.ndarray | None = None,
        duplicate_of: np.ndarray | None = None,
    ) -> None:
        self._ids, self._total, self._parts = ids, total, parts
        self._personal, self._relevance, self._lexical, self._semantic = personal, relevance, lexical, semantic
        self._query, self._duplicate_of = query, duplicate_of
        self.query_coverage = query_coverage  # share of the query's words some document has (None: not measured)
        # by score (ties: input order), unless the duplicates' fold or the reacted documents' sink reordered it
        self._order = np.argsort(-total, kind="stable") if order is None else order

    @property
    def ids(self) -> list[str]:
        """The document ids, best first."""
        return [self._ids[i] for i in self._order]

    @property
    def scores(self) -> np.ndarray:
        """The fused scores, best first (``ids[i]`` has ``scores[i]``)."""
        return self._total[self._order]

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, i: int) -> Ranked: ...

    @overload
    def __getitem__(self, i: slice) -> list[Ranked]: ...

    def __getitem__(self, i: int | slice) -> Ranked | list[Ranked]:
        if isinstance(i, slice):
            return [self._ranked(r) for r in range(*i.indices(len(self)))]
        i = operator.index(i)  # a TypeError for anything but an integer, as a list gives
        if not -len(self) <= i < len(self):
            raise IndexError("ranking index out of range")
        return self._ranked(i % len(self))

    def __iter__(self) -> Iterator[Ranked]:
        return (self._ranked(r) for r in range(len(self)))

    def _ranked(self, r: int) -> Ranked:
        i = int(self._order[r])
        p = self._personal
        return Ranked(
            self._ids[i],
            float(self._total[i]),
            r + 1,
            float(p.score[i]) if p is not None else None,
            float(self._relevance[i]) if self._relevance is not None else None,
            float(self._lexical[i]) if self._lexical is not None else None,
            float(self._semantic[i]) if self._semantic is not None else None,
            float(self._query[i]) if self._query is not None else None,
            {name: float(c[i]) for name, c in self._parts.items()},
            p.explain(i) if p is not None else None,
            self._ids[int(d)] if self._duplicate_of is not None and (d := self._duplicate_of[i]) >= 0 else None,
        )

    def __repr__(self) -> str:
        head = ", ".join(f"{self._ids[i]!r}" for i in self._order[:5])
        more = ", ..." if len(self) > 5 else ""
        return f"Ranking({len(self)} document{'' if len(self) == 1 else 's'}{': ' if head else ''}{head}{more})"
