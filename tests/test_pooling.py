"""Weighted pooling: a learnt softmax over the tokens instead of the plain masked mean."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import VARIED, make_sentences
from test_train import _data
from tokenizers import Tokenizer

from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.train import train_student
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling.student import (
    Student,
    StudentInfo,
    StudentTokenizer,
    TorchStudentEncoder,
    load_student,
    masked_mean,
    save_student,
    sif_token_logits,
)

TEXTS = VARIED + make_sentences("en", 40, 3) + make_sentences("de", 20, 4)


def _pair(tok: Tokenizer) -> tuple[Student, Student]:
    torch.manual_seed(0)
    mean = Student.create(tok.get_vocab_size(), hidden=32, heads=2, ffn=64, dropout=0.0)
    weighted = Student(mean.config, "weighted")
    weighted.bert.load_state_dict(mean.bert.state_dict())
    return mean.eval(), weighted.eval()


def test_weighted_pooling_starts_as_the_mean_and_ignores_padding(tiny_vocab):
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    mean, weighted = _pair(tok)
    batch = StudentTokenizer(tok, 64)(TEXTS)
    with torch.no_grad():
        torch.testing.assert_close(weighted(**batch), mean(**batch))
        weighted.token_logit.copy_(torch.randn(tok.get_vocab_size()) * 3)
        weighted.hidden_logit.weight.normal_()
        row = 3
        n = int(batch["attention_mask"][row].sum())
        alone = weighted(batch["input_ids"][row : row + 1, :n], batch["attention_mask"][row : row + 1, :n])
        torch.testing.assert_close(weighted(**batch)[row : row + 1], alone, rtol=1e-5, atol=1e-6)


def test_weighted_pooling_is_the_softmax_weighted_sum_computed_by_hand(tiny_vocab):
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    _, weighted = _pair(tok)
    batch = StudentTokenizer(tok, 64)(["blue water stone", "the cat"])
    ids, mask = batch["input_ids"], batch["attention_mask"]
    with torch.no_grad():
        weighted.token_logit.copy_(torch.linspace(-2, 2, tok.get_vocab_size()))
        weighted.hidden_logit.weight.fill_(0.1)
        weighted.hidden_logit.bias.fill_(5.0)  # a shared shift: no effect on a softmax
        hidden = weighted.bert(input_ids=ids, attention_mask=mask).last_hidden_state
        got = weighted(ids, mask)
    for r in range(2):
        n = int(mask[r].sum())
        logits = np.array([float(weighted.token_logit[ids[r, t]]) + 0.1 * float(hidden[r, t].sum()) for t in range(n)])
        w = np.exp(logits - logits.max())
        w /= w.sum()
        want = (w[:, None] * hidden[r, :n].numpy()).sum(0)
        np.testing.assert_allclose(got[r].numpy(), want, rtol=1e-4, atol=1e-5)
        assert not np.allclose(want, masked_mean(hidden[r : r + 1, :n], mask[r : r + 1, :n])[0].numpy(), atol=1e-3)


def test_weighted_student_trains_its_logits_saves_loads_and_exports(tiny_vocab, tmp_path):
    from edge_ranker.export.onnx_graph import export_model, export_sentence_transformers
    from edge_ranker.runtime.encoder import Encoder

    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=3, batch_size=32, lr=3e-3, hidden=32, heads=2, ffn=64, max_length=32, pooling="weighted")
    log = train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    assert log["epochs"][-1] < 0.7 * log["epochs"][0]
    model, _, info = load_student(tmp_path / "s")
    assert info.pooling == "weighted" and model.pooling == "weighted"
    assert float(model.token_logit.abs().max()) > 1e-3  # the logits learnt something
    torch_vecs = TorchStudentEncoder(tmp_path / "s").encode(TEXTS)
    fp32 = Encoder.load(export_model(tmp_path / "s", tmp_path / "fp32", quantize="fp32")).encode(TEXTS)
    int8 = Encoder.load(export_model(tmp_path / "s", tmp_path / "int8")).encode(TEXTS)
    assert (torch_vecs * fp32).sum(1).min() >= 0.9999
    assert (torch_vecs * int8).sum(1).mean() >= 0.99
    with pytest.raises(EdgeRankerError, match="weighted pooling"):
        export_sentence_transformers(tmp_path / "s", tmp_path / "st")


def test_a_weighted_student_without_its_pooling_file_is_refused(tiny_vocab, tmp_path):
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    _, weighted = _pair(tok)
    save_student(weighted, tok, StudentInfo(pooling="weighted"), tmp_path / "w")
    (tmp_path / "w" / "pooling.npz").unlink()
    with pytest.raises(EdgeRankerError, match="pooling.npz"):
        load_student(tmp_path / "w")
    with pytest.raises(EdgeRankerError, match="pooling must be"):
        Student(weighted.config, "max")
    with pytest.raises(EdgeRankerError, match="pooling must be"):  # before any teacher phase
        TrainConfig(pooling="max")


def test_sif_logits_are_the_smooth_inverse_frequency_counted_by_hand(tiny_vocab):
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    texts = ["the cat", "the dog", "the the stone"]
    ids = [i for e in tok.encode_batch(texts) for i in e.ids]
    logits = sif_token_logits(tok, texts, max_length=32, a=0.01)
    counts = np.bincount(ids, minlength=tok.get_vocab_size())
    np.testing.assert_allclose(logits, np.log(0.01 / (0.01 + counts / counts.sum())), rtol=1e-6)
    the, stone = tok.token_to_id("the"), tok.encode("stone", add_special_tokens=False).ids[0]
    assert logits[the] < logits[stone] < 0  # the frequent piece weighs less
    assert logits[tok.token_to_id("blue")] == 0.0  # never read: the largest weight
    cut = sif_token_logits(tok, ["stone " * 50], max_length=4, a=0.01)  # read as training does: [CLS] 2x stone [SEP]
    assert cut[stone] == pytest.approx(np.log(0.01 / (0.01 + 2 / 4)))


def test_sif_init_starts_training_from_those_logits_and_needs_weighted_pooling(tiny_vocab, tmp_path):
    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=0, hidden=32, heads=2, ffn=64, max_length=32, pooling="weighted", pooling_init="sif")
    train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    model, _, _ = load_student(tmp_path / "s")
    want = sif_token_logits(tok, [t for g in groups for t in g.texts], 32)
    np.testing.assert_allclose(model.token_logit.detach().numpy(), want)
    with pytest.raises(EdgeRankerError, match="needs pooling 'weighted'"):
        TrainConfig(pooling_init="sif")
    with pytest.raises(EdgeRankerError, match="pooling_init must be"):
        TrainConfig(pooling="weighted", pooling_init="idf")
