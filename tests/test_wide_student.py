"""A layer wider than the vectors: the word table stays at the vectors' width, read through a map up, pooled
through a map down; trained, saved, exported to ONNX and to sentence-transformers as the plain student is."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import VARIED, make_sentences
from test_train import _data
from tokenizers import Tokenizer

from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.train import train_student
from edge_ranker.errors import EdgeRankerError
from edge_ranker.export.onnx_graph import export_model, export_sentence_transformers
from edge_ranker.modeling.student import WIDE_FILE, StudentInfo, StudentTokenizer, TorchStudentEncoder, load_student
from edge_ranker.runtime.encoder import Encoder

TEXTS = VARIED + make_sentences("en", 30, 5)


@pytest.fixture(scope="module")
def wide(tiny_vocab, tmp_path_factory):
    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=3, batch_size=32, lr=3e-3, hidden=32, width=64, heads=2, ffn=128, max_length=32)
    out = tmp_path_factory.mktemp("wide") / "s"
    init = np.random.default_rng(0).normal(0, 0.05, (tok.get_vocab_size(), 32)).astype(np.float32)
    log = train_student(groups, targets, tok, StudentInfo(), out, cfg, init_embeddings=init, show_progress=False)
    return out, log, init


def test_a_wide_student_trains_and_keeps_its_table_at_the_vectors_width(wide):
    out, log, init = wide
    assert log["epochs"][-1] < 0.7 * log["epochs"][0]
    model, _, _ = load_student(out)
    assert (model.dim, model.config.hidden_size) == (32, 64)
    assert model.table.weight.shape == (len(init), 32)
    assert model.bert.embeddings.word_embeddings.weight.shape[0] == 1  # the layer holds no table of its own
    assert not np.allclose(model.table.weight.detach().numpy(), init)  # the teacher's rows were the start, then trained
    vecs = TorchStudentEncoder(out).encode(TEXTS)
    assert vecs.shape == (len(TEXTS), 32)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)


def test_the_exported_graph_computes_what_torch_does(wide, tmp_path):
    out, _, _ = wide
    ref = TorchStudentEncoder(out).encode(TEXTS)
    fp32 = Encoder.load(export_model(out, tmp_path / "fp32", quantize="fp32"))
    assert fp32.dim == 32
    assert (ref * fp32.encode(TEXTS)).sum(1).min() >= 0.9999
    int8 = Encoder.load(export_model(out, tmp_path / "int8"))
    assert (ref * int8.encode(TEXTS)).sum(1).min() >= 0.98


def test_the_sentence_transformers_folder_folds_the_maps_in(wide, tmp_path):
    from sentence_transformers import SentenceTransformer

    out, _, _ = wide
    st = SentenceTransformer(str(export_sentence_transformers(out, tmp_path / "st")), device="cpu")
    texts = ["the green river", "der blau stein"]
    got = st.encode(texts, normalize_embeddings=True)
    assert got.shape == (2, 32)
    assert ((TorchStudentEncoder(out).encode(texts) * got).sum(1) > 0.9999).all()


def test_a_damaged_or_mismatched_wide_file_is_named(wide, tmp_path):
    import shutil

    out, _, _ = wide
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    with np.load(bad / WIDE_FILE) as f:
        w = dict(f)
    np.savez(bad / WIDE_FILE, **(w | {"up": w["up"][:, :8]}))
    with pytest.raises(EdgeRankerError, match="does not fit the student"):
        load_student(bad)
    whole = (out / WIDE_FILE).read_bytes()
    for damaged in (b"not a zip", whole[: len(whole) // 2]):
        (bad / WIDE_FILE).write_bytes(damaged)
        with pytest.raises(EdgeRankerError, match="is damaged"):
            load_student(bad)
    (bad / WIDE_FILE).unlink()
    with pytest.raises(EdgeRankerError, match=f"{WIDE_FILE}, a wide student's word table, is missing"):
        load_student(bad)


def test_every_trained_weight_of_a_wide_student_gets_a_gradient(wide):
    """What a multi-process run needs: its gradient reduction waits for every parameter that requires one."""
    out, _, _ = wide
    model, tok, _ = load_student(out)
    model.train()
    batch = StudentTokenizer(tok, 32)(TEXTS[:8])
    model(**batch).sum().backward()
    missing = [n for n, w in model.named_parameters() if w.requires_grad and w.grad is None]
    assert missing == []
    assert not model.bert.embeddings.word_embeddings.weight.requires_grad


def test_a_width_below_the_vectors_or_off_the_heads_is_refused():
    with pytest.raises(EdgeRankerError, match="at least the vectors'"):
        TrainConfig(hidden=128, width=64)
    with pytest.raises(EdgeRankerError, match="multiple of heads"):
        TrainConfig(hidden=128, width=258, heads=4)


def test_a_plain_student_writes_no_wide_file(tiny_student):
    assert not (tiny_student / WIDE_FILE).exists()
    model, _, _ = load_student(tiny_student)
    assert not model.wide and model.dim == json.loads((tiny_student / "config.json").read_text())["hidden_size"]
    assert torch.equal(model.table.weight, model.bert.embeddings.word_embeddings.weight)
