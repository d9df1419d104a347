"""PCA reduction of teacher embeddings as an exact affine map, mean included.

The sentence-transformers recipe appends ``Dense(bias=False)`` and so skips centring; here
``transform(x) = (x - mean) @ components.T`` equals ``sklearn.decomposition.PCA.transform`` exactly.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError


@dataclass
class PCAMap:
    mean: np.ndarray  # (d_in,)
    components: np.ndarray  # (d_out, d_in)
    explained_variance_ratio: np.ndarray  # (d_out,)

    @property
    def weight(self) -> np.ndarray:
        return self.components

    @property
    def bias(self) -> np.ndarray:
        return -(self.components @ self.mean)

    @property
    def dim(self) -> int:
        return int(self.components.shape[0])

    def transform(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, dtype=np.float64) @ self.components.T.astype(np.float64) + self.bias).astype(np.float32)

    def save(self, path: str | Path) -> None:
        np.savez(path, mean=self.mean, components=self.components, evr=self.explained_variance_ratio)

    @classmethod
    def load(cls, path: str | Path) -> PCAMap:
        try:
            with np.load(path, allow_pickle=False) as z:
                return cls(z["mean"], z["components"], z["evr"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:  # empty, cut, pickled, no key
            raise EdgeRankerError(f"{path} is not a PCA map as distill writes it: {exc}") from exc


def fit_pca(embeddings: np.ndarray, dim: int, seed: int = 0) -> PCAMap:
    """Fit on teacher embeddings of a sample; ``dim`` must not exceed the teacher's dimension."""
    from sklearn.decomposition import PCA

    x = np.asarray(embeddings, dtype=np.float32)
    if x.ndim != 2 or x.shape[0] < 2:
        raise EdgeRankerError("PCA needs a 2-D array of at least 2 embeddings")
    if dim > min(x.shape):
        raise EdgeRankerError(
            f"PCA dimension {dim} exceeds min(texts, teacher_dim) = {min(x.shape)}: give more text or a lower --pca-dim"
        )
    pca = PCA(n_components=dim, svd_solver="full", random_state=seed).fit(x)
    return PCAMap(pca.mean_.astype(np.float32), pca.components_.astype(np.float32), pca.explained_variance_ratio_)


class ReducedTeacher:
    """Teacher followed by the PCA map: a usable encoder (e.g. to index documents in asymmetric mode)."""

    def __init__(self, teacher, pca: PCAMap, normalise: bool = True) -> None:
        self.teacher, self.pca, self.normalise = teacher, pca, normalise
        self.name = f"{teacher.name}+pca{pca.dim}"

    def encode(self, texts: list[str], role: str = "passage") -> np.ndarray:
        z = self.pca.transform(self.teacher.encode(list(texts), role=role))
        if self.normalise:
            z /= np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-12)
        return z
