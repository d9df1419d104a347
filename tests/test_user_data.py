"""The user's own corpora: reading and refusing them, the held-out slice, and a made-up two-language corpus trained,
exported and ranked end to end (tiny teacher, tiny vocabulary)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import SYLLABLES, HashTeacher, make_sentences

from edge_ranker.datasets.user import read_parallel, read_text, split_held_out
from edge_ranker.errors import EdgeRankerError

EN_DE = dict(zip(SYLLABLES["en"], SYLLABLES["de"]))


def _translate(sentence: str) -> str:
    """Word by word into the made-up German (the tiny teacher's concepts are shared across the two)."""
    return " ".join(EN_DE.get(w.rstrip("s"), w) for w in sentence.split())


def _corpus(tmp_path, n: int = 400):
    en = list(dict.fromkeys(make_sentences("en", n, seed=7)))
    de = [_translate(s) for s in en]
    tsv = tmp_path / "de-en.tsv"
    tsv.write_text("".join(f"{x}\t{y}\n" for x, y in zip(de, en)), encoding="utf-8")
    (tmp_path / "de.txt").write_text("\n".join(de) + "\n", encoding="utf-8")
    (tmp_path / "en.txt").write_text("\n".join(en) + "\n", encoding="utf-8")
    return tsv, list(zip(de, en))


def test_a_tsv_and_two_aligned_files_read_alike_with_blank_lines_skipped(tmp_path):
    tsv, pairs = _corpus(tmp_path, 50)
    (tmp_path / "blank.tsv").write_text("\n" + tsv.read_text(encoding="utf-8") + "\n\n", encoding="utf-8")
    a = read_parallel(f"de-en={tmp_path / 'blank.tsv'}")
    b = read_parallel(f"de-en={tmp_path / 'de.txt'},{tmp_path / 'en.txt'}")
    assert (a.src, a.tgt) == ("de", "en") and a.pairs == b.pairs == list(dict.fromkeys(pairs))


@pytest.mark.parametrize(
    "files, spec, message",
    [
        ({"a.txt": "eins\nzwei\n", "b.txt": "one\n"}, "de-en={d}/a.txt,{d}/b.txt", "not line-aligned (2 vs 1 lines)"),
        ({"a.tsv": ""}, "de-en={d}/a.tsv", "a.tsv has no text"),
        ({"a.tsv": " \n\n"}, "de-en={d}/a.tsv", "a.tsv has no text"),
        ({"a.tsv": "eins\tone\n\tzwei\n"}, "de-en={d}/a.tsv", "a.tsv line 2: the de side is empty"),
        ({"a.tsv": "eins\t\n"}, "de-en={d}/a.tsv", "a.tsv line 1: the en side is empty"),
        ({"a.txt": "eins\n\n", "b.txt": "one\ntwo\n"}, "de-en={d}/a.txt,{d}/b.txt", "line 2: the de side is empty"),
        ({"a.tsv": "eins\tone\ttwo\n"}, "de-en={d}/a.tsv", "expected 2 tab-separated columns (de, en), got 3"),
        ({}, "de-en={d}/missing.tsv", "missing.tsv is not found"),
        ({}, "de-en={d}", "is a folder"),
        ({}, "german-en=x.tsv", "--parallel expects XX-YY=FILE.tsv"),
        ({}, "de-de=x.tsv", "must be different languages"),
        ({}, "de-en=a,b,c", "one TSV file or two line-aligned files"),
        ({}, "de-en=a.tsv,", "one TSV file or two line-aligned files"),
    ],
)
def test_bad_parallel_corpora_are_named_with_file_and_line(tmp_path, files, spec, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(EdgeRankerError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_parallel(spec.format(d=tmp_path))


def test_text_files_are_read_as_distinct_lines_and_checked(tmp_path):
    (tmp_path / "t.txt").write_bytes("eins  zwei\n\neins zwei\n\U0001f600 drei\n".encode())
    assert read_text(f"de={tmp_path / 't.txt'}") == ("de", ["eins zwei", "\U0001f600 drei"])
    with pytest.raises(EdgeRankerError, match="--text expects XX=FILE"):
        read_text(str(tmp_path / "t.txt"))
    (tmp_path / "e.txt").write_text("", encoding="utf-8")
    with pytest.raises(EdgeRankerError, match="e.txt has no text"):
        read_text(f"de={tmp_path / 'e.txt'}")


def test_the_held_out_slice_is_seeded_a_fifth_at_most_and_shares_no_text_with_any_corpus(tmp_path):
    tsv, pairs = _corpus(tmp_path, 200)
    corpus = read_parallel(f"de-en={tsv}")
    (tmp_path / "tr-en.tsv").write_text("".join(f"{x[::-1]}\t{y}\n" for x, y in pairs), encoding="utf-8")
    other = read_parallel(f"tr-en={tmp_path / 'tr-en.tsv'}")  # the same English sides: a shared pivot
    (train, train_other), (held, held_other) = split_held_out([corpus, other], 1000, seed=3)
    assert len(held) == len(corpus.pairs) // 5 and len(held_other) == len(other.pairs) // 5
    held_texts = {t for p in held + held_other for t in p}
    assert not held_texts & {t for p in train + train_other for t in p}
    assert split_held_out([corpus], 1000, seed=3)[1] == [held] != split_held_out([corpus], 1000, seed=4)[1]


def _recipe(tmp_path, tsv, **settings):
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.recipes import RECIPES, with_overrides

    train = TrainConfig(epochs=12, batch_size=32, lr=3e-3, hidden=16, heads=2, ffn=32, max_length=32, neighbours=4)
    semantic = with_overrides(RECIPES["semantic"], {"parallel": [f"de-en={tsv}"], "held_out": 40, **settings})
    return with_overrides(semantic, {"pca_dim": 16, **{k: getattr(train, k) for k in train.__dataclass_fields__}})


def test_the_users_data_replaces_the_recipes_data_sets_and_names_its_languages(tmp_path):
    tsv, _ = _corpus(tmp_path, 20)
    r = _recipe(tmp_path, tsv, text=[f"tr={tmp_path / 'en.txt'}"])
    assert not r.reads_data_root and r.langs == [] and r.bible_verses == 0 and not r.news
    assert r.languages == ["de", "en", "tr"] and r.teacher == "use-multilingual-v3"


def test_a_two_language_corpus_trains_holds_out_exports_and_ranks(tiny_vocab, tmp_path):
    """No data root at all: the user's pairs and a teacher are the whole input."""
    from edge_ranker.distill.run import distill
    from edge_ranker.evaluate.user_data import evaluate_held_out
    from edge_ranker.export.onnx_graph import export_model
    from edge_ranker.modeling.student import TorchStudentEncoder
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    tsv, pairs = _corpus(tmp_path)
    recipe = _recipe(tmp_path, tsv)
    teacher = HashTeacher(dim=32)
    log = distill(recipe, tiny_vocab, tmp_path / "student", None, tmp_path / "cache", teacher, show_progress=False)
    (train,), (held,) = split_held_out([read_parallel(f"de-en={tsv}")], 40, recipe.train.seed)
    assert log["groups"] == len({en for _, en in train})  # one group per English side; the held-out pairs left out
    student = TorchStudentEncoder(tmp_path / "student")
    assert student.info.languages == ["de", "en"]
    report = evaluate_held_out(student, teacher, recipe.parallel, recipe.held_out, recipe.train.seed)
    row = report["corpora"][f"de-en={tsv}"]
    assert row["pairs"] == 40 and min(row["teacher"].values()) >= 80  # the tiny teacher shares concepts across the two
    assert min(row["student"].values()) > 5 * 100 / 40  # far above chance among 40 candidates
    assert row["kept"] > 0.5 and -1 <= row["agreement"] <= 1  # kept may pass 1: a student can beat its teacher
    assert "teacher's translation retrieval" in report["verdict"]

    model = export_model(tmp_path / "student", tmp_path / "model")
    assert json.loads((model / "manifest.json").read_text())["languages"] == ["de", "en"]
    ranker = Ranker(Encoder.load(model), None, PreferenceStore(tmp_path / "prefs.db"))
    de = [x for x, _ in pairs]
    water = [s for s in de if "wasser" in s and "stein" not in s]
    stone = [s for s in de if "stein" in s and "wasser" not in s]
    ranker.feedback({"id": "liked", "text": water[0]}, "like")
    ranker.feedback({"id": "disliked", "text": stone[0]}, "dislike")
    ranked = ranker.rank(
        [{"id": f"w{i}", "text": t} for i, t in enumerate(water[1:6])]
        + [{"id": f"s{i}", "text": t} for i, t in enumerate(stone[1:6])]
    )
    assert np.mean([r.id.startswith("w") for r in ranked[:5]]) >= 0.6


def test_a_language_the_vocabulary_was_not_built_for_is_refused_before_the_teacher_runs(tiny_vocab, tmp_path):
    from edge_ranker.distill.run import distill

    class NoTeacher:
        name = "never-called"

        def encode(self, texts, role="passage"):
            raise AssertionError("the teacher ran before the data was checked")

    (tmp_path / "sv-en.tsv").write_text("hej hej\thello there\n" * 10, encoding="utf-8")
    recipe = _recipe(tmp_path, tmp_path / "sv-en.tsv")
    recipe = replace(recipe, parallel=[f"sv-en={tmp_path / 'sv-en.tsv'}"])
    with pytest.raises(EdgeRankerError, match="was built for de, en, tr, not sv"):
        distill(recipe, tiny_vocab, tmp_path / "out", None, tmp_path / "cache", NoTeacher(), show_progress=False)
    assert not (tmp_path / "out").exists()


def test_the_cli_names_a_bad_corpus_in_one_line_without_data_or_teacher(tiny_vocab, tmp_path):
    (tmp_path / "bad.tsv").write_text("eins\tone\nzwei\n", encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "distill", "semantic", "--vocab", str(tiny_vocab)]
        + ["--out", str(tmp_path / "out"), "--parallel", f"de-en={tmp_path / 'bad.tsv'}"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        f"edge-ranker: error: {tmp_path / 'bad.tsv'} line 2: expected 2 tab-separated columns (de, en), got 1"
    ]


def test_eval_scores_your_own_bitext_without_a_data_folder(tiny_model, tmp_path):
    tsv, pairs = _corpus(tmp_path, 60)
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "eval", str(tiny_model), "--bitext", f"de-en={tsv}"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)[str(tiny_model)][f"bitext:de-en={tsv}"]
    assert got["pairs"] == len(dict.fromkeys(pairs)) and 0 <= got["de->en"] <= 100 and 0 <= got["en->de"] <= 100


def test_files_in_another_encoding_are_refused_and_a_stray_bad_byte_is_not(tmp_path):
    (tmp_path / "u16.tsv").write_bytes("eins\tone\nzwei\ttwo\n".encode("utf-16"))
    with pytest.raises(EdgeRankerError, match="looks like UTF-16"):
        read_parallel(f"de-en={tmp_path / 'u16.tsv'}")
    (tmp_path / "latin1.tsv").write_bytes("grün\tgreen\nweiß\twhite\n".encode("latin-1") * 10)
    with pytest.raises(EdgeRankerError, match="20 of the 20 lines of .* are not valid UTF-8 \\(the first: line 1\\)"):
        read_parallel(f"de-en={tmp_path / 'latin1.tsv'}")
    lines = [f"wort{i}\tword{i}" for i in range(200)]
    (tmp_path / "stray.tsv").write_bytes(("\r\n".join(lines) + "\r\n").encode() + b"gr\xfcn\tgreen\n")
    pairs = read_parallel(f"de-en={tmp_path / 'stray.tsv'}").pairs  # CRLF endings, one bad byte in 201 lines
    assert pairs[0] == ("wort0", "word0") and pairs[-1] == ("gr\ufffdn", "green")
    (tmp_path / "nul.tsv").write_bytes(("\n".join(lines) + "\n").encode() + b"a\x00b\tab\n")  # one stray NUL
    assert len(read_parallel(f"de-en={tmp_path / 'nul.tsv'}").pairs) == 201


@pytest.mark.skipif(not Path("/dev/fd").is_dir(), reason="no /dev/fd to name a pipe by")
def test_a_pipe_is_read_as_a_file_and_a_folder_is_named(tmp_path):
    """``--bitext de-en=<(...)`` names a pipe, which is no regular file, and is read as one."""
    read, write = os.pipe()
    os.write(write, b"eins\tone\nzwei\ttwo\n")
    os.close(write)
    try:
        assert read_parallel(f"de-en=/dev/fd/{read}").pairs == [("eins", "one"), ("zwei", "two")]
    finally:
        os.close(read)
    with pytest.raises(EdgeRankerError, match="is a folder"):
        read_parallel(f"de-en={tmp_path}")
    with pytest.raises(EdgeRankerError, match="is not found"):
        read_parallel(f"de-en={tmp_path / 'none.tsv'}")


def test_text_alone_trains_without_pairs(tiny_vocab, tmp_path):
    from edge_ranker.distill.recipes import RECIPES, with_overrides
    from edge_ranker.distill.run import distill

    _corpus(tmp_path, 80)
    recipe = with_overrides(
        RECIPES["semantic"],
        {"text": [f"de={tmp_path / 'de.txt'}"], "pca_dim": 16, "epochs": 1, "batch_size": 16, "heads": 2},
    )
    log = distill(recipe, tiny_vocab, tmp_path / "out", None, tmp_path / "cache", HashTeacher(32), show_progress=False)
    assert log["groups"] == len(read_text(f"de={tmp_path / 'de.txt'}")[1])


def test_eval_names_a_bad_bitext_before_scoring_any_model(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "eval", "semantic", "--bitext", "big.tsv"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert r.returncode == 2 and r.stderr.startswith("edge-ranker: error: --bitext expects XX-YY=FILE.tsv")
