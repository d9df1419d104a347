"""A reaction as the store takes it (its vector, its time, a view's dwell time, each checked) and the interests that
replaying reactions in order builds: one rule for a new reaction, a rebuild after an undo and a move to other models."""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Iterable

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.constants import DAY, MAX_VIEW_S
from edge_ranker.runtime.interests import CoI, CoIConfig, closest, react
from edge_ranker.runtime.signals import Reaction

FUTURE_SLACK_S = DAY  # a device clock may run ahead; a reaction further in the future is refused


def check_size(cois: list[CoI], emb: np.ndarray, model: str) -> None:
    """A vector of another size than ``model``'s interests (another model's) is refused in words, not by numpy."""
    if cois and cois[0].point.size != emb.size:
        raise EdgeRankerError(
            f"a vector of {emb.size} numbers for interests of {cois[0].point.size} under {model!r}: embed it with "
            "that model (Ranker.interest_vectors)"
        )


def check_view_time(seconds: object) -> float:
    """One view's dwell time: seconds from 0 to ``MAX_VIEW_S``, any real number (numpy's too) as a float."""
    if isinstance(seconds, (bool, np.bool_)) or not isinstance(seconds, numbers.Real):
        raise EdgeRankerError(f"view time must be a number of seconds, got {type(seconds).__name__}")
    if not 0 <= seconds <= MAX_VIEW_S:
        raise EdgeRankerError(f"view time must be from 0 to {MAX_VIEW_S:g} seconds (a day), got {seconds!r}")
    return float(seconds)


def dwell_to(cois: list[CoI], points: np.ndarray | None, point: np.ndarray, config: CoIConfig) -> int:
    """Which rebuilt liked interest dwell time spent on an interest at ``point`` goes to: the closest, when their
    cosine reaches the merge threshold; -1 (the time goes with its interest) when none does or ``point`` is of
    another size than theirs."""
    if not cois or points is None or point.size != points.shape[1]:
        return -1
    j, sim = closest(cois, point, points)
    return j if sim >= config.threshold else -1


def replay(
    events: Iterable[tuple[np.ndarray, str, float, str]], config: CoIConfig
) -> tuple[dict[tuple[str, bool], list[CoI]], list[tuple[str, bool, int]]]:
    """Reactions (vector, reaction, time, model) replayed in order into interests per (model, liked); with, in the
    order they were created, where each interest is in its list."""
    built: dict[tuple[str, bool], list[CoI]] = {}
    created: list[tuple[str, bool, int]] = []
    sizes: dict[str, int] = {}  # each model's interest size, liked and disliked alike
    for vector, reaction, ts, model in events:
        positive = reaction == "like"
        cois = built.setdefault((model, positive), [])
        if vector.size != sizes.setdefault(model, vector.size):
            raise EdgeRankerError(
                f"a stored reaction of {vector.size} numbers beside others of {sizes[model]} under {model!r}"
            )
        if not np.isfinite(vector).all():  # bytes the store never writes: NaN would spread to every score
            raise EdgeRankerError(f"a stored reaction under {model!r} holds a value that is not a finite number")
        moved = react(cois, vector, positive, ts, config)
        if moved is None:
            created.append((model, positive, len(cois)))
            cois.append(CoI(len(cois), positive, vector, 1, 0.0, ts))
        else:
            cois[moved.id] = moved
    return built, created


def replay_reactions(reactions: Iterable[Reaction], config: CoIConfig) -> tuple[list[CoI], list[CoI]]:
    """Weighted reactions (``signals.reactions``: likes, dislikes, reads and skips of one model) replayed in order
    into liked and disliked interests, each weighing the most of the reactions it took (``interests.react``)."""
    built: dict[bool, list[CoI]] = {True: [], False: []}
    size = None
    for r in reactions:
        if r.vector.size != (size := size or r.vector.size):
            raise EdgeRankerError(f"a stored {r.kind} of {r.vector.size} numbers beside others of {size}")
        if not np.isfinite(r.vector).all():
            raise EdgeRankerError(f"a stored {r.kind} holds a value that is not a finite number")
        cois = built[r.positive]
        moved = react(cois, r.vector, r.positive, r.ts, config, r.weight)
        if moved is None:
            cois.append(CoI(len(cois), r.positive, r.vector, 1, 0.0, r.ts, r.weight))
        else:
            cois[moved.id] = moved
    return built[True], built[False]


def as_vector(embedding: object) -> np.ndarray:
    """An embedding given to the store, as a flat float32 array; what is not numbers is refused in words."""
    try:
        return np.asarray(embedding, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EdgeRankerError(f"an embedding must be an array of numbers, got {type(embedding).__name__}") from exc


def reaction_time(ts: float | None) -> float:
    """A reaction's unix time: now by default; refused when not a finite time or more than a day ahead of the
    clock, since a time in the future would keep its interest from decaying until then."""
    now = time.time()
    if ts is None:
        return now
    if isinstance(ts, (bool, np.bool_, str, bytes)):  # float() would take True as 1970 and "123" as a time
        raise EdgeRankerError(f"feedback time must be unix seconds (a number), got {ts!r}")
    try:
        ts = float(ts)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EdgeRankerError(f"feedback time must be unix seconds, got {ts!r}") from exc
    if not math.isfinite(ts) or ts < 0:
        raise EdgeRankerError(f"feedback time must be finite, non-negative unix seconds, got {ts}")
    if ts > now + FUTURE_SLACK_S:
        raise EdgeRankerError(f"feedback time {ts} is more than a day in the future (now is {now:.0f})")
    return ts
