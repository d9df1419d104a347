"""What one optimisation step sees: the groups a training set is made of, and the ``Batch`` every loss reads.

A group is the texts that share one teacher target (an English source and its translations; one passage). A
batch gives each student row the column of its target (``group``); its columns are the batch's targets, then any
target-only columns (nearest neighbours, a random bank). A loss that needs more than rows, targets and groups
reads it from a ``Batch`` field; one that comes from the groups is filled here (``collate``, ``gather``), so adding
such a loss touches this file and the loss's. (``lexical``, computed from the columns' texts, is set by the
training loop.)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dist_nn
import torch.nn.functional as F


@dataclass
class Group:
    texts: list[str]
    target: int  # row in the target matrix
    # Groups that ride in this group's batch: a query and the passages its teacher ranks highest, so the
    # in-batch losses see query-passage pairs (length bucketing would otherwise keep queries and passages apart).
    linked: list[Group] = field(default_factory=list)
    # Target rows of the passages judged relevant to this query (the retrieval sets' training judgments); each
    # rides in its batch (linked), and the first is the judged loss's positive.
    positives: list[int] = field(default_factory=list)

    def members(self) -> list[Group]:
        return [self, *self.linked]


@dataclass
class Batch:
    """The global batch of one step, as every loss sees it (``Loss.needs`` names the optional fields it reads)."""

    student: torch.Tensor  # (rows, d): the student's vectors, with their gradient
    target: torch.Tensor  # (columns, d): the PCA-reduced teacher targets
    group: torch.Tensor  # (rows,): the column of each row's own target
    column: torch.Tensor  # (columns,): each column's row in the target matrix
    positive: torch.Tensor | None = None  # (rows,): the column of each row's judged passage, -1 for none
    teacher: torch.Tensor | None = None  # (columns, D): the teacher's full vectors, centred on the PCA mean
    lexical: torch.Tensor | None = None  # (columns, columns): weighted, standardised BM25 of column texts
    source: torch.Tensor | None = None  # (rows,): the row of each row's group source, the text the teacher embedded

    @classmethod
    def of(cls, student: torch.Tensor, encoded: dict[str, torch.Tensor]) -> Batch:
        """A process's batch: its student rows and what ``collate`` gave for them."""
        return cls(
            student,
            encoded["target"],
            encoded["group"],
            encoded["column"],
            encoded["positive"],
            encoded.get("teacher"),
            source=encoded["source"],
        )


def collate(
    tokenize: Callable[[list[str]], dict[str, torch.Tensor]],
    targets: torch.Tensor,
    teacher: torch.Tensor | None = None,
    neighbours: torch.Tensor | None = None,
    texts_per_group: int = 0,
    draws: random.Random | None = None,
) -> Callable[[list[Group]], dict[str, torch.Tensor]]:
    """The DataLoader's collate: groups -> the student's inputs plus the target side of a ``Batch`` (a dict of
    tensors, which Accelerate moves to the device).

    ``texts_per_group`` (0: all) keeps each group's first text, the one the teacher embedded, and that many minus one
    of its others, drawn anew each time the group is collated (seeded): a verse in nine languages then costs a
    step three texts, not nine, and the work saved buys passes over every target. ``draws`` makes them (seeded by
    the caller, who saves its state with a checkpoint)."""
    rng = draws or random.Random(0)

    def chosen(texts: list[str]) -> list[str]:
        if not texts_per_group or len(texts) <= texts_per_group:
            return texts
        return [texts[0], *rng.sample(texts[1:], texts_per_group - 1)]

    def collate_groups(batch: list[Group]) -> dict[str, torch.Tensor]:
        texts: list[str] = []
        rows: list[int] = []
        judged: list[int] = []  # target row of each text's judged passage, -1 for none
        source: list[int] = []  # the row of each text's group source (its member's first text)
        index_of: dict[int, int] = {}  # target row -> batch column; a passage linked twice is one target
        for g in batch:
            for m in g.members():
                col = index_of.setdefault(m.target, len(index_of))
                kept = chosen(m.texts)
                source.extend([len(texts)] * len(kept))
                texts.extend(kept)
                rows.extend([col] * len(kept))
                judged.extend([m.positives[0] if m.positives else -1] * len(kept))
        if neighbours is not None:  # target-only columns: no student row points at them
            for r in neighbours[list(index_of)].flatten().tolist():
                index_of.setdefault(r, len(index_of))
        enc = tokenize(texts)
        enc["group"] = torch.tensor(rows, dtype=torch.long)
        enc["source"] = torch.tensor(source, dtype=torch.long)
        # the column of each text's judged passage: it rides in its query's batch (linked), so it has one
        enc["positive"] = torch.tensor([index_of[r] if r >= 0 else -1 for r in judged], dtype=torch.long)
        enc["column"] = columns = torch.tensor(list(index_of), dtype=torch.long)  # target row of each column
        enc["target"] = targets[columns]
        if teacher is not None:
            enc["teacher"] = teacher[columns]
        return enc

    return collate_groups


def multi_process() -> bool:
    return dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1


def gather(b: Batch) -> Batch:
    """Every process's student rows, targets (and full teacher vectors, when given), groups and judged columns,
    so the in-batch losses (relational, contrastive, pairwise, judged) see the global batch, as one process would,
    and not 1/N of it.

    Student rows keep their gradient (autograd all-gather, whose backward sums over processes); every
    process computes the same loss, so DDP's gradient mean equals that loss's gradient.

    ``column`` (each target column's row in the target matrix) merges columns that two processes both
    brought (a neighbour or a linked passage on one, a batch target on the other): a second copy of a row's
    positive would count as its negative, which one process's collate never lets happen.
    """
    if not multi_process():
        return b
    s, group, positive, source = b.student, b.group, b.positive, b.source
    n = dist.get_world_size()
    sizes = [torch.zeros(2, dtype=torch.long, device=s.device) for _ in range(n)]  # on s's device: NCCL needs it
    dist.all_gather(sizes, torch.tensor([len(s), len(b.target)], device=s.device))
    rows, cols = [int(x[0]) for x in sizes], [int(x[1]) for x in sizes]
    first = sum(cols[: dist.get_rank()])  # this process's targets follow those of lower ranks
    group = group + first
    if source is not None:  # and its rows those of lower ranks
        source = source + sum(rows[: dist.get_rank()])
    if positive is not None:
        positive = torch.where(positive >= 0, positive + first, positive)

    def pad(x: torch.Tensor, m: int) -> torch.Tensor:  # all_gather needs equal shapes
        return torch.cat([x, x.new_zeros((m - len(x), *x.shape[1:]))])

    def gather_const(x: torch.Tensor, m: int) -> list[torch.Tensor]:
        out = [x.new_empty((m, *x.shape[1:])) for _ in range(n)]
        dist.all_gather(out, pad(x, m))
        return out

    def by_column(x: torch.Tensor) -> torch.Tensor:
        return torch.cat([y[:c] for y, c in zip(gather_const(x, max(cols)), cols)])

    def by_row(x: torch.Tensor) -> torch.Tensor:
        return torch.cat([y[:r] for y, r in zip(gather_const(x, max(rows)), rows)])

    s_all = dist_nn.all_gather(pad(s, max(rows)))
    unique, inverse = torch.unique(by_column(b.column), return_inverse=True)
    group = inverse[by_row(group)]
    if source is not None:
        source = by_row(source)
    if positive is not None:
        positive = by_row(positive)
        positive = torch.where(positive >= 0, inverse[positive.clamp(min=0)], positive)

    def merged(x: torch.Tensor) -> torch.Tensor:  # copies of one row are equal, so any of them may land
        return x.new_empty((len(unique), x.shape[1])).index_copy_(0, inverse, by_column(x))

    return replace(
        b,
        student=torch.cat([x[:r] for x, r in zip(s_all, rows)]),
        target=merged(b.target),
        group=group,
        column=unique,
        positive=positive,
        teacher=None if b.teacher is None else merged(b.teacher),
        source=source,
    )


def with_bank(
    t: torch.Tensor,
    f: torch.Tensor | None,
    targets: torch.Tensor,
    full: torch.Tensor | None,
    k: int,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The batch's target columns ``t`` (and full teacher vectors ``f``) followed by ``k`` rows drawn from all
    ``targets`` (``full``). A drawn row equal to a batch target is dropped: in the contrastive loss it would be
    a second copy of some row's positive. Every process draws the same rows (one draw per step, same seed)."""
    idx = torch.randint(len(targets), (k,), generator=generator)
    bank = targets[idx].to(t.device)
    keep = ((F.normalize(bank, dim=-1) @ F.normalize(t, dim=-1).T).amax(1) <= 1 - 1e-6).cpu()
    idx = idx[keep]
    t = torch.cat([t, bank[keep.to(t.device)]])
    return t, None if f is None or full is None else torch.cat([f, full[idx].to(f.device)])
