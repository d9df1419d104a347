"""How a store's interests are rebuilt from its reactions: replayed in the order they came (``events.replay``), the
dwell time of the interests they replace moved to the closest rebuilt one. After an undo, a repair of damaged
interest rows, a move to other models."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.interests import CoI, CoIConfig
from edge_ranker.runtime.store.events import dwell_to, replay
from edge_ranker.runtime.store.sqlite import VIEW_TIME_CAP, damaged_store


def interests_of(db: sqlite3.Connection, model: str, positive: bool) -> list[CoI]:
    """``model``'s stored interests of one polarity, in the order they were created."""
    rows = db.execute(
        "SELECT id, point, view_count, MIN(view_time, ?), last_view FROM interests WHERE model=? AND positive=? "
        "ORDER BY id",
        (VIEW_TIME_CAP, model, int(positive)),
    ).fetchall()
    return [CoI(r[0], positive, np.frombuffer(r[1], dtype=np.float32).copy(), r[2], r[3], r[4]) for r in rows]


def rebuild(db: sqlite3.Connection, config: CoIConfig, path: Path) -> None:
    """Replay every stored reaction in the order it came into fresh interests, per model; dwell time moves to
    the closest liked interest of the rebuilt ones when their cosine reaches the merge threshold. Inside the
    caller's write."""
    dwell = db.execute("SELECT model, point, view_time FROM interests WHERE positive=1 AND view_time > 0").fetchall()
    with replay_refused(path):
        rebuilt = replayed(db, config)
    db.execute("DELETE FROM interests")
    db.executemany(
        "INSERT INTO interests (positive, point, view_count, view_time, last_view, model) VALUES (?,?,?,?,?,?)",
        rebuilt,
    )
    liked: dict[str, tuple[list[CoI], np.ndarray | None]] = {}  # per model, the points stacked once
    for model, point, seconds in dwell:  # dwell time whose interest is gone (no close one left) goes with it
        if model not in liked:
            cois = interests_of(db, model, True)
            liked[model] = (cois, np.stack([c.point for c in cois]) if cois else None)
        cois, points = liked[model]
        j = dwell_to(cois, points, np.frombuffer(point, dtype=np.float32), config)
        if j >= 0:
            db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[j].id))


@contextmanager
def replay_refused(path: Path) -> Iterator[None]:
    """A reaction a replay refuses (not finite, or of another size) makes the store corrupted, said with what to
    do; a write around the replay is rolled back."""
    try:
        yield
    except EdgeRankerError as exc:
        raise damaged_store(path, f"its reactions cannot rebuild its interests ({exc})") from exc


def replayed(db: sqlite3.Connection, config: CoIConfig) -> list[tuple]:
    """The interests' rows that replaying every stored reaction gives, in the order they were created, so their
    ids are those of one insert per reaction. In memory, since reading the interests back from SQLite for each
    reaction would cost a query per reaction."""
    events = db.execute("SELECT embedding, reaction, ts, model FROM feedback ORDER BY id").fetchall()
    vectors = ((np.frombuffer(e, dtype=np.float32), r, ts, m) for e, r, ts, m in events)
    built, created = replay(vectors, config)
    rows = []
    for model, positive, j in created:
        c = built[(model, positive)][j]
        rows.append((int(positive), c.point.tobytes(), c.view_count, c.view_time, c.last_view, model))
    return rows
