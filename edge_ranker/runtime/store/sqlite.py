"""What the preference store asks of SQLite: the schema, the connections it opens, a file looked
at read-only before a connection may write to it, and SQLite's errors said in words the user can act on."""

from __future__ import annotations

import functools
import os
import re
import sqlite3
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError

# Reactions (feedback: the likes and dislikes, in the order they came) are the truth, with the implicit signals
# (signals: each showing and view of a document, with its vector, spec/rules/implicit.md); interests are rebuilt
# from the reactions (a model with signals replays them in memory beside them, weighted); vectors is a cache of
# document vectors kept across processes (erase deletes it, nothing else reads it); left_out holds the reactions a
# model key left out of its interests by a rule (texts its models cannot learn from), so that each start does not
# look at them again, and its rows go with their reaction whatever deletes it.
SCHEMA = """
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
CREATE TABLE vectors (
    model TEXT NOT NULL,
    role TEXT NOT NULL,
    text_hash BLOB NOT NULL,
    vector BLOB NOT NULL,
    used REAL NOT NULL,
    UNIQUE (model, role, text_hash)
);
CREATE INDEX vectors_used ON vectors(used);
CREATE TABLE left_out (
    model TEXT NOT NULL,
    rule TEXT NOT NULL,
    event INTEGER NOT NULL,
    PRIMARY KEY (model, rule, event)
) WITHOUT ROWID;
CREATE INDEX left_out_event ON left_out(event);
CREATE TRIGGER left_out_follows_feedback AFTER DELETE ON feedback BEGIN
    DELETE FROM left_out WHERE event = old.id;
END;
"""
# What each schema version adds to the one before: a store of an older version is migrated at its first writable open
MIGRATIONS = {
    2: """
CREATE TABLE signals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id TEXT NOT NULL,
    text TEXT,
    embedding BLOB NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('shown', 'view')),
    seconds REAL NOT NULL,
    ts REAL NOT NULL,
    model TEXT NOT NULL
);
CREATE INDEX signals_doc ON signals(doc_id);
""",
}
SCHEMA = SCHEMA + "".join(MIGRATIONS.values())  # what a new store is created with
VIEW_TIME_CAP = 1e300  # dwell time is read back at most this: a store may hold infinity, which makes scores NaN
SCHEMA_VERSION = max(MIGRATIONS)  # PRAGMA user_version of a store with SCHEMA; an older one migrates from it

UNDECODED_TEXT = re.compile(r" with text .*", re.DOTALL)  # what follows the column's name in SQLite's message
TEMPORARY = re.compile(r"^\s*CREATE (TABLE|TRIGGER)\b")  # a schema statement, made temporary by shadow_schema
BUSY_TIMEOUT_S = 30.0  # how long a write waits for another process's transaction
SQLITE_HEADER = b"SQLite format 3\x00"
APPLICATION_ID = 0x45524B52  # "ERKR" in the file header: this file is an edge-ranker preference store
DB_FILE_SUFFIXES = ("", "-wal", "-shm", "-journal")  # the database file and SQLite's files beside it
WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")  # a WAL file's first bytes (sqlite.org/fileformat.html)
JOURNAL_MAGIC = b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7"  # a rollback journal's


class CorruptedDatabase(EdgeRankerError):
    """SQLite itself reports the file as damaged (not a database, malformed, failed integrity check)."""


class LockedDatabase(EdgeRankerError):
    """Another process held the store's lock for longer than ``BUSY_TIMEOUT_S``."""


def describe(exc: sqlite3.Error | str, path: Path) -> EdgeRankerError:
    """What went wrong, in words the user can act on. Only SQLite's own corruption codes say "corrupted"."""
    code = getattr(exc, "sqlite_errorname", "") or ""  # Python 3.11+; the messages below cover 3.10
    msg = UNDECODED_TEXT.sub("", str(exc))  # SQLite quotes the text it could not decode: the user's, maybe a line
    damaged_text = "decode to UTF-8" in msg  # a text SQLite hands over that is not UTF-8: a damaged name or value
    if (
        code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
        or "malformed" in msg
        or "not a database" in msg
        or damaged_text
    ):
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


def statements(script: str) -> list[str]:
    """A script's SQL statements, each whole: a trigger's body holds semicolons of its own."""
    out: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.replace(";", "").strip():
                out.append(pending)
            pending = ""
    return out


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that changes nothing. In a folder this process can write, an ordinary one held to reading
    (``query_only``): it removes the WAL files it makes when it closes, where a ``mode=ro`` one would leave them.
    Elsewhere, or where that one cannot start (a full disk has no room for the shared-memory file), ``mode=ro``; a WAL
    database there opens only as immutable (no shared-memory file can be made beside it), which is safe when it has
    no write-ahead log, which an immutable read would skip, and refused with what to do when it has one. A store
    still being created (no schema yet) reads as empty."""
    if os.access(path.absolute().parent, os.W_OK):
        con = connect(path.absolute())
        try:
            con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return shadow_schema(con, query_only=True)
        except sqlite3.OperationalError as exc:
            con.close()
            if not str(exc).startswith(("disk I/O error", "database or disk is full", "unable to open")):
                raise
    # held to reading too: the temporary tables a store being created or of an older schema reads through would
    # take a write, acknowledged and lost at the close
    return shadow_schema(_read_only_uri(path), query_only=True)


def shadow_schema(con: sqlite3.Connection, query_only: bool = False) -> sqlite3.Connection:
    """``con`` to a store that a first open is still creating (schema version 0, no table yet), with the schema as
    empty temporary tables, which reads find first: it reads as the empty store it is about to be."""
    if (
        con.execute("PRAGMA user_version").fetchone()[0] == 0
        and not con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
    ):
        for stmt in statements(SCHEMA):
            con.execute(TEMPORARY.sub(r"CREATE TEMP \1", stmt, count=1))
    else:  # an older version, read as it is: what later versions add reads as empty (a writable open migrates)
        for stmt in statements(schema_since(con.execute("PRAGMA user_version").fetchone()[0])):
            if TEMPORARY.match(stmt):
                con.execute(TEMPORARY.sub(r"CREATE TEMP \1", stmt, count=1))
    if query_only:
        con.execute("PRAGMA query_only=ON")
    return con


def _read_only_uri(path: Path) -> sqlite3.Connection:
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


def connect(database: Path | str, uri: bool = False) -> sqlite3.Connection:
    """The store's connection: shared by its threads under its lock, waiting for other processes' locks, and in
    autocommit mode, its transactions begun explicitly."""
    con = sqlite3.connect(database, uri=uri, check_same_thread=False, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    return with_functions(con)


def with_functions(con: sqlite3.Connection) -> sqlite3.Connection:
    """``con`` with the SQL function ``DAMAGE`` calls."""
    con.create_function("finite_floats", 1, finite_floats, deterministic=True)
    con.create_function("utf8", 1, utf8, deterministic=True)
    return con


def utf8(value: object) -> int:
    """SQL ``utf8(CAST(x AS BLOB))``: 1 where ``x`` is NULL or text SQLite can hand over (valid UTF-8); a damaged
    byte in a reaction's text fails every read of it."""
    if value is None:
        return 1
    try:
        bytes(value).decode("utf-8")
    except (UnicodeDecodeError, TypeError):
        return 0
    return 1


def whole_floats(value: object) -> bool:
    """Whether a stored value can be a vector: bytes of a whole number of float32s (``floats`` in SQL)."""
    return isinstance(value, bytes) and len(value) > 0 and len(value) % 4 == 0


def finite_floats(value: object) -> int:
    """SQL ``finite_floats(x)``: 1 where ``x`` is bytes of float32s that are all finite numbers. A NaN or an infinity
    in a stored vector makes every score it touches NaN, and SQL has no way to see one."""
    return int(whole_floats(value) and bool(np.isfinite(np.frombuffer(value, np.float32)).all()))


def _connect_reading(uri: str) -> sqlite3.Connection:
    """A connection to ``uri`` that has read the schema once, so a file it cannot read fails here."""
    con = connect(uri, uri=True)
    try:
        con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        con.close()
        raise
    return con


def inspect_file(path: Path) -> int | None:
    """Look at an existing file read-only before opening it for writing: a damaged file or another application's
    database is refused untouched (closing a read-write connection would write the WAL into a damaged file, and
    opening one switches the file to WAL). Any other trouble is left to the read-write open to name. Returns how many
    rows of the ``DERIVED`` table are damaged (the reactions rebuild it, so they are no reason to refuse the store),
    None where it could not look (a WAL store in a folder it cannot write)."""
    if not path.is_file() or path.stat().st_size == 0:
        return 0
    try:
        con = with_functions(sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S))
    except sqlite3.Error:
        return None
    try:
        con.execute("BEGIN")  # one snapshot for every read below: another process may create the store between two
        ok = con.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise describe(f"database disk image is malformed: {ok}", path)
        app = con.execute("PRAGMA application_id").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        creating = app == 0 and version == 0 and not tables  # another process's first open, between its two steps
        if app != APPLICATION_ID and not creating:
            raise EdgeRankerError(
                f"{path} is another application's SQLite database, not an edge-ranker preference store; give "
                "another path"
            )
        if not creating:
            check_schema(con, path)
        damaged = damaged_rows(con, tables)
    except sqlite3.Error as exc:
        error = describe(exc, path)
        if isinstance(error, (CorruptedDatabase, LockedDatabase)):  # locked: said after one wait, not after three
            raise error from exc
        return None
    except UnicodeDecodeError as exc:  # a damaged name in the schema, which SQLite hands over as it is
        raise damaged_store(path, f"its schema holds text that is not UTF-8 ({exc.reason})") from exc
    finally:
        con.close()
    return refuse_damage(path, damaged)


def schema_since(version: int) -> str:
    """The statements that migrate a store of schema ``version`` to ``SCHEMA_VERSION``."""
    return "".join(script for v, script in sorted(MIGRATIONS.items()) if v > version)


@functools.cache
def expected_schema(version: int = SCHEMA_VERSION) -> dict[str, tuple]:
    """``schema_of`` a store this edge-ranker creates, or of an older ``version`` it migrates."""
    con = sqlite3.connect(":memory:")
    try:
        later = {s.strip() for s in statements(schema_since(version))}
        for stmt in statements(SCHEMA):
            if stmt.strip() not in later:
                con.execute(stmt)
        return schema_of(con)
    finally:
        con.close()


def schema_of(con: sqlite3.Connection) -> dict[str, tuple]:
    """Each table's columns (name, type, not null, primary key) and each index's and trigger's kind, by name."""
    out: dict[str, tuple] = {}
    for kind, name in con.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall():
        columns = (
            con.execute('SELECT name, type, "notnull", pk FROM pragma_table_info(?)', (name,)).fetchall()
            if kind == "table"
            else []
        )
        out[name] = (kind, *columns)
    return out


def check_schema(con: sqlite3.Connection, path: Path) -> None:
    """Refuse, as damage ``recover`` moves aside, a store whose schema this edge-ranker did not write: a table,
    column, index or trigger gone or changed, or its schema version lost (every read would fail on a raw SQLite
    line, and a write would try to create tables that are there). A newer schema is left to the version check."""
    version = con.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION or not con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
        return  # newer, or a first open still creating it
    if version == 0:
        raise damaged_store(path, "its schema version is lost (PRAGMA user_version is 0 in a store that has tables)")
    want, have = expected_schema(version), schema_of(con)
    wrong = [
        f"{want[name][0]} {name} is {'changed' if name in have else 'missing'}"
        for name in want
        if have.get(name) != want[name]
    ]
    if wrong:
        raise damaged_store(path, ", ".join(wrong))


def refuse_damage(path: Path, damaged: dict[str, int]) -> int:
    """``damaged_rows``' count for the ``DERIVED`` table; damage in any other table is refused as corruption."""
    primary = [f"{rows(n)} damaged in {table}" for table, n in damaged.items() if table != DERIVED]
    if primary:
        raise damaged_store(path, ", ".join(primary))
    return damaged.get(DERIVED, 0)


def rows(n: int) -> str:
    """``n`` rows, in words."""
    return f"{n} row{'s' if n != 1 else ''}"


def damaged_store(path: Path, what: str) -> CorruptedDatabase:
    """The error for a store whose rows SQLite's own check passes but the store cannot use: ``what`` says which."""
    return CorruptedDatabase(
        f"preference database {path} is corrupted: {what}, which SQLite's own check does not see. Nothing was "
        f"changed. To start fresh and keep the damaged file for inspection: `edge-ranker prefs recover --db {path}` "
        "(PreferenceStore.recover)"
    )


# Rows no edge-ranker writes: a vector that is no whole number of float32s, or a value of another type than its
# column's (SQLite keeps what it is given), per table; each would fail deep in a read instead of being named at the
# open. An interest point must also hold finite numbers (a NaN makes every score it touches NaN) and be the size of
# its model's newest whole interest (ranking's matrix product would fail), each model's found once per statement;
# the few interests are read whole for it. The reactions are not read at each open (50,000 of them take a fifth of a
# second): the store writes no vector that is not finite, a replay (``store._replay``) checks each, and ``recover``
# looks at all of them.
def floats(column: str) -> str:
    """SQL: ``column`` holds a vector, a whole number of float32s."""
    return f"typeof({column}) = 'blob' AND length({column}) > 0 AND length({column}) % 4 = 0"


def newest_sizes(table: str, column: str, where: str = "1") -> str:
    """SQL: a table of each model's (``of``) newest row's ``column`` length (``size``) among ``table``'s rows
    ``where`` holds for; computed once per statement, as a lookup per row of another table would be quadratic."""
    return f"(SELECT model AS of, length({column}) AS size, max(id) FROM {table} WHERE {where} GROUP BY model)"


DAMAGE = {
    "feedback": f"NOT ({floats('embedding')}) "
    "OR typeof(ts) NOT IN ('real', 'integer') OR typeof(text) NOT IN ('text', 'null') OR typeof(doc_id) != 'text'",
    "signals": f"NOT ({floats('embedding')}) OR typeof(seconds) NOT IN ('real', 'integer') "
    "OR typeof(ts) NOT IN ('real', 'integer') OR typeof(text) NOT IN ('text', 'null') OR typeof(doc_id) != 'text'",
    "interests": f"NOT ({floats('point')}) OR NOT finite_floats(point) "
    f"OR length(point) != coalesce((SELECT size FROM {newest_sizes('interests', 'point', floats('point'))} "
    "WHERE of = interests.model), length(point)) "
    "OR typeof(view_count) != 'integer' OR typeof(view_time) NOT IN ('real', 'integer') "
    "OR typeof(last_view) NOT IN ('real', 'integer')",
}  # not the document vectors: up to 100,000 rows to read at each open, and a cache whose damaged rows are recomputed
DERIVED = "interests"  # the table the reactions rebuild (``rebuild.rebuild``)


def damaged_rows(con: sqlite3.Connection, tables: set[str] | None = None) -> dict[str, int]:
    """How many rows it never writes (``DAMAGE``) each of the store's ``tables`` (default: those it has) holds, for
    those that hold any."""
    if tables is None:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    found = {}
    for table, where in DAMAGE.items():
        if table in tables:
            n = con.execute(f"SELECT COUNT(*) FROM {table} WHERE {where}").fetchone()[0]  # noqa: S608 - constants
            if n:
                found[table] = n
    return found
