"""edge-ranker: tiny, private, on-device semantic and relevance ranking.

The top-level names resolve lazily so that ``import edge_ranker`` (and the runtime) never pulls in
torch, transformers or scikit-learn: an app that only ranks needs numpy, onnxruntime and tokenizers.
Training entry points live in their lifecycle packages (``from edge_ranker.distill import distill``).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "Encoder": "edge_ranker.runtime.encoder",
    "Ranker": "edge_ranker.runtime.ranker",
    "Document": "edge_ranker.runtime.ranker",
    "PreferenceStore": "edge_ranker.runtime.store",
    "build_vocab": "edge_ranker.vocab.builder",
    "export_model": "edge_ranker.export.onnx_graph",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'edge_ranker' has no attribute {name!r}")
