"""A student whose weights are the mean of the last K epochs' checkpoints of one run (tail averaging, as in
stochastic weight averaging): it asks whether the run's own weight path holds a model that generalises better
than its last step, with no new training and no run-to-run noise in the comparison (bench/EXPERIMENTS.md,
"BM25 beside the student").

Usage: python bench/scripts/average_epochs.py runs/relevance-seed0 runs/relevance-seed0.ckpt K OUT
(``runs/relevance-seed0``: the student the run saved; ``runs/relevance-seed0.ckpt``: its ``--checkpoint-dir``;
K = 1 rebuilds the last epoch's student, which must equal ``runs/relevance-seed0``.)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer

from edge_ranker.distill.train import params_digest
from edge_ranker.modeling.student import load_student, save_student


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="the student folder the run saved")
    p.add_argument("checkpoints", help="the run's --checkpoint-dir (epoch-0 ... epoch-N)")
    p.add_argument("k", type=int, help="average the last K epochs")
    p.add_argument("out")
    a = p.parse_args()
    epochs = sorted(Path(a.checkpoints).glob("epoch-*"), key=lambda d: int(d.name.split("-")[1]))
    if not 1 <= a.k <= len(epochs):
        raise SystemExit(f"K must be 1 to {len(epochs)}, the run's saved epochs")
    states = [load_file(str(d / "model.safetensors")) for d in epochs[-a.k :]]
    mean = {
        name: torch.stack([s[name] for s in states]).mean(0) if t.is_floating_point() else t
        for name, t in states[0].items()
    }
    model, _, info = load_student(a.run)
    model.load_state_dict(mean)
    model.eval()
    save_student(model, Tokenizer.from_file(str(Path(a.run) / "tokenizer.json")), info, a.out)
    print(f"epochs {[d.name for d in epochs[-a.k :]]} -> {a.out}, digest {params_digest(model)[:16]}")


if __name__ == "__main__":
    main()
