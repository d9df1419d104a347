"""The preference store: likes/dislikes and centers of interest in SQLite, on the device only.

WAL journal with ``synchronous=FULL``: a feedback call returns only after its transaction (event row and
CoI update together) is durable, so a killed process never loses an acknowledged write nor leaves half
of one. One connection guarded by a lock serves many threads, and processes share the file through SQLite's
locks. The schema is versioned with ``PRAGMA user_version`` and created on the first open, inside a write
transaction so that processes opening a new file at once create it once. The file and a folder it creates are
private to the user (0600 / 0700), and deleted rows are overwritten (``secure_delete``).

Errors say what is wrong: a file is called corrupted only when SQLite says so (then ``recover`` moves it aside,
never deletes it); a full disk, a read-only file, a folder, a lock held by another process are named as such.
What is asked of SQLite is in ``sqlite``, what is done with the files themselves in ``files``, and how reactions
are checked and replayed into interests in ``events``.
"""

from __future__ import annotations

import glob
import json
import logging
import numbers
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import write_files
from edge_ranker.runtime.cache import text_hash
from edge_ranker.runtime.documents import check_id
from edge_ranker.runtime.encoder import clean_text
from edge_ranker.runtime.interests import CoI, CoIConfig, closest, react, unit
from edge_ranker.runtime.store import sqlite as store_sqlite
from edge_ranker.runtime.store.events import (
    as_vector,
    check_size,
    check_view_time,
    dwell_to,
    reaction_time,
    replay,
)
from edge_ranker.runtime.store.files import (
    check_path,
    copy_new,
    default_path,
    held,
    hold,
    holds_nothing,
    is_sqlite,
    user_path,
    writable_sidecars,
)
from edge_ranker.runtime.store.sqlite import (
    APPLICATION_ID,
    DAMAGE,
    DB_FILE_SUFFIXES,
    DERIVED,
    SCHEMA,
    SCHEMA_VERSION,
    CorruptedDatabase,
    connect,
    damaged_rows,
    damaged_store,
    describe,
    inspect_file,
    newest_sizes,
    open_read_only,
    refuse_damage,
    rows,
    statements,
    whole_floats,
)

log = logging.getLogger("edge_ranker")

REACTIONS = ("like", "dislike")
CACHE_WAIT_S = 1.0  # how long saving document vectors, a cache, waits for one
MEMORY = ":memory:"  # a store that keeps nothing on disk and ends with its process, as SQLite names it
ERASE_WAIT_S = 10.0  # how long ``erase`` waits for other processes' readers before saying it could not finish
VIEW_TIME_CAP = 1e300  # dwell time is read back at most this: a store may hold infinity, which makes scores NaN
MAX_VECTORS = 100_000  # document vectors kept (10,000 fill 6.7 MB at 128-d, 14.5 MB at 256-d); the least recent go
SQL_CHUNK = 500  # host parameters per statement, well under SQLite's limit


class PreferenceStore:
    """Feedback events and centers of interest; ``model`` tags vectors so a model change never mixes spaces.

    ``PreferenceStore(path)`` opens (or creates) the SQLite file; the default is the user data folder, and
    ``":memory:"`` keeps nothing on disk. Use it as a context manager or call ``close()``. Every error is an
    ``EdgeRankerError`` whose message says what to do.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        config: CoIConfig | None = None,
        max_vectors: int = MAX_VECTORS,
        read_only: bool = False,
    ) -> None:
        """``read_only``: open an existing store without changing it, so that one in a folder or on a mount this
        process cannot write can still be read and exported; every write is then refused."""
        self.in_memory = isinstance(path, str) and path == MEMORY
        if self.in_memory and read_only:
            raise EdgeRankerError(f"a store in memory ({MEMORY!r}) starts empty: there is nothing to open read-only")
        if self.in_memory:
            self.path = Path(MEMORY)
        elif path is None:
            self.path = default_path()
        else:
            self.path = user_path(path, "preference database path", database=True)
        if config is not None and not isinstance(config, CoIConfig):
            raise EdgeRankerError(f"config must be a CoIConfig, got {type(config).__name__}")
        if not isinstance(max_vectors, numbers.Integral) or isinstance(max_vectors, bool) or max_vectors < 1:
            raise EdgeRankerError(f"max_vectors must be a whole number >= 1, got {max_vectors!r}")
        if not isinstance(read_only, (bool, np.bool_)):  # "no" would open read-only
            raise EdgeRankerError(f"read_only must be True or False, got {read_only!r}")
        self.config = config or CoIConfig()
        self.read_only = bool(read_only)
        self.max_vectors = int(max_vectors)
        self._lock = threading.RLock()
        self._writes = 0  # this connection's commits; with SQLite's data_version, tells when to re-read interests
        self._interest_cache: dict[str, tuple[tuple[int, int], tuple[list[CoI], list[CoI]]]] = {}
        # read-only: the vectors ``move_to_model`` gave reactions in a model's space, kept in memory for this store
        self._moved: dict[str, dict[int, np.ndarray]] = {}
        # damaged interest rows the open found: rebuilt from the reactions, or replayed around when read only
        self.damaged_interests = 0
        if self.in_memory:  # no file: nothing to look at first, to lock or to switch to WAL
            self._release = lambda: None
            self._db = connect(MEMORY)
            self._create()
            return
        try:
            if read_only and holds_nothing(self.path):  # nothing to read, and so nothing for check_path to create
                raise EdgeRankerError(f"no preference database at {self.path}: nothing is stored there")
            check_path(self.path)
            damaged = inspect_file(self.path)
            if not read_only:  # after the file was found to be a store: one refused is left as it was
                writable_sidecars(self.path)
        except OSError as exc:  # a name too long for the file system, a loop of links
            raise EdgeRankerError(f"cannot use {self.path} as the preference database: {exc.strerror or exc}") from exc
        box: list[sqlite3.Connection | None] = [None]  # the connection, for a store collected unclosed to close
        try:
            self._release = hold(self, box)  # before SQLite takes its locks: from here no other open drops them
        except OSError as exc:  # gone since it was checked
            raise EdgeRankerError(f"cannot use {self.path} as the preference database: {exc.strerror or exc}") from exc
        try:
            self._db = open_read_only(self.path) if read_only else connect(self.path.absolute())
            box[0] = self._db
        except BaseException as exc:
            self._release()
            if isinstance(exc, sqlite3.Error):
                raise describe(exc, self.path) from exc
            raise
        try:
            if read_only:
                self._check_version(self._db.execute("PRAGMA user_version").fetchone()[0])
                if damaged is None:  # the look before could not read it: this connection looks
                    damaged = refuse_damage(self.path, damaged_rows(self._db))
                self.damaged_interests = damaged
                if damaged:
                    self._check_rebuildable()
            else:
                self._db.execute("PRAGMA secure_delete=ON")  # deleted text is overwritten, whatever the default
                if self._db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":  # asking waits for no lock
                    self._until_unlocked(lambda: self._db.execute("PRAGMA journal_mode=WAL"))
                self._db.execute("PRAGMA synchronous=FULL")
                self.damaged_interests = damaged or 0
                if damaged:
                    self._check_rebuildable()  # before anything changes the file
                self._create()
                if damaged:
                    self._repair_interests()
        except BaseException as exc:
            self._db.close()
            self._release()
            if isinstance(exc, sqlite3.Error):
                raise describe(exc, self.path) from exc
            raise

    def __repr__(self) -> str:
        return f"PreferenceStore({str(self.path)!r})"

    def _until_unlocked(self, step: Callable[[], object], seconds: float | None = None) -> object:
        """Run ``step``, retrying while another process holds a lock (switching to WAL does not wait by itself) for
        ``seconds`` (default ``BUSY_TIMEOUT_S``)."""
        deadline = time.monotonic() + (store_sqlite.BUSY_TIMEOUT_S if seconds is None else seconds)
        while True:
            try:
                return step()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction; SQLite errors become messages, and a transaction SQLite already rolled back (as
        on a full disk) is not rolled back twice, which would hide the cause."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield
                    self._db.execute("COMMIT")
                    self._writes += 1
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise describe(exc, self.path) from exc

    @contextmanager
    def _read(self) -> Iterator[None]:
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise describe(exc, self.path) from exc

    def _create(self) -> None:
        """A new file gets the schema, inside a write so that processes opening it at once create it once; one of
        another version is checked."""
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            with self._write():  # read again under the lock: another process may have created it meanwhile
                if self._db.execute("PRAGMA user_version").fetchone()[0] == 0:
                    for stmt in statements(SCHEMA):
                        self._db.execute(stmt)
                    self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            return
        self._check_version(version)

    def _check_rebuildable(self) -> None:
        """With damaged interest rows, the reactions must replay into interests, as a rebuild does: where they do not
        (a reaction of another size beside them), the store is refused as corrupted before anything is changed, for
        ``recover``."""
        try:
            self._replayed()
        except (EdgeRankerError, ValueError, TypeError) as exc:
            what = f"{rows(self.damaged_interests or 0)} damaged in interests, which its reactions cannot rebuild"
            raise damaged_store(self.path, f"{what} ({str(exc)[:160]})") from exc

    def _repair_interests(self) -> None:
        """Interests are derived from the reactions: damaged rows of them (of a type or size the store never writes)
        go and the rest are rebuilt, the intact ones' dwell time kept, rather than the whole store refused. Counted
        inside the write, so that stores opening at once rebuild once."""
        with self._write():
            gone = self._db.execute(f"DELETE FROM interests WHERE {DAMAGE[DERIVED]}").rowcount  # noqa: S608
            if gone:
                self._rebuild_interests()
        if gone:
            log.warning(
                "preference database %s: %s damaged in interests, rebuilt from the reactions", self.path, rows(gone)
            )

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise EdgeRankerError(
                f"preference database {self.path} has schema {version}, newer than this edge-ranker "
                f"({SCHEMA_VERSION}); upgrade edge-ranker"
            )

    @staticmethod
    def recover(path: str | Path) -> Path:
        """Move a corrupted database (with its WAL and shared-memory files) aside; returns where the main file went.

        Refuses a path that does not exist, a folder and a healthy database. The copy is complete (every file
        linked under a new, never reused name) before any original is removed, the WAL before the main file, so
        a kill at any point loses no committed row.
        """
        path = user_path(path, "preference database path", database=True)
        if path.is_dir():
            raise EdgeRankerError(f"{path} is a folder, not a preference database")
        if not path.is_file():
            raise EdgeRankerError(f"no preference database at {path}: nothing to recover")
        if held(path):  # moved, its store would go on writing into the copy
            raise EdgeRankerError(f"{path} is open in this process: close the store that has it open first")
        try:
            with PreferenceStore(path, read_only=True) as store:  # looked at, not changed
                damaged = store.damaged_interests
                unusable = store.unusable()
        except CorruptedDatabase:
            pass
        else:
            if unusable is None:
                later = (
                    f" ({rows(damaged)} damaged in its interests, which its next writable open rebuilds)"
                    if damaged
                    else ""
                )
                raise EdgeRankerError(f"{path} is a healthy preference database{later}: nothing to recover")
            log.info("preference database %s: %s", path, unusable)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for n in range(1, 10_000):
            moved = path.with_name(f"{path.name}.corrupt-{stamp}" + (f"-{n}" if n > 1 else ""))
            try:
                copy_new(path, moved)
                break
            except FileExistsError:
                continue
        else:
            raise EdgeRankerError(f"no free name for a copy of {path} in {path.parent}; nothing was moved")
        sidecars = [Path(str(path) + s) for s in ("-wal", "-shm") if Path(str(path) + s).exists()]
        for p in sidecars:
            copy_new(p, Path(str(moved) + p.name[len(path.name) :]))
        for p in [*sidecars, path]:
            p.unlink()
        log.info("moved the damaged database %s to %s", path, moved)
        return moved

    @staticmethod
    def recovery_copies(path: str | Path) -> list[Path]:
        """The files ``recover`` left beside ``path`` (they hold the user's data too)."""
        path = user_path(path, "preference database path", database=True)
        return sorted(path.parent.glob(f"{glob.escape(path.name)}.corrupt-*"))

    @staticmethod
    def forget_recovery_copies(path: str | Path) -> list[Path]:
        """Delete the copies ``recover`` left beside ``path``, also when no database is there any more (recovered,
        then never used again); returns them."""
        copies = PreferenceStore.recovery_copies(path)
        for p in copies:
            p.unlink(missing_ok=True)
        return copies

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._release()

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
        check_id(doc_id)
        text = None if text is None else clean_text(text)
        emb = unit(as_vector(embedding))
        ts = reaction_time(ts)
        positive = reaction == "like"
        with self._write():
            cur = self._db.execute(
                "INSERT INTO feedback (doc_id, text, embedding, reaction, ts, model) VALUES (?, ?, ?, ?, ?, ?)",
                (doc_id, text, emb.tobytes(), reaction, ts, model),
            )
            self._update_interests(emb, positive, ts, model)
        return int(cur.lastrowid)

    def _update_interests(self, emb: np.ndarray, positive: bool, ts: float, model: str) -> None:
        """Store what ``interests.react`` decides: an existing interest moved, or a new one."""
        cois = self._interests(model, positive)
        check_size(cois or self._interests(model, not positive), emb, model)  # likes and dislikes alike
        moved = react(cois, emb, positive, ts, self.config)
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

    def undo(self, doc_id: str) -> int:
        """Undo every reaction to ``doc_id``: the events go and the interests are rebuilt from the others, as if
        it had never been liked or disliked. Returns how many events went (0: nothing to undo)."""
        check_id(doc_id, blank_ok=True)
        with self._write():
            texts = self._db.execute("SELECT text FROM feedback WHERE doc_id=? AND text IS NOT NULL", (doc_id,))
            hashes = [text_hash(t) for (t,) in texts.fetchall()]
            self._db.executemany("DELETE FROM vectors WHERE text_hash=?", [(h,) for h in hashes])
            gone = self._db.execute("DELETE FROM feedback WHERE doc_id=?", (doc_id,)).rowcount
            if gone:
                self._rebuild_interests()
        with self._read():  # best effort: the old pages leave the WAL now unless another process is reading
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return gone

    def stale_texts(self, model: str, rule: str) -> list[tuple[int, str | None]]:
        """Reactions stored in another model's space that ``model`` has not left out by ``rule`` (``leave_out``), as
        (event id, stored text or None when stored without one, which cannot move)."""
        with self._read():
            return self._db.execute(
                "SELECT id, text FROM feedback WHERE model != ? "
                "AND id NOT IN (SELECT event FROM left_out WHERE model = ? AND rule = ?) ORDER BY id",
                (model, model, rule),
            ).fetchall()

    def leave_out(self, model: str, rule: str, events: list[int]) -> None:
        """Record that ``model`` keeps ``events`` out of its interests by ``rule``; they stay stored as they are."""
        with self._write():
            # only events still stored: one forgotten meanwhile (another process) leaves no row behind
            self._db.executemany(
                "INSERT OR IGNORE INTO left_out SELECT ?, ?, id FROM feedback WHERE id = ?",
                [(model, rule, e) for e in events],
            )

    def move_to_model(self, model: str, events: list[int], vectors: np.ndarray) -> None:
        """Give ``events`` their vectors in ``model``'s space and rebuild the interests: after a model update the
        user's likes count again instead of starting cold. Dwell time moves with them: an old interest's time goes
        to the new interest closest to the like that was closest to it, the same document in the new space."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(events):
            raise EdgeRankerError(f"move_to_model needs one vector per event: {len(events)} events, {vectors.shape}")
        new_vector = {i: unit(v) for i, v in zip(events, vectors)}
        with self._read():  # the reactions already in ``model``'s space that stay there: one size with the moved
            staying = self._db.execute("SELECT id, length(embedding) FROM feedback WHERE model=?", (model,))
            size = next((n // 4 for i, n in staying.fetchall() if i not in new_vector), None)
        if size is not None and events and vectors.shape[1] != size:
            raise EdgeRankerError(
                f"vectors of {vectors.shape[1]} numbers for {model!r}, whose reactions have {size}: embed them with "
                "that model (Ranker.interest_vectors)"
            )
        if self.read_only:  # the interests are replayed in memory with them (no dwell time moves)
            with self._lock:
                self._moved.setdefault(model, {}).update(new_vector)
                self._interest_cache.pop(model, None)
            return
        with self._write():
            carried = self._take_dwell(set(new_vector), model)
            self._db.executemany(
                "UPDATE feedback SET embedding=?, model=? WHERE id=?",
                [(v.tobytes(), model, i) for i, v in new_vector.items()],
            )
            self._rebuild_interests()
            if carried:  # each carried like is now in a liked interest of ``model``
                cois = self._interests(model, True)
                points = np.stack([c.point for c in cois])
                for event, seconds in carried:
                    j, _ = closest(cois, new_vector[event], points)
                    self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[j].id))

    def _take_dwell(self, leaving: set[int], model: str) -> list[tuple[int, float]]:
        """The dwell time that moves to ``model`` with the ``leaving`` likes, as (like, seconds): that of each
        interest of another space whose closest like is leaving, taken off the interest so that the rebuild does
        not keep it there too. Inside the move's write, so a move repeated by another process, whose likes are
        already in ``model``, carries nothing again."""
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

    def _rebuild_interests(self) -> None:
        """Replay every stored reaction in the order it came into fresh interests, per model; dwell time moves to
        the closest liked interest of the rebuilt ones when their cosine reaches the merge threshold."""
        dwell = self._db.execute("SELECT model, point, view_time FROM interests WHERE positive=1 AND view_time > 0")
        dwell = dwell.fetchall()
        with self._replay_refused():
            rebuilt = self._replayed()
        self._db.execute("DELETE FROM interests")
        self._db.executemany(
            "INSERT INTO interests (positive, point, view_count, view_time, last_view, model) VALUES (?,?,?,?,?,?)",
            rebuilt,
        )
        liked: dict[str, tuple[list[CoI], np.ndarray | None]] = {}  # per model, the points stacked once
        for model, point, seconds in dwell:  # dwell time whose interest is gone (no close one left) goes with it
            if model not in liked:
                cois = self._interests(model, True)
                liked[model] = (cois, np.stack([c.point for c in cois]) if cois else None)
            cois, points = liked[model]
            j = dwell_to(cois, points, np.frombuffer(point, dtype=np.float32), self.config)
            if j >= 0:
                self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[j].id))

    @contextmanager
    def _replay_refused(self) -> Iterator[None]:
        """A reaction a replay refuses (not finite, or of another size) makes the store corrupted, said with what to
        do; a write around the replay is rolled back."""
        try:
            yield
        except EdgeRankerError as exc:
            raise damaged_store(self.path, f"its reactions cannot rebuild its interests ({exc})") from exc

    def _replayed(self) -> list[tuple]:
        """The interests' rows that replaying every stored reaction gives, in the order they were created, so their
        ids are those of one insert per reaction. In memory: reading the interests back from SQLite for each
        reaction is quadratic (3,000 likes: 41 s against 3.6 s)."""
        events = self._db.execute("SELECT embedding, reaction, ts, model FROM feedback ORDER BY id").fetchall()
        vectors = ((np.frombuffer(e, dtype=np.float32), r, ts, m) for e, r, ts, m in events)
        built, created = replay(vectors, self.config)
        rows = []
        for model, positive, j in created:
            c = built[(model, positive)][j]
            rows.append((int(positive), c.point.tobytes(), c.view_count, c.view_time, c.last_view, model))
        return rows

    def add_view_time(self, embedding: np.ndarray, seconds: float, model: str) -> None:
        """Dwell time counts towards the closest positive interest."""
        seconds = check_view_time(seconds)
        emb = unit(as_vector(embedding))
        with self._write():
            cois = self._interests(model, True)
            check_size(cois or self._interests(model, False), emb, model)
            i, _ = closest(cois, emb)
            if i >= 0:
                self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[i].id))

    def erase(self) -> list[Path]:
        """Delete everything the user stored ("forget me"), with the copies ``recover`` left; returns those copies.

        The rows are deleted and overwritten, the file rebuilt without them and the WAL emptied. While another
        process holds a read transaction the old pages cannot leave the files: ``erase`` waits up to
        ``ERASE_WAIT_S`` for it, then raises, saying that copies remain, rather than report a deletion that
        did not happen. Calling it again when the other process is done finishes the job.
        """
        with self._write():
            for table in ("left_out", "feedback", "interests", "vectors"):  # left_out first: no trigger work
                self._db.execute(f"DELETE FROM {table}")
        if self.in_memory:
            return []
        with self._read():
            self._db.execute(f"PRAGMA busy_timeout={int(ERASE_WAIT_S * 1000)}")
            try:
                self._until_unlocked(lambda: self._db.execute("VACUUM"), ERASE_WAIT_S)
                busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            finally:
                self._db.execute(f"PRAGMA busy_timeout={int(store_sqlite.BUSY_TIMEOUT_S * 1000)}")
        wal = Path(str(self.path) + "-wal")
        if busy or (wal.exists() and wal.stat().st_size):
            raise EdgeRankerError(
                f"the feedback and interests in {self.path} are deleted, but another process still reads the "
                "database, so old copies of them remain in its files; close the other apps that use it and run "
                "`edge-ranker prefs erase` (PreferenceStore.erase) again"
            )
        copies = self.forget_recovery_copies(self.path)
        log.info("forgot everything stored in %s (and %d recovered copies)", self.path, len(copies))
        return copies

    # --- document vectors ---------------------------------------------------------------------
    def load_vectors(self, model: str, role: str, hashes: list[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors among ``hashes`` (text hashes) for ``model`` and ``role``."""
        found: dict[bytes, np.ndarray] = {}
        with self._read():
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

    def save_vectors(self, model: str, role: str, hashes: list[bytes], vectors: np.ndarray) -> None:
        """Keep vectors for later processes; past ``max_vectors`` the least recently saved go. A cache: while another
        process holds the store's lock past ``CACHE_WAIT_S`` they are not kept, rather than after ``BUSY_TIMEOUT_S``
        (the reaction that follows would wait as long again)."""
        now = time.time()
        rows = [(model, role, h, np.asarray(v, np.float32).tobytes(), now) for h, v in zip(hashes, vectors)]
        with self._read():  # under the store's lock, and its SQLite errors said in words (a closed store)
            self._db.execute(f"PRAGMA busy_timeout={int(CACHE_WAIT_S * 1000)}")
            try:
                with self._write():
                    self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?, ?)", rows)
                    excess = self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] - self.max_vectors
                    if excess > 0:
                        self._db.execute(
                            "DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors ORDER BY used LIMIT ?)",
                            (excess,),
                        )
            finally:
                self._db.execute(f"PRAGMA busy_timeout={int(store_sqlite.BUSY_TIMEOUT_S * 1000)}")

    # --- reads --------------------------------------------------------------------------------
    def _interests(self, model: str, positive: bool) -> list[CoI]:
        rows = self._db.execute(
            "SELECT id, point, view_count, MIN(view_time, ?), last_view FROM interests WHERE model=? AND positive=? "
            "ORDER BY id",
            (VIEW_TIME_CAP, model, int(positive)),
        ).fetchall()
        return [CoI(r[0], positive, np.frombuffer(r[1], dtype=np.float32).copy(), r[2], r[3], r[4]) for r in rows]

    def version(self) -> tuple[int, int]:
        """A token that changes with every commit, this store's or (SQLite's ``data_version``) another connection's:
        what was read under an equal token is still what is stored."""
        with self._read():
            return self._writes, self._db.execute("PRAGMA data_version").fetchone()[0]

    def interests(self, model: str) -> tuple[list[CoI], list[CoI]]:
        """The positive and negative centers of interest in ``model``'s vector space. Read again only after a
        write, by this store or (SQLite's ``data_version``) by another connection: ranking reads them every time."""
        with self._read():
            version = self.version()
            cached = self._interest_cache.get(model)
            if cached is None or cached[0] != version:
                if (self.read_only and self.damaged_interests) or model in self._moved:
                    cached = (version, self._replayed_with(model, self._moved.get(model, {})))
                else:
                    cached = (version, (self._interests(model, True), self._interests(model, False)))
                self._interest_cache[model] = cached
            return cached[1]

    def _replayed_with(self, model: str, moved: dict[int, np.ndarray]) -> tuple[list[CoI], list[CoI]]:
        """``model``'s positive and negative interests from replaying its reactions and the ``moved`` ones (a store
        this process cannot write), in the order they came, as a writable start rebuilds them: the dwell time of
        ``model``'s intact stored interests goes to the replayed ones as a rebuild moves it (a moved reaction's old
        interests are another model's, whose dwell time stays with them)."""
        events = self._db.execute("SELECT id, embedding, reaction, ts, model FROM feedback ORDER BY id").fetchall()
        vectors = (
            (moved[i] if i in moved else np.frombuffer(e, dtype=np.float32), r, ts, model)
            for i, e, r, ts, space in events
            if i in moved or space == model
        )
        with self._replay_refused():
            built, _ = replay(vectors, self.config)
        liked = built.get((model, True), [])
        dwell = self._db.execute(
            "SELECT point, MIN(view_time, ?) FROM interests WHERE positive=1 AND view_time > 0 AND model=? "
            f"AND NOT ({DAMAGE[DERIVED]})",  # noqa: S608 - a constant
            (VIEW_TIME_CAP, model),
        ).fetchall()
        points = np.stack([c.point for c in liked]) if liked else None
        for point, seconds in dwell:
            j = dwell_to(liked, points, np.frombuffer(point, dtype=np.float32), self.config)
            if j >= 0:
                liked[j].view_time += seconds
        return liked, built.get((model, False), [])

    def unusable(self) -> str | None:
        """What an open does not read, looked at whole (``recover`` does): a reaction a replay refuses (not finite,
        or of another size than its model's others), or an interest of another size than its model's reactions;
        None where there is nothing of the kind."""
        with self._read():
            try:
                self._replayed()
            except EdgeRankerError as exc:
                return str(exc)
            odd = self._db.execute(  # among the intact interests: the damaged ones a writable open rebuilds
                f"SELECT COUNT(*) FROM interests JOIN {newest_sizes('feedback', 'embedding')} ON of = interests.model "
                f"WHERE length(point) != size AND NOT ({DAMAGE[DERIVED]})"
            ).fetchone()[0]
        return f"{rows(odd)} of interests of another size than their model's reactions" if odd else None

    def feedback_count(self) -> int:
        with self._read():
            return int(self._db.execute("SELECT COUNT(*) FROM feedback").fetchone()[0])

    def export(self) -> dict:
        """Everything stored, as JSON-ready data (vectors as lists)."""
        with self._read():
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
                "SELECT id, positive, point, view_count, MIN(view_time, ?), last_view, model FROM interests "
                f"WHERE NOT ({DAMAGE[DERIVED]}) ORDER BY id",  # noqa: S608 - a constant
                (VIEW_TIME_CAP,),
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
            damaged = damaged_rows(self._db, {DERIVED}).get(DERIVED, 0)
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            seen = self._db.execute("SELECT model, role, text_hash, used FROM vectors ORDER BY used").fetchall()
            left = self._db.execute("SELECT model, rule, event FROM left_out").fetchall()
        # cached document vectors are derived from documents the user was shown: listed by text hash, not copied
        vectors = [{"model": m, "role": r, "text_hash": h.hex(), "saved": u} for m, r, h, u in seen]
        return {
            "schema_version": version,
            "path": str(self.path),
            "feedback": feedback,
            "interests": interests,
            "document_vectors": vectors,
            "left_out": [{"model": m, "rule": r, "event": e} for m, r, e in left],
            # rows of the interests left out above as damaged (a writable open rebuilds them from the reactions)
            "damaged_interests": damaged,
            # damaged earlier stores ``recover`` moved aside: the user's data too, which ``erase`` deletes
            "recovery_copies": [] if self.in_memory else [str(p) for p in self.recovery_copies(self.path)],
        }

    def export_json(self) -> str:
        return json.dumps(self.export(), ensure_ascii=False)

    def export_to(self, path: str | Path) -> Path:
        """Write ``export_json`` to a new or replaced file readable by the user alone (0600). A regular file is
        written beside itself and renamed over once whole (a link is followed to it), so a full disk, a crash or
        Ctrl-C leaves an earlier export as it was; a pipe, a device or a /dev or /proc path (``/dev/stdout``) is
        written straight into. A SQLite file (a database, a WAL, a rollback journal, this store's or another's)
        is refused: the export would replace its data."""
        given = user_path(path, "export file")
        if str(given).startswith(("/dev/", "/proc/")) or (given.exists() and not given.is_file()):
            if is_sqlite(given):  # /proc/self/fd/N of a database
                raise EdgeRankerError(f"{given} is a SQLite database or one of its files; export to another file")
            target, straight = given, True
        else:
            target, straight = Path(os.path.realpath(given)), False
        if target.is_dir():
            raise EdgeRankerError(f"{target} is a folder; give a file name for the export")
        if not target.parent.is_dir():
            what = "is a file, not a folder" if target.parent.exists() else "does not exist"
            raise EdgeRankerError(f"cannot write {target}: {target.parent} {what}")
        ours = [Path(os.path.realpath(f"{self.path}{suffix}")) for suffix in DB_FILE_SUFFIXES]
        if not straight and (target in ours or is_sqlite(target)):
            raise EdgeRankerError(f"{target} is a SQLite database or one of its files; export to another file")
        data = (self.export_json() + "\n").encode("utf-8")
        kept = "; the earlier file there is unchanged" if not straight and target.exists() else ""
        try:
            if straight:
                with open(target, "wb") as fh:
                    fh.write(data)
            else:
                write_files({target: data}, mode=0o600)
        except OSError as exc:
            raise EdgeRankerError(f"cannot write {target}: {exc.strerror or exc}{kept}") from exc
        return target
