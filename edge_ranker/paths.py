"""Where the data sets and the teacher cache live, and how a file is written whole or not at all: one rule for the
CLI, the library and the scripts."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from edge_ranker.errors import EdgeRankerError

DATA_HELP = "the data folder (default $EDGE_RANKER_DATA; one of the two is required)"


def data_root(arg: str | None) -> Path:
    """The data folder the user named: a default path would mean nothing outside this project's machines."""
    root = arg or os.environ.get("EDGE_RANKER_DATA")
    if not root:
        raise EdgeRankerError("this command reads data sets: give their folder with --data DIR or EDGE_RANKER_DATA")
    return Path(root)


def cache_root(arg: str | None) -> Path:
    """The teacher embedding cache: ``arg``, else $EDGE_RANKER_CACHE, else the user cache folder. A file in its place
    is refused here, before a teacher loads, not by the first write."""
    if arg:
        folder = Path(arg).expanduser()
    elif os.environ.get("EDGE_RANKER_CACHE"):
        folder = Path(os.environ["EDGE_RANKER_CACHE"]).expanduser()
    else:
        from platformdirs import user_cache_dir

        folder = Path(user_cache_dir("edge-ranker")) / "teachers"
    if folder.exists() and not folder.is_dir():
        raise EdgeRankerError(f"the teacher cache {folder} is a file, not a folder: give another --cache")
    return folder


def output_folder(path: str | Path, what: str, overwrite: bool = False) -> Path:
    """The folder a command will write ``what`` to, checked before any work (a student or a model can cost an hour):
    a path that cannot take it is refused first, and a folder that already holds files is written over only when the
    user says so (``overwrite``). Nothing is made here, so a command that fails leaves no empty folder behind."""
    text = str(path)
    if not text.strip():
        raise EdgeRankerError(f"the folder for the {what} is empty: give a path")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise EdgeRankerError(f"the folder for the {what}, {text!r}, is not valid UTF-8: give another name") from None
    folder = Path(text).expanduser()
    if folder.exists() and not folder.is_dir():
        raise EdgeRankerError(f"{folder} is a file, not a folder for the {what}")
    if folder.is_dir() and any(folder.iterdir()) and not overwrite:
        raise EdgeRankerError(
            f"{folder} already holds files: give a new folder for the {what}, or --overwrite to write over them"
        )
    existing = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        raise EdgeRankerError(f"cannot make the folder {folder} for the {what}: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise EdgeRankerError(f"cannot write the {what} to {folder}: {existing} is not writable")
    return folder


def write_files(files: dict[Path, bytes], mode: int = 0o666) -> None:
    """Each of ``files`` written whole or not at all: each goes to a hidden partial file beside it (created with
    ``mode``, less the umask; 0o600 keeps it private), flushed to disk, and only once all are written are they renamed
    over their names, so a failure while writing (a full disk) changes none of them; the partial files go either way.
    The one way edge-ranker writes a file a user keeps: a store's export, a report, a vocabulary."""
    partial = {final: final.with_name(f".{final.name}.{secrets.token_hex(4)}.partial") for final in files}
    try:
        for final, data in files.items():
            fd = os.open(partial[final], os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for final in files:
            os.replace(partial[final], final)
    finally:
        for path in partial.values():
            path.unlink(missing_ok=True)
