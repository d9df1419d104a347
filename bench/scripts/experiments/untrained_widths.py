"""Untrained semantic students 192 and 256 wide inside (128-d vectors, the shipped vocabulary), exported as the
shipped model is (int8 weights, 8 windows), to time a wider layer's encode before training one
(bench/experiments/student-shape.md, "A layer twice as wide inside").

``python bench/scripts/experiments/untrained_widths.py OUT`` writes ``OUT/w192`` and ``OUT/w256``; then, for each,
``edge-ranker bench OUT/w192 relevance --runs 1000``: one model beside the relevance model per run, since a model's
figure moves with its place in a longer run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import torch
from tokenizers import Tokenizer

from edge_ranker.export.onnx_graph import export_model
from edge_ranker.modeling.student import Student, StudentInfo, save_student
from edge_ranker.runtime.encoder import MODELS_DIR

WIDTHS = {"w192": (192, 3, 384), "w256": (256, 4, 1024)}  # layer width, heads (of 64), feed-forward width


def main(out_dir: str) -> None:
    tok = Tokenizer.from_file(str(MODELS_DIR / "semantic" / "tokenizer.json"))
    for name, (width, heads, ffn) in WIDTHS.items():
        torch.manual_seed(0)
        model = Student.create(tok.get_vocab_size(), hidden=128, heads=heads, ffn=ffn, max_length=64, width=width)
        model.eval()
        with tempfile.TemporaryDirectory() as tmp:
            save_student(model, tok, StudentInfo(max_length=64), Path(tmp) / "student")
            print(export_model(Path(tmp) / "student", Path(out_dir) / name, name="semantic", windows=8))


if __name__ == "__main__":
    main(sys.argv[1])
