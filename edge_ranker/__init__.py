"""edge-ranker: tiny, private, on-device semantic and relevance ranking.

The top-level names resolve lazily so that ``import edge_ranker`` (and the runtime) never pulls in
torch, transformers or scikit-learn: an app that only ranks needs numpy, onnxruntime and tokenizers.
Training entry points live in their lifecycle packages (``from edge_ranker.distill import distill``).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# onnxruntime sends usage telemetry (DNS look-ups of Microsoft's event host every few seconds) and writes a device id
# under ~/.cache/Microsoft as it loads, unless this is set before; its disable_telemetry_events() API alone stops
# neither. Every edge_ranker import passes here first. Where an app loaded onnxruntime before, it is too late: the
# Encoder then refuses to run a model (``ONNXRUNTIME_TELEMETRY``) rather than add to what it sends.
ONNXRUNTIME_TELEMETRY = "onnxruntime" in sys.modules and os.environ.get("ORT_DISABLE_TELEMETRY") != "1"
os.environ["ORT_DISABLE_TELEMETRY"] = "1"

logging.getLogger("edge_ranker").addHandler(logging.NullHandler())  # silent unless the app configures logging

_LAZY = {
    "Encoder": "edge_ranker.runtime.encoder",
    "Ranker": "edge_ranker.runtime.ranker",
    "Document": "edge_ranker.runtime.documents",
    "Ranked": "edge_ranker.runtime.ranking",
    "Ranking": "edge_ranker.runtime.ranking",
    "PreferenceStore": "edge_ranker.runtime.store",
    "CorruptedDatabase": "edge_ranker.runtime.store",
    "LockedDatabase": "edge_ranker.runtime.store",
    "Unlearnable": "edge_ranker.runtime.documents",
    "EdgeRankerError": "edge_ranker.errors",
    "build_vocab": "edge_ranker.vocab.builder",
    "export_model": "edge_ranker.export.onnx_graph",
}

_TRAINING = {"export_model"}  # needs the `train` extra (torch): not in ``import *``, which loads every name
_TRAINING_NEEDS = "torch"  # what tells that the `train` extra is installed, found without importing it
__all__ = sorted(set(_LAZY) - _TRAINING)

if TYPE_CHECKING:  # type checkers see the real names; at run time they load on first use
    from edge_ranker.errors import EdgeRankerError as EdgeRankerError
    from edge_ranker.export.onnx_graph import export_model as export_model
    from edge_ranker.runtime.documents import Document as Document
    from edge_ranker.runtime.documents import Unlearnable as Unlearnable
    from edge_ranker.runtime.encoder import Encoder as Encoder
    from edge_ranker.runtime.ranker import Ranker as Ranker
    from edge_ranker.runtime.ranking import Ranked as Ranked
    from edge_ranker.runtime.ranking import Ranking as Ranking
    from edge_ranker.runtime.store import CorruptedDatabase as CorruptedDatabase
    from edge_ranker.runtime.store import LockedDatabase as LockedDatabase
    from edge_ranker.runtime.store import PreferenceStore as PreferenceStore
    from edge_ranker.vocab.builder import build_vocab as build_vocab


def __dir__() -> list[str]:
    """The names that resolve here: the training ones only where the `train` extra is installed, since ``help``,
    ``inspect.getmembers`` and editors read every name ``dir`` lists and would stop at one that cannot load."""
    trained = importlib.util.find_spec(_TRAINING_NEEDS) is not None
    return sorted([*globals(), *(n for n in _LAZY if trained or n not in _TRAINING)])


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        try:
            module = importlib.import_module(_LAZY[name])
        except ModuleNotFoundError as exc:
            if name not in _TRAINING:
                raise
            raise ModuleNotFoundError(  # a training name on a runtime-only install: say what to install
                f"edge_ranker.{name} needs {exc.name}, which is not installed: pip install 'edge-ranker[train]'",
                name=exc.name,
            ) from exc
        return getattr(module, name)
    raise AttributeError(f"module 'edge_ranker' has no attribute {name!r}")
