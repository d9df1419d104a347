"""The student: a small BERT from transformers (1 layer; a recipe may set 2), masked mean (or learnt weighted) pooling,
L2 normalisation.

Defaults: hidden 128, 2 heads of 64 (BERT's per-head width; 4 heads of 32 cost the same FLOPs with
thinner heads), FFN 512 (the usual 4x; a wider one trains slower and ranks no better). At this size the
word-embedding table is ~95% of the weights, so the encoder's shape barely changes size.

A layer wider than the vectors (``width``) keeps the word table at the vectors' width, read through a linear map up
to the layer's, and pools through one back down: the model stays about the size of the 128-d table, where a table as
wide as the layer would double it.

Pooling "weighted" replaces the plain mean with a softmax over the tokens of a learnt logit per vocabulary
piece plus one read from the token's output. BERT's output LayerNorm gives every token the same norm, so a
plain mean weighs "the" like a rare name; a 12-layer teacher can learn to ignore a token, one layer mostly
cannot. The logits start at 0, i.e. as the plain mean, or (``sif_token_logits``) at each piece's smooth inverse
frequency in the training texts, so that a rare word outweighs a function word from the first step. The mean
stays the default: neither start ranked better for the relevance student, whose teacher, e5, pools by the mean.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn
from transformers import BertConfig, BertModel

from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling import POOLINGS
from edge_ranker.runtime.encoder import CHARS_PER_TOKEN_CAP, clean_text

STUDENT_FILE = "student.json"
POOLING_FILE = "pooling.npz"
WIDE_FILE = "wide.npz"  # a wider layer's word table and its maps up and down
# Arora et al.'s SIF constant: a piece of share p weighs a / (a + p), so "the" (p ~ 0.03) weighs 1/30 of a rare word
SIF_A = 1e-3


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
    pooling: str = "mean"  # mean | weighted


def masked_mean(hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1.0)


class Student(nn.Module):
    """``forward`` returns the pooled (un-normalised) vector; ``embed`` the L2-normalised one. ``dim``: the vectors'
    width, below the layer's (``config.hidden_size``) for a wide student, whose BERT then holds no word table of
    its own (its config's vocabulary is one unused row, kept out of training: the words come in as ``inputs_embeds``,
    and a parameter without a gradient would stop a multi-process run's gradient reduction)."""

    def __init__(self, config: BertConfig, pooling: str = "mean", dim: int = 0, vocab_size: int = 0) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise EdgeRankerError(f"pooling must be one of {POOLINGS}, not {pooling!r}")
        self.config = config
        self.pooling = pooling
        self.dim = dim or config.hidden_size
        self.bert = BertModel(config, add_pooling_layer=False)
        self.wide = self.dim != config.hidden_size
        if self.wide:
            self.words = nn.Embedding(vocab_size, self.dim)
            self.up = nn.Linear(self.dim, config.hidden_size, bias=False)
            self.down = nn.Linear(config.hidden_size, self.dim, bias=False)
        self.vocab_size = vocab_size if self.wide else config.vocab_size
        self.keep_unused_row_out()
        if pooling == "weighted":  # 1-D so that export never mistakes it for the word-embedding table
            self.token_logit = nn.Parameter(torch.zeros(self.vocab_size))
            self.hidden_logit = nn.Linear(config.hidden_size, 1)
            nn.init.zeros_(self.hidden_logit.weight)
            nn.init.zeros_(self.hidden_logit.bias)

    def keep_unused_row_out(self) -> None:
        """A wide student's BERT word row is never read: it takes no gradient (call again after replacing ``bert``)."""
        if self.wide:
            self.bert.embeddings.word_embeddings.weight.requires_grad_(False)

    @property
    def table(self) -> nn.Embedding:
        """The word table: one row of the vectors' width per vocabulary piece."""
        return self.words if self.wide else self.bert.embeddings.word_embeddings

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
        pooling: str = "mean",
        width: int = 0,
    ) -> Student:
        """A new student of vectors ``hidden`` wide; ``width`` (0: ``hidden``) is its layer's width."""
        width = width or hidden
        cfg = BertConfig(
            vocab_size=vocab_size if width == hidden else 1,
            hidden_size=width,
            num_hidden_layers=layers,
            num_attention_heads=heads,
            intermediate_size=ffn,
            max_position_embeddings=max_length,
            type_vocab_size=1,
            hidden_dropout_prob=dropout,
            attention_probs_dropout_prob=dropout,
            attn_implementation="eager",
        )
        return cls(cfg, pooling, hidden, vocab_size)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, chunks: int = 1) -> torch.Tensor:
        """Pooled vectors of right-padded rows.

        ``chunks`` > 1 sorts the rows by length and runs them in that many pieces, each cut to its own longest row: the
        same vectors (to float rounding) for about half the compute when short sentences share a batch with 64-token
        ones, as they do in the semantic recipe. The word vectors are looked up once for the whole batch: the table's
        gradient is dense, and one lookup per piece makes the backward pass fill and sum a 50k-row gradient per
        piece."""
        words = self.table(input_ids)
        if chunks <= 1 or len(input_ids) < 2:
            return self._pooled(input_ids, words, attention_mask)
        lengths = attention_mask.sum(1)
        order = torch.argsort(lengths)
        pooled = []
        for rows in torch.tensor_split(order, min(chunks, len(order))):
            width = int(lengths[rows].max())
            pooled.append(self._pooled(input_ids[rows, :width], words[rows, :width], attention_mask[rows, :width]))
        return torch.cat(pooled)[torch.argsort(order)]  # the pieces are in ``order``: undo it

    def _pooled(
        self,
        input_ids: torch.Tensor,
        words: torch.Tensor,
        attention_mask: torch.Tensor,
        position_ids: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The pooled vectors of rows whose word rows (the table's) are ``words``."""
        out = self.bert(
            inputs_embeds=self.up(words) if self.wide else words,
            attention_mask=attention_mask,
            position_ids=position_ids,
            token_type_ids=token_type_ids,
        ).last_hidden_state
        return self.pool(input_ids, out, attention_mask)

    def pool(self, input_ids: torch.Tensor, hidden: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """One vector per row from the token outputs: the masked mean, or the softmax-weighted sum; a wide student's
        mapped down to the vectors' width."""
        if self.pooling == "mean":
            pooled = masked_mean(hidden, attention_mask)
        else:
            logits = self.token_logit.index_select(0, input_ids.reshape(-1)).view(input_ids.shape)
            logits = logits + self.hidden_logit(hidden).squeeze(-1)
            weights = torch.softmax(logits.masked_fill(attention_mask == 0, -1e4), dim=1)
            pooled = (weights.unsqueeze(-1) * hidden).sum(1)
        return self.down(pooled) if self.wide else pooled

    def graph(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """The exported graph's computation: ``embed`` with explicit position and type ids, which keep the graph free
        of the slice-by-min() that defeats ORT's symbolic shape inference (and with it quantization pre-processing)."""
        positions = torch.arange(input_ids.shape[1], dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        pooled = self._pooled(input_ids, self.table(input_ids), attention_mask, positions, torch.zeros_like(input_ids))
        return nn.functional.normalize(pooled, dim=-1)

    def embed(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return nn.functional.normalize(self(input_ids, attention_mask), dim=-1)


def sif_token_logits(tokenizer: Tokenizer, texts: list[str], max_length: int, a: float = SIF_A) -> np.ndarray:
    """log(a / (a + p)) per vocabulary piece, p its share of the pieces the student reads in ``texts`` (cut to
    ``max_length`` as in training): the weighted pooling's SIF start. Unseen pieces get 0, the largest weight."""
    tok = Tokenizer.from_str(tokenizer.to_str())
    tok.enable_truncation(max_length=max_length)
    tok.no_padding()
    counts = np.zeros(tokenizer.get_vocab_size(), dtype=np.float64)
    for i in range(0, len(texts), 4096):
        ids = [np.asarray(e.ids, dtype=np.int64) for e in tok.encode_batch(texts[i : i + 4096])]
        counts += np.bincount(np.concatenate(ids), minlength=len(counts))
    share = counts / max(counts.sum(), 1.0)
    return np.log(a / (a + share)).astype(np.float32)


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
    if model.pooling == "weighted":
        np.savez(
            out / POOLING_FILE,
            token_logit=model.token_logit.detach().cpu().numpy(),
            hidden_weight=model.hidden_logit.weight.detach().cpu().numpy(),
            hidden_bias=model.hidden_logit.bias.detach().cpu().numpy(),
        )
    if model.wide:
        np.savez(
            out / WIDE_FILE,
            words=model.words.weight.detach().cpu().numpy(),
            up=model.up.weight.detach().cpu().numpy(),
            down=model.down.weight.detach().cpu().numpy(),
        )
    tokenizer.save(str(out / "tokenizer.json"))
    (out / STUDENT_FILE).write_text(json.dumps(asdict(info), indent=2, ensure_ascii=False), encoding="utf-8")
    return out


def load_student(path: str | Path) -> tuple[Student, Tokenizer, StudentInfo]:
    """A student folder as ``distill`` wrote it; a file missing or damaged is named, not met as a library's error."""
    p = Path(path)
    if not (p / STUDENT_FILE).exists():
        raise EdgeRankerError(f"{p} is not a student folder (no {STUDENT_FILE})")
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (p / name).is_file():
            raise EdgeRankerError(f"{p} is not a whole student folder: {name} is missing")
    try:
        info = StudentInfo(**json.loads((p / STUDENT_FILE).read_text(encoding="utf-8")))
    except (ValueError, TypeError, RecursionError) as exc:  # not JSON, not an object, an unknown key
        raise EdgeRankerError(f"{p / STUDENT_FILE} is damaged: {str(exc)[:160]}") from exc
    try:
        bert = BertModel.from_pretrained(p, add_pooling_layer=False, attn_implementation="eager")
        tokenizer = Tokenizer.from_file(str(p / "tokenizer.json"))
    except ImportError:  # a missing package: the command line names the extra to install
        raise
    except Exception as exc:  # transformers, safetensors and tokenizers each raise their own kinds
        said = " ".join(str(exc).split())[:160]
        raise EdgeRankerError(f"{p} holds a damaged student: {type(exc).__name__}: {said}") from exc
    vocab = tokenizer.get_vocab_size()
    wide = _wide_weights(p, bert.config.hidden_size, vocab) if (p / WIDE_FILE).exists() else None
    if wide is None and bert.config.vocab_size != vocab:
        raise EdgeRankerError(
            f"{p} is not a whole student folder: its layer reads {bert.config.vocab_size} word rows for a vocabulary "
            f"of {vocab} ({WIDE_FILE}, a wide student's word table, is missing?)"
        )
    dims = {"dim": wide["words"].shape[1], "vocab_size": vocab} if wide else {}
    model = Student(bert.config, info.pooling, **dims)
    model.bert = bert
    model.keep_unused_row_out()
    if wide:
        with torch.no_grad():
            for name in ("words", "up", "down"):
                getattr(model, name).weight.copy_(torch.from_numpy(wide[name]))
    if info.pooling == "weighted":
        if not (p / POOLING_FILE).exists():
            raise EdgeRankerError(f"{p} uses weighted pooling but has no {POOLING_FILE}")
        w = np.load(p / POOLING_FILE)
        with torch.no_grad():
            model.token_logit.copy_(torch.from_numpy(w["token_logit"]))
            model.hidden_logit.weight.copy_(torch.from_numpy(w["hidden_weight"]))
            model.hidden_logit.bias.copy_(torch.from_numpy(w["hidden_bias"]))
    model.eval()
    bad = not_finite(model)
    if bad:
        raise EdgeRankerError(f"{p} holds a student whose {bad} is not finite (NaN or infinity): its training diverged")
    return model, tokenizer, info


def _wide_weights(folder: Path, width: int, vocab: int) -> dict[str, np.ndarray]:
    """A wide student's word table and maps, checked against each other, its layer's ``width`` and the vocabulary."""
    try:
        with np.load(folder / WIDE_FILE) as f:
            w = {name: f[name] for name in ("words", "up", "down")}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise EdgeRankerError(f"{folder / WIDE_FILE} is damaged: {str(exc)[:160]}") from exc
    dim = w["words"].shape[1] if w["words"].ndim == 2 else -1
    if not 0 < dim < width or w["words"].shape[0] != vocab:
        raise EdgeRankerError(
            f"{folder / WIDE_FILE} does not fit the student: its word table is {w['words'].shape}, for {vocab} pieces "
            f"narrower than the layer's {width}"
        )
    if w["up"].shape != (width, dim) or w["down"].shape != (dim, width):
        raise EdgeRankerError(f"{folder / WIDE_FILE} does not fit the student: its maps are not {dim} <-> {width}")
    return w


def not_finite(model: torch.nn.Module) -> str | None:
    """The first weight of ``model`` that holds a NaN or an infinity, by name; None when every one is finite."""
    return next((n for n, w in model.state_dict().items() if not torch.isfinite(w).all()), None)


class TorchStudentEncoder:
    """The torch student behind the ``encode(texts, role)`` interface, for evaluation before export. It reads a
    text's first ``max_length`` tokens, as training does; an exported model may read more (its manifest's
    ``windows``), so on long texts the two differ."""

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
        return np.concatenate(outs) if outs else np.zeros((0, self.model.dim), np.float32)
