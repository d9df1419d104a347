"""Seconds per training step of the shipped semantic student's shape under eager attention, SDPA and torch.compile.

Synthetic batches shaped as the semantic recipe's (452 texts of 3 to 64 tokens, about 7,500 tokens, 50k vocabulary,
2 layers of width 256, the length-chunked forward in 4 pieces, an MSE and an in-batch loss, fused AdamW), so no data
or teacher is needed: ``python bench/scripts/experiments/train_step_speed.py eager sdpa compile bucketed``. Each mode
runs 10 steps to warm up (torch.compile compiles there) and times the next 20.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
import torch.nn.functional as F

from edge_ranker.modeling.student import Student

VOCAB, WIDTH, TEXTS = 50_000, 256, 452
MODES = ("eager", "sdpa", "compile", "bucketed")


def batches(n: int, seed: int = 0) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Token ids, masks and targets of ``n`` batches with lengths like Tatoeba's and the news sentences'."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        lengths = np.clip(rng.lognormal(2.7, 0.55, TEXTS).astype(int), 3, 64)
        mask = (np.arange(lengths.max())[None] < lengths[:, None]).astype(np.int64)
        ids = rng.integers(5, VOCAB, mask.shape) * mask
        out.append((torch.from_numpy(ids), torch.from_numpy(mask), torch.randn(TEXTS, WIDTH)))
    return out


def student(mode: str) -> tuple[Student, torch.nn.Module]:
    """The student, and what a step calls for its vectors in ``mode``."""
    torch.manual_seed(0)
    model = Student.create(VOCAB, WIDTH, 2, 2, 512, max_length=128, dropout=0.0)
    if mode == "sdpa":
        model.bert.config._attn_implementation = "sdpa"  # read at each forward pass
    if mode == "compile":
        return model, torch.compile(model, dynamic=True)
    if mode == "bucketed":  # the BertModel compiled for widths rounded up to 16: at most 4 shapes a piece
        body = torch.compile(model.bert, dynamic=False)

        def pooled(input_ids: torch.Tensor, words: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            pad = -input_ids.shape[1] % 16
            input_ids, attention_mask = F.pad(input_ids, (0, pad)), F.pad(attention_mask, (0, pad))
            out = body(inputs_embeds=F.pad(words, (0, 0, 0, pad)), attention_mask=attention_mask).last_hidden_state
            return model.pool(input_ids, out, attention_mask)

        model._pooled = pooled
    return model, model


def seconds_per_step(mode: str, warm: int = 10, timed: int = 20) -> tuple[float, float]:
    """Warm-up seconds in all and seconds per timed step."""
    model, forward = student(mode)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    data = batches(warm + timed)

    def step(ids: torch.Tensor, mask: torch.Tensor, target: torch.Tensor) -> None:
        v = forward(ids, mask, 4)
        sims = F.normalize(v, dim=-1) @ F.normalize(target, dim=-1).T / 0.05
        (F.mse_loss(v, target) + F.cross_entropy(sims, torch.arange(len(v)))).backward()
        opt.step()
        opt.zero_grad()

    start = time.perf_counter()
    for b in data[:warm]:
        step(*b)
    warmed = time.perf_counter()
    for b in data[warm:]:
        step(*b)
    return warmed - start, (time.perf_counter() - warmed) / timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modes", nargs="+", choices=MODES)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    for mode in args.modes:
        warm, per_step = seconds_per_step(mode)
        print(f"{mode:<9} warm-up {warm:6.1f} s   {per_step:.3f} s a step", flush=True)


if __name__ == "__main__":
    main()
