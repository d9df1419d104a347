"""``Space``: the store as one model pair's vector space holds it: the reactions' vectors and the interests they
build there, and the cached vectors of documents. The Ranker reaches the store through it, with its model key; an
app's calls (open, export, undo, erase, recover) are ``PreferenceStore``'s."""

from __future__ import annotations

import sqlite3
import time
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.documents import check_id
from edge_ranker.runtime.encoder import clean_text
from edge_ranker.runtime.interests import CoI, closest, react, unit
from edge_ranker.runtime.signals import IMPLICIT, Event, Reaction, reactions
from edge_ranker.runtime.store import sqlite as store_sqlite
from edge_ranker.runtime.store.events import (
    as_vector,
    check_size,
    check_view_time,
    dwell_to,
    reaction_time,
    replay_reactions,
)
from edge_ranker.runtime.store.rebuild import replay_refused
from edge_ranker.runtime.store.sqlite import DAMAGE, DERIVED, VIEW_TIME_CAP, whole_floats

if TYPE_CHECKING:
    from edge_ranker.runtime.store.preferences import PreferenceStore

REACTIONS = ("like", "dislike")
CACHE_WAIT_S = 1.0  # how long saving document vectors, a cache, waits for one
SQL_CHUNK = 500  # host parameters per statement, well under SQLite's limit


class Space:
    """One model key's part of a ``PreferenceStore``, under the store's lock and in its transactions."""

    def __init__(self, store: PreferenceStore, model: str) -> None:
        self.store, self.model = store, model

    @property
    def _db(self) -> sqlite3.Connection:
        return self.store._db

    def add_feedback(
        self,
        doc_id: str,
        embedding: np.ndarray,
        reaction: str,
        text: str | None = None,
        ts: float | None = None,
    ) -> int:
        """Record a like/dislike and update the centers of interest, atomically; returns the event id."""
        model = self.model
        if reaction not in REACTIONS:
            raise EdgeRankerError(f"reaction must be one of {REACTIONS}, got {reaction!r}")
        check_id(doc_id)
        text = None if text is None else clean_text(text)
        emb = unit(as_vector(embedding))
        ts = reaction_time(ts)
        positive = reaction == "like"
        with self.store._write():
            cur = self._db.execute(
                "INSERT INTO feedback (doc_id, text, embedding, reaction, ts, model) VALUES (?, ?, ?, ?, ?, ?)",
                (doc_id, text, emb.tobytes(), reaction, ts, model),
            )
            self._update_interests(emb, positive, ts)
        return int(cur.lastrowid)

    def _update_interests(self, emb: np.ndarray, positive: bool, ts: float) -> None:
        """Store what ``interests.react`` decides: an existing interest moved, or a new one."""
        model = self.model
        cois = self.store._interests(model, positive)
        check_size(cois or self.store._interests(model, not positive), emb, model)  # likes and dislikes alike
        moved = react(cois, emb, positive, ts, self.store.config)
        if moved is not None:
            self._db.execute(
                "UPDATE interests SET point=?, view_count=?, last_view=? WHERE id=?",
                (moved.point.tobytes(), moved.view_count, moved.last_view, moved.id),
            )
        else:
            self._db.execute(
                "INSERT INTO interests (positive, point, view_count, view_time, last_view, model) VALUES (?,?,?,?,?,?)",
                (int(positive), emb.tobytes(), 1, 0.0, ts, model),
            )

    def add_signals(
        self, kind: str, rows: list[tuple[str, str | None, np.ndarray, float]], ts: float | None, dwell: bool = False
    ) -> int:
        """Record what the app showed (``kind`` "shown") or the user viewed ("view"): rows of (document id, text,
        interest vector, seconds viewed), at unix time ``ts`` (default now), in one transaction; returns how many.
        ``dwell``: each view's seconds also go to the closest liked interest (``_add_dwell``), in the same write."""
        if kind not in IMPLICIT:
            raise EdgeRankerError(f"a signal is one of {IMPLICIT}, got {kind!r}")
        ts = reaction_time(ts)
        checked = []
        for doc_id, text, embedding, seconds in rows:
            check_id(doc_id)
            checked.append(
                (doc_id, None if text is None else clean_text(text), unit(as_vector(embedding)).tobytes(), kind,
                 check_view_time(seconds), ts, self.model)
            )
        if not checked:
            return 0
        with self.store._write():
            cois = self.store._interests(self.model, True) or self.store._interests(self.model, False)
            check_size(cois, np.frombuffer(checked[0][2], dtype=np.float32), self.model)
            self._db.executemany(
                "INSERT INTO signals (doc_id, text, embedding, kind, seconds, ts, model) VALUES (?, ?, ?, ?, ?, ?, ?)",
                checked,
            )
            for _, _, emb, _, seconds, _, _ in checked if dwell else ():
                self._add_dwell(np.frombuffer(emb, dtype=np.float32), seconds)
        return len(checked)

    def reacted_ids(self) -> set[str]:
        """The ids of the documents the user liked, disliked or opened, under any models."""
        with self.store._read():
            rows = self._db.execute("SELECT doc_id FROM feedback UNION SELECT doc_id FROM signals WHERE kind='view'")
            return {r[0] for r in rows.fetchall()}

    def _has_signals(self) -> bool:
        return self._db.execute("SELECT 1 FROM signals WHERE model=? LIMIT 1", (self.model,)).fetchone() is not None

    def stale_texts(self, rule: str) -> list[tuple[int, str | None]]:
        """Reactions stored in another model's space that ``model`` has not left out by ``rule`` (``leave_out``), as
        (event id, stored text or None when stored without one, which cannot move)."""
        model = self.model
        with self.store._read():
            return self._db.execute(
                "SELECT id, text FROM feedback WHERE model != ? "
                "AND id NOT IN (SELECT event FROM left_out WHERE model = ? AND rule = ?) ORDER BY id",
                (model, model, rule),
            ).fetchall()

    def leave_out(self, rule: str, events: list[int]) -> None:
        """Record that ``model`` keeps ``events`` out of its interests by ``rule``; they stay stored as they are."""
        model = self.model
        with self.store._write():
            # only events still stored: one forgotten meanwhile (another process) leaves no row behind
            self._db.executemany(
                "INSERT OR IGNORE INTO left_out SELECT ?, ?, id FROM feedback WHERE id = ?",
                [(model, rule, e) for e in events],
            )

    def stale_signals(self) -> list[tuple[int, str]]:
        """Showings and views stored in another model's space with their text, as (signal id, text): what a model
        update embeds again, as it does the likes."""
        with self.store._read():
            return self._db.execute(
                "SELECT id, text FROM signals WHERE model != ? AND text IS NOT NULL ORDER BY id", (self.model,)
            ).fetchall()

    def move_signals_here(self, signals: list[int], vectors: np.ndarray) -> None:
        """Give ``signals`` their vectors in ``model``'s space: after a model update what the reader opened, read and
        scrolled past counts again instead of being lost with the old models (their dwell time moves with the
        likes, ``move_here``)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(signals):
            raise EdgeRankerError(f"move_signals_here needs one vector per signal: {len(signals)}, {vectors.shape}")
        with self.store._write():
            cois = self.store._interests(self.model, True) or self.store._interests(self.model, False)
            if len(vectors):
                check_size(cois, vectors[0], self.model)  # the size of the reactions already in this space
            self._db.executemany(
                "UPDATE signals SET embedding=?, model=? WHERE id=?",
                [(unit(v).tobytes(), self.model, i) for i, v in zip(signals, vectors)],
            )

    def move_here(self, events: list[int], vectors: np.ndarray) -> None:
        """Give ``events`` their vectors in ``model``'s space and rebuild the interests: after a model update the
        user's likes count again instead of starting cold. Dwell time moves with them: an old interest's time goes
        to the new interest closest to the like that was closest to it, the same document in the new space."""
        model = self.model
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(events):
            raise EdgeRankerError(f"move_to_model needs one vector per event: {len(events)} events, {vectors.shape}")
        new_vector = {i: unit(v) for i, v in zip(events, vectors)}
        with self.store._read():  # the reactions already in ``model``'s space that stay there: one size with the moved
            staying = self._db.execute("SELECT id, length(embedding) FROM feedback WHERE model=?", (model,))
            size = next((n // 4 for i, n in staying.fetchall() if i not in new_vector), None)
        if size is not None and events and vectors.shape[1] != size:
            raise EdgeRankerError(
                f"vectors of {vectors.shape[1]} numbers for {model!r}, whose reactions have {size}: embed them with "
                "that model (Ranker.interest_vectors)"
            )
        if self.store.read_only:  # the interests are replayed in memory with them (no dwell time moves)
            with self.store._lock:
                self.store._moved.setdefault(model, {}).update(new_vector)
                self.store._interest_cache.pop(model, None)
            return
        with self.store._write():
            carried = self._take_dwell(set(new_vector))
            self._db.executemany(
                "UPDATE feedback SET embedding=?, model=? WHERE id=?",
                [(v.tobytes(), model, i) for i, v in new_vector.items()],
            )
            self.store._rebuild_interests()
            if carried:  # each carried like is now in a liked interest of ``model``
                cois = self.store._interests(model, True)
                points = np.stack([c.point for c in cois])
                for event, seconds in carried:
                    j, _ = closest(cois, new_vector[event], points)
                    self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[j].id))

    def _take_dwell(self, leaving: set[int]) -> list[tuple[int, float]]:
        """The dwell time that moves to ``model`` with the ``leaving`` likes, as (like, seconds): that of each
        interest of another space whose closest like is leaving, taken off the interest so that the rebuild does
        not keep it there too. Inside the move's write, so a move repeated by another process, whose likes are
        already in ``model``, carries nothing again."""
        model = self.model
        dwell = self._db.execute(
            "SELECT id, model, point, view_time FROM interests WHERE positive=1 AND view_time > 0 AND model != ?",
            (model,),
        ).fetchall()
        if not dwell:
            return []
        grouped: dict[str, tuple[list[int], list[np.ndarray]]] = {}
        rows = self._db.execute(
            "SELECT id, embedding, model FROM feedback WHERE reaction='like' AND model != ?", (model,)
        )
        for i, emb, space in rows:
            ids, vecs = grouped.setdefault(space, ([], []))
            ids.append(i)
            vecs.append(np.frombuffer(emb, dtype=np.float32))
        likes = {}
        for space, (ids, vecs) in grouped.items():
            if len({v.size for v in vecs}) > 1:  # words, not numpy's error; the write rolls back
                raise EdgeRankerError(f"likes of several sizes under {space!r}: a model's vectors have one size")
            likes[space] = (ids, np.stack(vecs))
        out = []
        for interest, space, point, seconds in dwell:
            if space in likes:
                ids, vecs = likes[space]
                nearest = ids[int(np.argmax(vecs @ np.frombuffer(point, dtype=np.float32)))]
                if nearest in leaving:
                    out.append((nearest, seconds))
                    self._db.execute("UPDATE interests SET view_time = 0 WHERE id=?", (interest,))
        return out

    def add_view_time(self, embedding: np.ndarray, seconds: float) -> None:
        """Dwell time counts towards the closest positive interest (a view without its document: ``add_signals``)."""
        seconds = check_view_time(seconds)
        emb = unit(as_vector(embedding))
        with self.store._write():
            self._add_dwell(emb, seconds)

    def _add_dwell(self, emb: np.ndarray, seconds: float) -> None:
        """Inside a write: ``seconds`` to the liked interest closest to ``emb``."""
        model = self.model
        cois = self.store._interests(model, True)
        check_size(cois or self.store._interests(model, False), emb, model)
        i, _ = closest(cois, emb)
        if i >= 0:
            self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[i].id))

    def _undo_dwell(self, emb: np.ndarray, seconds: float) -> None:
        """Inside a write: ``seconds`` back from the liked interest closest to ``emb``, where ``_add_dwell`` gave
        them, never below 0; nothing when no liked interest has ``emb``'s size (an undo takes what it can)."""
        cois = self.store._interests(self.model, True)
        i, _ = closest(cois, emb) if cois and cois[0].point.size == emb.size else (-1, 0.0)
        if i >= 0:
            self._db.execute("UPDATE interests SET view_time = MAX(0, view_time - ?) WHERE id=?", (seconds, cois[i].id))

    def load_vectors(self, role: str, hashes: list[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors among ``hashes`` (text hashes) for ``model`` and ``role``."""
        model = self.model
        found: dict[bytes, np.ndarray] = {}
        with self.store._read():
            for i in range(0, len(hashes), SQL_CHUNK):
                chunk = hashes[i : i + SQL_CHUNK]
                rows = self._db.execute(
                    f"SELECT text_hash, vector FROM vectors WHERE model=? AND role=? AND text_hash IN "
                    f"({','.join('?' * len(chunk))})",
                    (model, role, *chunk),
                ).fetchall()
                # a cache: a row no edge-ranker writes (not a whole number of float32s) is left to be computed again
                found.update((h, np.frombuffer(v, dtype=np.float32)) for h, v in rows if whole_floats(v))
        return found

    def save_vectors(self, role: str, hashes: list[bytes], vectors: np.ndarray) -> None:
        """Keep vectors for later processes; past ``max_vectors`` the least recently saved go. A cache: while another
        process holds the store's lock past ``CACHE_WAIT_S`` they are not kept, rather than after ``BUSY_TIMEOUT_S``
        (the reaction that follows would wait as long again)."""
        model = self.model
        now = time.time()
        rows = [(model, role, h, np.asarray(v, np.float32).tobytes(), now) for h, v in zip(hashes, vectors)]
        with self.store._read():  # under the store's lock, and its SQLite errors said in words (a closed store)
            self._db.execute(f"PRAGMA busy_timeout={int(CACHE_WAIT_S * 1000)}")
            try:
                with self.store._write():
                    self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)", rows)
                    excess = self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] - self.store.max_vectors
                    if excess > 0:
                        self._db.execute(
                            "DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors ORDER BY used LIMIT ?)",
                            (excess,),
                        )
            finally:
                self._db.execute(f"PRAGMA busy_timeout={int(store_sqlite.BUSY_TIMEOUT_S * 1000)}")

    def interests(self) -> tuple[list[CoI], list[CoI]]:
        """The positive and negative centers of interest in ``model``'s vector space. Read again only after a
        write, by this store or (SQLite's ``data_version``) by another connection: ranking reads them every time."""
        model = self.model
        with self.store._read():
            version = self.store.version()
            cached = self.store._interest_cache.get(model)
            if cached is None or cached[0] != version:
                damaged = self.store.read_only and self.store.damaged_interests
                if damaged or model in self.store._moved or self._has_signals():
                    cached = (version, self._replayed_with(self.store._moved.get(model, {})))
                else:
                    cached = (version, (self.store._interests(model, True), self.store._interests(model, False)))
                self.store._interest_cache[model] = cached
            return cached[1]

    def _replayed_with(self, moved: dict[int, np.ndarray]) -> tuple[list[CoI], list[CoI]]:
        """``model``'s positive and negative interests from replaying its reactions and the ``moved`` ones (a store
        this process cannot write), in the order they came, as a writable start rebuilds them: the dwell time of
        ``model``'s intact stored interests goes to the replayed ones as a rebuild moves it (a moved reaction's old
        interests are another model's, whose dwell time stays with them)."""
        model = self.model
        rows = self._db.execute("SELECT id, doc_id, embedding, reaction, ts, model FROM feedback ORDER BY id")
        events = [
            Event(doc_id, r, ts, moved[i] if i in moved else np.frombuffer(e, dtype=np.float32))
            for i, doc_id, e, r, ts, space in rows.fetchall()
            if i in moved or space == model
        ]
        signals = self._db.execute(
            "SELECT doc_id, kind, ts, embedding, MIN(seconds, ?) FROM signals WHERE model=? ORDER BY id",
            (VIEW_TIME_CAP, model),
        )
        implicit = [Event(d, k, ts, np.frombuffer(e, dtype=np.float32), s) for d, k, ts, e, s in signals.fetchall()]
        with replay_refused(self.store.path):
            if implicit:  # in the order of their times, the likes and dislikes first at one time
                events = sorted(events + implicit, key=attrgetter("ts"))
                replayed = reactions(events, self.store.config.threshold)
            else:  # the likes and dislikes in the order they came, as a rebuild replays them
                replayed = [Reaction(e.vector, e.kind == "like", e.ts, 1.0, e.doc_id, e.kind) for e in events]
            liked, disliked = replay_reactions(replayed, self.store.config)
        dwell = self._db.execute(
            "SELECT point, MIN(view_time, ?) FROM interests WHERE positive=1 AND view_time > 0 AND model=? "
            f"AND NOT ({DAMAGE[DERIVED]})",  # noqa: S608 - a constant
            (VIEW_TIME_CAP, model),
        ).fetchall()
        points = np.stack([c.point for c in liked]) if liked else None
        for point, seconds in dwell:
            j = dwell_to(liked, points, np.frombuffer(point, dtype=np.float32), self.store.config)
            if j >= 0:
                liked[j].view_time += seconds
        return liked, disliked
