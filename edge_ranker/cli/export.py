"""``export``: a student as a verified ONNX model folder."""

from __future__ import annotations

import argparse
import json

from edge_ranker.cli.common import OVERWRITE_HELP, positive
from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import output_folder
from edge_ranker.textio import read_json


def cmd_export(a: argparse.Namespace) -> None:
    from edge_ranker.export.onnx_graph import export_model, export_sentence_transformers

    metrics = _read_metrics(a.metrics) if a.metrics else None
    a.out = output_folder(a.out, "model", a.overwrite)
    if a.sentence_transformers:
        a.sentence_transformers = output_folder(a.sentence_transformers, "sentence-transformers model", a.overwrite)
    out = export_model(a.model_dir, a.out, quantize=a.quantize, name=a.name, metrics=metrics, windows=a.windows)
    if a.sentence_transformers:
        export_sentence_transformers(a.model_dir, a.sentence_transformers)
    print(json.dumps({"model_folder": str(out), "bytes": (out / "model.onnx").stat().st_size}))


def _read_metrics(path: str) -> dict:
    """The ``--metrics`` file: a JSON object, as the manifest holds it (the runtime refuses any other)."""
    metrics = read_json(path, "metrics file")
    if not isinstance(metrics, dict):
        raise EdgeRankerError(f"the metrics file {path} must hold a JSON object, not {type(metrics).__name__}")
    return metrics


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """export"""
    from edge_ranker.export.variants import VARIANTS

    x = sub.add_parser("export", help="export a student folder to an ONNX model folder with a manifest")
    x.add_argument("model_dir", help="a student folder written by distill")
    x.add_argument("--out", required=True, help="the model folder to write")
    x.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    x.add_argument(
        "--quantize",
        default="int8-weights",
        choices=list(VARIANTS),
        help="int8-weights (default: int8 word table and weights, fp32 activations, the same vector in any batch) "
        "or another variant (export/variants.py says what each is)",
    )
    x.add_argument("--name", help="model name in the manifest (default: folder name)")
    x.add_argument(
        "--windows",
        type=positive,
        default=1,
        help="windows of the model's max length the runtime reads of a long text, averaged (default 1: its first "
        "max length; the shipped semantic model, trained on sentences, reads 8)",
    )
    x.add_argument("--metrics", help="JSON file of evaluation figures to record in the manifest")
    x.add_argument("--sentence-transformers", metavar="DIR", help="also write a sentence-transformers folder")
    x.set_defaults(func=cmd_export)
