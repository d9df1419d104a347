"""A store's export: everything it holds, as data the user can read, and the file it is written to."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import write_files
from edge_ranker.runtime.store.files import is_sqlite, user_path
from edge_ranker.runtime.store.sqlite import DAMAGE, DB_FILE_SUFFIXES, DERIVED, VIEW_TIME_CAP, damaged_rows

if TYPE_CHECKING:
    from edge_ranker.runtime.store.preferences import PreferenceStore


def everything(store: PreferenceStore) -> dict:
    """Everything a store holds, as JSON-ready data (vectors as lists): what ``prefs export`` writes."""
    with store._read():
        fb = store._db.execute("SELECT id, doc_id, text, embedding, reaction, ts, model FROM feedback ORDER BY id")
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
        sig = store._db.execute("SELECT id, doc_id, text, embedding, kind, seconds, ts, model FROM signals ORDER BY id")
        signals = [
            {
                "id": r[0],
                "doc_id": r[1],
                "text": r[2],
                "embedding": np.frombuffer(r[3], dtype=np.float32).tolist(),
                "kind": r[4],
                "seconds": r[5],
                "timestamp": r[6],
                "model": r[7],
            }
            for r in sig
        ]
        it = store._db.execute(
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
        damaged = damaged_rows(store._db, {DERIVED}).get(DERIVED, 0)
        version = store._db.execute("PRAGMA user_version").fetchone()[0]
        seen = store._db.execute("SELECT model, role, text_hash, used FROM vectors ORDER BY used").fetchall()
        left = store._db.execute("SELECT model, rule, event FROM left_out").fetchall()
    # cached document vectors are derived from documents the user was shown: listed by text hash, not copied
    vectors = [{"model": m, "role": r, "text_hash": h.hex(), "saved": u} for m, r, h, u in seen]
    return {
        "schema_version": version,
        "path": str(store.path),
        "feedback": feedback,
        "signals": signals,  # what the app showed and the user viewed (spec/rules/implicit.md)
        "interests": interests,
        "document_vectors": vectors,
        "left_out": [{"model": m, "rule": r, "event": e} for m, r, e in left],
        # rows of the interests left out above as damaged (a writable open rebuilds them from the reactions)
        "damaged_interests": damaged,
        # damaged earlier stores ``recover`` moved aside: the user's data too, which ``erase`` deletes
        "recovery_copies": [] if store.in_memory else [str(p) for p in store.recovery_copies(store.path)],
    }


def write_export(database: Path, text: str, path: str | Path) -> Path:
    """``text`` (a store's export) written to a new or replaced file readable by the user alone (0600). A regular file
    is written beside itself and renamed over once whole (a link is followed to it), so a full disk, a crash or
    Ctrl-C leaves an earlier export as it was; a pipe, a device or a /dev or /proc path (``/dev/stdout``) is written
    straight into. A SQLite file (a database, a WAL, a rollback journal, ``database``'s or another's) is refused: the
    export would replace its data."""
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
    ours = [Path(os.path.realpath(f"{database}{suffix}")) for suffix in DB_FILE_SUFFIXES]
    if not straight and (target in ours or is_sqlite(target)):
        raise EdgeRankerError(f"{target} is a SQLite database or one of its files; export to another file")
    data = (text + "\n").encode("utf-8")
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
