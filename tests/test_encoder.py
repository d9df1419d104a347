"""The Encoder: vectors as sentence-transformers gives them, roles, windows over long texts, any input text, and the
checks made at load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import VARIED

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import Encoder, split_windows


@pytest.fixture(scope="module")
def enc(tiny_model):
    return Encoder.load(tiny_model)


def test_encode_shapes_and_roles(enc):
    v = enc.encode(VARIED, role="query")
    assert v.shape == (len(VARIED), 32) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-4)
    assert not np.allclose(enc.encode(["the cat"], role="query"), enc.encode(["the cat"], role="passage"))
    assert enc.tokenize(["the cat"], role="query")[0][:3] != enc.tokenize(["the cat"])[0][:3]
    with pytest.raises(EdgeRankerError, match="role"):
        enc.encode(["x"], role="document")


def test_a_text_gets_the_same_vector_in_any_batch(enc):
    """Rows come back in input order whatever the length-sorted batching, and a text's vector does not depend on
    its batch neighbours: the default export computes in fp32, so only float rounding may differ."""
    a = enc.encode(VARIED)
    b = np.concatenate([enc.encode([t]) for t in VARIED])
    c = np.concatenate([enc.encode([t, "x " * 300])[:1] for t in VARIED])
    assert np.abs(a - b).max() <= 1e-6 and np.abs(c - b).max() <= 1e-6


@pytest.fixture(scope="module")
def windowed(tiny_student, tmp_path_factory):
    """The tiny model exported to read a long text in 3 windows."""
    from edge_ranker.export.onnx_graph import export_model

    return Encoder.load(export_model(tiny_student, tmp_path_factory.mktemp("windowed"), name="tiny", windows=3))


def test_split_windows_at_the_edges():
    cls, sep = 101, 102
    text = list(range(1, 20))
    assert split_windows([cls, *text[:6], sep], 8, 3) == [[cls, *text[:6], sep]]  # fits: as it is
    assert split_windows([cls, *text[:7], sep], 8, 3) == [[cls, *text[:3], sep], [cls, *text[3:7], sep]]
    # a 2-token prefix opens every window; the text past 3 windows of 4 is not read
    ids = [cls, 7, 8, *text, sep]
    assert split_windows(ids, 8, 3, head=2) == [[cls, 7, 8, *text[i : i + 4], sep] for i in (0, 4, 8)]
    assert split_windows([cls, *text, sep], 8, 1) == [[cls, *text[:6], sep]]


def test_a_windowed_text_gets_the_same_vector_in_any_batch_and_order(windowed):
    texts = ["short one", "word " * 150, "", "the cat sat " * 40, "x"]
    alone = np.stack([windowed.encode(t, role="passage") for t in texts])
    for size in (1, 2, 32):
        np.testing.assert_allclose(windowed.encode(texts, role="passage", batch_size=size), alone, atol=1e-6)
    np.testing.assert_allclose(windowed.encode(texts[::-1], role="passage"), alone[::-1], atol=1e-6)


def test_a_model_reading_windows_has_its_own_key_in_stored_data(windowed, enc):
    """Vectors stored by a one-window reader are not mixed with a windowed reader's: the history is embedded again."""
    from edge_ranker.runtime.ranker import model_key

    assert model_key(windowed) == model_key(enc) + ":3w"


def test_a_long_text_is_read_to_max_length_in_one_window(enc):
    ids = enc.tokenize(["word " * 1000])[0]
    assert len(ids) == enc.max_length and enc.windows_of(ids) == [ids]


def test_a_long_text_is_read_in_windows_up_to_a_cap(windowed):
    enc = windowed
    ids = enc.tokenize(["word " * 10_000], role="query")[0]
    assert len(ids) == enc.max_length * 3
    windows = enc.windows_of(ids, role="query")
    head = enc.tokenize([""], role="query")[0][:-1]  # [CLS] and the role's prefix open every window
    assert len(windows) == 3 and {len(w) for w in windows} == {enc.max_length}
    assert all(w[: len(head)] == head and w[-1] == ids[-1] for w in windows)
    step = enc.max_length - len(head) - 1
    assert [t for w in windows for t in w[len(head) : -1]] == ids[len(head) : -1][: 3 * step]  # in order, once
    short = enc.tokenize(["the cat sat"])[0]
    assert enc.windows_of(short) == [short]


def test_a_long_texts_vector_is_its_windows_weighted_and_renormalised(windowed, enc):
    one = enc
    enc = windowed
    text = "the cat sat on the mat " * 12 + "stock markets fell sharply " * 15  # the tail within the windows
    windows = enc.windows_of(enc.tokenize([text], "passage")[0], "passage")  # a document, as encode embeds
    assert len(windows) > 1
    feed = [{"input_ids": np.array([w]), "attention_mask": np.ones((1, len(w)), np.int64)} for w in windows]
    vecs = [enc.session.run(None, f)[0][0] for f in feed]  # each window through the graph alone
    mean = np.array([len(w) for w in windows], dtype=np.float64) @ np.stack(vecs).astype(np.float64)
    np.testing.assert_allclose(enc.encode(text), mean / np.linalg.norm(mean), atol=1e-6)
    # the tail counts in windows and not in one: the same start with another ending
    other = "the cat sat on the mat " * 35
    assert np.array_equal(one.encode(text), one.encode(other))
    assert np.abs(enc.encode(text) - enc.encode(other)).max() > 1e-3


def test_bytes_and_invalid_utf8(enc):
    v = enc.encode([b"caf\xc3\xa9", b"\xff\xfe\xfa broken", "lone \ud800 surrogate"])
    assert np.isfinite(v).all()
    np.testing.assert_array_equal(enc.encode(bytearray(b"caf\xc3\xa9")), enc.encode("caf\u00e9"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"threads": 0}, "threads"), ({"threads": "2"}, "threads"), ({"batch_size": 0}, "batch_size")],
)
def test_encoder_settings_are_checked_at_load(tiny_model, kwargs, match):
    with pytest.raises(EdgeRankerError, match=match):
        Encoder.load(tiny_model, **kwargs)


def test_a_shipped_name_means_the_shipped_model_whatever_folder_the_working_directory_holds(
    tiny_model, tmp_path, monkeypatch
):
    """A model folder planted as ``semantic/`` in the working directory once replaced the shipped model; a path to
    it (``./semantic``) still loads it."""
    import shutil

    from edge_ranker.runtime.encoder import MODELS_DIR, resolve_model_path

    monkeypatch.chdir(tmp_path)
    shutil.copytree(tiny_model, tmp_path / "semantic")
    assert resolve_model_path("semantic") == MODELS_DIR / "semantic"
    assert resolve_model_path("./semantic") == Path("semantic")
    assert resolve_model_path(tmp_path / "semantic") == tmp_path / "semantic"
    assert Encoder.load("./semantic").name == Encoder.load(tiny_model).name


def test_more_threads_than_cores_are_capped_not_refused(tiny_model):
    """A setting made on a large machine still runs on a small one."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    enc = Encoder.load(tiny_model, threads=cores + 7)
    assert enc.session.get_session_options().intra_op_num_threads == cores


def test_a_tokenizer_with_ids_past_the_word_table_is_refused_at_load(tiny_model, tmp_path):
    """Else onnxruntime fails only at the first text holding such a token."""
    import hashlib
    import shutil

    folder = tmp_path / "m"
    shutil.copytree(tiny_model, folder)
    tok = json.loads((folder / "tokenizer.json").read_text())
    tok["model"]["vocab"]["football"] = 999_999
    (folder / "tokenizer.json").write_text(json.dumps(tok))
    manifest = json.loads((folder / "manifest.json").read_text())
    data = (folder / "tokenizer.json").read_bytes()
    manifest["files"]["tokenizer.json"] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(EdgeRankerError, match="tokenizer.json's ids .up to 999999"):
        Encoder.load(folder)


def test_encode_takes_sentence_transformers_keywords_and_embeds_a_document_without_a_role(enc):
    texts = ["the green river", "a stone house"]
    plain = enc.encode(texts)
    np.testing.assert_array_equal(plain, enc.encode(texts, role="passage"))  # as the Ranker stores documents
    np.testing.assert_array_equal(plain, enc.encode_document(texts))
    kept = enc.encode(texts, batch_size=1, show_progress_bar=False, normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(kept, plain, atol=1e-6)
    with pytest.raises(EdgeRankerError, match="unit length by construction"):
        enc.encode(texts, normalize_embeddings=False)
    rows = enc.encode(texts, convert_to_numpy=False)
    assert isinstance(rows, list) and len(rows) == 2 and np.array_equal(rows[1], plain[1])
    torch = pytest.importorskip("torch")
    assert torch.equal(enc.encode(texts, convert_to_tensor=True), torch.from_numpy(plain))
    with pytest.raises(EdgeRankerError, match="normalize_embeddings must be True or False"):
        enc.encode(texts, normalize_embeddings="yes")


def test_none_or_a_non_text_is_refused_in_words(enc):
    with pytest.raises(EdgeRankerError, match="texts must be a string, bytes or a list of them, got NoneType"):
        enc.encode(None)
    with pytest.raises(EdgeRankerError, match="text 1 must be a string or bytes, got NoneType"):
        enc.encode(["a", None])
    with pytest.raises(EdgeRankerError, match="text 0 must be a string or bytes, got int"):
        enc.encode([5])
    with pytest.raises(EdgeRankerError, match="got int"):
        enc.encode(5)
    with pytest.raises(EdgeRankerError, match="got dict .a document: pass its 'text'"):
        enc.encode({"id": "a", "text": "x"})  # would embed the keys
    with pytest.raises(EdgeRankerError, match="got set"):
        enc.encode({"a", "b"})  # no order to return the vectors in
    assert enc.encode(("a", "b"), batch_size=np.int64(1)).shape == (2, enc.dim)


def test_similarity_is_the_cosine_of_every_pair(enc):
    a, b = enc.encode(["the green river", "a stone house"]), enc.encode_query("river")
    sims = enc.similarity(b, a)
    assert sims.shape == (1, 2) and np.allclose(sims, b @ a.T, atol=1e-6)
    np.testing.assert_allclose(
        Encoder.similarity([[2.0, 0.0]], [[1.0, 1.0], [0.0, -3.0]]), [[0.70710677, 0.0]], atol=1e-6
    )
    with pytest.raises(EdgeRankerError, match="vectors of one size"):
        Encoder.similarity(a, a[:, :3])
    with pytest.raises(EdgeRankerError, match="similarity takes vectors"):
        Encoder.similarity(["a"], a)


def test_sentence_transformers_keywords_are_honoured_or_refused_in_words(tiny_model):
    """The README promises sentence-transformers' API: its keywords raised TypeError, its dimension call
    AttributeError."""
    enc = Encoder.load(tiny_model)
    assert enc.get_sentence_embedding_dimension() == enc.dim
    plain = enc.encode(["the cat sat"])
    np.testing.assert_array_equal(enc.encode(["the cat sat"], device="cpu", precision="float32"), plain)
    query = enc.encode(["the cat sat"], role="query")
    np.testing.assert_array_equal(enc.encode(["the cat sat"], prompt_name="query"), query)
    for kwargs, said in (
        ({"device": "cuda"}, "run on the CPU"),
        ({"precision": "int8"}, "the vectors are float32"),
        ({"prompt_name": "query", "role": "passage"}, "name one thing"),
    ):
        with pytest.raises(EdgeRankerError, match=said):
            enc.encode(["the cat sat"], **kwargs)
