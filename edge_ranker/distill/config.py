"""``TrainConfig``: every option of one training run, declared once (its help is the ``distill`` option's).

Light on purpose (no torch): the CLI builds its options from these fields."""

from __future__ import annotations

import math
from dataclasses import dataclass

from edge_ranker.distill.options import setting
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling import POOLING_INITS, POOLINGS
from edge_ranker.runtime.manifest import MAX_LENGTH_RANGE

# Softmax temperature of the in-batch losses. At 0.05 the teacher's in-batch distribution is nearly one-hot;
# higher values keep its graded similarities (what STS and ranking measure).
TEMPERATURE = 0.05
TEACHER_SCORES = ("pca", "full")


@dataclass
class TrainConfig:
    epochs: int = setting(4, help="training epochs")
    batch_size: int = setting(128, help="groups per optimisation step, over all processes")
    lr: float = setting(1e-3, help="peak learning rate (AdamW)")
    warmup: float = setting(0.1, help="share of the steps spent warming up the learning rate")
    weight_decay: float = setting(0.01, help="AdamW weight decay")
    max_length: int = setting(64, help="tokens the student reads per text (the manifest's max_length)")
    seed: int = setting(0, help="seed of the sampling, the shuffles and the initial weights")
    losses: dict[str, float] = setting(
        factory=lambda: {"mse": 1.0},
        help="NAME=WEIGHT, repeatable: the losses and their weights, replacing the recipe's; each name is a "
        "module of edge_ranker/distill/losses",
        flag="--loss",
    )
    temperature: float = setting(TEMPERATURE, help="softmax temperature of the in-batch losses")
    # Whose similarities the relational and pairwise losses match: "pca", the PCA targets', or "full", the
    # teacher's full-dimension vectors (centred on the PCA mean), which keep the ranking PCA-128 loses. "pca" is the
    # default: "full" did not rank better on the relevance recipe.
    teacher_scores: str = setting(
        "pca", help="similarities the relational/pairwise losses match", choices=TEACHER_SCORES
    )
    # Std of the teacher-initialised word embeddings, beside the random position embeddings (std 0.02) that
    # are added to them before the embedding LayerNorm. 0.05 stays: 0.02 did no better on the full semantic recipe;
    # the relevance recipe ranks better at 0.02 and sets it.
    init_std: float = setting(0.05, help="std of the teacher-initialised word embeddings")
    hidden: int = 128  # the student's vectors' width: always the recipe's pca_dim (``with_overrides`` keeps them equal)
    # A layer wider than the vectors reads the word rows (kept at the vectors' width, so the model keeps about its size)
    # through a map up, and pools through one back down.
    width: int = setting(0, help="the transformer layer's width (0: the vectors', pca_dim)")
    heads: int = setting(2, help="attention heads")
    ffn: int = setting(512, help="feed-forward width")
    layers: int = setting(1, help="transformer layers")
    dropout: float = setting(0.1, help="student dropout")
    grad_clip: float = setting(1.0, help="gradient norm clip (0: none)")
    # A run started again with the same folder continues from its newest checkpoint. `distill` names one in the
    # teacher cache after the run's settings when none is given, and removes it once the student is saved.
    checkpoint_dir: str | None = setting(
        None, help="keep the training state here (weights, optimiser, data order) to resume a stopped run from"
    )
    checkpoint_steps: int = setting(200, help="save the training state every this many steps, and at each epoch's end")
    # Per process; None: the machine's cores shared evenly among the processes, since long passages train faster on
    # several threads.
    threads: int | None = setting(None, help="training threads per process (default: the cores shared among them)")
    # The student's forward runs each batch in this many length-sorted pieces, each cut to its own longest row:
    # the same loss and gradient (to float rounding) without the padding short sentences would otherwise share with
    # 64-token news and Wikipedia sentences.
    chunks: int = setting(4, help="length-sorted pieces each batch's forward pass runs in")
    # Batches of similar length: much faster when passages mix with short sentences, but they cost STS on
    # sentence data, so only the relevance recipe uses it.
    bucket_by_length: bool = setting(False, help="batches of similar text length", flag="--bucket")
    pooling: str = setting(
        "mean", help="masked mean or a learnt softmax over the tokens (student.py says why)", choices=POOLINGS
    )
    # Where the weighted pooling's token logits start: "zero" (the plain mean) or "sif" (each piece's smooth inverse
    # frequency in the training texts: rare words weigh more from the first step, as BM25's IDF does); "sif"
    # ranked worse for relevance.
    pooling_init: str = setting(
        "zero",
        help="weighted pooling's start: the plain mean or each piece's smooth inverse frequency",
        choices=POOLING_INITS,
    )
    # Teacher targets drawn at random from all of them at every step and added to the batch's own as further
    # columns of the in-batch losses: each row is then placed against thousands of reference points instead of
    # one batch's, at the cost of a matrix product (no student forward: targets are fixed).
    bank: int = setting(0, help="teacher targets drawn at random per step as extra in-batch columns")
    # Each batch target also brings its k nearest targets (teacher's cosine) as target-only columns of the
    # in-batch losses: the fine distinctions between close sentences that STS and ranking measure, which random
    # batch-mates (and a random bank) hardly contain.
    neighbours: int = setting(0, help="each batch target brings its k nearest targets as extra in-batch columns")
    # A group of one sentence in ten languages costs a step ten texts for one target: 54% of the semantic recipe's
    # tokens are in the 11% of its groups that hold nine or ten languages. Fewer texts a group buy passes, but
    # the translations taught more than the passes did, so both recipes keep every text.
    texts_per_group: int = setting(
        0, help="texts a group trains on per step: its first and others drawn at random (0: all)"
    )
    # False: the position embeddings stay zero and are not trained. Trained, they grow to the norm of a typical
    # word row (0.48 against a median 0.53 in the relevance student) and are nearly orthogonal per position (adjacent
    # cosine -0.14), while rows of words rarely seen in training keep their small initial norm: on new text the
    # embedding LayerNorm then hands the layer mostly position. Without them it keeps each word's direction, but
    # the relevance student ranks worse, so they stay on.
    positions: bool = setting(True, help="train position embeddings (--no-positions: a bag of words)")
    # Weight of BM25 in the relational loss's teacher similarities: each batch target's text, as a query, scores
    # every batch target's text, standardised per row and added to the teacher's cosines in units of their
    # spread, as the runtime fuses a query's cosine and BM25: it teaches the ranking the runtime ships, not the
    # dense teacher's alone. It stays 0: the relevance student ranked no better with it, alone or fused.
    lexical: float = setting(0.0, help="weight of BM25 beside the teacher's cosines in the relational loss")

    def __post_init__(self) -> None:
        # here, not in train_student: a recipe builds its config before the teacher phase, which can take an hour
        if self.teacher_scores not in TEACHER_SCORES:
            raise EdgeRankerError(f"teacher_scores must be one of {TEACHER_SCORES}, not {self.teacher_scores!r}")
        if self.pooling not in POOLINGS:
            raise EdgeRankerError(f"pooling must be one of {POOLINGS}, not {self.pooling!r}")
        if self.pooling_init not in POOLING_INITS:
            raise EdgeRankerError(f"pooling_init must be one of {POOLING_INITS}, not {self.pooling_init!r}")
        if self.pooling_init == "sif" and self.pooling != "weighted":
            raise EdgeRankerError("pooling_init 'sif' sets the weighted pooling's logits: it needs pooling 'weighted'")
        if min(self.bank, self.neighbours, self.texts_per_group) < 0:
            raise EdgeRankerError(
                "bank, neighbours and texts_per_group must be 0 or more, not "
                f"{self.bank} / {self.neighbours} / {self.texts_per_group}"
            )
        if self.lexical < 0:
            raise EdgeRankerError(f"lexical must be 0 or more, not {self.lexical}")
        if self.lexical and self.bank:
            raise EdgeRankerError("lexical scores batch targets' texts; bank targets have none in the batch")
        numbers = (
            self.lr,
            self.warmup,
            self.weight_decay,
            self.temperature,
            self.init_std,
            self.dropout,
            self.grad_clip,
        )
        if not all(math.isfinite(x) for x in (*numbers, self.lexical, *self.losses.values())):
            raise EdgeRankerError("every number of the training config (and every loss weight) must be finite")
        if self.lr <= 0 or self.temperature <= 0:
            raise EdgeRankerError(f"lr and temperature must be above 0, not {self.lr} / {self.temperature}")
        if not (0 <= self.dropout < 1 and 0 <= self.warmup <= 1):
            raise EdgeRankerError(f"dropout must be in [0, 1) and warmup in [0, 1], not {self.dropout} / {self.warmup}")
        if min(self.weight_decay, self.init_std, self.grad_clip, *self.losses.values(), 0) < 0:
            raise EdgeRankerError("weight_decay, init_std, grad_clip and the loss weights must be 0 or more")
        if not any(w > 0 for w in self.losses.values()):  # nothing to train: found now, not after the teacher phase
            raise EdgeRankerError(f"at least one loss needs a weight above 0, got {self.losses}")
        if not 0 <= self.seed < 2**32:  # the range numpy and scikit-learn take
            raise EdgeRankerError(f"seed must be from 0 to {2**32 - 1}, not {self.seed}")
        if self.threads is not None and self.threads < 1:
            raise EdgeRankerError(f"threads must be 1 or more, not {self.threads}")
        if self.width and self.width < self.hidden:
            raise EdgeRankerError(f"width must be 0 or at least the vectors' (pca_dim {self.hidden}), not {self.width}")
        layer = self.width or self.hidden
        if self.heads >= 1 and layer % self.heads:
            raise EdgeRankerError(f"the layer's width ({layer}) must be a multiple of heads ({self.heads})")
        lo, hi = MAX_LENGTH_RANGE
        if not lo <= self.max_length <= hi:  # what an exported model may read: found now, not at export
            raise EdgeRankerError(f"max_length must be between {lo} and {hi} tokens, got {self.max_length}")
        if self.checkpoint_steps < 1:
            raise EdgeRankerError(f"checkpoint_steps must be 1 or more, not {self.checkpoint_steps}")
        if self.epochs < 0 or min(self.batch_size, self.heads, self.ffn, self.layers, self.chunks) < 1:
            raise EdgeRankerError("epochs must be 0 or more; batch_size, heads, ffn, layers, chunks 1 or more")
