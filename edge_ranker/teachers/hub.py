"""Any sentence-transformers model id or folder as a teacher (users with a model hub; tests use a folder)."""

from __future__ import annotations

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.teachers.base import Role, check_role


class SentenceTransformerTeacher:
    """Wraps ``SentenceTransformer``; optional role prefixes for asymmetric models (e5: ``query: ``)."""

    def __init__(
        self, model: str, query_prefix: str = "", passage_prefix: str = "", batch_size: int = 64, device: str = "cpu"
    ) -> None:
        from sentence_transformers import SentenceTransformer

        try:
            self._model = SentenceTransformer(model, device=device)
        except (OSError, ValueError, KeyError) as exc:  # no such id or folder, or one that holds no model
            said = " ".join(str(exc).split())[:200]
            raise EdgeRankerError(f"cannot load the teacher {model!r} (a sentence-transformers model): {said}") from exc
        self.name = model.rstrip("/").replace("\\", "/")
        # renamed in sentence-transformers 5.x; the old name still works (with a warning) on older versions
        dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim())
        self.prefixes = {"query": query_prefix, "passage": passage_prefix}
        self.batch_size = batch_size

    def encode(self, texts: list[str], role: Role = "passage") -> np.ndarray:
        check_role(role)
        prefix = self.prefixes[role]
        out = self._model.encode(
            [prefix + t for t in texts], batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True
        )
        return np.asarray(out, dtype=np.float32)
