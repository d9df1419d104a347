"""Ranking's matrix products on one thread: numpy's BLAS starts a thread per core for each product, and the
products of a ranking are small (a feed's vectors against a few dozen interests, a window of 300 for the fold),
where waking and joining threads costs more than the arithmetic. On a busy 2-core machine ranking 1,000 cached
documents took 22 ms with two BLAS threads and 3 ms with one (bench/scripts/benchmarks/cached_ranking.py). The limit
holds inside ``Ranker.rank`` only; the app's own numpy keeps its threads.

BLAS's thread count is the process's, not a thread's: ranks that overlap on several threads share one limit, set
when the first starts and lifted, to what it was before it, when the last ends. Each rank limiting and restoring
on its own left BLAS at one thread for good: the second saved the first's limit as the original, and restored it
last."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import threadpoolctl
from threadpoolctl import ThreadpoolController

_controller: ThreadpoolController | None = None
_lock = threading.Lock()
_limit = None  # the limit while any rank runs (threadpoolctl's limiter, which knows what to restore)
_ranks = 0  # the ranks running under it


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A context in which numpy's BLAS uses one thread (the libraries loaded are looked up once)."""
    global _controller, _limit, _ranks
    with _lock:
        if _controller is None:
            _controller = ThreadpoolController()
        if _ranks == 0:
            _limit = _controller.limit(limits=1, user_api="blas")
        _ranks += 1
    try:
        yield
    finally:
        with _lock:
            _ranks -= 1
            if _ranks == 0:
                _lift(_limit)
                _limit = None


def _lift(limit) -> None:
    """The thread counts as they were before ``limit``, set from whichever thread ends the last rank. threadpoolctl
    3.8 lets only one thread at a time set OpenBLAS's shared pool, the first that set it (here the first rank's),
    and has the others do nothing: that control is handed to this thread for the restore, then let go, as the end
    of a ``with threadpool_limits`` lets it go."""
    release = getattr(getattr(threadpoolctl, "OpenBLASController", None), "clear_controlling_thread", None)
    if release is not None:
        release(force=True)
    limit.restore_original_limits()
    if release is not None:
        release()
