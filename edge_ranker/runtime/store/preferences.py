"""The preference store: likes/dislikes and centers of interest in SQLite, on the device only.

WAL journal with ``synchronous=FULL``: a feedback call returns only after its transaction (event row and
CoI update together) is durable, so a killed process never loses an acknowledged write nor leaves half
of one. One connection guarded by a lock serves many threads, and processes share the file through SQLite's
locks. The schema is versioned with ``PRAGMA user_version`` and created on the first open, inside a write
transaction so that processes opening a new file at once create it once. The file and a folder it creates are
private to the user (0600 / 0700), and deleted rows are overwritten (``secure_delete``).

Errors say what is wrong: a file is called corrupted only when SQLite says so (then ``recover`` moves it aside,
never deletes it); a full disk, a read-only file, a folder, a lock held by another process are named as such.
An app opens, exports, undoes, erases and recovers; the Ranker reaches one model pair's reactions, interests and
cached vectors through ``space`` (``Space``). What is asked of SQLite is in ``sqlite``, what is done with the files in
``files``, how reactions are checked and replayed in ``events``, how interests are rebuilt from them in ``rebuild``,
and the export in ``export``.
"""

from __future__ import annotations

import json
import logging
import numbers
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.cache import text_hash
from edge_ranker.runtime.documents import check_id
from edge_ranker.runtime.interests import CoI, CoIConfig
from edge_ranker.runtime.store import sqlite as store_sqlite
from edge_ranker.runtime.store.export import everything, write_export
from edge_ranker.runtime.store.files import (
    aside,
    check_path,
    default_path,
    file_identity,
    held,
    hold,
    holds_nothing,
    move_aside,
    user_path,
    writable_sidecars,
)
from edge_ranker.runtime.store.rebuild import interests_of, rebuild, replayed
from edge_ranker.runtime.store.space import Space
from edge_ranker.runtime.store.sqlite import (
    APPLICATION_ID,
    DAMAGE,
    DERIVED,
    SCHEMA,
    SCHEMA_VERSION,
    CorruptedDatabase,
    check_schema,
    connect,
    damaged_rows,
    damaged_store,
    describe,
    inspect_file,
    newest_sizes,
    open_read_only,
    refuse_damage,
    rows,
    schema_since,
    statements,
)

log = logging.getLogger("edge_ranker")

MEMORY = ":memory:"  # a store that keeps nothing on disk and ends with its process, as SQLite names it
ERASE_WAIT_S = 10.0  # how long ``erase`` waits for other processes' readers before saying it could not finish
MAX_VECTORS = 100_000  # document vectors kept (10,000 fill 6.7 MB at 128-d, 14.5 MB at 256-d); the least recent go


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
        self._file: tuple[int, int] | None = None  # the file this store opened, to tell one put in its place
        self._opened = Path()  # its absolute path then: a chdir later must not make it seem replaced
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
            self._opened = self.path.absolute()
            self._file = file_identity(self._opened)
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
                    check_schema(self._db, self.path)
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
            if isinstance(exc, UnicodeDecodeError):  # a damaged name in the schema, handed over as it is
                raise damaged_store(self.path, f"its schema holds text that is not UTF-8 ({exc.reason})") from exc
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
                    self._check_file()
                    yield
                    self._db.execute("COMMIT")
                    self._writes += 1
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise describe(exc, self.path) from exc

    def _check_file(self) -> None:
        """Refuse to write where the file this store opened is no longer at its path (replaced, moved or deleted):
        SQLite would go on writing into the file it has open, and the write would be acknowledged, then lost."""
        if self._file is not None and file_identity(self._opened) != self._file:
            raise EdgeRankerError(
                f"preference database {self.path} was replaced, moved or deleted while this store had it open; "
                "nothing of this change was stored: open the store again to use the file there now"
            )

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
        if version < SCHEMA_VERSION:
            with self._write():  # read again under the lock: another process may have migrated it meanwhile
                if (version := self._db.execute("PRAGMA user_version").fetchone()[0]) < SCHEMA_VERSION:
                    for stmt in statements(schema_since(version)):
                        self._db.execute(stmt)
                    self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    log.info("preference database %s: schema %d migrated to %d", self.path, version, SCHEMA_VERSION)

    def _check_rebuildable(self) -> None:
        """With damaged interest rows, the reactions must replay into interests, as a rebuild does: where they do not
        (a reaction of another size beside them), the store is refused as corrupted before anything is changed, for
        ``recover``."""
        try:
            replayed(self._db, self.config)
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
        moved = move_aside(path)
        log.info("moved the damaged database %s to %s", path, moved)
        return moved

    @staticmethod
    def recovery_copies(path: str | Path) -> list[Path]:
        """The files ``recover`` left beside ``path`` (they hold the user's data too)."""
        return aside(user_path(path, "preference database path", database=True))

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

    def undo(self, doc_id: str) -> int:
        """Undo every reaction to ``doc_id`` and every signal of it (its showings and views): the events go and the
        interests are rebuilt from the others, as if it had never been liked, disliked, shown or read; each view's
        seconds leave the liked interest now closest to it, never below 0: where ``viewed`` put them, unless the
        interests changed in between (the store keeps no record of which interest took them). Returns how many
        events went (0: nothing to undo)."""
        check_id(doc_id, blank_ok=True)
        with self._write():
            texts = self._db.execute(
                "SELECT text FROM feedback WHERE doc_id=? AND text IS NOT NULL "
                "UNION SELECT text FROM signals WHERE doc_id=? AND text IS NOT NULL",
                (doc_id, doc_id),
            )
            hashes = [text_hash(t) for (t,) in texts.fetchall()]
            self._db.executemany("DELETE FROM vectors WHERE text_hash=?", [(h,) for h in hashes])
            views = self._db.execute(
                "SELECT model, embedding, seconds FROM signals WHERE doc_id=? AND kind='view' AND seconds > 0",
                (doc_id,),
            ).fetchall()
            for model, embedding, seconds in views:  # before the rebuild, from the interests they went to
                self.space(model)._undo_dwell(np.frombuffer(embedding, dtype=np.float32), seconds)
            gone = self._db.execute("DELETE FROM feedback WHERE doc_id=?", (doc_id,)).rowcount
            if gone:
                self._rebuild_interests()
            gone += self._db.execute("DELETE FROM signals WHERE doc_id=?", (doc_id,)).rowcount
        with self._read():  # best effort: the old pages leave the WAL now unless another process is reading
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return gone

    def _rebuild_interests(self) -> None:
        rebuild(self._db, self.config, self.path)

    def erase(self) -> list[Path]:
        """Delete everything the user stored ("forget me"), with the copies ``recover`` left; returns those copies.

        The rows are deleted and overwritten, the file rebuilt without them and the WAL emptied. While another
        process holds a read transaction the old pages cannot leave the files: ``erase`` waits up to
        ``ERASE_WAIT_S`` for it, then raises, saying that copies remain, rather than report a deletion that
        did not happen. Calling it again when the other process is done finishes the job.
        """
        with self._write():
            for table in ("left_out", "feedback", "signals", "interests", "vectors"):  # left_out first: no triggers
                self._db.execute(f"DELETE FROM {table}")
        if self.in_memory:
            return []
        with self._read():
            self._db.execute(f"PRAGMA busy_timeout={int(ERASE_WAIT_S * 1000)}")
            try:
                self._until_unlocked(lambda: self._db.execute("VACUUM"), ERASE_WAIT_S)
                busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.Error as exc:  # the rows are gone: "nothing of this change was stored" would be untrue
                if "locked" in str(exc):
                    raise
                raise EdgeRankerError(
                    f"the feedback and interests in {self.path} are deleted, but its files could not be rebuilt "
                    f"without their old pages ({exc}): free some space and run `edge-ranker prefs erase` "
                    "(PreferenceStore.erase) again to finish"
                ) from exc
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

    def space(self, model: str) -> Space:
        """The store as one model pair's space holds it (``Space``): its reactions' vectors, its interests, its cached
        document vectors. The Ranker's: an app keeps to open, export, undo, erase and recover."""
        return Space(self, model)

    # --- reads --------------------------------------------------------------------------------
    def _interests(self, model: str, positive: bool) -> list[CoI]:
        return interests_of(self._db, model, positive)

    def version(self) -> tuple[int, int]:
        """A token that changes with every commit, this store's or (SQLite's ``data_version``) another connection's:
        what was read under an equal token is still what is stored."""
        with self._read():
            return self._writes, self._db.execute("PRAGMA data_version").fetchone()[0]

    def unusable(self) -> str | None:
        """What an open does not read, looked at whole (``recover`` does): a reaction a replay refuses (not finite,
        or of another size than its model's others), a signal it refuses (``_signals_unusable``), or an interest of
        another size than its model's reactions; None where there is nothing of the kind."""
        with self._read():
            undecodable = self._db.execute(
                "SELECT COUNT(*) FROM feedback WHERE NOT utf8(CAST(text AS BLOB)) OR NOT utf8(CAST(doc_id AS BLOB))"
            ).fetchone()[0]
            if undecodable:
                return f"{rows(undecodable)} of reactions whose text or id is not UTF-8"
            try:
                replayed(self._db, self.config)
            except EdgeRankerError as exc:
                return str(exc)
            signals = self._signals_unusable()
            if signals is not None:
                return signals
            odd = self._db.execute(  # among the intact interests: the damaged ones a writable open rebuilds
                f"SELECT COUNT(*) FROM interests JOIN {newest_sizes('feedback', 'embedding')} ON of = interests.model "
                f"WHERE length(point) != size AND NOT ({DAMAGE[DERIVED]})"
            ).fetchone()[0]
        return f"{rows(odd)} of interests of another size than their model's reactions" if odd else None

    def _signals_unusable(self) -> str | None:
        """What of the signals each replay of their model refuses (``unusable``): a text or id that is not UTF-8, a
        vector that is not finite numbers, or one of another size than its model's other vectors."""
        undecodable = self._db.execute(
            "SELECT COUNT(*) FROM signals WHERE NOT utf8(CAST(text AS BLOB)) OR NOT utf8(CAST(doc_id AS BLOB))"
        ).fetchone()[0]
        if undecodable:
            return f"{rows(undecodable)} of signals whose text or id is not UTF-8"
        infinite = self._db.execute("SELECT COUNT(*) FROM signals WHERE NOT finite_floats(embedding)").fetchone()[0]
        if infinite:
            return f"{rows(infinite)} of signals whose vector holds a value that is not a finite number"
        odd = self._db.execute(  # a model's reactions and signals are replayed together: one size
            "SELECT model FROM (SELECT model, length(embedding) AS size FROM feedback "
            "UNION SELECT model, length(embedding) FROM signals) GROUP BY model HAVING COUNT(*) > 1 LIMIT 1"
        ).fetchone()
        return None if odd is None else f"signals of another size than the other vectors under {odd[0]!r}"

    def feedback_count(self) -> int:
        with self._read():
            return int(self._db.execute("SELECT COUNT(*) FROM feedback").fetchone()[0])

    def history(self) -> list[dict]:
        """The reactions, oldest first, each as ``event`` (its number in the store), ``id`` (the document's),
        ``text``, ``reaction`` and ``ts``; then the signals (``shown``, ``view`` with its ``seconds``), oldest first,
        each with its ``signal`` number: what an app lists, without the vectors ``export`` gives too."""
        with self._read():
            rows = self._db.execute("SELECT id, doc_id, text, reaction, ts FROM feedback ORDER BY id").fetchall()
            signals = self._db.execute("SELECT id, doc_id, text, kind, seconds, ts FROM signals ORDER BY id").fetchall()
        reacted = [{"event": r[0], "id": r[1], "text": r[2], "reaction": r[3], "ts": r[4]} for r in rows]
        return reacted + [
            {"signal": s[0], "id": s[1], "text": s[2], "reaction": s[3], "seconds": s[4], "ts": s[5]} for s in signals
        ]

    def export(self) -> dict:
        """Everything stored, as JSON-ready data (``export.everything``)."""
        return everything(self)

    def export_json(self) -> str:
        return json.dumps(self.export(), ensure_ascii=False)

    def export_to(self, path: str | Path) -> Path:
        """``export_json`` in a file readable by the user alone (``export.write_export``); returns its path."""
        return write_export(self.path, self.export_json(), path)
