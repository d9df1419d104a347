"""``prefs export | erase | recover``: what is stored, all of it, and a damaged store moved aside."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from edge_ranker.cli.common import note, to_json
from edge_ranker.errors import EdgeRankerError

if TYPE_CHECKING:
    from edge_ranker.runtime.store import PreferenceStore


def cmd_prefs(a: argparse.Namespace) -> None:
    from edge_ranker.runtime.store import PreferenceStore

    if a.out is not None and a.prefs_command != "export":
        raise EdgeRankerError(f"--out is for export; {a.prefs_command} writes no file (export first to keep a copy)")
    if a.prefs_command == "recover":
        moved = PreferenceStore.recover(store_path(a.db))
        print(f"moved the damaged database to {moved}; a fresh one starts on next use")
        return
    if a.prefs_command == "erase":
        _erase(a.db)
        return
    store = existing_store(a.db, read_only=True)  # export, the one command left
    if a.out is not None and a.out != "-":
        note(f"wrote {store.export_to(a.out)}")  # stdout may be the export (/dev/stdout)
    else:
        print(to_json(store.export()))


def _erase(db: str | None) -> None:
    """Erase the store at ``db`` and the copies ``recover`` left beside it; copies alone (a store recovered and
    never used again) are the user's data too, so they go even when no database is there."""
    from edge_ranker.runtime.store import PreferenceStore
    from edge_ranker.runtime.store.files import holds_nothing

    path = store_path(db)
    if not holds_nothing(path) or not (copies := PreferenceStore.forget_recovery_copies(path)):
        with existing_store(db) as store:  # which says so when neither a database nor a copy is there
            copies = store.erase()
        print(f"deleted all feedback and interests in {path}")
    for c in copies:
        print(f"deleted the recovered copy {c}")


def store_path(db: str | None) -> Path:
    """The preference store's path: ``db``, else the user's default."""
    from edge_ranker.runtime.store.files import default_path, user_path

    return user_path(db, "preference database path", database=True) if db is not None else default_path()


def existing_store(db: str | None, read_only: bool = False) -> PreferenceStore:
    """The preference store at ``db`` (default: the user's), refusing to create one: reading or deleting a store
    that is not there should say so, not make an empty one. ``read_only``: opened without writing, so a store
    in a folder the user cannot write can still be exported."""
    from edge_ranker.runtime.store import PreferenceStore
    from edge_ranker.runtime.store.files import holds_nothing

    path = store_path(db)
    if holds_nothing(path):  # an empty file too, which opening would make a store of
        raise EdgeRankerError(f"no preference database at {path}: nothing is stored there")
    return PreferenceStore(path, read_only=read_only)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """prefs"""
    pr = sub.add_parser("prefs", help="export, erase or recover the stored preferences")
    pr.add_argument(
        "prefs_command",
        choices=["export", "erase", "recover"],
        help="export everything stored, erase it all, or move a corrupted database aside",
    )
    pr.add_argument("--db", help="preference database (default: the user data folder)")
    pr.add_argument("--out", help="export: write the JSON to this file (private to the user; '-': stdout)")
    pr.set_defaults(func=cmd_prefs)
