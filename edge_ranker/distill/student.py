"""The student: a 1-layer BERT from transformers, masked mean pooling, L2 normalisation.

Defaults: hidden 128, 2 heads of 64 (BERT's per-head width; 4 heads of 32 cost the same FLOPs with
thinner heads), FFN 512 (the usual 4x). At this size the word-embedding table is ~95% of the weights,
so the encoder's shape barely changes size or speed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn
from transformers import BertConfig, BertModel

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import CHARS_PER_TOKEN_CAP, clean_text

STUDENT_FILE = "student.json"


@dataclass
class StudentInfo:
    """What runtime and export need beyond the BERT config: length, roles, provenance."""

    max_length: int = 128
    prefixes: dict[str, str] = field(default_factory=dict)  # role -> text prefix, empty if symmetric
    kind: str = "semantic"  # semantic | relevance
    teacher: str = ""
    teacher_dim: int = 0
    pca_dim: int = 0
    pca_explained_variance: float = 0.0
    languages: list[str] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)


def masked_mean(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1.0)


class Student(nn.Module):
    """``forward`` returns the pooled (un-normalised) vector; ``embed`` the L2-normalised one."""

    def __init__(self, config: BertConfig) -> None:
        super().__init__()
        self.config = config
        self.bert = BertModel(config, add_pooling_layer=False)

    @classmethod
    def create(
        cls,
        vocab_size: int,
        hidden: int = 128,
        layers: int = 1,
        heads: int = 2,
        ffn: int = 512,
        max_length: int = 128,
        dropout: float = 0.1,
    ) -> Student:
        cfg = BertConfig(
            vocab_size=vocab_size,
            hidden_size=hidden,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=ffn,
            max_position_embeddings=max_length,
            type_vocab_size=1,
            hidden_dropout_prob=dropout,
            attention_probs_dropout_prob=dropout,
            attn_implementation="eager",
        )
        return cls(cfg)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, chunks: int = 1) -> torch.Tensor:
        """Pooled vectors of right-padded rows.

        ``chunks`` > 1 sorts the rows by length and runs them in that many pieces, each cut to its own longest
        row: the same vectors (to float rounding) for about half the compute when short sentences share a
        batch with 64-token ones, as they do in the semantic recipe (bench/RESULTS.md, Session 10).
        """
        if chunks <= 1 or len(input_ids) < 2:
            return self._pooled(input_ids, attention_mask)
        lengths = attention_mask.sum(1)
        order = torch.argsort(lengths)
        pooled = []
        for rows in torch.tensor_split(order, min(chunks, len(order))):
            width = int(lengths[rows].max())
            pooled.append(self._pooled(input_ids[rows, :width], attention_mask[rows, :width]))
        return torch.cat(pooled)[torch.argsort(order)]  # the pieces are in ``order``: undo it

    def _pooled(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        out = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return masked_mean(out, attention_mask)

    def embed(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return nn.functional.normalize(self(input_ids, attention_mask), dim=-1)


class StudentTokenizer:
    """Batch tokenisation with truncation to ``max_length`` and padding to the longest row."""

    def __init__(self, tokenizer: Tokenizer, max_length: int) -> None:
        self.tok = Tokenizer.from_str(tokenizer.to_str())
        self.tok.enable_truncation(max_length=max_length)
        pad = self.tok.token_to_id("[PAD]")
        self.tok.enable_padding(pad_id=pad if pad is not None else 0, pad_token="[PAD]")

    def __call__(self, texts: list[str]) -> dict[str, torch.Tensor]:
        enc = self.tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        return {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask)}


def save_student(model: Student, tokenizer: Tokenizer, info: StudentInfo, out_dir: str | Path) -> Path:
    """A training-side folder: transformers weights, tokenizer.json and student.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.bert.save_pretrained(out)
    tokenizer.save(str(out / "tokenizer.json"))
    (out / STUDENT_FILE).write_text(json.dumps(asdict(info), indent=2, ensure_ascii=False), encoding="utf-8")
    return out


def load_student(path: str | Path) -> tuple[Student, Tokenizer, StudentInfo]:
    p = Path(path)
    if not (p / STUDENT_FILE).exists():
        raise EdgeRankerError(f"{p} is not a student folder (no {STUDENT_FILE})")
    info = StudentInfo(**json.loads((p / STUDENT_FILE).read_text(encoding="utf-8")))
    bert = BertModel.from_pretrained(p, add_pooling_layer=False, attn_implementation="eager")
    model = Student(bert.config)
    model.bert = bert
    model.eval()
    return model, Tokenizer.from_file(str(p / "tokenizer.json")), info


class TorchStudentEncoder:
    """The torch student behind the ``encode(texts, role)`` interface, for evaluation before export."""

    def __init__(self, path: str | Path, batch_size: int = 256) -> None:
        self.model, tok, self.info = load_student(path)
        self.tokenize = StudentTokenizer(tok, self.info.max_length)
        self.batch_size = batch_size
        self.name = str(path)

    @torch.inference_mode()
    def encode(self, texts: list[str], role: str = "passage") -> np.ndarray:
        prefix = self.info.prefixes.get(role, "")
        cap = self.info.max_length * CHARS_PER_TOKEN_CAP
        texts = [prefix + clean_text(t)[:cap] for t in texts]  # same input handling as the runtime
        outs = []
        for i in range(0, len(texts), self.batch_size):
            batch = self.tokenize(texts[i : i + self.batch_size])
            outs.append(self.model.embed(**batch).numpy())
        return np.concatenate(outs) if outs else np.zeros((0, self.model.config.hidden_size), np.float32)
