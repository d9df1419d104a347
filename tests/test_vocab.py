from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from edge_ranker.errors import EdgeRankerError
from edge_ranker.vocab.builder import SPECIAL_TOKENS, build_vocab
from edge_ranker.vocab.sampling import sample_to_budget, smoothed_weights

AMOUNTS = {"en": 700.0, "de": 200.0, "tr": 100.0}


def test_alpha_one_gives_raw_shares():
    w = smoothed_weights(AMOUNTS, 1.0)
    assert w == pytest.approx({"en": 0.7, "de": 0.2, "tr": 0.1})


def test_alpha_zero_gives_uniform():
    assert smoothed_weights(AMOUNTS, 0.0) == pytest.approx({k: 1 / 3 for k in AMOUNTS})


def test_alpha_07_matches_formula():
    raw = {"en": 0.7, "de": 0.2, "tr": 0.1}
    z = sum(v**0.7 for v in raw.values())
    assert smoothed_weights(AMOUNTS, 0.7) == pytest.approx({k: v**0.7 / z for k, v in raw.items()})
    assert smoothed_weights(AMOUNTS, 0.7)["tr"] > 0.1  # small language gains share


@pytest.mark.parametrize("alpha", [-0.1, 1.5])
def test_alpha_out_of_range(alpha):
    with pytest.raises(EdgeRankerError, match="alpha"):
        smoothed_weights(AMOUNTS, alpha)


def test_oversampling_repeats_whole_passes():
    lines = ["ab", "cd", "ef"]
    out = sample_to_budget(lines, 13, random.Random(0))
    assert sorted(out[:3]) == sorted(lines)  # every line once before any repeats
    assert sum(map(len, out)) >= 13


def test_build_honours_size_and_specials(tiny_vocab):
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    assert tok.get_vocab_size() == 150
    vocab = (tiny_vocab / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert len(vocab) == 150 and vocab[:5] == SPECIAL_TOKENS
    report = json.loads((tiny_vocab / "report.json").read_text())
    assert set(report["languages"]) == {"en", "de", "tr"}
    for lang in report["languages"].values():
        assert lang["fertility"] >= 1.0 and 0.0 <= lang["unk_rate"] <= 1.0 and lang["lines_used"] > 0


def test_round_trip_and_transformers_loading(tiny_vocab):
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    text = "the green river runs fast"
    enc = tok.encode(text)
    assert enc.tokens[0] == "[CLS]" and enc.tokens[-1] == "[SEP]"
    assert tok.decode(enc.ids) == text
    hf = PreTrainedTokenizerFast(tokenizer_file=str(tiny_vocab / "tokenizer.json"))
    assert hf(text)["input_ids"] == enc.ids


def test_accents_kept_by_default(tiny_vocab):
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    assert tok.normalizer.normalize_str("Grün Ağaç") == "grün ağaç"


def test_deterministic_for_seed(corpora, tmp_path):
    a = build_vocab(corpora, tmp_path / "a", vocab_size=140, budget_chars=30_000, seed=3, show_progress=False)
    b = build_vocab(corpora, tmp_path / "b", vocab_size=140, budget_chars=30_000, seed=3, show_progress=False)
    assert a.sample_sha256 == b.sample_sha256  # identical training text for a seed
    assert a.languages["tr"].lines_used == b.languages["tr"].lines_used
    va = set((tmp_path / "a" / "vocab.txt").read_text().split())
    vb = set((tmp_path / "b" / "vocab.txt").read_text().split())
    assert len(va & vb) / len(va) >= 0.9  # upstream trainer tie-breaking (tokenizers#1794) only at the margin
    c = build_vocab(corpora, tmp_path / "c", vocab_size=140, budget_chars=30_000, seed=4, show_progress=False)
    assert c.sample_sha256 != a.sample_sha256


def test_invalid_utf8_is_skipped_and_counted(corpora, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good line one\n\xff\xfe broken \xc3\n" + b"another good line\n" * 20)
    rep = build_vocab(
        {**corpora, "xx": [bad]}, tmp_path / "v", vocab_size=140, budget_chars=20_000, show_progress=False
    )
    assert rep.languages["xx"].invalid_utf8_lines == 1


def test_gzip_and_leipzig_inputs(tmp_path, corpora):
    import gzip

    from edge_ranker.textio import read_lines

    g = tmp_path / "x.txt.gz"
    with gzip.open(g, "wt", encoding="utf-8") as fh:
        fh.write("1\tfirst sentence\n2\tsecond one\n")
    assert list(read_lines(g)) == ["first sentence", "second one"]


def test_missing_file(tmp_path):
    with pytest.raises(EdgeRankerError, match="not found"):
        build_vocab({"en": [tmp_path / "nope.txt"]}, tmp_path / "o", vocab_size=100)


def test_empty_corpus_and_language_without_text(tmp_path, corpora):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n   \n")
    with pytest.raises(EdgeRankerError, match="no usable text"):
        build_vocab({**corpora, "xx": [empty]}, tmp_path / "o", vocab_size=100)
    with pytest.raises(EdgeRankerError, match="no corpus files"):
        build_vocab({**corpora, "xx": []}, tmp_path / "o", vocab_size=100)
    with pytest.raises(EdgeRankerError, match="no corpora"):
        build_vocab({}, tmp_path / "o", vocab_size=100)


def vocab_build_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "vocab", "build", *map(str, args)], capture_output=True, text=True
    )


def test_cli_errors_are_messages_not_tracebacks(tmp_path):
    r = vocab_build_cli("--corpus", f"en={tmp_path / 'missing.txt'}", "--out", tmp_path / "o")
    assert r.returncode == 2
    assert "corpus file not found" in r.stderr and "Traceback" not in r.stderr
    r = vocab_build_cli("--corpus", "en=x", "--alpha", "2", "--out", tmp_path / "o")
    assert r.returncode == 2 and "alpha" in r.stderr and "Traceback" not in r.stderr


def test_a_language_wordfreq_does_not_know_is_named(monkeypatch):
    """wordfreq raises for an unknown or malformed language code (LookupError, or langcodes' ValueError)."""
    import types

    from edge_ranker.vocab.builder import _wordfreq_lines

    for error in (LookupError("No wordlist 'best' available for language 'xx'"), ValueError("bad language tag")):

        def top_n_list(lang, n, error=error):
            raise error

        monkeypatch.setitem(sys.modules, "wordfreq", types.SimpleNamespace(top_n_list=top_n_list))
        with pytest.raises(EdgeRankerError, match="wordfreq has no words for language 'xx'"):
            _wordfreq_lines("wordfreq:xx:100")


def test_a_sentencepiece_model_that_is_missing_a_folder_or_not_one_is_named(tmp_path):
    """Said in words, not as sentencepiece's own NOT_FOUND or INTERNAL: could not parse ModelProto."""
    from edge_ranker.vocab.convert import from_sentencepiece

    with pytest.raises(EdgeRankerError, match="nowhere.model is not found"):
        from_sentencepiece(tmp_path / "nowhere.model", tmp_path / "out")
    with pytest.raises(EdgeRankerError, match="is a folder"):
        from_sentencepiece(tmp_path, tmp_path / "out")
    pytest.importorskip("sentencepiece")
    for content in (b"", b"not a model at all", bytes(range(256))):
        (tmp_path / "bad.model").write_bytes(content)
        with pytest.raises(EdgeRankerError, match="bad.model is not a SentencePiece model"):
            from_sentencepiece(tmp_path / "bad.model", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_words_longer_than_the_tokenizer_reads_are_left_out_of_training(corpora, tmp_path):
    """A word over 100 characters is [UNK] whole, and the WordPiece trainer's time grows with the square of a
    word's length: one 400,000-character word took 49 s, five million about two hours."""
    from edge_ranker.vocab.builder import make_tokenizer, without_long_words

    tok = make_tokenizer()
    assert without_long_words(tok, "a short line, kept as it is") == "a short line, kept as it is"
    assert without_long_words(tok, "keep " + "x" * 101 + " these,words") == "keep these , words"
    cjk = "水" * 300  # no space, but every CJK character is a word of its own
    assert without_long_words(tok, cjk).split() == ["水"] * 300
    long = tmp_path / "long.txt"
    long.write_text("the " + "ab" * 100_000 + " end\n" + "words of a line\n" * 30, encoding="utf-8")
    build_vocab({**corpora, "xx": [long]}, tmp_path / "v", vocab_size=140, budget_chars=20_000, show_progress=False)
    assert max(len(w) for w in (tmp_path / "v" / "vocab.txt").read_text(encoding="utf-8").split()) <= 100


def test_a_vocabulary_is_written_whole_or_not_at_all(corpora, tmp_path, monkeypatch):
    """A vocabulary written over an earlier one replaces its three files together or not at all: a tokenizer.json
    beside another build's vocab.txt and report.json would be a folder that does not match itself."""
    out = tmp_path / "v"
    build_vocab(corpora, out, vocab_size=140, budget_chars=20_000, show_progress=False)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / "report.json").unlink()
    (out / "report.json").mkdir()
    with pytest.raises(EdgeRankerError, match="report.json is not a file the vocabulary can be written to"):
        build_vocab(corpora, out, vocab_size=150, budget_chars=20_000, show_progress=False)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == {
        k: v for k, v in before.items() if k != "report.json"
    }
    (out / "report.json").rmdir()
    (out / "report.json").write_bytes(before["report.json"])
    real_open = os.open

    def full_disk(path, *args, **kwargs):  # the last file fails to write, the others were written
        if Path(path).name.startswith(".report.json."):
            raise OSError(28, "No space left on device")
        return real_open(path, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(os, "open", full_disk)
        with pytest.raises(OSError, match="No space left"):
            build_vocab(corpora, out, vocab_size=150, budget_chars=20_000, show_progress=False)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no partial file left either
    build_vocab(corpora, out, vocab_size=150, budget_chars=20_000, show_progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "tokenizer.json", "vocab.txt"]
    assert json.loads((out / "report.json").read_text())["requested_size"] == 150


@pytest.mark.parametrize("pattern", ["/etc/passwd"])
def test_a_recipe_pattern_that_is_no_pattern_under_the_data_folder_is_named(tmp_path, pattern):
    from edge_ranker.vocab.builder import load_recipe

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"languages": {"en": [pattern]}}), encoding="utf-8")
    with pytest.raises(EdgeRankerError, match="is not a file pattern under the data folder"):
        load_recipe(recipe, tmp_path)
