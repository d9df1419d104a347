"""Where the data sets and the teacher cache live: one rule for the CLI, the library and the scripts."""

from __future__ import annotations

import os
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
    """The teacher embedding cache: ``arg``, else $EDGE_RANKER_CACHE, else the user cache folder."""
    if arg:
        return Path(arg)
    if os.environ.get("EDGE_RANKER_CACHE"):
        return Path(os.environ["EDGE_RANKER_CACHE"])
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("edge-ranker")) / "teachers"
