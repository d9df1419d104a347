"""Implicit signals: what a reader opened, read and scrolled past, as reactions weaker than a like or a dislike.

Real readers rarely press like; they open what interests them, read it a while and scroll past the rest. The store
keeps each showing (``Ranker.shown``) and each view (``Ranker.viewed``) as an event, and this rule turns them, with
the likes and dislikes, into the weighted reactions the interests are replayed from (spec/rules/implicit.md):

- a like or dislike is a reaction of weight 1;
- a document read long enough and never liked or disliked is a like of weight ``READ_WEIGHT`` times the share of
  ``READ_FULL_S`` its views add up to (at least ``READ_MIN_S`` seconds);
- a document shown ``SKIP_AFTER`` times, never opened and never liked or disliked, is a dislike of weight
  ``SKIP_WEIGHT``, unless it is as close as the merge threshold to a document the user liked or read: skipping
  never buries a topic the user also reads.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.constants import READ_FULL_S, READ_MIN_S, READ_WEIGHT, SKIP_AFTER, SKIP_WEIGHT

EXPLICIT = ("like", "dislike")
IMPLICIT = ("shown", "view")  # what the store keeps of a reader beside their likes and dislikes


@dataclass(frozen=True)
class Event:
    """One stored event of a document: a like, dislike, view (with its seconds) or showing, at unix time ``ts``,
    with the document's interest vector."""

    doc_id: str
    kind: str
    ts: float
    vector: np.ndarray
    seconds: float = 0.0


@dataclass(frozen=True)
class Reaction:
    """What the interests are replayed from: a vector, liked or disliked, when, how much it weighs, and why
    (``kind``: like, dislike, read or skip)."""

    vector: np.ndarray
    positive: bool
    ts: float
    weight: float
    doc_id: str
    kind: str


def read_weight(seconds: float) -> float:
    """A read's weight: 0 under ``READ_MIN_S``, else ``READ_WEIGHT`` times the share of ``READ_FULL_S`` read."""
    return 0.0 if seconds < READ_MIN_S else READ_WEIGHT * min(1.0, seconds / READ_FULL_S)


def reactions(events: Iterable[Event], threshold: float) -> list[Reaction]:
    """The weighted reactions ``events`` (in the order they came) make, in the order of their times (ties: as
    they came). ``threshold``: the interests' merge cosine, how close a skip may come to a read or liked document."""
    events = list(events)
    size = events[0].vector.size if events else 0
    odd = next((e for e in events if e.vector.size != size), None)
    if odd is not None:  # a damaged row: said in words (the replay's), not by numpy's stack of the liked vectors
        raise EdgeRankerError(f"a stored {odd.kind} of {odd.vector.size} numbers beside others of {size}")
    explicit = {e.doc_id for e in events if e.kind in EXPLICIT}
    opened = {e.doc_id for e in events if e.kind == "view"}
    out: list[tuple[float, int, Reaction]] = []
    read: dict[str, tuple[float, Event, int]] = {}  # per document: seconds so far, its last view, where it came
    shown: dict[str, list[tuple[Event, int]]] = {}
    for n, e in enumerate(events):
        if e.kind in EXPLICIT:
            out.append((e.ts, n, Reaction(e.vector, e.kind == "like", e.ts, 1.0, e.doc_id, e.kind)))
        elif e.doc_id in explicit:
            continue
        elif e.kind == "view":
            seconds = read.get(e.doc_id, (0.0, e, n))[0] + e.seconds
            read[e.doc_id] = (seconds, e, n)
        elif e.kind == "shown" and e.doc_id not in opened:
            shown.setdefault(e.doc_id, []).append((e, n))
    for seconds, last, n in read.values():
        if (weight := read_weight(seconds)) > 0:
            out.append((last.ts, n, Reaction(last.vector, True, last.ts, weight, last.doc_id, "read")))
    kept = [r.vector for _, _, r in out if r.positive]
    liked = np.stack(kept) if kept else None
    for showings in shown.values():
        if len(showings) < SKIP_AFTER:
            continue
        e, n = showings[SKIP_AFTER - 1]
        vector = showings[-1][0].vector
        if liked is not None and liked.shape[1] == vector.size and float(np.max(liked @ vector)) >= threshold:
            continue
        out.append((e.ts, n, Reaction(vector, False, e.ts, SKIP_WEIGHT, e.doc_id, "skip")))
    out.sort(key=lambda x: (x[0], x[1]))
    return [r for _, _, r in out]
