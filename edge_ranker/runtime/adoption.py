"""Adoption: the reactions a store holds under other models (an earlier release, another model pair, another semantic
share), embedded again from their stored text into the Ranker's models' space, so that a model update keeps the user's
interests. Reactions the models cannot learn from are left out once, by a numbered rule."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import numpy as np

from edge_ranker.runtime.readable import UNKNOWN_LIMIT
from edge_ranker.runtime.store import PreferenceStore
from edge_ranker.runtime.store.sqlite import damaged_store

log = logging.getLogger("edge_ranker")
# What the Ranker's ``_learnable`` decides by, stored with the reactions a start leaves out (``leave_out``), so that
# a release that decides otherwise looks at them again: a change to ``has_word``, ``VocabularyCoverage.unknown_share``
# or the limit gives the rule a new number.
LEARNABLE_RULE = f"rule 1: a word, at most {UNKNOWN_LIMIT!r} of the words unknown"


class Adoption:
    """One Ranker's view of its store's interests: in its models' space (``model_key``), the reactions stored under
    others adopted at the start and whenever the store changed and holds none in this space."""

    def __init__(self, store: PreferenceStore, model_key: str) -> None:
        self.store, self.model_key = store, model_key
        self.space = store.space(model_key)
        self._lock = threading.Lock()
        self._adopted: tuple[int, int] | None = None  # the store's version when its reactions were last adopted

    def interests(
        self, size: int, learnable: Callable[[str], bool], interest_vectors: Callable[[list[str]], np.ndarray]
    ) -> tuple[list, list]:
        """The store's interests in these models' space, after adopting the reactions stored in another's: at the
        start, and again when the store has changed since and holds none in this space, since another Ranker of
        other models on the same store moves every reaction into its own, and
        this one would rank cold. Checked so, a write of cached vectors costs no look at the reactions. An interest
        of another size than these models' vectors (a store damaged so SQL cannot see) is refused by name."""
        with self._lock:
            version = self.store.version()  # read first: a commit while adopting is looked at next time
            if self._adopted is None or (version != self._adopted and not any(self.space.interests())):
                self._adopt(learnable, interest_vectors)
                self._adopted = version  # once adopted: one that failed (a lock) is tried again at the next rank
        interests = self.space.interests()
        odd = next((c.point.size for side in interests for c in side if c.point.size != size), None)
        if odd is not None:
            raise damaged_store(
                self.store.path, f"interests of {odd} numbers under {self.model_key!r}, whose models give {size}"
            )
        return interests

    def _adopt(self, learnable: Callable[[str], bool], interest_vectors: Callable[[list[str]], np.ndarray]) -> None:
        """Reactions stored under another model key (an earlier release, other models, another semantic share) are
        re-embedded from their stored text into these models' space, so a model update keeps the user's interests.
        Those these models cannot learn from, as ``feedback`` refuses them (no word, or one they cannot read), are
        left out, once (``leave_out``): they stay stored as they are, and models that read them can take them later.
        The showings and views move the same way (``move_signals_here``)."""
        stale = self.space.stale_texts(LEARNABLE_RULE)
        textless = sum(t is None for _, t in stale)
        if textless:  # once per model key, as they are left out below (at each start of a read-only store)
            log.warning(
                "%d stored reaction%s no text, so %s cannot take %s in",
                textless,
                " has" if textless == 1 else "s have",
                self.model_key,
                "it" if textless == 1 else "them",
            )
        left = [i for i, t in stale if t is None or not learnable(t)]
        if left:
            log.info("leaving %d stored reactions %s cannot learn from out of its interests", len(left), self.model_key)
            if not self.store.read_only:  # a read-only store looks again at each start
                self.space.leave_out(LEARNABLE_RULE, left)
            gone = set(left)
            stale = [(i, t) for i, t in stale if i not in gone]
        if stale:
            log.info("re-embedding %d stored reactions for %s", len(stale), self.model_key)
            vectors = interest_vectors([t for _, t in stale])
            self.space.move_here([i for i, _ in stale], vectors)
        # showings and views these models can learn from move too; the others stay where they are, for models
        # that can (a read-only store replays them in no space but their own)
        signals = [(i, t) for i, t in self.space.stale_signals() if learnable(t)]
        if signals and not self.store.read_only:
            log.info("re-embedding %d stored showings and views for %s", len(signals), self.model_key)
            self.space.move_signals_here([i for i, _ in signals], interest_vectors([t for _, t in signals]))
