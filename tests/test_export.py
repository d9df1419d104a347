from __future__ import annotations

import json
import shutil

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from conftest import VARIED, make_sentences
from onnx import TensorProto, helper, numpy_helper
from scipy.stats import spearmanr

from edge_ranker.errors import EdgeRankerError
from edge_ranker.export.onnx_graph import export_model
from edge_ranker.export.quantize import _replace_table, int4_blocks
from edge_ranker.modeling.student import TorchStudentEncoder
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.manifest import SCHEMA_VERSION, read_manifest

SENTENCES = VARIED + [s for lang in ("en", "de", "tr") for s in make_sentences(lang, 100, 11)]


@pytest.fixture(scope="module")
def fp32_model(tiny_student, tmp_path_factory):
    return export_model(tiny_student, tmp_path_factory.mktemp("fp32"), quantize="fp32")


def test_onnx_fp32_matches_torch(tiny_student, fp32_model):
    torch_vecs = TorchStudentEncoder(tiny_student).encode(SENTENCES, role="passage")
    onnx_vecs = Encoder.load(fp32_model).encode(SENTENCES, role="passage")
    cos = (torch_vecs * onnx_vecs).sum(1)
    assert cos.min() >= 0.9999


def test_the_position_table_keeps_the_rows_the_runtime_reads(tiny_student, fp32_model):
    """The student has 128 positions and reads 64 tokens: the graph keeps 64, and a text of 64 tokens still runs."""
    graph = onnx.load(str(fp32_model / "model.onnx")).graph
    (table,) = [i for i in graph.initializer if "position_embeddings" in i.name]
    assert list(table.dims) == [64, 32]
    long = " ".join(["river stone house"] * 40)
    np.testing.assert_allclose(
        Encoder.load(fp32_model).encode([long], role="passage"),
        TorchStudentEncoder(tiny_student).encode([long], role="passage"),
        atol=1e-5,
    )


def test_a_student_shorter_than_its_max_length_is_refused(tiny_student, tmp_path):
    student = tmp_path / "student"
    shutil.copytree(tiny_student, student)
    info = json.loads((student / "student.json").read_text())
    (student / "student.json").write_text(json.dumps(info | {"max_length": 200}))
    with pytest.raises(EdgeRankerError, match="128 positions, fewer than max_length=200"):
        export_model(student, tmp_path / "out")


def test_graph_contains_pooling_and_normalisation(fp32_model):
    out = Encoder.load(fp32_model).encode(["one", "two words here"])
    assert out.shape == (2, 32)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-5)


def test_default_int8_matches_fp32(fp32_model, tiny_model):
    a = Encoder.load(fp32_model).encode(SENTENCES)
    b = Encoder.load(tiny_model).encode(SENTENCES)
    assert len(SENTENCES) >= 300
    assert (a * b).sum(1).mean() >= 0.99
    iu = np.triu_indices(len(SENTENCES), 1)
    rho = spearmanr((a @ a.T)[iu], (b @ b.T)[iu]).statistic
    assert rho >= 0.98


def test_default_export_has_no_activation_quantization(tiny_model):
    """int8 weights on disk, fp32 MatMuls: no DynamicQuantizeLinear or MatMulInteger left in the graph."""
    graph = onnx.load(str(tiny_model / "model.onnx")).graph
    ops = {n.op_type for n in graph.node}
    assert "MatMul" in ops and not ops & {"DynamicQuantizeLinear", "MatMulInteger"}
    int8 = [i for i in graph.initializer if i.data_type == onnx.TensorProto.INT8]
    assert len(int8) == 7  # the word table and the six weight matrices


def test_int8_is_smaller(fp32_model, tiny_model):
    # tiny model: position table and encoder weigh as much as the word table, so the gain is smaller than
    # the ~4x of a 50k-vocabulary model (measured in bench/RESULTS.md)
    assert (tiny_model / "model.onnx").stat().st_size < 0.75 * (fp32_model / "model.onnx").stat().st_size


def test_manifest_contents(tiny_model):
    m = read_manifest(tiny_model)
    assert m.schema_version == SCHEMA_VERSION and m.dim == 32 and m.max_length == 64
    assert m.prefixes == {"query": "query: ", "passage": "passage: "} and m.quantization == "int8-weights"
    assert set(m.files) == {"model.onnx", "tokenizer.json", "vocab.txt"} and all(
        len(f["sha256"]) == 64 for f in m.files.values()
    )


@pytest.mark.parametrize("windows", [0, 65, 2.0, True])
def test_export_refuses_a_bad_window_count(tiny_student, tmp_path, windows):
    with pytest.raises(EdgeRankerError, match="windows must be between 1 and 64"):
        export_model(tiny_student, tmp_path, windows=windows)


def test_unknown_quantization(tiny_student, tmp_path):
    with pytest.raises(EdgeRankerError, match="unknown quantization"):
        export_model(tiny_student, tmp_path, quantize="int3")


def test_sentence_transformers_folder(tiny_student, tmp_path):
    from sentence_transformers import SentenceTransformer

    from edge_ranker.export.onnx_graph import export_sentence_transformers

    out = export_sentence_transformers(tiny_student, tmp_path / "st")
    st = SentenceTransformer(str(out), device="cpu")
    texts = ["the green river", "der blau stein"]
    ref = TorchStudentEncoder(tiny_student).encode(texts, role="passage")
    got = st.encode(texts, prompt_name="passage", normalize_embeddings=True)
    assert ((ref * got).sum(1) > 0.9999).all()


def test_any_sentence_transformers_folder_is_a_teacher(tiny_student, tmp_path):
    """The hub path: load_teacher accepts a sentence-transformers id or folder (here a folder we wrote)."""
    from edge_ranker.export.onnx_graph import export_sentence_transformers
    from edge_ranker.teachers import CachedTeacher, load_teacher

    folder = export_sentence_transformers(tiny_student, tmp_path / "st")
    teacher = load_teacher(str(folder), query_prefix="query: ", passage_prefix="passage: ")
    q = teacher.encode(["the green river"], role="query")
    p = teacher.encode(["the green river"], role="passage")
    assert q.shape == (1, 32) and not np.allclose(q, p)
    ref = TorchStudentEncoder(tiny_student).encode(["the green river"], role="query")
    assert float((q * ref).sum()) > 0.9999  # same model, same prefix
    cached = CachedTeacher(teacher, tmp_path / "cache")
    np.testing.assert_allclose(cached.encode(["the green river"], role="query"), q, rtol=1e-6)


def test_a_folder_that_holds_no_sentence_transformers_model_is_named(tmp_path):
    from edge_ranker.teachers import load_teacher

    (tmp_path / "config.json").write_text("{}")  # transformers: "Unrecognized model ... model_type"
    with pytest.raises(EdgeRankerError, match="cannot load the teacher .* sentence-transformers model"):
        load_teacher(str(tmp_path))


def _table_graph(table: np.ndarray) -> onnx.ModelProto:
    """A graph that only looks rows up, so a storage variant's dequantisation can be checked exactly."""
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["b", "s"])
    out = helper.make_tensor_value_info("rows", TensorProto.FLOAT, ["b", "s", table.shape[1]])
    node = helper.make_node("Gather", ["table", "ids"], ["rows"])
    graph = helper.make_graph([node], "g", [ids], [out], [numpy_helper.from_array(table, "table")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("block", [32, 64])
def test_int4_table_dequantises_to_its_codes_times_scales(block):
    rng = np.random.default_rng(0)
    table = rng.normal(0, 0.5, (300, 128)).astype(np.float32)
    table[7, 5] = 6.0  # one outlier: only its block's scale may grow
    table[3] = 0.0  # a padding row
    model = _table_graph(table)
    _replace_table(model, f"int4-block{block}")
    onnx.checker.check_model(model)
    sess = ort.InferenceSession(model.SerializeToString())
    ids = np.array([[0, 7, 299], [1, 3, 150]], dtype=np.int64)  # row 3 read through the graph too
    got = sess.run(None, {"ids": ids})[0]
    codes, scale = int4_blocks(table, block)
    assert codes.min() >= -8 and codes.max() <= 7 and scale.dtype == np.float16
    expected = (codes.reshape(300, -1, block) * scale.astype(np.float32)[..., None]).reshape(300, 128)
    np.testing.assert_array_equal(got, expected[ids])
    assert np.isfinite(scale.astype(np.float32)).all() and (scale > 0).all() and not expected[3].any()
    err = np.abs(expected - table)
    # 15 levels over a Gaussian block: about 9% mean error; the outlier's row keeps that in its other blocks
    assert err.mean() < 0.12 * np.abs(table).mean()
    assert err[7, block:].mean() < 0.12 * np.abs(table[7, block:]).mean()
    # the clipping search never does worse than the plain absmax / 7 scale
    plain = np.maximum(np.abs(table).reshape(300, -1, block).max(axis=2, keepdims=True), 1e-3) / 7
    plain_err = (np.clip(np.round(table.reshape(300, -1, block) / plain), -8, 7) * plain).reshape(300, 128) - table
    assert (err**2).sum() < (plain_err**2).sum()


def test_int4_needs_blocks_that_divide_the_width():
    with pytest.raises(EdgeRankerError, match="int4 blocks of 64"):
        int4_blocks(np.zeros((4, 32), np.float32), 64)


def test_int4_model_is_close_to_fp32_and_stores_half_bytes(tiny_student, fp32_model, tmp_path):
    model = export_model(tiny_student, tmp_path / "int4", quantize="int4-block32")
    a = Encoder.load(fp32_model).encode(SENTENCES)
    b = Encoder.load(model).encode(SENTENCES)
    assert (a * b).sum(1).mean() >= 0.98
    assert Encoder.load(model).encode(["", "😀" * 500, "Ελληνικά"]).shape == (3, 32)
    inits = {i.name: i for i in onnx.load(str(model / "model.onnx")).graph.initializer}
    (packed,) = [i for name, i in inits.items() if name.endswith("_q4")]
    vocab = len((model / "vocab.txt").read_text(encoding="utf-8").splitlines())
    assert list(packed.dims) == [vocab, 16] and packed.data_type == TensorProto.UINT8


def test_int4_weights_keeps_a_texts_vector_whatever_its_batch(tiny_student, tmp_path):
    """The 4-bit table beside int8-weights' fp32 MatMuls: no activation is quantized, so a batch cannot move a
    vector (int4-block* quantize activations per batch). The tiny student is 32 wide: blocks of 32."""
    enc = Encoder.load(export_model(tiny_student, tmp_path / "int4w", quantize="int4-weights-block32"))
    alone = np.stack([enc.encode([t])[0] for t in SENTENCES])
    np.testing.assert_allclose(enc.encode(SENTENCES), alone, atol=1e-6)
    graph = onnx.load(str(tmp_path / "int4w" / "model.onnx")).graph
    assert not any(n.op_type in ("DynamicQuantizeLinear", "MatMulInteger") for n in graph.node)


def test_an_export_that_fails_midway_leaves_the_earlier_model_and_nothing_else(tiny_student, tmp_path, monkeypatch):
    from edge_ranker.export import quantize

    out = tmp_path / "model"
    export_model(tiny_student, out, quantize="fp32")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(quantize, "quantize_model", full_disk)
    with pytest.raises(OSError, match="No space"):
        export_model(tiny_student, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_an_export_over_a_folder_keeps_the_users_own_files(tiny_student, tmp_path):
    out = tmp_path / "model"
    (out / "notes").mkdir(parents=True)
    (out / "README-mine.txt").write_text("keep")
    (out / "notes" / "data.bin").write_bytes(b"\x00\x01")
    (out / "model.onnx").write_bytes(b"an older model")
    export_model(tiny_student, out, quantize="fp32")
    assert (out / "README-mine.txt").read_text() == "keep"
    assert (out / "notes" / "data.bin").read_bytes() == b"\x00\x01"
    assert Encoder.load(out).encode(["hello"]).shape == (1, 32)  # the new model.onnx, verified by its manifest
    assert [p.name for p in tmp_path.iterdir()] == ["model"]


def test_a_failed_export_beside_the_users_files_leaves_them_and_no_partial_folder(tiny_student, tmp_path, monkeypatch):
    import os

    out = tmp_path / "model"
    out.mkdir()
    (out / "README-mine.txt").write_text("keep")
    replace = os.replace

    def full_disk(src, dst):
        if str(dst).endswith("manifest.json"):
            raise OSError(28, "No space left on device")
        return replace(src, dst)

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        export_model(tiny_student, out, quantize="fp32")
    assert (out / "README-mine.txt").read_text() == "keep"
    assert [p.name for p in tmp_path.iterdir()] == ["model"]
    with pytest.raises(EdgeRankerError):  # the model files moved, their manifest did not: refused, not loaded wrong
        Encoder.load(out)


def test_an_export_through_a_link_writes_into_the_linked_folder(tiny_student, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "README-mine.txt").write_text("keep")
    (tmp_path / "link").symlink_to(real)
    export_model(tiny_student, tmp_path / "link", quantize="fp32")
    assert (tmp_path / "link").is_symlink() and (real / "manifest.json").is_file()
    assert (real / "README-mine.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


def test_an_export_to_a_file_is_refused_and_the_file_kept(tiny_student, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    with pytest.raises(EdgeRankerError, match="is a file, not a folder"):
        export_model(tiny_student, notes)
    assert notes.read_text() == "mine" and [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_student_whose_max_length_no_runtime_reads_is_refused_at_export(tiny_student, tmp_path):
    bad = tmp_path / "student"
    shutil.copytree(tiny_student, bad)
    info = json.loads((bad / "student.json").read_text())
    (bad / "student.json").write_text(json.dumps({**info, "max_length": -5}))
    with pytest.raises(EdgeRankerError, match="max_length must be between 2 and 8192"):
        export_model(bad, tmp_path / "model")


def test_int4_blocks_that_do_not_divide_the_width_are_refused(tiny_student, tmp_path):
    from edge_ranker.export.onnx_graph import export_model

    with pytest.raises(EdgeRankerError, match="int4 blocks of 64 must divide"):
        export_model(tiny_student, tmp_path / "m", quantize="int4-block64")
    assert not (tmp_path / "m").exists()
