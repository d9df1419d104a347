"""The preference store: likes/dislikes and centers of interest in SQLite, on the device only.

WAL journal with ``synchronous=FULL``: a feedback call returns only after its transaction (event row and
CoI update together) is durable, so a killed process never loses an acknowledged write nor leaves half
of one. One connection guarded by a lock serves many threads. The schema is versioned with
``PRAGMA user_version`` and migrated forward on open; a newer or corrupted file is refused with a clear
message, and ``PreferenceStore.recover`` moves a corrupted file aside (never deletes it) to start fresh.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import clean_text
from edge_ranker.runtime.interests import CoI, CoIConfig, closest, unit

MIGRATIONS: list[str] = [
    # version 1
    """
    CREATE TABLE feedback (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        doc_id TEXT NOT NULL,
        text TEXT,
        embedding BLOB NOT NULL,
        reaction TEXT NOT NULL CHECK (reaction IN ('like', 'dislike')),
        ts REAL NOT NULL,
        model TEXT NOT NULL
    );
    CREATE TABLE interests (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        positive INTEGER NOT NULL,
        point BLOB NOT NULL,
        view_count INTEGER NOT NULL,
        view_time REAL NOT NULL,
        last_view REAL NOT NULL,
        model TEXT NOT NULL
    );
    CREATE INDEX interests_model ON interests(model, positive);
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
REACTIONS = ("like", "dislike")


def default_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("edge-ranker")) / "preferences.sqlite"


class PreferenceStore:
    """Feedback events and centers of interest; ``model`` tags vectors so a model change never mixes spaces."""

    def __init__(self, path: str | Path | None = None, config: CoIConfig | None = None) -> None:
        self.path = Path(path) if path else default_path()
        self.config = config or CoIConfig()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            ok = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if ok != "ok":
                raise sqlite3.DatabaseError(ok)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise EdgeRankerError(
                f"preference database {self.path} is corrupted ({exc}). Nothing was changed. To start fresh and "
                f"keep the damaged file for inspection: `edge-ranker prefs recover --db {self.path}` "
                "(PreferenceStore.recover)"
            ) from exc

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise EdgeRankerError(
                f"preference database {self.path} has schema {version}, newer than this edge-ranker "
                f"({SCHEMA_VERSION}); upgrade edge-ranker"
            )
        for v in range(version, SCHEMA_VERSION):
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for stmt in MIGRATIONS[v].split(";"):
                        if stmt.strip():
                            self._db.execute(stmt)
                    self._db.execute(f"PRAGMA user_version={v + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    @staticmethod
    def recover(path: str | Path) -> Path:
        """Move a damaged database (and its WAL/SHM files) aside; returns where the main file went."""
        path = Path(path)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        moved = path.with_name(f"{path.name}.corrupt-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(path) + suffix)
            if p.exists():
                p.rename(Path(str(moved) + suffix))
        return moved

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> PreferenceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writes -------------------------------------------------------------------------------
    def add_feedback(
        self,
        doc_id: str,
        embedding: np.ndarray,
        reaction: str,
        model: str,
        text: str | None = None,
        ts: float | None = None,
    ) -> int:
        """Record a like/dislike and update the centers of interest, atomically; returns the event id."""
        if reaction not in REACTIONS:
            raise EdgeRankerError(f"reaction must be one of {REACTIONS}, got {reaction!r}")
        if not isinstance(doc_id, str) or not doc_id:
            raise EdgeRankerError("doc_id must be a non-empty string")
        try:
            doc_id.encode("utf-8")
        except UnicodeEncodeError as exc:  # an id is an identity: refused, not silently changed like text
            raise EdgeRankerError(f"doc_id {doc_id!r} is not valid Unicode (a lone surrogate?)") from exc
        text = None if text is None else clean_text(text)
        emb = unit(np.asarray(embedding, dtype=np.float32).reshape(-1))
        ts = time.time() if ts is None else float(ts)
        positive = reaction == "like"
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO feedback (doc_id, text, embedding, reaction, ts, model) VALUES (?, ?, ?, ?, ?, ?)",
                    (doc_id, text, emb.tobytes(), reaction, ts, model),
                )
                self._update_interests(emb, positive, ts, model)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return int(cur.lastrowid)

    def _update_interests(self, emb: np.ndarray, positive: bool, ts: float, model: str) -> None:
        cois = self._interests(model, positive)
        i, sim = closest(cois, emb)
        cfg = self.config
        if i >= 0 and sim >= cfg.threshold:
            c = cois[i]
            point = unit((1 - cfg.shift_factor) * c.point + cfg.shift_factor * emb)
            count = c.view_count + 1 if positive else c.view_count
            self._db.execute(
                "UPDATE interests SET point=?, view_count=?, last_view=? WHERE id=?",
                (point.tobytes(), count, max(ts, c.last_view), c.id),
            )
        else:
            self._db.execute(
                "INSERT INTO interests (positive, point, view_count, view_time, last_view, model) VALUES (?,?,?,?,?,?)",
                (int(positive), emb.tobytes(), 1, 0.0, ts, model),
            )

    def add_view_time(self, embedding: np.ndarray, seconds: float, model: str) -> None:
        """Dwell time counts towards the closest positive interest."""
        if not seconds >= 0:
            raise EdgeRankerError("view time must be a non-negative number of seconds")
        emb = unit(np.asarray(embedding, dtype=np.float32).reshape(-1))
        with self._lock:
            cois = self._interests(model, True)
            i, _ = closest(cois, emb)
            if i >= 0:
                self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[i].id))

    def forget(self) -> None:
        """Delete everything the user stored ("forget me"), and compact the file so nothing lingers."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM feedback")
            self._db.execute("DELETE FROM interests")
            self._db.execute("COMMIT")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._db.execute("VACUUM")

    # --- reads --------------------------------------------------------------------------------
    def _interests(self, model: str, positive: bool) -> list[CoI]:
        rows = self._db.execute(
            "SELECT id, point, view_count, view_time, last_view FROM interests WHERE model=? AND positive=? "
            "ORDER BY id",
            (model, int(positive)),
        ).fetchall()
        return [CoI(r[0], positive, np.frombuffer(r[1], dtype=np.float32).copy(), r[2], r[3], r[4]) for r in rows]

    def interests(self, model: str) -> tuple[list[CoI], list[CoI]]:
        with self._lock:
            return self._interests(model, True), self._interests(model, False)

    def feedback_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM feedback").fetchone()[0])

    def export(self) -> dict:
        """Everything stored, as JSON-ready data (vectors as lists)."""
        with self._lock:
            fb = self._db.execute("SELECT id, doc_id, text, embedding, reaction, ts, model FROM feedback ORDER BY id")
            feedback = [
                {
                    "id": r[0],
                    "doc_id": r[1],
                    "text": r[2],
                    "embedding": np.frombuffer(r[3], dtype=np.float32).tolist(),
                    "reaction": r[4],
                    "timestamp": r[5],
                    "model": r[6],
                }
                for r in fb
            ]
            it = self._db.execute(
                "SELECT id, positive, point, view_count, view_time, last_view, model FROM interests ORDER BY id"
            )
            interests = [
                {
                    "id": r[0],
                    "positive": bool(r[1]),
                    "point": np.frombuffer(r[2], dtype=np.float32).tolist(),
                    "view_count": r[3],
                    "view_time": r[4],
                    "last_view": r[5],
                    "model": r[6],
                }
                for r in it
            ]
        return {"schema_version": SCHEMA_VERSION, "path": str(self.path), "feedback": feedback, "interests": interests}

    def export_json(self) -> str:
        return json.dumps(self.export(), ensure_ascii=False)
