"""Resumable training: a run killed at any point and started again with the same command continues from its last
saved step, to the parameters a run never stopped would have reached.

Accelerate's ``save_state`` holds the model, the optimiser, the registered schedule and every process's RNGs.
``Position`` adds what it does not: the step, the losses so far, and the data order's state at the start of the
epoch in progress, since a resumed run replays that epoch's order (collating, not training) up to its step.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from accelerate import Accelerator

from edge_ranker.errors import EdgeRankerError

PREFIX = "step-"  # a complete checkpoint's folder: step-N, N optimisation steps done
POSITION = "position.pt"  # written last, so a folder without it is an interrupted save
RUN = "run.json"  # which run the folder's checkpoints belong to (``run_key``)


@dataclass
class Position:
    """Where a run stands beside the state Accelerate saves."""

    step: int
    order: torch.Tensor | None  # the shuffle generator's state when the epoch in progress began (None: a sampler)
    draws: Any  # the collate's random.Random state then (texts drawn per group)
    bank: torch.Tensor  # the bank generator's state at ``step``
    processes: int  # a resume needs as many: each saved its own random states and its share of the batches
    epoch_losses: list[float] = field(default_factory=list)  # mean loss of each finished epoch
    losses: list[float] = field(default_factory=list)  # each step's loss in the epoch in progress


@dataclass
class DataOrder:
    """The random state that decides an epoch's batches: the DataLoader's shuffle generator (None when a
    sampler orders by epoch number) and the collate's draws."""

    generator: torch.Generator | None
    draws: random.Random

    def snapshot(self) -> tuple[torch.Tensor | None, Any]:
        """The order's state now, to start an epoch from again."""
        return (self.generator.get_state() if self.generator is not None else None, self.draws.getstate())

    def restore(self, order: torch.Tensor | None, draws: Any) -> None:
        """Put the order back to a ``snapshot``."""
        if self.generator is not None and order is not None:
            self.generator.set_state(order)
        self.draws.setstate(draws)


class Checkpoints:
    """The checkpoint folder of one run: the newest complete ``step-N`` is kept, older ones are removed."""

    def __init__(self, folder: str | Path, accelerator: Accelerator) -> None:
        self.folder = Path(folder)
        self.accelerator = accelerator

    def latest(self) -> tuple[Path, Position] | None:
        """The newest complete checkpoint and its position, or None for a fresh run."""
        done = [p for p in self.folder.glob(f"{PREFIX}*") if _step(p) is not None and (p / POSITION).is_file()]
        if not done:
            return None
        newest = max(done, key=_step)
        try:
            position = Position(**torch.load(newest / POSITION, weights_only=True))
        except Exception as exc:  # a damaged file: torch raises its own kinds
            raise EdgeRankerError(f"cannot read the checkpoint {newest} ({exc}): remove it to start again") from exc
        return newest, position

    def save(self, position: Position) -> None:
        """Write the state at ``position.step`` under a temporary name, then rename it: a kill mid-save leaves the
        previous checkpoint whole."""
        partial = self.folder / f".{PREFIX}{position.step}.partial"
        if self.accelerator.is_main_process:
            shutil.rmtree(partial, ignore_errors=True)
        self.accelerator.wait_for_everyone()
        self.accelerator.save_state(str(partial))
        self.accelerator.wait_for_everyone()  # every process's random states written before the folder is renamed
        if self.accelerator.is_main_process:
            torch.save(asdict(position), partial / POSITION)
            final = self.folder / f"{PREFIX}{position.step}"
            shutil.rmtree(final, ignore_errors=True)
            partial.rename(final)
            for old in self.folder.glob(f"{PREFIX}*"):
                if old != final and _step(old) is not None:
                    shutil.rmtree(old, ignore_errors=True)
        self.accelerator.wait_for_everyone()

    def load(self, saved: Path) -> None:
        """Take the state saved in ``saved`` (weights, optimiser, schedule, every process's random states)."""
        try:
            self.accelerator.load_state(str(saved))
        except Exception as exc:  # accelerate and torch raise their own kinds for a damaged folder
            raise EdgeRankerError(f"cannot read the checkpoint {saved} ({exc}): remove it to start again") from exc


def run_key(recipe: dict, tokenizer: str, data_root: str | Path | None, out_dir: str | Path) -> str:
    """What names a run: everything that decides its training (the recipe's settings, the vocabulary, the data
    folder, where it writes), so that the same command finds its checkpoints and a changed one is not trained on
    from them. Settings that change no result (threads, where and how often checkpoints go) are left out."""
    unchanging = {"checkpoint_dir", "checkpoint_steps", "threads"}
    settings = {**recipe, "train": {k: v for k, v in recipe["train"].items() if k not in unchanging}}
    root = str(Path(data_root).resolve()) if data_root is not None else None
    key = json.dumps([settings, tokenizer, root, str(Path(out_dir).resolve())], sort_keys=True, default=str)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def claim(folder: Path, key: str) -> None:
    """Mark ``folder`` as the checkpoints of run ``key``, or refuse it when it holds another run's: resuming those
    would train this run on from another's state."""
    mark = folder / RUN
    try:
        owner = json.loads(mark.read_text(encoding="utf-8")).get("run") if mark.is_file() else None
    except (OSError, ValueError, AttributeError):
        owner = "unreadable"
    if owner == key:
        return
    if owner is not None:
        raise EdgeRankerError(
            f"{folder} holds the checkpoints of another run (other settings, vocabulary or --out): give another "
            "--checkpoint-dir, or remove it to start afresh"
        )
    if folder.is_dir() and any(folder.iterdir()):
        raise EdgeRankerError(f"{folder} already holds files that are not checkpoints: give a new --checkpoint-dir")
    folder.mkdir(parents=True, exist_ok=True)
    mark.write_text(json.dumps({"run": key}), encoding="utf-8")


def _step(path: Path) -> int | None:
    number = path.name[len(PREFIX) :]
    return int(number) if path.name.startswith(PREFIX) and number.isdigit() else None
