"""Training loop under Hugging Face Accelerate: ``accelerate launch`` spreads it over processes or GPUs.

One optimisation step sees ``batch_size`` groups in all processes together (each of N processes takes
``batch_size // N``, and the in-batch losses are computed over all of them, so a recipe means the same on
one core or many); a group is the texts that share one
teacher target (an English source and its translation; one passage). AdamW, linear warm-up over
``warmup`` of all steps, then linear decay to 0, as sentence-transformers' WarmupLinear.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import set_seed
from scipy.sparse import csr_matrix
from tokenizers import Tokenizer
from torch.utils.data import DataLoader, Dataset
from tqdm.auto import tqdm
from transformers import get_linear_schedule_with_warmup

from edge_ranker.distill.batch import Batch, Group, collate, gather, multi_process, with_bank
from edge_ranker.distill.checkpoint import Checkpoints, DataOrder, Position
from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.losses import Combined
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling.student import (
    Student,
    StudentInfo,
    StudentTokenizer,
    not_finite,
    save_student,
    sif_token_logits,
)
from edge_ranker.runtime.lexical import Bag, TermIndex, standardise, term_weights, terms


class _Groups(Dataset):
    def __init__(self, groups: list[Group]) -> None:
        self.groups = groups

    def __len__(self) -> int:
        return len(self.groups)

    def __getitem__(self, i: int) -> Group:
        return self.groups[i]


class LengthBucketSampler(torch.utils.data.Sampler):
    """Shuffled batches of groups with similar text length, so short sentences are not padded to passage length.

    Each epoch: shuffle, cut into windows of 50 batches, sort each window by length, batch, shuffle the batches.
    """

    def __init__(self, groups: list[Group], batch_size: int, seed: int, window: int = 50) -> None:
        self.lengths = [max(len(t) for m in g.members() for t in m.texts) for g in groups]
        self.batch_size, self.seed, self.window, self.epoch = batch_size, seed, window, 0

    def _batches(self) -> list[list[int]]:
        rng = random.Random(self.seed + self.epoch)
        idx = list(range(len(self.lengths)))
        rng.shuffle(idx)
        span = self.batch_size * self.window
        batches = []
        for start in range(0, len(idx), span):
            chunk = sorted(idx[start : start + span], key=self.lengths.__getitem__)
            batches += [chunk[i : i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        rng.shuffle(batches)
        return batches

    def __iter__(self):
        batches = self._batches()
        self.epoch += 1
        return iter(batches)

    def __len__(self) -> int:
        return math.ceil(len(self.lengths) / self.batch_size)


def nearest_targets(targets: torch.Tensor, k: int, block: int = 256, show_progress: bool = False) -> torch.Tensor:
    """Each target's ``k`` nearest other targets by cosine, as row indices (n, k); an exact copy of a row (the
    same text in two groups) is not its neighbour. Blocks of rows keep the similarity matrix in memory; 256 rows
    against 200k targets ran about a fifth faster than 1,024 on 2 cores."""
    tn = F.normalize(targets, dim=-1)
    k = min(k, len(tn) - 1)
    out = torch.empty((len(tn), max(k, 0)), dtype=torch.long)
    if k <= 0:
        return out
    for start in tqdm(range(0, len(tn), block), desc="neighbours", disable=not show_progress):
        sims = tn[start : start + block] @ tn.T
        sims.masked_fill_(sims > 1 - 1e-6, -2.0)  # itself and its copies; in place: a third of the time indexing took
        out[start : start + block] = sims.topk(k, dim=1).indices
    return out


def shared_nearest_targets(
    targets: torch.Tensor, k: int, device: torch.device, show_progress: bool = False
) -> torch.Tensor:
    """``nearest_targets`` computed by the main process alone and sent to the others: it is the same for all
    of them, and minutes of work on 200k targets that N processes on shared cores would each repeat. The
    broadcast goes through ``device`` (NCCL sends only GPU tensors); the result is on the CPU, like the targets."""
    if not multi_process():
        return nearest_targets(targets, k, show_progress=show_progress)
    if dist.get_rank() == 0:
        near = nearest_targets(targets, k, show_progress=show_progress).to(device)
    else:
        near = torch.empty((len(targets), max(min(k, len(targets) - 1), 0)), dtype=torch.long, device=device)
    dist.broadcast(near, src=0)
    return near.cpu()


def target_bm25(groups: list[Group], n_targets: int, tokenizer: Tokenizer):
    """A function of a batch's target rows giving their texts' BM25 matrix (row: that target's text as the
    query; columns: the batch's target texts as the documents, statistics from them alone, as the runtime ranks
    a feed), each row standardised; a target's text is the first of its group, the one the teacher embedded.
    Row i equals ``runtime.lexical.bm25`` of text i over the batch, computed for all rows at once as a sparse
    product, since one call per row would cost more than the step it serves."""
    words: list[list[str]] = [[] for _ in range(n_targets)]
    for g in groups:
        for m in g.members():
            words[m.target] = words[m.target] or terms(tokenizer, m.texts[0])
    bags = [Bag.of(w) for w in words]

    def matrix(columns: list[int]) -> torch.Tensor:
        feed = TermIndex.of([bags[c] for c in columns])
        n = len(feed)
        vocab, term = np.unique(feed.ids, return_inverse=True)
        doc = np.searchsorted(feed.ends, np.arange(feed.ids.size), side="right")
        df = np.bincount(term, minlength=vocab.size)
        weight = term_weights(n, df[term], feed.counts, feed.norm[doc])
        docs = csr_matrix((weight, (doc, term)), shape=(n, vocab.size))
        queries = csr_matrix((np.ones_like(weight), (doc, term)), shape=(n, vocab.size))
        scores = (queries @ docs.T).toarray()
        return torch.from_numpy(np.stack([standardise(row) for row in scores])).float()

    return matrix


def params_digest(model: torch.nn.Module) -> str:
    """sha256 of all parameters: equal on every process iff they train one model."""
    h = hashlib.sha256()
    for _, p in sorted(model.state_dict().items()):
        h.update(p.detach().cpu().numpy().tobytes())
    return h.hexdigest()


def train_student(
    groups: list[Group],
    targets: np.ndarray,
    tokenizer: Tokenizer,
    info: StudentInfo,
    out_dir: str | Path,
    config: TrainConfig,
    init_embeddings: np.ndarray | None = None,
    show_progress: bool = True,
    teacher_vectors: np.ndarray | None = None,
) -> dict:
    """Train a student to reproduce ``targets[group.target]`` for every text of each group; save it.

    ``teacher_vectors`` (one row per target row) score the relational and pairwise losses' teacher side when
    ``config.teacher_scores`` is "full".

    Returns a log with the mean loss of the first and last epoch and the parameter digest.
    """
    if not groups:
        raise EdgeRankerError("no training data")
    accelerator = Accelerator(cpu=not torch.cuda.is_available())
    if accelerator.device.type == "cpu":
        torch.set_num_threads(config.threads or max(1, (os.cpu_count() or 1) // accelerator.num_processes))
    set_seed(config.seed)
    info.max_length = config.max_length
    info.pooling = config.pooling
    model = Student.create(
        tokenizer.get_vocab_size(),
        config.hidden,
        config.layers,
        config.heads,
        config.ffn,
        max_length=max(config.max_length, 128),
        dropout=config.dropout,
        pooling=config.pooling,
        width=config.width,
    )
    if init_embeddings is not None:
        with torch.no_grad():
            model.table.weight.copy_(torch.from_numpy(init_embeddings))
    if config.pooling_init == "sif":
        logits = sif_token_logits(tokenizer, [t for g in groups for t in g.texts], config.max_length)
        with torch.no_grad():
            model.token_logit.copy_(torch.from_numpy(logits))
    if not config.positions:
        model.bert.embeddings.position_embeddings.weight.data.zero_()
        model.bert.embeddings.position_embeddings.weight.requires_grad_(False)
    tgt = torch.from_numpy(np.asarray(targets, dtype=np.float32))
    full = None
    if config.teacher_scores == "full":
        if teacher_vectors is None or len(teacher_vectors) != len(tgt):
            raise EdgeRankerError("teacher_scores='full' needs the teacher's full vectors, one per target row")
        full = torch.from_numpy(np.asarray(teacher_vectors, dtype=np.float32))
    near = (
        shared_nearest_targets(tgt, config.neighbours, accelerator.device, show_progress) if config.neighbours else None
    )
    shuffle = None if config.bucket_by_length else torch.Generator().manual_seed(config.seed)
    order = DataOrder(shuffle, random.Random(config.seed))
    collate_groups = collate(
        StudentTokenizer(tokenizer, config.max_length), tgt, full, near, config.texts_per_group, order.draws
    )
    bm25_of = target_bm25(groups, len(tgt), tokenizer) if config.lexical else None
    per_process = max(1, config.batch_size // accelerator.num_processes)
    sampler = LengthBucketSampler(groups, per_process, config.seed) if config.bucket_by_length else None
    if sampler is not None:
        loader = DataLoader(_Groups(groups), batch_sampler=sampler, collate_fn=collate_groups)
    else:
        loader = DataLoader(
            _Groups(groups),
            batch_size=per_process,
            shuffle=True,
            drop_last=len(groups) > per_process,
            collate_fn=collate_groups,
            generator=order.generator,
        )
    trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    no_decay = [p for n, p in trained if "LayerNorm" in n or n.endswith("bias")]
    decay = [p for n, p in trained if not ("LayerNorm" in n or n.endswith("bias"))]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": config.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=config.lr,
        # one kernel for all parameters: the per-tensor loop updates the large word table on one CPU thread
        fused=accelerator.device.type in ("cpu", "cuda"),
    )
    model, opt, loader = accelerator.prepare(model, opt, loader)
    per_epoch = len(loader)
    total = max(1, per_epoch * config.epochs)
    # Not passed to accelerator.prepare: its wrapper steps the schedule once per process on every step (it assumes
    # the schedule counts per-process batches), so N processes finished warm-up and decay N times too early.
    sched = get_linear_schedule_with_warmup(opt, math.ceil(config.warmup * total), total)
    accelerator.register_for_checkpointing(sched)
    log: dict = {"epochs": [], "world_size": accelerator.num_processes, "steps": total, "config": asdict(config)}
    bank_generator = torch.Generator().manual_seed(config.seed)
    checkpoints = Checkpoints(config.checkpoint_dir, accelerator) if config.checkpoint_dir else None
    saved = checkpoints.latest() if checkpoints else None
    step = saved[1].step if saved else 0
    losses: list[float] = []
    if saved:
        if saved[1].processes != accelerator.num_processes:
            raise EdgeRankerError(
                f"the checkpoints in {config.checkpoint_dir} are of a run on {saved[1].processes} process(es), this "
                f"one has {accelerator.num_processes}: start it as that one was, or remove them to start afresh"
            )
        log["epochs"], losses = list(saved[1].epoch_losses), list(saved[1].losses)
        order.restore(saved[1].order, saved[1].draws)
        if step >= total:  # a finished run started again: its last state is the student
            checkpoints.load(saved[0])
    shown = show_progress and accelerator.is_local_main_process
    bar = tqdm(total=total, initial=step, desc="distil", disable=not shown)
    loss_of = Combined(config.losses, config.temperature)
    model.train()
    for epoch in range(step // per_epoch, config.epochs):
        if sampler is not None:
            sampler.epoch = epoch
        epoch_order = order.snapshot()
        batches = iter(loader)
        if saved:  # replay the epoch's order up to the saved step, then take the state saved there
            for _ in range(step - epoch * per_epoch):
                next(batches)
            checkpoints.load(saved[0])
            bank_generator.set_state(saved[1].bank)
            saved = None
        for batch in batches:
            b = gather(Batch.of(model(batch["input_ids"], batch["attention_mask"], config.chunks), batch))
            if config.bank:
                b.target, b.teacher = with_bank(b.target, b.teacher, tgt, full, config.bank, bank_generator)
            if bm25_of:
                b.lexical = config.lexical * bm25_of(b.column.tolist())
            loss, _ = loss_of(b)
            # every process's loss, checked before any backward pass, so that all of them stop at the same step
            losses_now = accelerator.gather(loss.detach()[None]) if accelerator.num_processes > 1 else loss.detach()
            if not torch.isfinite(losses_now).all():
                raise EdgeRankerError(
                    f"training diverged at step {step + 1} of {total}: the loss is "
                    f"{float(losses_now[~torch.isfinite(losses_now)].reshape(-1)[0]):g}, and the student was not "
                    "saved. Lower the learning rate (--lr) or check the data"
                )
            accelerator.backward(loss)
            if config.grad_clip:
                accelerator.clip_grad_norm_(model.parameters(), config.grad_clip)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            losses.append(float(loss.detach()))
            bar.update(1)
            bar.set_postfix(loss=f"{losses[-1]:.4f}", epoch=epoch)
            ended = step == (epoch + 1) * per_epoch
            if ended:
                log["epochs"].append(float(np.mean(losses)))
                losses = []
            if checkpoints and (ended or step % config.checkpoint_steps == 0):
                # at an epoch's end the order's state now is the next epoch's start
                start = order.snapshot() if ended else epoch_order
                bank = bank_generator.get_state()
                checkpoints.save(Position(step, *start, bank, accelerator.num_processes, log["epochs"], losses))
    bar.close()
    accelerator.wait_for_everyone()
    unwrapped: Student = accelerator.unwrap_model(model)
    unwrapped.eval()
    bad = not_finite(unwrapped)  # the last step's update is checked by no loss
    if bad:
        raise EdgeRankerError(f"training diverged: the student's {bad} is not finite, and it was not saved. Lower --lr")
    log["digest"] = params_digest(unwrapped)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"rank{accelerator.process_index}.digest").write_text(log["digest"])
    if accelerator.is_main_process:
        save_student(unwrapped, tokenizer, info, out)
        (out / "train_log.json").write_text(json.dumps(log, indent=2))
    accelerator.wait_for_everyone()
    return log


def teacher_token_embeddings(tokenizer: Tokenizer, encode, pca_transform, std: float) -> np.ndarray:
    """Initial word embeddings: each vocabulary piece embedded by the teacher, PCA-reduced, rescaled.

    ``##`` continuation pieces are embedded as their bare text; special tokens get small random rows.
    """
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
    texts = [t[2:] if t.startswith("##") else t.lstrip("▁") or t for t, _ in vocab]  # WordPiece "##", SP "▁"
    emb = pca_transform(encode(texts))
    emb = (emb - emb.mean(0)) / (emb.std() + 1e-12) * std
    rng = np.random.default_rng(0)
    for i, (t, _) in enumerate(vocab):
        if (t.startswith("[") and t.endswith("]")) or (t.startswith("<") and t.endswith(">")):
            emb[i] = rng.normal(0, 0.02, emb.shape[1])
    return emb.astype(np.float32)
