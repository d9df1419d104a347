"""The model folder's manifest: every field checked for type and range, every file checked by size and sha256, and
the bytes checked the bytes loaded."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import edge_ranker.runtime.manifest as manifest_module
from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.manifest import SCHEMA_VERSION


@pytest.fixture
def broken(tiny_model, tmp_path):
    dst = tmp_path / "m"
    shutil.copytree(tiny_model, dst)
    return dst


def test_truncated_model_file(broken):
    data = (broken / "model.onnx").read_bytes()
    (broken / "model.onnx").write_bytes(data[: len(data) // 2])
    with pytest.raises(EdgeRankerError, match="truncated"):
        Encoder.load(broken)


def test_corrupted_model_file(broken):
    data = bytearray((broken / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (broken / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(EdgeRankerError, match="corrupted"):
        Encoder.load(broken)


def test_missing_files(broken):
    (broken / "tokenizer.json").unlink()
    with pytest.raises(EdgeRankerError, match="missing"):
        Encoder.load(broken)
    (broken / "manifest.json").unlink()
    with pytest.raises(EdgeRankerError, match="manifest.json is missing"):
        Encoder.load(broken)


def test_a_manifest_without_a_field_or_naming_an_absent_file_says_which(broken):
    m = json.loads((broken / "manifest.json").read_text())
    for drop, said in ((("dim",), "lacks the field 'dim'$"), (("dim", "kind"), "lacks the fields 'kind', 'dim'$")):
        (broken / "manifest.json").write_text(json.dumps({k: v for k, v in m.items() if k not in drop}))
        with pytest.raises(EdgeRankerError, match=said):
            Encoder.load(broken)
    _craft(broken, **{**m, "onnx": "other.onnx"})
    with pytest.raises(EdgeRankerError, match=r"model file missing: .*other\.onnx \(manifest\.json names it\)"):
        Encoder.load(broken)


def test_newer_schema_and_garbage_manifest(broken):
    m = json.loads((broken / "manifest.json").read_text())
    m["schema_version"] = SCHEMA_VERSION + 1
    (broken / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(EdgeRankerError, match="newer"):
        Encoder.load(broken)
    (broken / "manifest.json").write_text("{not json")
    with pytest.raises(EdgeRankerError, match="corrupted"):
        Encoder.load(broken)


def _craft(folder, **changes):
    m = json.loads((folder / "manifest.json").read_text())
    m.update(changes)
    (folder / "manifest.json").write_text(json.dumps(m))


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"onnx": "/etc/hostname"}, "not a file inside"),
        ({"onnx": "../m2/model.onnx"}, "not a file inside"),
        ({"files": {"/etc/passwd": {"sha256": "0" * 64, "bytes": 1}}}, "not a file inside"),
        ({"max_length": 0}, "max_length must be between"),
        ({"max_length": True}, "'max_length' must be a JSON int"),
        ({"windows": 0}, "windows must be between 1 and 64"),
        ({"windows": 65}, "windows must be between 1 and 64"),
        ({"windows": 2.0}, "'windows' must be a JSON int"),
        ({"windows": 2, "max_length": 4}, "leaves no room for text"),  # [CLS] query : [SEP] fill a window
        ({"max_length": 4}, "every text would get the same vector"),
        ({"dim": "32"}, "'dim' must be a JSON int"),
        ({"prefixes": ["query: "]}, "'prefixes' must be a JSON dict"),
        ({"prefixes": {"document": "doc: "}}, "prefixes map"),
        ({"prefixes": {"query": "q\ud800: "}}, "prefixes map"),  # a lone surrogate: no tokenizer takes it
        ({"files": {"model.onnx": "abc"}}, "must be {'sha256'"),
        ({"languages": [1, 2]}, "languages must be"),
        ({"max_length": 4000}, "cannot read max_length=4000"),
        ({"dim": 64}, "says dim=64"),
        ({"schema_version": 0}, "no valid schema_version"),
        ({"schema_version": -5}, "no valid schema_version"),
        ({"schema_version": True}, "no valid schema_version"),
        ({"kind": "bogus"}, "kind must be one of semantic, relevance"),
        ({"name": " "}, "name must be a non-blank text"),
        ({"dim": 10**12}, "dim must be between 1 and 65536"),
        ({"teacher_dim": -1}, "teacher_dim must be between 0 and 65536"),
        ({"files": {"model.onnx": {"sha256": "A" * 64, "bytes": 1}}}, "64 lowercase hex digits"),
        ({"files": {"model.onnx": {"sha256": "0" * 64, "bytes": -1}}}, "a whole number >= 0"),
    ],
)
def test_crafted_manifests_get_one_clear_error(broken, changes, match):
    (broken.parent / "m2").mkdir()
    shutil.copy(broken / "model.onnx", broken.parent / "m2" / "model.onnx")
    _craft(broken, **changes)
    with pytest.raises(EdgeRankerError, match=match):
        Encoder.load(broken)


def test_a_deeply_nested_manifest_is_refused_clearly(broken):
    (broken / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(EdgeRankerError, match="not valid JSON"):
        Encoder.load(broken)


def test_a_link_out_of_the_folder_is_refused(broken, tmp_path):
    (broken / "model.onnx").rename(tmp_path / "elsewhere.onnx")
    (broken / "model.onnx").symlink_to(tmp_path / "elsewhere.onnx")
    with pytest.raises(EdgeRankerError, match="not a file inside"):
        Encoder.load(broken)


def test_a_manifest_with_an_integer_of_thousands_of_digits_is_refused_clearly(broken):
    text = (broken / "manifest.json").read_text()
    (broken / "manifest.json").write_text(text.replace('"dim": 32', '"dim": ' + "9" * 5000))
    with pytest.raises(EdgeRankerError, match="not valid JSON"):
        Encoder.load(broken)


def test_the_bytes_verified_are_the_bytes_loaded(broken, tiny_student, tmp_path, monkeypatch):
    """A graph swapped for another between its hash check and its load is never run: the check's bytes are loaded."""
    from edge_ranker.export.onnx_graph import export_model

    want = Encoder.load(broken).encode(["a swapped graph"])
    original = (broken / "model.onnx").read_bytes()
    other = export_model(tiny_student, tmp_path / "fp32", quantize="fp32") / "model.onnx"
    real = manifest_module.hashlib

    class Swapping:
        """hashlib whose sha256 swaps the graph on disk once its digest has been taken."""

        def __init__(self, data=b""):
            self.h = real.sha256(data)

        def update(self, data):
            self.h.update(data)

        def hexdigest(self):
            digest = self.h.hexdigest()
            if digest == json.loads((broken / "manifest.json").read_text())["files"]["model.onnx"]["sha256"]:
                shutil.copy(other, broken / "model.onnx")
            return digest

    monkeypatch.setattr(manifest_module, "hashlib", type("H", (), {"sha256": Swapping}))
    got = Encoder.load(broken).encode(["a swapped graph"])
    assert (broken / "model.onnx").read_bytes() == other.read_bytes()  # the swap happened
    assert other.read_bytes() != original
    assert not np.allclose(Encoder.load(other.parent).encode(["a swapped graph"]), want, atol=1e-4)  # tells them apart
    assert (got == want).all()


@pytest.mark.parametrize("listed", ["model.onnx", "tokenizer.json", "vocab.txt", "manifest.json"])
def test_a_pipe_in_place_of_a_model_file_is_refused_without_waiting(broken, listed):
    """Reading a FIFO waits for a writer that never comes: ``Encoder.load`` hung."""
    import os

    (broken / listed).unlink()
    os.mkfifo(broken / listed)
    with pytest.raises(EdgeRankerError, match="is not a regular file"):
        Encoder.load(broken)


@pytest.mark.parametrize("listed", ["model.onnx", "vocab.txt", "manifest.json"])
def test_a_folder_in_place_of_a_model_file_is_refused_in_words(broken, listed):
    (broken / listed).unlink()
    (broken / listed).mkdir()
    with pytest.raises(EdgeRankerError, match="is not a regular file"):
        Encoder.load(broken)


def test_a_huge_model_file_is_refused_by_its_size_before_it_is_read(broken):
    """A 2 GB sparse file in place of the graph was read whole (2.1 GB) before its size was compared."""
    import tracemalloc

    with open(broken / "model.onnx", "r+b") as fh:
        fh.truncate(2 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(EdgeRankerError, match="truncated or altered: 2147483648 bytes"):
            Encoder.load(broken)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20


def test_a_manifest_linked_from_outside_the_folder_is_refused(broken, tmp_path):
    outside = tmp_path / "elsewhere.json"
    outside.write_text((broken / "manifest.json").read_text())
    (broken / "manifest.json").unlink()
    (broken / "manifest.json").symlink_to(outside)
    with pytest.raises(EdgeRankerError, match="not a file inside the model folder"):
        Encoder.load(broken)


def test_a_file_name_with_a_nul_is_refused_in_words(broken):
    _craft(broken, onnx="model\u0000.onnx")
    with pytest.raises(EdgeRankerError, match="holds a NUL character"):
        Encoder.load(broken)
