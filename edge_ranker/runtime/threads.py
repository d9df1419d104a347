"""Ranking's matrix products on one thread: numpy's BLAS starts a thread per core for each product, and the
products of a ranking are small (a feed's vectors against a few dozen interests, a window of 300 for the fold),
where waking and joining threads costs more than the arithmetic. On a busy 2-core machine ranking 1,000 cached
documents took 22 ms with two BLAS threads and 3 ms with one (bench/scripts/benchmarks/cached_ranking.py). The limit
holds inside ``Ranker.rank`` only; the app's own numpy keeps its threads."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager

from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None
_lock = threading.Lock()


def one_blas_thread() -> AbstractContextManager:
    """A context in which numpy's BLAS uses one thread (the libraries loaded are looked up once)."""
    global _controller
    with _lock:
        if _controller is None:
            _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")
