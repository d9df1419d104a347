"""The preference store: likes/dislikes and centers of interest in SQLite, on the device only.

WAL journal with ``synchronous=FULL``: a feedback call returns only after its transaction (event row and
CoI update together) is durable, so a killed process never loses an acknowledged write nor leaves half
of one. One connection guarded by a lock serves many threads, and processes share the file through SQLite's
locks. The schema is versioned with ``PRAGMA user_version`` and migrated forward on open, inside a write
transaction so that processes opening a new file at once migrate it once. The file and a folder it creates are
private to the user (0600 / 0700), and deleted rows are overwritten (``secure_delete``).

Errors say what is wrong: a file is called corrupted only when SQLite says so (then ``recover`` moves it aside,
never deletes it); a full disk, a read-only file, a folder, a lock held by another process are named as such.
"""

from __future__ import annotations

import collections
import glob
import json
import logging
import math
import os
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.cache import text_hash
from edge_ranker.runtime.encoder import clean_text
from edge_ranker.runtime.interests import DAY, CoI, CoIConfig, closest, react, unit

log = logging.getLogger("edge_ranker")

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
    # version 2: document vectors kept across processes (a cache: forget deletes it, nothing else reads it)
    """
    CREATE TABLE vectors (
        model TEXT NOT NULL,
        role TEXT NOT NULL,
        text_hash BLOB NOT NULL,
        vector BLOB NOT NULL,
        used REAL NOT NULL,
        PRIMARY KEY (model, role, text_hash)
    ) WITHOUT ROWID;
    CREATE INDEX vectors_used ON vectors(used);
    """,
    # version 3: the vectors in a rowid table. A WITHOUT ROWID row keeps at most about 1,000 bytes in its page, so
    # each 256-d vector (1,024 bytes) spilled into a 4 KB overflow page of its own: 4.7x the vectors' size on disk.
    # A cache, so it starts empty.
    """
    DROP TABLE vectors;
    CREATE TABLE vectors (
        model TEXT NOT NULL,
        role TEXT NOT NULL,
        text_hash BLOB NOT NULL,
        vector BLOB NOT NULL,
        used REAL NOT NULL,
        UNIQUE (model, role, text_hash)
    );
    CREATE INDEX vectors_used ON vectors(used);
    """,
    # version 4: reactions a model key left out of its interests by a rule (texts its models cannot learn from), so
    # that each start does not look at them again; another key, whose models may read them, or another rule looks once
    """
    CREATE TABLE left_out (
        model TEXT NOT NULL,
        rule TEXT NOT NULL,
        event INTEGER NOT NULL,
        PRIMARY KEY (model, rule, event)
    ) WITHOUT ROWID;
    """,
    # version 5: a reaction's left_out rows go with it, whatever code deletes it: a process of an earlier release,
    # open on the store since before version 4, deletes reactions without knowing the table
    """
    CREATE INDEX left_out_event ON left_out(event);
    CREATE TRIGGER left_out_follows_feedback AFTER DELETE ON feedback BEGIN
        DELETE FROM left_out WHERE event = old.id;
    END;
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
REACTIONS = ("like", "dislike")
BUSY_TIMEOUT_S = 30.0  # how long a write waits for another process's transaction
CACHE_WAIT_S = 1.0  # how long saving document vectors, a cache, waits for one
FORGET_WAIT_S = 10.0  # how long ``forget`` waits for other processes' readers before saying it could not finish
SQLITE_HEADER = b"SQLite format 3\x00"
APPLICATION_ID = 0x45524B52  # "ERKR" in the file header: this file is an edge-ranker preference store
FUTURE_SLACK_S = DAY  # a device clock may run ahead; a reaction further in the future is refused
MAX_VIEW_S = DAY  # one view longer than a day is a unit or clock error, and summed it could reach infinity
VIEW_TIME_CAP = 1e300  # dwell time is read back at most this: a store may hold infinity, which makes scores NaN
MAX_VECTORS = 100_000  # document vectors kept (10,000 fill 6.7 MB at 128-d, 14.5 MB at 256-d); the least recent go
SQL_CHUNK = 500  # host parameters per statement, well under SQLite's limit
DB_FILE_SUFFIXES = ("", "-wal", "-shm", "-journal")  # the database file and SQLite's files beside it
WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")  # a WAL file's first bytes (sqlite.org/fileformat.html)
JOURNAL_MAGIC = b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7"  # a rollback journal's


def default_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("edge-ranker")) / "preferences.sqlite"


class CorruptedDatabase(EdgeRankerError):
    """SQLite itself reports the file as damaged (not a database, malformed, failed integrity check)."""


class LockedDatabase(EdgeRankerError):
    """Another process held the store's lock for longer than ``BUSY_TIMEOUT_S``."""


def describe(exc: sqlite3.Error | str, path: Path) -> EdgeRankerError:
    """What went wrong, in words the user can act on. Only SQLite's own corruption codes say "corrupted"."""
    code = getattr(exc, "sqlite_errorname", "") or ""  # Python 3.11+; the messages below cover 3.10
    msg = str(exc)
    if code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in msg or "not a database" in msg:
        return CorruptedDatabase(
            f"preference database {path} is corrupted ({msg}). Nothing was changed. To start fresh and keep the "
            f"damaged file for inspection: `edge-ranker prefs recover --db {path}` (PreferenceStore.recover)"
        )
    if code.startswith("SQLITE_FULL") or "is full" in msg:
        return EdgeRankerError(f"cannot write to {path}: the disk is full ({msg}); nothing of this change was stored")
    if code.startswith("SQLITE_IOERR") or "disk I/O error" in msg:  # what a full disk gives once the WAL exists
        return EdgeRankerError(
            f"preference database {path}: the disk could not be read or written ({msg}): is it full, read-only or "
            "failing?"
        )
    if code.startswith("SQLITE_READONLY") or "readonly" in msg:
        return EdgeRankerError(
            f"preference database {path} is read-only ({msg}); make it, its folder and the files SQLite keeps beside "
            f"it ({path.name}-wal, {path.name}-shm) writable"
        )
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in msg:
        return LockedDatabase(f"preference database {path} is locked by another process ({msg}); retry later")
    if "closed database" in msg:
        return EdgeRankerError(f"preference database {path} was closed; open a new PreferenceStore to use it again")
    if code.startswith("SQLITE_CANTOPEN") or "unable to open" in msg:
        return EdgeRankerError(
            f"cannot open preference database {path} ({msg}); check that it and its folder are readable and writable"
        )
    return EdgeRankerError(f"preference database {path}: {msg}")


def _check_path(path: Path) -> None:
    """Refuse what SQLite would report confusingly, and create a missing folder private to the user."""
    if path.is_dir():
        raise EdgeRankerError(f"{path} is a folder, not a database file; give a file path such as {path / 'prefs.db'}")
    if path.exists() and not path.is_file():
        raise EdgeRankerError(f"{path} is not a regular file (a device, socket or pipe); give a file path")
    if path.is_symlink() and not path.exists():
        raise EdgeRankerError(f"{path} is a symbolic link to {os.readlink(path)}, which does not exist")
    if not path.parent.is_dir():
        try:  # from the root down, so a file in the way is met before any folder is made; every folder made here
            for folder in [*reversed(path.parent.parents), path.parent]:  # is private (mkdir(parents=True): 0755)
                if folder.is_dir():
                    continue
                if folder.exists():
                    raise EdgeRankerError(
                        f"cannot put the preference database under {folder}: it is a file, not a folder"
                    )
                folder.mkdir(mode=0o700, exist_ok=True)
        except OSError as exc:
            raise EdgeRankerError(
                f"cannot create the folder {path.parent} for the preference database: {exc.strerror}"
            ) from exc
    if path.exists():
        try:
            head = _header(path)
        except OSError as exc:
            raise EdgeRankerError(f"cannot read the preference database {path}: {exc.strerror}") from exc
        if head and head != SQLITE_HEADER:  # never open it: closing SQLite's connection would delete its WAL
            raise CorruptedDatabase(
                f"{path} is not a SQLite database. Nothing was changed. If it is your preference store, it is "
                f"corrupted: `edge-ranker prefs recover --db {path}` moves it aside and keeps it "
                "(PreferenceStore.recover); if it is another file, give another path"
            )
        _make_private(path)
    else:
        try:  # SQLite gives its WAL and shared-memory files the main file's mode
            with _HELD_LOCK:  # another thread's store may create and open it meanwhile
                os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        except OSError as exc:
            raise EdgeRankerError(f"cannot create the preference database {path}: {exc.strerror}") from exc


# The database files this process's stores hold open: (real path, the file's (device, inode)) -> how many stores.
# Closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's included: a header read
# by a second store would let the next process to close think itself the last and delete the WAL under the first
# store, losing its writes. ``_HELD_LOCK`` is held across a check and the read it allows, so a store opening in
# another thread meanwhile waits for it. A store lets go by queueing its key (``_LET_GO``, no lock): the garbage
# collector may run that in any thread, within code that holds either lock.
_HELD: dict[tuple[str, tuple[int, int] | None], int] = {}
_HELD_LOCK = threading.RLock()
_LET_GO: collections.deque[tuple[str, tuple[int, int] | None]] = collections.deque()


def _identity(st: os.stat_result) -> tuple[int, int] | None:
    """A file's (device, inode), None where the file system gives no inode (0: Windows' FAT, some network mounts)."""
    return (st.st_dev, st.st_ino) if st.st_ino else None


def _hold(store: PreferenceStore, box: list[sqlite3.Connection | None]) -> weakref.finalize:
    """Count ``store``'s file as held open until the returned call, made once by ``close`` or when the store is
    collected unclosed. It closes the connection in ``box`` first: a collected store's connection can outlive it
    (Python keeps it in a reference cycle), and its locks must not be dropped by a read while it lives. Not at
    exit, when another thread may still be writing and the locks go with the process."""
    key = (os.path.realpath(store.path), _identity(os.stat(store.path)))
    with _HELD_LOCK:
        _drain()
        _HELD[key] = _HELD.get(key, 0) + 1
    release = weakref.finalize(store, _close_and_let_go, box, key)
    release.atexit = False
    return release


def _close_and_let_go(box: list[sqlite3.Connection | None], key: tuple[str, tuple[int, int] | None]) -> None:
    """Undo one ``_hold``, its connection closed first."""
    if box[0] is not None:
        with suppress(sqlite3.Error):
            box[0].close()
    _LET_GO.append(key)


def _drain() -> None:
    """Take the queued releases off the counts (the caller holds ``_HELD_LOCK``)."""
    while _LET_GO:
        key = _LET_GO.popleft()
        if _HELD.get(key, 0) > 1:
            _HELD[key] -= 1
        else:
            _HELD.pop(key, None)


def _held(path: Path) -> bool:
    """Whether ``path`` is a database a store of this process holds open (under any name: a hard link is the same
    file), or its WAL, shared-memory or journal file: then it must not be opened by anything but SQLite, which shares
    its locks between its connections. A read it allows is made under ``_HELD_LOCK`` (``_header``)."""
    try:
        ident = _identity(os.stat(path))
    except OSError:
        ident = None
    real = os.path.realpath(path)
    with _HELD_LOCK:
        _drain()
        held = list(_HELD)
    for base, file in held:
        if ident is not None and ident == file:
            return True
        for suffix in DB_FILE_SUFFIXES[1:]:  # its files beside it, whatever name they are given
            if real == base + suffix:
                return True
            if ident is not None:
                with suppress(OSError):
                    if _identity(os.stat(base + suffix)) == ident:
                        return True
        if (ident is None or file is None) and real == base:  # no inode to tell a file that replaced it
            return True
    return False


def _header(path: Path) -> bytes:
    """A file's first bytes, or SQLite's header for a file a store of this process holds open (its open checked it):
    read under ``_HELD_LOCK``, so no store takes the file's locks between the check and the read."""
    with _HELD_LOCK:
        return SQLITE_HEADER if _held(path) else _head(path)


def _head(path: Path) -> bytes:
    """The first bytes of a regular file no store of this process holds open (the caller holds ``_HELD_LOCK``);
    nothing of anything else: opened without waiting, so a pipe put there meanwhile cannot block every store."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        return os.read(fd, len(SQLITE_HEADER)) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)


def _make_private(path: Path) -> None:
    """Existing files of the store that the user owns lose their group and other permissions, as files the store
    creates have none: they hold what the user liked."""
    target = os.path.realpath(path)  # SQLite puts its files beside a link's target
    for name in (f"{target}{suffix}" for suffix in DB_FILE_SUFFIXES):
        with suppress(FileNotFoundError):
            st = os.stat(name)
            if st.st_mode & 0o077 and hasattr(os, "geteuid") and st.st_uid == os.geteuid():
                try:
                    os.chmod(name, stat.S_IMODE(st.st_mode) & 0o700)
                except OSError:  # a file it cannot change (a read-only mount) is still read
                    log.info("could not make %s private to the user", name)


class PreferenceStore:
    """Feedback events and centers of interest; ``model`` tags vectors so a model change never mixes spaces.

    ``PreferenceStore(path)`` opens (or creates) the SQLite file; the default is the user data folder. Use it as a
    context manager or call ``close()``. Every error is an ``EdgeRankerError`` whose message says what to do.
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
        self.path = user_path(path, "preference database path") if path is not None else default_path()
        if config is not None and not isinstance(config, CoIConfig):
            raise EdgeRankerError(f"config must be a CoIConfig, got {type(config).__name__}")
        if not isinstance(max_vectors, int) or isinstance(max_vectors, bool) or max_vectors < 1:
            raise EdgeRankerError(f"max_vectors must be a whole number >= 1, got {max_vectors!r}")
        self.config = config or CoIConfig()
        self.read_only = read_only
        self.max_vectors = max_vectors
        self._lock = threading.RLock()
        self._writes = 0  # this connection's commits; with SQLite's data_version, tells when to re-read interests
        self._interest_cache: dict[str, tuple[tuple[int, int], tuple[list[CoI], list[CoI]]]] = {}
        # read-only: the vectors ``move_to_model`` gave reactions in a model's space, kept in memory for this store
        self._moved: dict[str, dict[int, np.ndarray]] = {}
        try:
            if read_only and (not self.path.exists() or self.path.is_file() and self.path.stat().st_size == 0):
                # nothing to read (an empty file: created, never written); and so nothing for _check_path to create
                raise EdgeRankerError(f"no preference database at {self.path}: nothing is stored there")
            _check_path(self.path)
            _inspect(self.path)
        except OSError as exc:  # a name too long for the file system, a loop of links
            raise EdgeRankerError(f"cannot use {self.path} as the preference database: {exc.strerror or exc}") from exc
        box: list[sqlite3.Connection | None] = [None]  # the connection, for a store collected unclosed to close
        try:
            self._release = _hold(self, box)  # before SQLite takes its locks: from here no other open drops them
        except OSError as exc:  # gone since it was checked
            raise EdgeRankerError(f"cannot use {self.path} as the preference database: {exc.strerror or exc}") from exc
        try:
            self._db = _open_read_only(self.path) if read_only else _connect(self.path.absolute())
            box[0] = self._db
        except BaseException as exc:
            self._release()
            if isinstance(exc, sqlite3.Error):
                raise describe(exc, self.path) from exc
            raise
        try:
            if read_only:
                self._check_version(self._db.execute("PRAGMA user_version").fetchone()[0])
            else:
                self._db.execute("PRAGMA secure_delete=ON")  # deleted text is overwritten, whatever the default
                if self._db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":  # asking waits for no lock
                    self._until_unlocked(lambda: self._db.execute("PRAGMA journal_mode=WAL"))
                self._db.execute("PRAGMA synchronous=FULL")
                self._migrate()
        except BaseException as exc:
            self._db.close()
            self._release()
            if isinstance(exc, sqlite3.Error):
                raise describe(exc, self.path) from exc
            raise

    def __repr__(self) -> str:
        return f"PreferenceStore({str(self.path)!r})"

    def _until_unlocked(self, step, seconds: float = BUSY_TIMEOUT_S):
        """Run ``step``, retrying while another process holds a lock (switching to WAL does not wait by itself)."""
        deadline = time.monotonic() + seconds
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

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        stamped = self._db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        if version < SCHEMA_VERSION or not stamped:
            with self._write():  # read again under the lock: another process may have migrated meanwhile
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                for v in range(version, SCHEMA_VERSION):
                    for stmt in _statements(MIGRATIONS[v]):
                        self._db.execute(stmt)
                    self._db.execute(f"PRAGMA user_version={v + 1}")
                self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        self._check_version(version)

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
        path = user_path(path, "preference database path")
        if path.is_dir():
            raise EdgeRankerError(f"{path} is a folder, not a preference database")
        if not path.is_file():
            raise EdgeRankerError(f"no preference database at {path}: nothing to recover")
        if _held(path):  # moved, its store would go on writing into the copy
            raise EdgeRankerError(f"{path} is open in this process: close the store that has it open first")
        try:
            PreferenceStore(path).close()
        except CorruptedDatabase:
            pass
        else:
            raise EdgeRankerError(f"{path} is a healthy preference database: nothing to recover")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for n in range(1, 10_000):
            moved = path.with_name(f"{path.name}.corrupt-{stamp}" + (f"-{n}" if n > 1 else ""))
            try:
                _copy_new(path, moved)
                break
            except FileExistsError:
                continue
        else:
            raise EdgeRankerError(f"no free name for a copy of {path} in {path.parent}; nothing was moved")
        sidecars = [Path(str(path) + s) for s in ("-wal", "-shm") if Path(str(path) + s).exists()]
        for p in sidecars:
            _copy_new(p, Path(str(moved) + p.name[len(path.name) :]))
        for p in [*sidecars, path]:
            p.unlink()
        log.info("moved the damaged database %s to %s", path, moved)
        return moved

    @staticmethod
    def recovery_copies(path: str | Path) -> list[Path]:
        """The files ``recover`` left beside ``path`` (they hold the user's data too)."""
        path = user_path(path, "preference database path")
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
        emb = unit(_vector(embedding))
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
        _check_size(cois, emb, model)
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

    def forget_document(self, doc_id: str) -> int:
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
            # a store read-only from before version 4 has no left_out table
            kept = (
                "AND id NOT IN (SELECT event FROM left_out WHERE model = ? AND rule = ?)"
                if self._has("left_out")
                else ""
            )
            return self._db.execute(
                f"SELECT id, text FROM feedback WHERE model != ? {kept} ORDER BY id",
                (model, model, rule) if kept else (model,),
            ).fetchall()

    def leave_out(self, model: str, rule: str, events: list[int]) -> None:
        """Record that ``model`` keeps ``events`` out of its interests by ``rule``; they stay stored as they are."""
        with self._write():
            # only events still stored: one forgotten meanwhile (another process) leaves no row behind
            self._db.executemany(
                "INSERT OR IGNORE INTO left_out SELECT ?, ?, id FROM feedback WHERE id = ?",
                [(model, rule, e) for e in events],
            )

    def _has(self, table: str) -> bool:
        """Whether the store has ``table``: a store opened read-only keeps the schema it was written with."""
        return self._db.execute("SELECT 1 FROM sqlite_master WHERE name=?", (table,)).fetchone() is not None

    def move_to_model(self, model: str, events: list[int], vectors: np.ndarray) -> None:
        """Give ``events`` their vectors in ``model``'s space and rebuild the interests: after a model update the
        user's likes count again instead of starting cold. Dwell time moves with them: an old interest's time goes
        to the new interest closest to the like that was closest to it, the same document in the new space."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(events):
            raise EdgeRankerError(f"move_to_model needs one vector per event: {len(events)} events, {vectors.shape}")
        new_vector = {i: unit(v) for i, v in zip(events, vectors)}
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
        self._db.execute("DELETE FROM interests")
        self._db.executemany(
            "INSERT INTO interests (positive, point, view_count, view_time, last_view, model) VALUES (?,?,?,?,?,?)",
            self._replayed(),
        )
        liked: dict[str, tuple[list[CoI], np.ndarray | None]] = {}  # per model, the points stacked once
        for model, point, seconds in dwell:  # dwell time whose interest is gone (no close one left) goes with it
            if model not in liked:
                cois = self._interests(model, True)
                liked[model] = (cois, np.stack([c.point for c in cois]) if cois else None)
            cois, points = liked[model]
            j, sim = closest(cois, np.frombuffer(point, dtype=np.float32), points)
            if j >= 0 and sim >= self.config.threshold:
                self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[j].id))

    def _replayed(self) -> list[tuple]:
        """The interests' rows that replaying every stored reaction gives, in the order they were created, so their
        ids are those of one insert per reaction. In memory: reading the interests back from SQLite for each
        reaction is quadratic (3,000 likes: 41 s against 3.6 s)."""
        events = self._db.execute("SELECT embedding, reaction, ts, model FROM feedback ORDER BY id").fetchall()
        vectors = ((np.frombuffer(e, dtype=np.float32), r, ts, m) for e, r, ts, m in events)
        built, created = _replay(vectors, self.config)
        rows = []
        for model, positive, j in created:
            c = built[(model, positive)][j]
            rows.append((int(positive), c.point.tobytes(), c.view_count, c.view_time, c.last_view, model))
        return rows

    def add_view_time(self, embedding: np.ndarray, seconds: float, model: str) -> None:
        """Dwell time counts towards the closest positive interest."""
        check_view_time(seconds)
        emb = unit(_vector(embedding))
        with self._write():
            cois = self._interests(model, True)
            _check_size(cois, emb, model)
            i, _ = closest(cois, emb)
            if i >= 0:
                self._db.execute("UPDATE interests SET view_time = view_time + ? WHERE id=?", (seconds, cois[i].id))

    def forget(self) -> list[Path]:
        """Delete everything the user stored ("forget me"), with the copies ``recover`` left; returns those copies.

        The rows are deleted and overwritten, the file rebuilt without them and the WAL emptied. While another
        process holds a read transaction the old pages cannot leave the files: ``forget`` waits up to
        ``FORGET_WAIT_S`` for it, then raises, saying that copies remain, rather than report a deletion that
        did not happen. Calling it again when the other process is done finishes the job.
        """
        with self._write():
            for table in ("left_out", "feedback", "interests", "vectors"):  # left_out first: no trigger work
                self._db.execute(f"DELETE FROM {table}")
        with self._read():
            self._db.execute(f"PRAGMA busy_timeout={int(FORGET_WAIT_S * 1000)}")
            try:
                self._until_unlocked(lambda: self._db.execute("VACUUM"), FORGET_WAIT_S)
                busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            finally:
                self._db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        wal = Path(str(self.path) + "-wal")
        if busy or (wal.exists() and wal.stat().st_size):
            raise EdgeRankerError(
                f"the feedback and interests in {self.path} are deleted, but another process still reads the "
                "database, so old copies of them remain in its files; close the other apps that use it and run "
                "`edge-ranker prefs forget` (PreferenceStore.forget) again"
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
                found.update((h, np.frombuffer(v, dtype=np.float32)) for h, v in rows if _floats(v))
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
                self._db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")

    # --- reads --------------------------------------------------------------------------------
    def _interests(self, model: str, positive: bool) -> list[CoI]:
        rows = self._db.execute(
            "SELECT id, point, view_count, MIN(view_time, ?), last_view FROM interests WHERE model=? AND positive=? "
            "ORDER BY id",
            (VIEW_TIME_CAP, model, int(positive)),
        ).fetchall()
        return [CoI(r[0], positive, np.frombuffer(r[1], dtype=np.float32).copy(), r[2], r[3], r[4]) for r in rows]

    def interests(self, model: str) -> tuple[list[CoI], list[CoI]]:
        """The positive and negative centers of interest in ``model``'s vector space. Read again only after a
        write, by this store or (SQLite's ``data_version``) by another connection: ranking reads them every time."""
        with self._read():
            version = (self._writes, self._db.execute("PRAGMA data_version").fetchone()[0])
            cached = self._interest_cache.get(model)
            if cached is None or cached[0] != version:
                if model in self._moved:
                    cached = (version, self._replayed_with(model, self._moved[model]))
                else:
                    cached = (version, (self._interests(model, True), self._interests(model, False)))
                self._interest_cache[model] = cached
            return cached[1]

    def _replayed_with(self, model: str, moved: dict[int, np.ndarray]) -> tuple[list[CoI], list[CoI]]:
        """``model``'s positive and negative interests from replaying its reactions and the ``moved`` ones (a store
        this process cannot write), in the order they came, as a writable start rebuilds them but for dwell time,
        which stays in the store with the interests it was spent on."""
        events = self._db.execute("SELECT id, embedding, reaction, ts, model FROM feedback ORDER BY id").fetchall()
        vectors = (
            (moved[i] if i in moved else np.frombuffer(e, dtype=np.float32), r, ts, model)
            for i, e, r, ts, space in events
            if i in moved or space == model
        )
        built, _ = _replay(vectors, self.config)
        return built.get((model, True), []), built.get((model, False), [])

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
                "ORDER BY id",
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
            version = self._db.execute("PRAGMA user_version").fetchone()[0]  # a store read as it is has its own
            seen = (  # schema 1 has no vectors table, schemas before 4 no left_out table
                self._db.execute("SELECT model, role, text_hash, used FROM vectors ORDER BY used").fetchall()
                if self._has("vectors")
                else []
            )
            left = (
                self._db.execute("SELECT model, rule, event FROM left_out").fetchall() if self._has("left_out") else []
            )
        # cached document vectors are derived from documents the user was shown: listed by text hash, not copied
        vectors = [{"model": m, "role": r, "text_hash": h.hex(), "saved": u} for m, r, h, u in seen]
        return {
            "schema_version": version,
            "path": str(self.path),
            "feedback": feedback,
            "interests": interests,
            "document_vectors": vectors,
            "left_out": [{"model": m, "rule": r, "event": e} for m, r, e in left],
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
            if _is_sqlite(given):  # /proc/self/fd/N of a database
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
        if not straight and (target in ours or _is_sqlite(target)):
            raise EdgeRankerError(f"{target} is a SQLite database or one of its files; export to another file")
        data = (self.export_json() + "\n").encode("utf-8")
        kept = "; the earlier file there is unchanged" if not straight and target.exists() else ""
        try:
            if straight:
                with open(target, "wb") as fh:
                    fh.write(data)
            else:
                _replace(target, data)
        except OSError as exc:
            raise EdgeRankerError(f"cannot write {target}: {exc.strerror or exc}{kept}") from exc
        return target


def _replace(path: Path, data: bytes) -> None:
    """``path`` made to hold ``data`` (mode 0600) by a renamed temporary file, removed again on any failure."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    done = False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        done = True
    finally:
        if not done:
            with suppress(OSError):
                os.unlink(tmp)


def _is_sqlite(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as a SQLite database, WAL or rollback journal does (a pipe
    is never opened here: reading one would wait for a writer)."""
    if not path.is_file():
        return False
    try:
        head = _header(path)
    except OSError:
        return False
    return head == SQLITE_HEADER or head[:4] in WAL_MAGIC or head[:8] == JOURNAL_MAGIC


def user_path(path: object, what: str) -> Path:
    """A path an app or the CLI gave, as a ``Path`` with ``~`` expanded; anything else is refused in words."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise EdgeRankerError(f"the {what} must be a path (str or pathlib.Path), got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise EdgeRankerError(f"the {what} must be a non-empty path, got {text!r}")
    if "\0" in text:
        raise EdgeRankerError(f"the {what} holds a NUL character, which no file name can: {text!r}")
    if text == ":memory:":  # SQLite's name for a database in memory, which would become a file of that name here
        raise EdgeRankerError(
            f"the {what} is a file path, not a SQLite name ({text!r}): for a store that does not outlive the app, "
            "give a path in a temporary folder (tempfile.mkdtemp()) and PreferenceStore.forget() it"
        )
    try:
        return Path(text).expanduser()
    except RuntimeError as exc:  # ~user with no such user
        raise EdgeRankerError(f"cannot expand {text!r}: {exc}") from exc


def _check_size(cois: list[CoI], emb: np.ndarray, model: str) -> None:
    """A vector of another size than ``model``'s interests (another model's) is refused in words, not by numpy."""
    if cois and cois[0].point.size != emb.size:
        raise EdgeRankerError(
            f"a vector of {emb.size} numbers for interests of {cois[0].point.size} under {model!r}: embed it with "
            "that model (Ranker.interest_vectors)"
        )


def check_view_time(seconds: object) -> None:
    """One view's dwell time: seconds from 0 to ``MAX_VIEW_S``."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= MAX_VIEW_S:
        raise EdgeRankerError(f"view time must be from 0 to {MAX_VIEW_S:g} seconds (a day), got {seconds!r}")


def check_id(doc_id: object, blank_ok: bool = False) -> None:
    """A document id is an identity: a string of valid Unicode, not empty nor (``blank_ok`` aside, which lets an
    id stored before this check be forgotten) blank, refused (never altered) otherwise."""
    if not isinstance(doc_id, str) or not doc_id or (not blank_ok and not doc_id.strip()):
        raise EdgeRankerError(f"a document id must be a non-blank string, got {doc_id!r}")
    try:
        doc_id.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EdgeRankerError(f"document id {doc_id!r} is not valid Unicode (a lone surrogate?)") from exc


def _replay(
    events: Iterable[tuple[np.ndarray, str, float, str]], config: CoIConfig
) -> tuple[dict[tuple[str, bool], list[CoI]], list[tuple[str, bool, int]]]:
    """Reactions (vector, reaction, time, model) replayed in order into interests per (model, liked); with, in the
    order they were created, where each interest is in its list."""
    built: dict[tuple[str, bool], list[CoI]] = {}
    created: list[tuple[str, bool, int]] = []
    for vector, reaction, ts, model in events:
        positive = reaction == "like"
        cois = built.setdefault((model, positive), [])
        _check_size(cois, vector, model)
        moved = react(cois, vector, positive, ts, config)
        if moved is None:
            created.append((model, positive, len(cois)))
            cois.append(CoI(len(cois), positive, vector, 1, 0.0, ts))
        else:
            cois[moved.id] = moved
    return built, created


def _statements(script: str) -> list[str]:
    """A migration's SQL statements, each whole: a trigger's body holds semicolons of its own."""
    out: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.replace(";", "").strip():
                out.append(pending)
            pending = ""
    return out


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that changes nothing. In a folder this process can write, an ordinary one held to reading
    (``query_only``): it removes the WAL files it makes when it closes, where a ``mode=ro`` one would leave them.
    Elsewhere ``mode=ro``; a WAL database there opens only as immutable (no shared-memory file can be made beside
    it), which is safe when it has no write-ahead log, which an immutable read would skip, and refused with what to
    do when it has one."""
    if os.access(path.absolute().parent, os.W_OK):
        con = _connect(path.absolute())
        con.execute("PRAGMA query_only=ON")
        return con
    uri = path.absolute().as_uri()
    try:
        return _connect_reading(f"{uri}?mode=ro")
    except sqlite3.OperationalError:
        pass  # no shared-memory file could be made: immutable, if no log would be skipped
    wal = Path(f"{path}-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise EdgeRankerError(
            f"preference database {path} has recent changes in {wal.name}, which can be read only where a file can "
            f"be made beside it: copy {path.name} and {wal.name} to a writable folder and read them there"
        )
    return _connect_reading(f"{uri}?mode=ro&immutable=1")


def _connect(database: Path | str, uri: bool = False) -> sqlite3.Connection:
    """The store's connection: shared by its threads under its lock, waiting for other processes' locks, and in
    autocommit mode, its transactions begun explicitly."""
    return sqlite3.connect(database, uri=uri, check_same_thread=False, timeout=BUSY_TIMEOUT_S, isolation_level=None)


def _connect_reading(uri: str) -> sqlite3.Connection:
    """A connection to ``uri`` that has read the schema once, so a file it cannot read fails here."""
    con = _connect(uri, uri=True)
    try:
        con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        con.close()
        raise
    return con


def _inspect(path: Path) -> None:
    """Look at an existing file read-only before opening it for writing: a damaged file or another application's
    database is refused untouched (closing a read-write connection would write the WAL into a damaged file, and
    opening one switches the file to WAL). Any other trouble is left to the read-write open to name."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        con = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error:
        return
    try:
        ok = con.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise describe(f"database disk image is malformed: {ok}", path)
        app = con.execute("PRAGMA application_id").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        damaged = _damaged_rows(con, tables)
    except sqlite3.Error as exc:
        error = describe(exc, path)
        if isinstance(error, (CorruptedDatabase, LockedDatabase)):  # locked: said after one wait, not after three
            raise error from exc
        return
    finally:
        con.close()
    legacy = app == 0 and ((version == 0 and not tables) or {"feedback", "interests"} <= tables)
    if app != APPLICATION_ID and not legacy:
        raise EdgeRankerError(
            f"{path} is another application's SQLite database, not an edge-ranker preference store; give another path"
        )
    if damaged:
        raise CorruptedDatabase(
            f"preference database {path} is corrupted: {damaged}, which SQLite's own check does not see. Nothing "
            f"was changed. To start fresh and keep the damaged file for inspection: `edge-ranker prefs recover --db "
            f"{path}` (PreferenceStore.recover)"
        )


# Rows no edge-ranker writes: a vector that is no whole number of float32s, or a value of another type than its
# column's (SQLite keeps what it is given), per table; each would fail deep in a read instead of at the open.
DAMAGE = {
    "feedback": "typeof(embedding) != 'blob' OR length(embedding) = 0 OR length(embedding) % 4 != 0 "
    "OR typeof(ts) NOT IN ('real', 'integer') OR typeof(text) NOT IN ('text', 'null') OR typeof(doc_id) != 'text'",
    "interests": "typeof(point) != 'blob' OR length(point) = 0 OR length(point) % 4 != 0 "
    "OR typeof(view_count) != 'integer' OR typeof(view_time) NOT IN ('real', 'integer') "
    "OR typeof(last_view) NOT IN ('real', 'integer')",
}  # not the document vectors: up to 100,000 rows to read at each open, and a cache whose damaged rows are recomputed


def _vector(embedding: object) -> np.ndarray:
    """An embedding given to the store, as a flat float32 array; what is not numbers is refused in words."""
    try:
        return np.asarray(embedding, dtype=np.float32).reshape(-1)
    except (TypeError, ValueError, OverflowError) as exc:
        raise EdgeRankerError(f"an embedding must be an array of numbers, got {type(embedding).__name__}") from exc


def _floats(value: object) -> bool:
    """Whether a stored value can be a vector: bytes of a whole number of float32s."""
    return isinstance(value, bytes) and len(value) > 0 and len(value) % 4 == 0


def _damaged_rows(con: sqlite3.Connection, tables: set[str]) -> str:
    """Which of the store's tables hold rows it never writes (``DAMAGE``), as words; empty when none do."""
    found = []
    for table, where in DAMAGE.items():
        if table in tables:
            n = con.execute(f"SELECT COUNT(*) FROM {table} WHERE {where}").fetchone()[0]  # noqa: S608 - constants
            if n:
                found.append(f"{n} damaged row{'s' if n > 1 else ''} in {table}")
    return ", ".join(found)


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


def _copy_new(src: Path, dst: Path) -> None:
    """Make ``dst`` a copy of ``src`` without ever replacing an existing ``dst`` (FileExistsError): a hard link
    where the file system has them, else a byte copy into a newly created file."""
    try:
        os.link(src, dst)
    except FileExistsError:
        raise
    except OSError:
        fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(src, "rb") as fi, os.fdopen(fd, "wb") as fo:
            shutil.copyfileobj(fi, fo)
            fo.flush()
            os.fsync(fo.fileno())
