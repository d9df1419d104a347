"""The thin CLI end to end on tiny models: export, feedback, rank, prefs; errors are messages."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from edge_ranker.runtime.store import PreferenceStore


def cli(*args, stdin: str | None = None):
    return subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def exported(tiny_student, tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "m"
    r = cli("export", tiny_student, "--out", out)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["bytes"] > 0
    return out


def test_feedback_rank_prefs(exported, tmp_path):
    db = tmp_path / "p.db"
    common = ["--semantic", exported, "--relevance", exported, "--db", db]
    docs = "\n".join(json.dumps({"id": str(i), "text": t}) for i, t in enumerate(["green river", "stone house", ""]))
    r = cli("rank", "-", *common, stdin=docs + "\n")  # a new (or mistyped) store: ranked, and said so
    assert r.returncode == 0 and r.stderr.startswith(f"edge-ranker: no likes or dislikes are stored in {db} yet")
    r = cli("feedback", "like", "a", "--text", "the green river", *common)
    assert r.returncode == 0, r.stderr
    stored = json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"][0]["model"]
    r = cli("rank", "-", *common, stdin=docs + "\n")  # no query: the same pair of models
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"][0]["model"] == stored  # not re-embedded
    r = cli("rank", "-", "--query", "river", *common, stdin=docs + "\n")
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["rank"] for o in out] == [1, 2, 3] and set(out[0]["contributions"]) == {"personal", "query"}
    assert {o["id"]: o["lexical_score"] > 0 for o in out} == {"0": True, "1": False, "2": False}
    r = cli("rank", "-", "--query", "river", "--lexical-weight", "0", *common, stdin=docs + "\n")
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 3, r.stderr
    assert all(json.loads(x)["lexical_score"] is None for x in r.stdout.splitlines())
    r = cli("rank", "-", "--query", "river", "--lexical-weight", "-1", *common, stdin=docs + "\n")
    assert r.returncode == 2 and "finite number >= 0" in r.stderr
    r = cli("prefs", "export", "--db", db)
    assert json.loads(r.stdout)["feedback"][0]["doc_id"] == "a"
    assert cli("prefs", "erase", "--db", db).returncode == 0
    assert json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"] == []


def test_bad_input_messages(exported, tmp_path):
    db = tmp_path / "p.db"
    common = ["--semantic", exported, "--relevance", exported, "--db", db]
    r = cli("rank", "-", "--semantic", exported, "--db", tmp_path / "typo" / "p.db", stdin="")
    _one_line_error(r, "there is no folder", "typo")
    assert not (tmp_path / "typo").exists()  # ranking reads: a mistyped --db makes no folder
    r = cli("rank", "-", *common, stdin="{not json}\n")
    assert r.returncode == 2 and "line 1 is not a JSON document" in r.stderr and "Traceback" not in r.stderr
    r = cli("rank", "-", "--semantic", tmp_path / "nope", "--db", db, stdin="")
    assert r.returncode == 2 and "no model folder" in r.stderr
    db.write_bytes(b"this is not a database at all" * 100)
    r = cli("prefs", "export", "--db", db)
    assert r.returncode == 2 and "corrupted" in r.stderr and "prefs recover" in r.stderr
    r = cli("prefs", "recover", "--db", db)
    assert r.returncode == 0 and "moved" in r.stdout
    _one_line_error(cli("prefs", "export", "--db", db), "no preference database")  # moved, not recreated
    r = cli("prefs", "erase", "--db", db)  # the moved copy holds the user's data: erase deletes it too
    assert r.returncode == 0 and "deleted the recovered copy" in r.stdout, r.stderr
    assert not list(tmp_path.glob("p.db.corrupt-*"))
    _one_line_error(cli("prefs", "erase", "--db", db), "nothing is stored there")
    empty = tmp_path / "notes.txt"  # an empty file holds nothing to forget, and must not become a store
    empty.touch()
    for command in (("prefs", "erase"), ("feedback", "undo", "a"), ("prefs", "export")):
        _one_line_error(cli(*command, "--db", empty), "nothing is stored there")
    assert empty.read_bytes() == b""
    (tmp_path / "notes.txt.corrupt-20260101-000000").write_bytes(b"a store recover moved aside")
    r = cli("prefs", "erase", "--db", empty)  # no store there, but the copy is the user's data
    assert r.returncode == 0 and "deleted the recovered copy" in r.stdout, r.stderr
    assert not list(tmp_path.glob("notes.txt.corrupt-*")) and empty.read_bytes() == b""
    for command in ("recover", "erase", "export"):  # an empty path is refused, not taken as the user's default
        _one_line_error(cli("prefs", command, "--db", ""), "must be a non-empty path")
    assert cli("feedback", "like", "a", "--text", "the cat", "--semantic", exported, "--db", db).returncode == 0


def test_closed_output_is_an_error(tmp_path):
    """A result printed to a closed standard output would vanish while the command reports success; an export to a
    file prints nothing there and still runs."""

    def closed(*args: str):
        line = shlex.join((sys.executable, "-m", "edge_ranker.cli", *args)) + " >&-"
        return subprocess.run(line, shell=True, stderr=subprocess.PIPE, text=True, timeout=300)

    db = tmp_path / "p.db"
    r = closed("prefs", "export", "--db", str(db))
    assert r.returncode == 2 and r.stderr.strip() == (
        "edge-ranker: error: standard output is closed; edge-ranker prints its results there"
    )
    PreferenceStore(db).close()
    r = closed("prefs", "export", "--db", str(db), "--out", str(tmp_path / "out.json"))
    assert r.returncode == 0 and json.loads((tmp_path / "out.json").read_text())["feedback"] == [], r.stderr


def test_rank_runs_with_its_error_output_closed(exported, tmp_path):
    """Started with ``2>&-``, rank exited 2 with nothing said: asking a stream that is not there whether it is a
    terminal failed."""
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d", "text": "the cat sat"}) + "\n")
    args = ("rank", docs, "--json", "--semantic", exported, "--db", tmp_path / "p.db")
    line = shlex.join((sys.executable, "-m", "edge_ranker.cli", *map(str, args))) + " 2>&-"
    r = subprocess.run(line, shell=True, stdout=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0 and json.loads(r.stdout.splitlines()[0])["id"] == "d"


def _one_line_error(r, *fragments: str) -> None:
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "usage:" not in r.stderr, r.stderr  # the usage block is what --help is for, not an error's
    last = r.stderr.strip().splitlines()[-1]  # after a progress bar, where work had begun
    assert "error:" in last and all(f in last for f in fragments), r.stderr


RANK_INPUTS = [
    ('{"id": "a", "text": "x"}\n{"id": "b"}\n', ["line 2", "needs an 'id' and a 'text'"]),
    ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', ["line 2", "already given on line 1"]),
    ('{"id": null, "text": "x"}\n', ["line 1", "'id' must be"]),
    ("[" * 100_000 + "]" * 100_000 + "\n", ["line 1", "not a JSON document"]),
    ('{"id": "a", "text": "x", "published": "yesterday"}\n', ["line 1", "ISO-8601"]),
]


@pytest.mark.parametrize(("stdin", "fragments"), RANK_INPUTS)
def test_rank_names_the_bad_line(exported, tmp_path, stdin, fragments):
    common = ["--semantic", exported, "--relevance", exported, "--db", tmp_path / "p.db"]
    _one_line_error(cli("rank", "-", *common, stdin=stdin), *fragments)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--top", "-3"], ["--top", ">= 0"]),
        (["--threads", "0"], ["--threads", ">= 1"]),
        (["--personal-weight", "nan"], ["--personal-weight", "finite"]),
        (["--lexical-weight", "inf"], ["--lexical-weight", "finite"]),
    ],
)
def test_rank_options_are_checked(exported, tmp_path, args, fragments):
    docs = tmp_path / "d.jsonl"
    docs.write_text('{"id": "a", "text": "x"}\n')
    _one_line_error(cli("rank", docs, *args, "--semantic", exported, "--db", tmp_path / "p.db"), *fragments)


def test_utf16_documents_and_blank_ids_are_named_as_they_are(exported, tmp_path):
    """A UTF-16 file (what PowerShell 5's > writes) is named so, not as a JSON error on line 1; and an error's one
    line keeps the spaces of a value it quotes (a blank id of two spaces read as one)."""
    docs = tmp_path / "d.jsonl"
    common = ["--semantic", exported, "--relevance", exported, "--db", tmp_path / "p.db"]
    for encoding, name in (("utf-16", "UTF-16"), ("utf-32", "UTF-32")):
        docs.write_bytes('{"id": "a", "text": "x"}\n'.encode(encoding))
        _one_line_error(cli("rank", docs, *common), name, "save them as UTF-8")
    _one_line_error(cli("feedback", "like", "  ", "--text", "x", *common), "non-blank string, got '  '")


def test_rank_files_that_are_not_there_or_folders(exported, tmp_path):
    common = ["--semantic", exported, "--relevance", exported, "--db", tmp_path / "p.db"]
    _one_line_error(cli("rank", tmp_path / "missing.jsonl", *common), "not found")
    _one_line_error(cli("rank", tmp_path, *common), "is a folder")


def test_a_utf8_bom_is_accepted(exported, tmp_path):
    docs = tmp_path / "bom.jsonl"
    docs.write_bytes(b'\xef\xbb\xbf{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n')
    common = ["--semantic", exported, "--relevance", exported, "--db", tmp_path / "p.db"]
    r = cli("rank", docs, *common)
    assert r.returncode == 0 and [json.loads(x)["id"] for x in r.stdout.splitlines()] == ["a", "b"]
    r = cli("rank", "-", *common, stdin="\ufeff" + docs.read_text(encoding="utf-8-sig"))
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2


def test_lines_end_at_line_feeds_only_and_a_pipe_is_read(exported, tmp_path):
    """U+2028, U+2029 and U+0085 may stand unescaped in a JSON string, CRLF may end a line; a named pipe is read."""
    lines = [json.dumps({"id": f"d{ord(c)}", "text": f"one{c}two"}, ensure_ascii=False) for c in "\u2028\u2029\x85"]
    docs = tmp_path / "separators.jsonl"
    docs.write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    common = ["--semantic", exported, "--relevance", exported, "--db", tmp_path / "p.db"]
    r = cli("rank", docs, *common)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 3
    fifo = tmp_path / "feed.pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(docs.read_bytes(),))
    writer.start()
    r = cli("rank", fifo, *common)
    writer.join()
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 3


def test_a_store_in_a_folder_that_cannot_be_written_is_still_exported(exported, tmp_path):
    """``prefs export`` opens the store read-only: one on a read-only mount or in a folder the user cannot write
    still gives its data, and a write-ahead log that cannot be read there is named instead of skipped."""
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("root ignores folder permissions, and setpriv (util-linux) is not here to drop that")
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"] if os.geteuid() == 0 else []
    folder, pending = tmp_path / "ro", tmp_path / "pending"
    folder.mkdir()
    pending.mkdir()
    liked = cli("feedback", "like", "a", "--text", "the cat", "--semantic", exported, "--db", folder / "p.db")
    assert liked.returncode == 0
    s = PreferenceStore(tmp_path / "open.db")  # an open store's file and log, as a copy taken mid-use holds them
    s._db.execute("PRAGMA wal_autocheckpoint=0")
    s.space("m").add_feedback("b", np.ones(2, np.float32), "like")
    for suffix in ("", "-wal"):
        shutil.copy(f"{tmp_path / 'open.db'}{suffix}", f"{pending / 'p.db'}{suffix}")
    s.close()
    folder.chmod(0o555)
    pending.chmod(0o555)
    try:
        run = [*drop, sys.executable, "-m", "edge_ranker.cli", "prefs", "export", "--db"]
        r = subprocess.run([*run, str(folder / "p.db")], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and [f["doc_id"] for f in json.loads(r.stdout)["feedback"]] == ["a"], r.stderr
        r = subprocess.run([*run, str(pending / "p.db")], capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and "recent changes in p.db-wal" in r.stderr and "Traceback" not in r.stderr
        assert sorted(p.name for p in folder.iterdir()) == ["p.db"]  # nothing was written beside it
    finally:
        folder.chmod(0o755)
        pending.chmod(0o755)


def test_prefs_export_errors_and_a_closed_pipe(exported, tmp_path):
    db = tmp_path / "p.db"
    assert cli("feedback", "like", "a", "--text", "the cat", "--semantic", exported, "--db", db).returncode == 0
    _one_line_error(cli("prefs", "export", "--db", db, "--out", tmp_path / "no" / "x.json"), "does not exist")
    _one_line_error(cli("prefs", "export", "--db", tmp_path), "is a folder")
    feed = tmp_path / "big.jsonl"  # well over a pipe's 64 kB, so the writer meets the closed pipe
    feed.write_text(
        "".join(json.dumps({"id": str(i), "text": f"document number {i} " * 10}) + "\n" for i in range(2000))
    )
    cmd = f"{sys.executable} -m edge_ranker.cli rank {feed} --json --semantic {exported} --db {db} | head -c 1"
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr and r.returncode == 0, r.stderr


@pytest.mark.parametrize(("command", "module"), [("distill", "torch"), ("export", "torch"), ("eval", "scipy")])
def test_training_commands_on_the_runtime_install_name_the_extra(tmp_path, command, module):
    """The runtime-only install lacks the train extra: simulated by making its modules unimportable."""
    args = {
        "distill": ["distill", "semantic", "--vocab", str(tmp_path), "--out", str(tmp_path / "o")],
        "export": ["export", str(tmp_path), "--out", str(tmp_path / "o")],
        "eval": ["eval", "semantic", "--sts", "--data", str(tmp_path), "--cache", str(tmp_path)],
    }[command]
    code = (
        "import sys\n"
        "for m in ('torch', 'transformers', 'onnx', 'sklearn', 'scipy', 'sentence_transformers'):\n"
        "    sys.modules[m] = None\n"
        f"from edge_ranker.cli import main\nsys.exit(main({args!r}))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    _one_line_error(r, "pip install 'edge-ranker[train]'")


def _distill_overrides(monkeypatch, tmp_path, *flags: str) -> dict:
    """The settings ``edge-ranker distill relevance FLAGS`` reads, and checks that the library gets the recipe with
    exactly those applied."""
    from edge_ranker.cli import app as cli_mod
    from edge_ranker.distill import run
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.options import given
    from edge_ranker.distill.recipes import RECIPES, Recipe, with_overrides

    seen = {}

    def fake_distill(recipe, vocab, out, data, cache):
        seen.update(recipe=recipe, data=data)
        return {"process_index": 1}  # a non-main process: nothing printed

    monkeypatch.setattr(run, "distill", fake_distill)
    args = ["distill", "relevance", "--vocab", "v", "--out", str(tmp_path), "--cache", str(tmp_path)]
    a = cli_mod.build_parser().parse_args([*args, "--data", str(tmp_path), *flags])
    a.func(a)
    overrides = given(a, Recipe, TrainConfig)
    assert seen["recipe"] == with_overrides(RECIPES["relevance"], overrides)
    return overrides


def test_distill_passes_exactly_the_settings_given_by_field_name(monkeypatch, tmp_path):
    assert _distill_overrides(monkeypatch, tmp_path) == {}
    assert _distill_overrides(monkeypatch, tmp_path, "--no-bucket", "--epochs", "3") == {
        "bucket_by_length": False,
        "epochs": 3,
    }
    got = _distill_overrides(
        monkeypatch,
        tmp_path,
        *["--threads", "1", "--bank", "0", "--neighbours", "8", "--vocab-texts", "--passage-queries", "3"],
        *["--passages", "450", "--wiki-summaries", "900", "--doc-words", "160", "--lexical", "0.5"],
        *["--extra-passages", "a.txt", "--extra-passages", "b.txt.gz", "--checkpoint-dir", "ck", "--no-init"],
        *["--retrieval-train", "--loss", "mse=1", "--loss", "judged=2", "--langs", "de", "fr"],
    )
    assert got == {
        "threads": 1,
        "bank": 0,
        "neighbours": 8,
        "vocab_texts": True,
        "passage_queries": 3,
        "passages_per_lang": 450,
        "wiki_summaries": 900,
        "doc_words": 160,
        "lexical": 0.5,
        "extra_passages": ["a.txt", "b.txt.gz"],
        "checkpoint_dir": "ck",
        "init_from_teacher": False,
        "retrieval_train": [],
        "losses": {"mse": 1.0, "judged": 2.0},
        "langs": ["de", "fr"],
    }


def test_every_documented_setting_is_an_option_and_every_option_a_setting():
    """One declaration per setting: the fields' help metadata is the whole of distill's option list."""
    from dataclasses import fields

    from edge_ranker.cli import app as cli_mod
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.options import OPTION
    from edge_ranker.distill.recipes import Recipe

    parser = cli_mod.build_parser()
    distill = next(a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == "distill")[1]
    dests = {a.dest for a in distill._actions} - {"help", "recipe", "vocab", "out", "overwrite", "data", "cache"}
    documented = {f.name for c in (Recipe, TrainConfig) for f in fields(c) if OPTION in f.metadata}
    assert dests == documented and len(documented) > 40


def test_with_overrides_reaches_both_dataclasses_and_checks_before_the_teacher_runs():
    from edge_ranker.distill.recipes import RECIPES, with_overrides
    from edge_ranker.errors import EdgeRankerError

    base = RECIPES["relevance"]
    r = with_overrides(base, {"pca_dim": 96, "epochs": 2, "bible_verses": 5, "losses": {"mse": 1.0, "judged": 1.0}})
    assert (r.pca_dim, r.train.hidden, r.train.epochs, r.bible_verses) == (96, 96, 2, 5)
    assert r.judged and not base.judged and r.train.losses == {"mse": 1.0, "judged": 1.0}
    assert base.train.epochs == 8 and base.pca_dim == 128  # the registry's recipe is untouched
    for bad, message in (
        ({"nope": 1}, "unknown setting"),
        ({"pca_fit": "middle"}, "pca_fit must be one of"),
        ({"doc_words": 0}, "doc_words must be at least 1"),
        ({"pooling": "max"}, "pooling must be one of"),
        ({"batch_size": 0}, "batch_size, heads, ffn, layers, chunks 1 or more"),
    ):
        with pytest.raises(EdgeRankerError, match=message):
            with_overrides(base, bad)


def test_distill_refuses_an_empty_document_cut_with_a_message(tmp_path):
    r = cli(
        "distill", "relevance", "--vocab", tmp_path, "--out", tmp_path / "out", "--doc-words", "0", "--data", tmp_path
    )
    assert r.returncode == 2 and "doc_words must be at least 1" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


def test_eval_translation_on_an_exported_model(exported, tmp_path):
    from conftest import write_bitexts

    from edge_ranker.datasets.bitext import FILE_CODES, TRANSLATION_LANGS

    en = [b"the green river", b"a stone house", b"\xf0\x9f\x98\x80 emoji", b""]
    for lang in TRANSLATION_LANGS:
        write_bitexts(tmp_path, en, en, *FILE_CODES[lang])  # identical sides: every row has an exact match
    r = cli("eval", exported, "--translation", "tatoeba", "flores", "--data", tmp_path, "--cache", tmp_path / "c")
    assert r.returncode == 0, r.stderr
    res = next(iter(json.loads(r.stdout).values()))
    for name in ("translation-tatoeba", "translation-flores"):
        assert len(res[name]) == 2 * len(TRANSLATION_LANGS) + 1 and res[name]["avg"] == pytest.approx(100.0)
    r = cli("eval", exported, "--translation", "tatoeba", "--data", tmp_path / "none", "--cache", tmp_path / "c")
    assert r.returncode == 2 and "tatoeba file not found" in r.stderr and "Traceback" not in r.stderr


def test_version_and_help_for_every_option():
    import argparse

    from edge_ranker import __version__
    from edge_ranker.cli.app import build_parser

    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"edge-ranker {__version__}"
    missing = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif not action.help:
                missing.append(" ".join([*path, *(action.option_strings or [action.dest])]))

    walk(build_parser(), [])
    assert not missing


def test_feedback_undo_and_what_feedback_needs(exported, tmp_path):
    db = tmp_path / "p.db"
    args = ["--semantic", exported, "--db", db]
    assert cli("feedback", "like", "a", "--text", "the green river", *args).returncode == 0
    _one_line_error(cli("feedback", "like", "b", *args), "needs the document's text")
    _one_line_error(cli("feedback", "like", "b", "--text", "x", "--query", "river", *args))  # not taken
    r = cli("feedback", "undo", "a", *args)
    assert r.returncode == 0 and json.loads(r.stdout)["undone"] == 1
    assert json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"] == []


def test_rank_prints_a_table_on_a_terminal_and_json_when_asked(exported, tmp_path, monkeypatch, capsys):
    import edge_ranker.cli as cli_mod

    docs = tmp_path / "d.jsonl"
    docs.write_text('{"id": "a", "text": "the green river"}\n{"id": "b", "text": "stone house"}\n')
    common = [str(docs), "--semantic", str(exported), "--relevance", str(exported), "--db", str(tmp_path / "p.db")]
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert cli_mod.main(["rank", *common, "--query", "river"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["rank", "score", "id", "text"] and lines[1].split()[:3] == [
        "1",
        lines[1].split()[1],
        "a",
    ]
    assert cli_mod.main(["rank", *common, "--json"]) == 0
    assert [json.loads(x)["id"] for x in capsys.readouterr().out.splitlines()] == ["a", "b"]


def test_the_table_shows_ids_without_control_characters():
    from edge_ranker.cli.common import shown as _shown

    assert _shown("esc\x1b[2J\x1b[31mRED", 16) == "esc [2J [31mRED"
    assert _shown("l1\nl2\rX", 16) == "l1 l2 X" and _shown("\u202eevil", 16) == "evil"
    assert _shown("a-very-long-document-id", 16) == "a-very-long-doc\u2026"


def test_options_that_do_not_apply_are_refused_and_nothing_is_deleted(exported, tmp_path):
    db = tmp_path / "p.db"
    assert cli("feedback", "like", "a", "--text", "the cat", "--semantic", exported, "--db", db).returncode == 0
    _one_line_error(cli("prefs", "erase", "--db", db, "--out", tmp_path / "b.json"), "--out is for export")
    _one_line_error(cli("feedback", "undo", "a", "--text", "x", "--db", db), "--text is for like and dislike")
    _one_line_error(cli("prefs", "export", "--db", db, "--out", db), "SQLite database")
    _one_line_error(cli("prefs", "export", "--db", db, "--out", ""), "non-empty path")
    assert len(json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"]) == 1
    _one_line_error(cli("rank", "-", "--threads", "0", "--db", db), "--threads", ">= 1")


def test_output_in_another_encoding_loses_nothing(exported, tmp_path):
    db = tmp_path / "p.db"
    text = "the green river: Gr\u00fc\u00dfe \u4e2d\u6587 \U0001f600"  # words the tiny model reads, and others
    assert cli("feedback", "like", "a", "--text", text, "--semantic", exported, "--db", db).returncode == 0
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "prefs", "export", "--db", str(db)],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0 and r.stdout.isascii(), r.stderr
    assert json.loads(r.stdout)["feedback"][0]["text"] == text
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "demo", "--semantic", str(exported), "--relevance", "none"],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0 and b"Traceback" not in r.stderr and b"personalised search" not in r.stdout
    r = subprocess.run(  # standard input is read as UTF-8 whatever the locale
        [sys.executable, "-m", "edge_ranker.cli", "rank", "-", "--semantic", str(exported), "--db", str(db)],
        input=json.dumps({"id": "c", "text": "caf\u00e9"}, ensure_ascii=False).encode("utf-8"),
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0 and json.loads(r.stdout)["id"] == "c", r.stderr


def test_an_ascii_locale_keeps_non_ascii_arguments(exported, tmp_path):
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}
    db = tmp_path / "p.db"
    args = ["feedback", "like", "\u00fc\U0001f680", "--text", "Gr\u00f6\u00dfe Raumfahrt", "--semantic", str(exported)]
    r = subprocess.run([sys.executable, "-m", "edge_ranker.cli", *args, "--db", str(db)], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr
    stored = json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"][0]
    assert (stored["doc_id"], stored["text"]) == ("\u00fc\U0001f680", "Gr\u00f6\u00dfe Raumfahrt")
    r = subprocess.run(  # '-' and /dev/stdout write to the pipe
        f"{sys.executable} -m edge_ranker.cli prefs export --db {db} --out /dev/stdout | cat",
        shell=True,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and json.loads(r.stdout)["feedback"] and "wrote /dev/stdout" in r.stderr, r.stderr
    assert json.loads(cli("prefs", "export", "--db", db, "--out", "-").stdout)["feedback"]


def test_a_home_relative_database_is_found_by_every_command(exported, tmp_path):
    env = {**os.environ, "HOME": str(tmp_path)}
    for args in (
        ["feedback", "like", "a", "--text", "the cat", "--semantic", str(exported)],
        ["prefs", "export"],
        ["feedback", "undo", "a"],
    ):
        r = subprocess.run(
            [sys.executable, "-m", "edge_ranker.cli", *args, "--db", "~/p.db"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "p.db").is_file()


def test_prefs_and_undo_never_create_a_store(tmp_path):
    missing = tmp_path / "none.db"
    for args in (["prefs", "export"], ["prefs", "erase"], ["feedback", "undo", "a"]):
        _one_line_error(cli(*args, "--db", missing), "no preference database")
    assert not missing.exists()


@pytest.mark.parametrize(
    ("stdin", "fragment"),
    [
        ('{"id": "\\ud800", "text": "x"}\n', "not valid Unicode"),
        ('{"id": "a", "text": "x", "published": 1' + "0" * 400 + "}\n", "published"),
    ],
)
def test_ids_and_dates_that_cannot_be_are_named(exported, tmp_path, stdin, fragment):
    _one_line_error(cli("rank", "-", "--semantic", exported, "--db", tmp_path / "p.db", stdin=stdin), fragment)


def test_commands_that_read_data_sets_ask_for_their_folder(tmp_path, monkeypatch):
    env = {k: v for k, v in __import__("os").environ.items() if k != "EDGE_RANKER_DATA"}
    r = subprocess.run(
        [sys.executable, "-m", "edge_ranker.cli", "eval", "semantic", "--sts", "--cache", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    _one_line_error(r, "--data DIR or EDGE_RANKER_DATA")


def test_the_shipped_recipes_are_data_files_and_a_users_recipe_file_runs_the_same_path(tmp_path):
    from edge_ranker.distill.recipes import RECIPE_DIR, RECIPES, load_recipe
    from edge_ranker.errors import EdgeRankerError

    shipped = ["relevance", "semantic", "semantic-2layer-256", "semantic-wide"]
    assert sorted(RECIPES) == shipped == sorted(p.stem for p in RECIPE_DIR.glob("*.json"))
    assert (RECIPES["semantic"].train.layers, RECIPES["semantic"].pca_dim) == (1, 128)  # the shipped shape
    assert (RECIPES["semantic-wide"].train.layers, RECIPES["semantic-wide"].train.width) == (1, 256)
    semantic = load_recipe("semantic")
    assert semantic.teacher == "use-multilingual-v3" and semantic.train.neighbours == 8 and semantic.reads_data_root
    mine = tmp_path / "mine.json"
    mine.write_text('{"about": "x", "kind": "semantic", "teacher": "t", "train": {"epochs": 2}, "why": {}}')
    assert load_recipe(mine).train.epochs == 2 and load_recipe(str(mine)).langs == []
    mine.write_text("\ufeff" + mine.read_text(), encoding="utf-8")  # as some editors save it
    assert load_recipe(mine).train.epochs == 2
    for text, message in (
        ('{"kind": "semantic", "teacher": "t", "bible": 3}', r"unknown setting\(s\) \['bible'\]"),
        ('{"kind": "semantic", "teacher": "t", "train": {"epoch": 3}}', r"unknown setting\(s\) \['epoch'\]"),
        ('{"kind": "semantic"}', "needs 'kind' and 'teacher'"),
        ("[1, 2]", "a recipe is a JSON object"),
        ("{", "cannot read the recipe"),
        ('{"kind": "semantic", "teacher": "t", "train": {"pooling": "max"}}', "pooling must be one of"),
        ('{"kind": "semantic", "teacher": "t", "train": {"epochs": "five"}}', "epochs must be int, not 'five'"),
        ('{"kind": "semantic", "teacher": "t", "held_out": "10"}', "held_out must be int, not '10'"),
        ('{"kind": "semantic", "teacher": "t", "parallel": "sv-en=x"}', "parallel must be list"),
        ('{"kind": "semantic", "teacher": "t", "train": {"losses": {"mse": "one"}}}', r"losses must be dict\[str"),
        ('{"kind": "semantic", "teacher": "t", "roles": ["doc"]}', "roles must be one or more of"),
        ('{"kind": "semantic", "teacher": " "}', "teacher is empty"),
        ('{"kind": "nonsense", "teacher": "t"}', "kind must be one of"),
        ('{"kind": "semantic", "teacher": "t", "train": {"hidden": 64}}', r"unknown setting\(s\) \['hidden'\]"),
        ('{"kind": "semantic", "teacher": "t", "pca_dim": 0}', "pca_dim, sentences_per_passage and retrieval_docs"),
        ('{"kind": "semantic", "teacher": "t", "bible_verses": -3}', "bible_verses must be 0 or more"),
        ('{"kind": "semantic", "teacher": "t", "train": {"temperature": 0}}', "lr and temperature must be above 0"),
        ('{"kind": "semantic", "teacher": "t", "train": {"dropout": 2}}', r"dropout must be in \[0, 1\)"),
    ):
        mine.write_text(text)
        with pytest.raises(EdgeRankerError, match=message):
            load_recipe(mine)
    with pytest.raises(EdgeRankerError, match="no recipe 'semantik': give one of relevance, semantic"):
        load_recipe("semantik")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--loss", "mse=nan"], "must be NAME=WEIGHT with a weight >= 0"),
        (["--temperature", "0"], "lr and temperature must be above 0"),
        (["--pca-dim", "0"], "pca_dim, sentences_per_passage and retrieval_docs must be at least 1"),
        (["--held-out", "-1"], "held_out must be 0 or more"),
    ],
)
def test_distill_refuses_settings_out_of_range_in_one_line_before_any_work(tmp_path, flags, message):
    r = cli("distill", "semantic", "--vocab", tmp_path, "--out", tmp_path / "out", "--data", tmp_path, *flags)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


def test_an_export_replaces_a_model_only_when_asked_and_a_failed_one_leaves_it_whole(tiny_student, tmp_path):
    out = tmp_path / "model"
    assert cli("export", tiny_student, "--out", out, "--name", "first").returncode == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    _one_line_error(cli("export", tiny_student, "--out", out), "already holds files", "--overwrite")
    # a refused export changes nothing (test_export.py fails one midway, after the folder is being written)
    _one_line_error(cli("export", tiny_student, "--out", out, "--overwrite", "--name", "\udcff"), "not valid text")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no half-written folder beside it
    assert cli("export", tiny_student, "--out", out, "--overwrite", "--name", "second").returncode == 0
    assert json.loads((out / "manifest.json").read_text())["name"] == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_a_refused_command_leaves_no_output_folder(tmp_path):
    _one_line_error(cli("export", tmp_path / "no-student", "--out", tmp_path / "m"), "not a student folder")
    assert not (tmp_path / "m").exists()


def test_a_damaged_student_or_metrics_file_is_named(tiny_student, tmp_path):
    broken = tmp_path / "student"
    shutil.copytree(tiny_student, broken)
    (tmp_path / "list.json").write_text("[1, 2]")
    _one_line_error(cli("export", broken, "--out", tmp_path / "m", "--metrics", tmp_path / "list.json"), "JSON object")
    (broken / "config.json").unlink()
    _one_line_error(cli("export", broken, "--out", tmp_path / "m"), "config.json is missing")
    shutil.copy(tiny_student / "config.json", broken / "config.json")
    (broken / "tokenizer.json").write_text("{")
    _one_line_error(cli("export", broken, "--out", tmp_path / "m"), "damaged student")


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["distill", "semantic", "--vocab", "{v}", "--out", "{full}", "--data", "{tmp}"], ["already holds files"]),
        (
            ["distill", "semantic", "--vocab", "{v}", "--out", "", "--data", "{tmp}"],
            ["folder for the student is empty"],
        ),
        (["distill", "semantic", "--vocab", "{v}", "--out", "{file}", "--data", "{tmp}"], ["is a file, not a folder"]),
        (["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--pca-dim", "3"], ["multiple of heads"]),
        (["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--seed", "-1"], ["seed must be from 0"]),
        (["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--threads", "0"], ["threads must be 1"]),
        (["vocab", "build", "--out", "", "--corpus", "en={file}"], ["folder for the vocabulary is empty"]),
        (["vocab", "build", "--out", "{full}", "--corpus", "en={file}"], ["already holds files"]),
        (["vocab", "build", "--out", "{tmp}/o", "--corpus", "={file}"], ["LANG a code"]),
        (["vocab", "build", "--out", "{tmp}/o", "--recipe", "{file}", "--data", "{tmp}"], ["is not JSON"]),
        (["bench", "semantic", "--runs", "1", "--tag", "../escaped", "--out", "{tmp}"], ["plain file stem"]),
        (["bench", "semantic", "--energy", "--window", "0"], ["--window", "more than 0"]),
        (["eval", "semantic"], ["nothing to evaluate"]),
        (["eval", "semantic", "--retrieval", "nosuch"], ["unknown retrieval set"]),
        (["eval", "semantic", "nosuchmodel", "--bitext", "de-en={file}"], ["no model folder at 'nosuchmodel'"]),
        (["eval", "semantic", "--sts", "--split", "train"], ["--split", "invalid choice"]),
        (["eval", "semantic", "--bitext", "de-en={file}", "--out", "{file}/r.json"], ["is a file, not a folder"]),
        (["eval", "semantic", "--bitext", "de-en={file}", "--out", "{file}"], ["already exists", "--overwrite"]),
        (["eval", "semantic", "--bitext", "de-en={file}", "--out", ""], ["--out is empty"]),
        (["eval", "semantic", "--sts", "--users", "5"], ["--users", "add --personal"]),
        (["eval", "semantic", "--personal-search"], ["--personal-search", "SEMANTIC RELEVANCE", "got 1 model"]),
        (["eval", "semantic", "--sts", "--strengths", "8"], ["--strengths", "add --personal-search"]),
        (["eval", "semantic", "--sts", "--item-sentences", "4"], ["--item-sentences", "--personal-search"]),
        (["eval", "semantic", "--sts", "--seed", "3"], ["--seed", "add --personal"]),
        (["eval", "semantic", "--sts", "--seed", "0"], ["--seed", "add --personal"]),
        (["eval", "semantic", "--personal", "--seed", "-1"], ["--seed", "a whole number >= 0"]),
        (
            ["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--data", "{tmp}", "--checkpoint-dir"]
            + ["{full}"],
            ["already holds files"],
        ),
        (
            ["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--data", "{tmp}", "--cache", "{file}"],
            ["the teacher cache", "is a file, not a folder"],
        ),
        (
            ["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--data", "{tmp}", "--extra-passages", "x"],
            ["extra passages file x is not found"],
        ),
        (["eval", "teacher:", "--sts", "--data", "{tmp}"], ["names no teacher"]),
        (["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--max-length", "1"], ["max_length must be"]),
        (["distill", "semantic", "--vocab", "{v}", "--out", "{tmp}/o", "--max-length", "9000"], ["max_length must be"]),
    ],
)
def test_outputs_and_settings_that_cannot_be_are_refused_before_any_work(tiny_vocab, tmp_path, args, fragments):
    """Each fails in one line before a teacher, a training, a build or a measurement runs: a distill with any of
    these would otherwise have lost an hour, or written over a trained student."""
    full, file = tmp_path / "full", tmp_path / "a.txt"
    full.mkdir()
    (full / "model.safetensors").write_bytes(b"a trained student")
    file.write_text("some text\n")
    values = {"{v}": str(tiny_vocab), "{full}": str(full), "{tmp}": str(tmp_path), "{file}": str(file)}
    r = cli(*[next((a.replace(k, v) for k, v in values.items() if k in a), a) for a in args])
    _one_line_error(r, *fragments)
    assert (full / "model.safetensors").read_bytes() == b"a trained student"
    assert file.read_text() == "some text\n"
    assert not (tmp_path.parent / "escaped.json").exists()


def test_a_damaged_reduced_spec_is_named_before_any_model_is_evaluated(tiny_student, tmp_path):
    bad = tmp_path / "student"
    shutil.copytree(tiny_student, bad)
    (bad / "pca.npz").write_bytes(b"")
    _one_line_error(
        cli("eval", tiny_student, f"reduced:{bad}", "--sts", "--data", tmp_path), "not a PCA map as distill writes it"
    )
    info = json.loads((bad / "student.json").read_text())
    (bad / "student.json").write_text(json.dumps({**info, "teacher": ""}))
    _one_line_error(cli("eval", tiny_student, f"reduced:{bad}", "--sts", "--data", tmp_path), "names no teacher")


def test_input_and_output_that_fail_around_a_command_are_named(exported, tmp_path):
    """A closed standard input, and an output that fails after a like was stored: one line each, the second saying
    that the like was stored, so that it is not given twice."""
    db = tmp_path / "p.db"
    closed = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m edge_ranker.cli rank - --semantic "{exported}" --db "{db}" <&-'],
        capture_output=True,
        text=True,
    )
    _one_line_error(closed, "standard input is closed")
    if Path("/dev/full").exists():
        like = [sys.executable, "-m", "edge_ranker.cli", "feedback", "like", "a", "--text", "the cat", "--db", str(db)]
        with open("/dev/full", "w") as full:
            r = subprocess.run([*like, "--semantic", str(exported)], stdout=full, stderr=subprocess.PIPE)
        _one_line_error(subprocess.CompletedProcess(r.args, r.returncode, "", r.stderr.decode()), "like was stored")
        assert len(json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"]) == 1


def test_an_id_that_is_not_utf8_is_refused_and_a_text_that_is_not_is_read(exported, tmp_path):
    common = ["rank", "-", "--semantic", str(exported), "--relevance", str(exported), "--db", str(tmp_path / "p.db")]
    run = [sys.executable, "-m", "edge_ranker.cli", *common, "--json"]
    bad_id = subprocess.run(run, input=b'{"id": "a\xff", "text": "the cat"}\n', capture_output=True)
    _one_line_error(subprocess.CompletedProcess(run, bad_id.returncode, "", bad_id.stderr.decode()), "line 1", "UTF-8")
    bad_text = subprocess.run(run, input=b'{"id": "a", "text": "the \xff cat"}\n', capture_output=True)
    assert bad_text.returncode == 0 and json.loads(bad_text.stdout)["id"] == "a"
    # typed on the command line, such a byte is U+FFFD as in the JSON lines and the API, not the '?' of a lone surrogate
    db = str(tmp_path / "p.db")
    like = [sys.executable, "-m", "edge_ranker.cli", "feedback", "like", "b", "--text", b"the \xff river"]
    done = subprocess.run([*like, "--semantic", str(exported), "--relevance", str(exported), "--db", db])
    assert done.returncode == 0
    assert json.loads(cli("prefs", "export", "--db", db).stdout)["feedback"][0]["text"] == "the \ufffd river"


def test_usage_errors_are_one_line_and_a_vocabulary_size_is_bounded():
    usage = [(["frob"], "invalid choice"), (["vocab", "build", "--size", "99999999999"], "--size")]
    breaks = [(["rank", "-", f"--x{c}more"], "unrecognized arguments") for c in "\n\v\x1c\u2028"]
    for args, fragment in [*usage, *breaks]:
        r = cli(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and fragment in r.stderr, r.stderr


def test_rank_reads_a_store_this_user_may_not_write_and_changes_nothing(exported, tmp_path, monkeypatch, capsys):
    """Interests are only read to rank: a store the user may only read (another account's, a read-only mount) ranks
    by them, without keeping the document vectors. (``_writable`` answers for a user other than root.)"""
    import edge_ranker.cli as cli_mod
    from edge_ranker.cli import rank

    db = tmp_path / "p.db"
    models = ["--semantic", str(exported), "--relevance", str(exported), "--db", str(db)]
    assert cli_mod.main(["feedback", "like", "a", "--text", "the green river", *models]) == 0
    docs = tmp_path / "d.jsonl"
    docs.write_text('{"id": "s", "text": "stone house"}\n{"id": "r", "text": "the green river flows"}\n')
    before = db.read_bytes(), PreferenceStore(db, read_only=True).export()
    capsys.readouterr()
    monkeypatch.setattr(rank, "_writable", lambda path: False)
    assert cli_mod.main(["rank", str(docs), "--json", *models]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == ["r", "s"] and "personal" in out[0]["contributions"]
    assert (db.read_bytes(), PreferenceStore(db, read_only=True).export()) == before


def test_eval_out_replaces_a_file_only_when_told_and_writes_through_a_link(tmp_path):
    pairs = tmp_path / "de-en.tsv"
    pairs.write_text("Der Hund schläft.\tThe dog sleeps.\nDie Katze isst.\tThe cat eats.\n", encoding="utf-8")
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("{}")
    link.symlink_to(real)
    args = ["eval", "semantic", "--bitext", f"de-en={pairs}", "--out", link]
    _one_line_error(cli(*args), "already exists", "--overwrite")
    r = cli(*args, "--overwrite")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and json.loads(real.read_text()) == json.loads(r.stdout)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["de-en.tsv", "link.json", "real.json"]


def test_a_damaged_tokenizer_is_named_before_the_teacher_loads(tmp_path):
    vocab = tmp_path / "v"
    vocab.mkdir()
    (vocab / "tokenizer.json").write_text('{"version": ')
    r = cli("distill", "semantic", "--vocab", vocab, "--out", tmp_path / "o", "--data", tmp_path)
    _one_line_error(r, "tokenizer.json is damaged", "build the vocabulary again")


def test_left_out_models_are_the_shipped_ones_whatever_folders_the_current_one_holds(tmp_path):
    """A folder named like a shipped model where the command runs neither replaces the default model nor stops the
    command; a shipped name on the command line is the shipped model, and the folder is reached by its path."""
    for name in ("semantic", "relevance"):
        (tmp_path / name).mkdir()
    db = tmp_path / "p.db"

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "edge_ranker.cli", *map(str, args)],
            input=json.dumps({"id": "d", "text": "Die Raumsonde hat Wasser gefunden."}),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
        )

    r = run("feedback", "like", "a", "--text", "The space probe found water on a moon.", "--db", db)
    assert r.returncode == 0, r.stderr
    r = run("rank", "-", "--db", db, "--query", "water")
    assert r.returncode == 0 and json.loads(r.stdout)["contributions"].keys() == {"personal", "query"}, r.stderr
    r = run("rank", "-", "--db", db, "--semantic", "semantic")
    assert r.returncode == 0, r.stderr
    r = run("rank", "-", "--db", db, "--semantic", "./semantic")
    assert r.returncode == 2 and "not a model" in r.stderr and "Traceback" not in r.stderr


def test_ctrl_c_while_the_command_loads_ends_it_quietly(tmp_path):
    """The console script's target, run as its generated script runs it, with a Ctrl-C arriving while the command's
    modules load (an import hook raises it at argparse, which every command needs): exit 130, no traceback."""
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "edge-ranker"]
    module, _, function = script.value.partition(":")
    interrupt = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'argparse':\n"
        "            raise KeyboardInterrupt\n"
        "sys.modules.pop('argparse', None)\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        f"from {module} import {function}\n"
        f"sys.exit({function}(['--version']))\n"
    )
    r = subprocess.run([sys.executable, "-c", interrupt], capture_output=True, text=True, cwd=tmp_path)
    assert (r.returncode, r.stderr) == (130, "")


def test_a_feed_ranked_by_reads_alone_is_not_said_to_be_ranked_by_nothing(tmp_path, capsys):
    """``rank`` says when nothing personal ranks a feed (a mistyped --db is a new store); it counted the likes and
    dislikes only, so a feed ordered by what the user read was said to be ordered by nothing."""
    import edge_ranker.cli as cli_mod

    db = ["--db", str(tmp_path / "p.db")]
    text = "The striker scored twice as the home team won the league match."
    assert cli_mod.main(["feedback", "view", "r", "--text", text, "--seconds", "60", *db]) == 0
    docs = tmp_path / "d.jsonl"
    docs.write_text(
        '{"id": "s", "text": "The goalkeeper saved a penalty in the cup final."}\n'
        '{"id": "f", "text": "A quick tomato pasta with garlic and basil."}\n'
    )
    capsys.readouterr()
    assert cli_mod.main(["rank", str(docs), "--json", *db]) == 0
    out = capsys.readouterr()
    assert all(json.loads(x)["personal_score"] is not None for x in out.out.splitlines())
    assert "nothing personal" not in out.err, out.err
    assert cli_mod.main(["rank", str(docs), "--json", "--db", str(tmp_path / "new.db")]) == 0
    assert "no likes or dislikes are stored" in capsys.readouterr().err  # still said where it is so


@pytest.mark.parametrize("reaction", ["view", "shown"])
def test_a_view_or_showing_that_cannot_be_kept_is_an_error_not_a_report_of_it(tmp_path, capsys, reaction):
    """A text no interest can be learnt from is not kept (``Ranker.viewed``, ``shown``); the command printed its
    report of a stored change and exited 0, where ``feedback like`` refuses the same text."""
    import edge_ranker.cli as cli_mod

    db = tmp_path / "p.db"
    seconds = ["--seconds", "30"] if reaction == "view" else []
    for text in ("😀 🎉", "\u0e1f\u0e38\u0e15\u0e1a\u0e2d\u0e25 \u0e17\u0e35\u0e21\u0e0a\u0e32\u0e15\u0e34"):
        assert cli_mod.main(["feedback", reaction, "x", "--text", text, *seconds, "--db", str(db)]) == 2
        out = capsys.readouterr()
        assert out.out == "" and len(out.err.strip().splitlines()) == 1, out
        assert f"the {reaction} was not stored" in out.err and "Traceback" not in out.err
    assert PreferenceStore(db, read_only=True).history() == []
