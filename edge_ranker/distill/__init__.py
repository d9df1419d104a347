"""Distillation: teacher targets, PCA, the student, losses and the Accelerate training loop.

``distill`` (the library function behind ``edge-ranker distill``) is importable from here.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "distill":  # lazy, so importing a submodule does not pull in every training dependency
        try:
            from edge_ranker.distill.run import distill
        except ModuleNotFoundError as exc:  # the runtime install: say what to install, as the CLI does
            raise ModuleNotFoundError(
                f"edge_ranker.distill needs {exc.name}, which is not installed: pip install 'edge-ranker[train]'",
                name=exc.name,
            ) from exc
        return distill
    raise AttributeError(name)
