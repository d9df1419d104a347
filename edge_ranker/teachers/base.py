"""The one teacher interface: ``encode(texts, role) -> float32 (n, dim)``, role "query" or "passage"."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

import numpy as np

Role = Literal["query", "passage"]
ROLES: tuple[str, ...] = ("query", "passage")


@runtime_checkable
class Teacher(Protocol):
    """Anything that embeds text. ``name`` identifies the model in cache keys and manifests."""

    name: str

    def encode(self, texts: list[str], role: Role = "passage") -> np.ndarray: ...


def check_role(role: str) -> None:
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
