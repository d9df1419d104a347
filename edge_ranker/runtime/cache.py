"""Document vectors computed once: in memory for the process, and in the preference store's file across
processes, keyed by model, role and text, so a new process does not re-embed the feed it ranked yesterday.

In memory each (model, role) space is one float32 matrix and a dict from text to row: looking up a feed of
100,000 documents is one dict probe per text and one gather, with no Python object per vector. Past
``capacity`` vectors a space drops its least recently used rows.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from itertools import islice, repeat
from typing import TYPE_CHECKING, Protocol

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.lexical import Bag, TermIndex, terms

if TYPE_CHECKING:
    from edge_ranker.runtime.encoder import Encoder

log = logging.getLogger("edge_ranker")
CACHE_VECTORS = 200_000  # vectors (and terms) kept in memory per model and role: 100 MB at 128-d, 200 MB at 256-d


class VectorSpace(Protocol):
    """One model's vectors kept between processes (a ``PreferenceStore``'s ``Space``)."""

    def load_vectors(self, role: str, hashes: list[bytes]) -> dict[bytes, np.ndarray]: ...

    def save_vectors(self, role: str, hashes: list[bytes], vectors: np.ndarray) -> None: ...


class VectorStore(Protocol):
    """Where vectors persist between processes (``PreferenceStore`` is one; opened ``read_only``, it keeps none)."""

    read_only: bool

    def space(self, model: str) -> VectorSpace: ...


def drop_oldest(kept: dict, excess: int) -> None:
    """Drop the ``excess`` oldest entries of an insertion-ordered dict at once (one at a time by
    ``next(iter(kept))`` is quadratic: each call walks past the slots already emptied)."""
    if excess > 0:
        for key in list(islice(kept, excess)):
            del kept[key]


def text_hash(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class _Space:
    def __init__(self, dim: int) -> None:
        self.matrix = np.zeros((1024, dim), np.float32)
        self.used = np.zeros(1024, np.int64)  # the clock tick of each row's last read
        self.texts: list[str] = []
        self.index: dict[str, int] = {}
        self.last: tuple[list[str], np.ndarray] | None = None  # the last feed looked up, and its rows

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        start, end = len(self.texts), len(self.texts) + len(texts)
        if end > self.matrix.shape[0]:
            grow = max(end, 2 * self.matrix.shape[0])
            self.matrix = np.resize(self.matrix, (grow, self.matrix.shape[1]))
            self.used = np.resize(self.used, grow)
        self.matrix[start:end] = vectors
        self.index.update(zip(texts, range(start, end)))
        self.texts.extend(texts)

    def gather(self, rows: np.ndarray) -> np.ndarray:
        """The rows' vectors: a view when they are consecutive (a feed ranked again in the order it was first
        embedded), else a copy. Read-only: a view shares the cache's memory."""
        first = int(rows[0]) if rows.size else 0
        if rows.size and rows[-1] == first + rows.size - 1 and (rows.size < 3 or (np.diff(rows) == 1).all()):
            view = self.matrix[first : first + rows.size]
            view.flags.writeable = False
            return view
        return self.matrix[rows]

    def keep(self, rows: np.ndarray) -> None:
        """Keep only ``rows``, compacted, in their order."""
        self.matrix = self.matrix[rows].copy()
        self.used = self.used[rows].copy()
        self.texts = [self.texts[r] for r in rows]
        self.index = {t: i for i, t in enumerate(self.texts)}
        self.last = None


class VectorCache:
    """Vectors per (model, role) space, bounded in memory, backed by an optional ``VectorStore``."""

    def __init__(self, capacity: int = CACHE_VECTORS, store: VectorStore | None = None) -> None:
        self.capacity, self.store = capacity, store
        self._spaces: dict[tuple[str, str], _Space] = {}
        self._clock = 0
        self._lock = threading.Lock()

    def get(
        self, model: str, role: str, texts: list[str], dim: int, compute: Callable[[list[str]], np.ndarray]
    ) -> np.ndarray:
        """The (len(texts), dim) vectors of ``texts``: from memory, else from the store, else ``compute``d.
        One lock around it all: threads that rank at once never see a space being compacted."""
        with self._lock:
            space = self._spaces.setdefault((model, role), _Space(dim))
            self._clock += 1
            rows = self._rows(space, texts)
            space.used[rows[rows >= 0]] = self._clock  # this call's rows are the last to be dropped
            if rows.size == 0 or rows.min() >= 0:
                return space.gather(rows)
            missing = list(dict.fromkeys(t for t, r in zip(texts, rows) if r < 0))
            found = self._load_or_compute(model, role, missing, dim, compute)
            if len(set(texts)) <= self.capacity:
                self._make_room(space, len(missing))
                space.add(missing, found)
                rows = self._rows(space, texts)
                space.used[rows] = self._clock
                return space.gather(rows)
            extra = dict(zip(missing, found))  # more distinct texts than the cache holds: keep none of the new
            return np.stack([space.matrix[r] if r >= 0 else extra[t] for r, t in zip(rows, texts)])

    @staticmethod
    def _rows(space: _Space, texts: list[str]) -> np.ndarray:
        """Each text's row, -1 where absent. A feed ranked again (every keystroke of a search box) compares equal
        to the last one string by string, by identity first: no dict probe per document."""
        if space.last is not None and space.last[0] == texts:
            return space.last[1]
        rows = np.fromiter(map(space.index.get, texts, repeat(-1)), np.int64, len(texts))
        if (rows >= 0).all():
            space.last = (list(texts), rows)
        return rows

    def _load_or_compute(
        self, model: str, role: str, texts: list[str], dim: int, compute: Callable[[list[str]], np.ndarray]
    ) -> np.ndarray:
        if self.store is None:
            return compute(texts)
        hashes = [text_hash(t) for t in texts]
        stored = self.store.space(model).load_vectors(role, hashes)
        stored = {h: v for h, v in stored.items() if v.shape == (dim,)}  # a damaged row is computed again
        todo = [i for i, h in enumerate(hashes) if h not in stored]
        out = np.stack([stored[h] for h in hashes]) if not todo else None
        if todo:
            new = compute([texts[i] for i in todo])
            try:
                if not self.store.read_only:
                    self.store.space(model).save_vectors(role, [hashes[i] for i in todo], new)
            except EdgeRankerError as exc:  # a cache: a full disk or a read-only file must not stop ranking
                log.warning("document vectors not kept for later: %s", exc)
            out = np.zeros((len(texts), new.shape[1]), np.float32)
            for i, h in enumerate(hashes):
                if h in stored:
                    out[i] = stored[h]
            out[todo] = new
        return out

    def _make_room(self, space: _Space, incoming: int) -> None:
        """Drop the least recently used rows so that ``incoming`` more fit (all of them, when they exceed it)."""
        excess = len(space.texts) + incoming - self.capacity
        if excess <= 0:
            return
        n = len(space.texts)
        keep = np.sort(np.argsort(space.used[:n], kind="stable")[min(excess, n) :])
        space.keep(keep)


class TermCache:
    """Each text's terms for BM25, computed once per process (bounded: the oldest go first), and the last feed
    concatenated whole, as a search box ranks the same feed on every keystroke."""

    def __init__(self, capacity: int = CACHE_VECTORS) -> None:
        self.capacity = capacity
        self._bags: dict[str, Bag] = {}
        self._last: tuple[tuple[str, ...], TermIndex] | None = None
        self._lock = threading.Lock()

    def feed(self, encoder: Encoder, texts: list[str]) -> TermIndex:
        key = (encoder.name, *texts)
        with self._lock:
            last = self._last
            if last is None or last[0] != key:
                bags = self._bags
                for t in dict.fromkeys(texts):
                    if t not in bags:
                        bags[t] = Bag.of(terms(encoder.tokenizer, encoder.cut(t)))
                last = self._last = (key, TermIndex.of([bags[t] for t in texts]))
                drop_oldest(bags, len(bags) - self.capacity)
            return last[1]
