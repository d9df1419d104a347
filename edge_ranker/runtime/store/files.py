"""The preference store's files on disk: the path checked (and a missing folder made private), which database files
this process holds open, so that no read drops SQLite's locks, and writes and copies that never leave half a file."""

from __future__ import annotations

import collections
import glob
import logging
import os
import shutil
import sqlite3
import stat
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Protocol

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.store.sqlite import (
    DB_FILE_SUFFIXES,
    JOURNAL_MAGIC,
    SQLITE_HEADER,
    WAL_MAGIC,
    CorruptedDatabase,
)

log = logging.getLogger("edge_ranker")


class Stored(Protocol):
    """What ``hold`` needs of a store: its file (a protocol, so that this module does not import the store's)."""

    path: Path


def default_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("edge-ranker")) / "preferences.sqlite"


def check_path(path: Path) -> None:
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


def file_identity(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path`` now (links followed); None where there is none or no inode."""
    try:
        return _identity(os.stat(path))
    except OSError:
        return None


def hold(store: Stored, box: list[sqlite3.Connection | None]) -> weakref.finalize:
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
    """Undo one ``hold``, its connection closed first."""
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


def held(path: Path) -> bool:
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
        open_now = list(_HELD)
    for base, file in open_now:
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
        return SQLITE_HEADER if held(path) else _head(path)


def _head(path: Path) -> bytes:
    """The first bytes of a regular file no store of this process holds open (the caller holds ``_HELD_LOCK``);
    nothing of anything else: opened without waiting, so a pipe put there meanwhile cannot block every store."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        return os.read(fd, len(SQLITE_HEADER)) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)


def writable_sidecars(path: Path) -> None:
    """SQLite's files beside a store the user can write, which the user owns, become writable by the user too. SQLite
    gives them the main file's mode when it makes them, so reading a store while it was read-only leaves them so, and
    every later write (``erase`` included) would be refused after the user made the store itself writable again."""
    if os.access(os.path.realpath(path), os.W_OK):
        for name, mode in _own_files(path, DB_FILE_SUFFIXES[1:]):
            if mode & 0o600 != 0o600:
                _set_mode(name, mode | 0o600, "writable")  # else left to SQLite to name, with what to do


def _make_private(path: Path) -> None:
    """Existing files of the store that the user owns lose their group and other permissions, as files the store
    creates have none: they hold what the user liked."""
    for name, mode in _own_files(path, DB_FILE_SUFFIXES):
        if mode & 0o077:
            _set_mode(name, mode & 0o700, "private to the user")  # one it cannot change (a read-only mount) is read


def _own_files(path: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, int]]:
    """The store's files (``path`` and each of ``suffixes`` after it, beside a link's target, where SQLite puts them)
    that are regular files the user owns, with their permission bits; a link beside the store is not followed."""
    if not hasattr(os, "geteuid"):
        return
    target = os.path.realpath(path)
    for name in (f"{target}{suffix}" for suffix in suffixes):
        try:
            st = os.lstat(name)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
            yield name, stat.S_IMODE(st.st_mode)


def _set_mode(name: str, mode: int, what: str) -> None:
    try:
        os.chmod(name, mode)
    except OSError:
        log.info("could not make %s %s", name, what)


def is_sqlite(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts as a SQLite database, WAL or rollback journal does (a pipe
    is never opened here: reading one would wait for a writer)."""
    if not path.is_file():
        return False
    try:
        head = _header(path)
    except OSError:
        return False
    return head == SQLITE_HEADER or head[:4] in WAL_MAGIC or head[:8] == JOURNAL_MAGIC


def holds_nothing(path: Path) -> bool:
    """Whether no store is at ``path``: nothing there, or an empty file (created, never written: a first open that
    failed), which only a write would make a store of."""
    return not path.exists() or path.is_file() and path.stat().st_size == 0


def user_path(path: object, what: str, database: bool = False) -> Path:
    """A path an app or the CLI gave, as a ``Path`` with ``~`` expanded; anything else is refused in words.
    ``database``: a store's path, where SQLite's own names (``:memory:``, ``file:`` URIs) would be misread."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise EdgeRankerError(f"the {what} must be a path (str or pathlib.Path), got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise EdgeRankerError(f"the {what} must be a non-empty path, got {text!r}")
    if "\0" in text:
        raise EdgeRankerError(f"the {what} holds a NUL character, which no file name can: {text!r}")
    if database and text == ":memory:":  # SQLite's name for a database in memory, a file of that name here
        raise EdgeRankerError(
            f"the {what} is a file path, not a SQLite name ({text!r}): a store that does not outlive the app is "
            "PreferenceStore(':memory:') (or Ranker.load(':memory:')), given as a string"
        )
    if database and text.startswith("file:"):  # SQLite's URI form, which would become folders named file: here
        raise EdgeRankerError(
            f"the {what} is a file path, not a SQLite URI ({text!r}): give the path alone; a store read without "
            "being changed is PreferenceStore(path, read_only=True)"
        )
    try:
        return Path(text).expanduser()
    except RuntimeError as exc:  # ~user with no such user
        raise EdgeRankerError(f"cannot expand {text!r}: {exc}") from exc


def copy_new(src: Path, dst: Path) -> None:
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


def move_aside(path: Path) -> Path:
    """A database and its WAL and shared-memory files moved to a new, never reused name beside it (``aside``); returns
    where the main file went. Every file is linked under its new name before any original is removed, the WAL
    before the main file, so a kill at any point loses no committed row."""
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
    return moved


def aside(path: Path) -> list[Path]:
    """The copies ``move_aside`` left beside ``path``."""
    return sorted(path.parent.glob(f"{glob.escape(path.name)}.corrupt-*"))
