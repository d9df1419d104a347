"""A tiny model whose layer is wider than its vectors (``edge-ranker distill --width``), for the JVM core's golden
test: the shipped models are 128 wide, so without it the core's map up from the word table and map down after pooling
would go unchecked. Random weights over a small vocabulary, exported as the shipped models are (int8 weights), and the
Python runtime's vector of every golden text, each encoded alone.

``python -m spec.tools.wide [OUT_DIR]`` (default spec/golden) writes ``wide/`` and ``wide_embeddings.tsv``
there; ``tests/test_golden.py`` checks that the runtime still gives those vectors, ``GoldenTest`` that the JVM does.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import torch
from tokenizers import Tokenizer

from edge_ranker.demo import load_feed
from edge_ranker.export.onnx_graph import export_model
from edge_ranker.modeling.student import Student, StudentInfo, save_student
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.vocab.builder import build_vocab
from spec.tools.golden import TEXTS, write_embeddings

VECTORS, WIDTH = 32, 64  # the vectors and the word table 32 wide, the layer 64: both maps are real matrices


def main(out_dir: str) -> Path:
    out = Path(out_dir)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "en.txt"
        texts = TEXTS + [d.text for d in load_feed()[0]]
        corpus.write_text("\n".join(texts) + "\n", encoding="utf-8", errors="replace")  # one is a lone surrogate
        build_vocab(
            {"en": [corpus]}, Path(tmp) / "vocab", vocab_size=400, heldout_lines=5, min_frequency=1, show_progress=False
        )
        tok = Tokenizer.from_file(str(Path(tmp) / "vocab" / "tokenizer.json"))
        torch.manual_seed(0)
        model = Student.create(tok.get_vocab_size(), hidden=VECTORS, heads=2, ffn=128, max_length=64, width=WIDTH)
        with torch.no_grad():  # rows of unequal norms, as a trained table's, so the int8 scales differ by row
            model.table.weight.mul_(torch.linspace(0.2, 5.0, tok.get_vocab_size()).unsqueeze(1))
        model.eval()
        save_student(model, tok, StudentInfo(max_length=64, teacher="random"), Path(tmp) / "student")
        shutil.rmtree(out / "wide", ignore_errors=True)
        export_model(Path(tmp) / "student", out / "wide", name="wide")
    write_embeddings(Encoder.load(out / "wide"), out / "wide_embeddings.tsv")
    return out


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "golden"))
