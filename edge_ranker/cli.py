"""Thin CLI: each command parses arguments and calls one library function. Errors print, never trace."""

from __future__ import annotations

import argparse
import codecs
import csv
import json
import math
import os
import re
import sys
import zlib
from pathlib import Path
from typing import NoReturn

from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import DATA_HELP, cache_root, data_root, output_folder
from edge_ranker.textio import read_json


def _json(obj, **kw) -> str:
    """JSON for standard output: its characters as they are where the output is UTF-8, else escaped (\\uXXXX),
    so that no character is lost or crashes an output in another encoding (a Windows console, LANG=C)."""
    return json.dumps(obj, ensure_ascii=not _utf8(sys.stdout), **kw)


def _utf8(stream) -> bool:
    """Whether ``stream`` takes any character: a UTF-8 stream (by any alias) or one of text alone (StringIO)."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None:
        return True
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def _print_json(obj) -> None:
    print(_json(obj, indent=2))


def count(text: str) -> int:
    """An argparse type: a whole number >= 0."""
    return _number(text, int, lambda v: v >= 0, "a whole number >= 0")


OVERWRITE_HELP = "write over what --out already holds (default: refuse a folder that holds files, before any work)"
# one help for every command that holds a Ranker: the same pair of models must store and rank a user's interests
SEMANTIC_HELP = "semantic model folder or shipped name (default: the shipped one)"
RELEVANCE_HELP = (
    "relevance model folder or shipped name (default: the shipped one): queries, and its passage vectors join the "
    "interests ('none': the semantic model alone; keep the same choice for feedback and rank, or the history is "
    "embedded again)"
)


def vocab_size(text: str) -> int:
    """An argparse type: a vocabulary size up to a million pieces (20 times the shipped one's): the tokenizers
    library's trainer aborts the whole process, with a Rust backtrace, on a size it cannot allocate."""
    return _number(text, int, lambda v: 1 <= v <= 1_000_000, "a whole number from 1 to 1,000,000")


def positive(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    return _number(text, int, lambda v: v >= 1, "a whole number >= 1")


def threads(text: str) -> int:
    """An argparse type: the runtime's thread count (``check_threads``)."""
    from edge_ranker.runtime.encoder import check_threads

    try:
        value: object = int(text)
    except ValueError:
        value = text  # not a whole number: check_threads refuses it with the allowed range
    try:
        return check_threads(value)
    except EdgeRankerError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def weight(text: str) -> float:
    """An argparse type: a finite number >= 0."""
    return _number(text, float, lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0")


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, more than 0 and at most an hour (a window a run can wait)."""
    return _number(text, float, lambda v: 0 < v <= 3600, "seconds, more than 0 and at most 3600")


def _number(text: str, kind: type, ok, what: str):
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def cmd_vocab(a: argparse.Namespace) -> None:
    from edge_ranker.datasets.user import LANGUAGE_CODE
    from edge_ranker.vocab.builder import build_vocab, load_recipe

    if a.recipe:
        corpora = load_recipe(a.recipe, data_root(a.data))
    else:
        corpora = {}
        for spec in a.corpus or []:
            lang, _, path = spec.partition("=")
            if not path or not re.fullmatch(LANGUAGE_CODE, lang):
                raise EdgeRankerError(f"--corpus expects LANG=PATH, LANG a code such as en or tur, got {spec!r}")
            corpora.setdefault(lang, []).append(path)
    if not corpora:
        raise EdgeRankerError("give --recipe or at least one --corpus LANG=PATH")
    a.out = output_folder(a.out, "vocabulary", a.overwrite)
    rep = build_vocab(
        corpora,
        a.out,
        vocab_size=a.size,
        alpha=a.alpha,
        budget_chars=a.budget,
        seed=a.seed,
        lowercase=not a.cased,
        strip_accents=a.strip_accents,
    )
    print(rep.to_json())


def cmd_vocab_convert(a: argparse.Namespace) -> None:
    from edge_ranker.vocab.convert import from_sentencepiece

    a.out = output_folder(a.out, "tokenizer", a.overwrite)
    print(from_sentencepiece(a.sp_model, a.out))


def cmd_distill(a: argparse.Namespace) -> None:
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.options import given
    from edge_ranker.distill.recipes import Recipe, load_recipe, with_overrides
    from edge_ranker.distill.run import distill

    overrides = given(a, Recipe, TrainConfig)
    recipe = with_overrides(load_recipe(a.recipe), overrides)
    root = data_root(a.data) if recipe.reads_data_root else None
    a.out = output_folder(a.out, "student", a.overwrite)  # before the teacher phase, which can take an hour
    if recipe.train.checkpoint_dir:  # may hold this run's checkpoints, which it resumes from (distill checks whose)
        checkpoints = output_folder(recipe.train.checkpoint_dir, "checkpoints", overwrite=True)
        recipe = with_overrides(recipe, {"checkpoint_dir": str(checkpoints)})
    log = distill(recipe, a.vocab, a.out, root, cache_root(a.cache))
    if log["process_index"]:  # under `accelerate launch` every process returns; the main one reports
        return
    keys = (
        "epochs",
        "world_size",
        "groups",
        "pca_explained_variance",
        "teacher_computed",
        "teacher_seconds",
        "train_seconds",
    )
    report = {k: log[k] for k in keys if k in log}
    if recipe.parallel and recipe.held_out:
        from edge_ranker.evaluate.user_data import evaluate_held_out
        from edge_ranker.modeling.student import TorchStudentEncoder
        from edge_ranker.teachers import CachedTeacher, load_teacher

        teacher = CachedTeacher(load_teacher(recipe.teacher), cache_root(a.cache))
        try:
            report["held_out"] = evaluate_held_out(
                TorchStudentEncoder(a.out), teacher, recipe.parallel, recipe.held_out, recipe.train.seed
            )
        finally:
            teacher.close()
        (Path(a.out) / "held_out.json").write_text(json.dumps(report["held_out"], indent=2, ensure_ascii=False))
    _print_json(report)


def cmd_eval(a: argparse.Namespace) -> None:
    from edge_ranker.datasets.retrieval import check_set_name
    from edge_ranker.evaluate.personal import USERS
    from edge_ranker.evaluate.report import evaluate_models

    if not (a.personal or a.personal_search) and (a.topics_split != "dev" or a.users is not None):
        raise EdgeRankerError(
            "--users and --topics-split set up --personal or --personal-search: add --personal or --personal-search"
        )
    if not a.personal and a.item_sentences != 1:
        raise EdgeRankerError("--item-sentences sets up --personal: add --personal")
    if a.strengths and not a.personal_search:
        raise EdgeRankerError("--strengths sets up --personal-search: add --personal-search")
    if a.personal_search and len(a.models) != 2:
        raise EdgeRankerError(
            f"--personal-search ranks with a pair of runtime models, SEMANTIC RELEVANCE (e.g. `eval semantic "
            f"relevance --personal-search`); got {len(a.models)} model{'s' if len(a.models) != 1 else ''}"
        )
    others = a.sts or a.retrieval or a.translation or a.personal or a.search or a.bitext
    if not (others or a.personal_search):
        raise EdgeRankerError(
            "nothing to evaluate: give --sts, --retrieval, --translation, --personal, --personal-search, --search or "
            "--bitext"
        )
    for name in a.retrieval or []:
        check_set_name(name)
    out = None
    if a.out is not None:  # checked before the evaluation, which can take an hour
        if not a.out.strip():
            raise EdgeRankerError("--out is empty: give a file name for the JSON")
        out = Path(a.out).expanduser()
        output_folder(out.parent, "evaluation results", overwrite=True)
        if out.is_dir():
            raise EdgeRankerError(f"--out {out} is a folder; give a file name for the JSON")
        if out.exists() and not a.overwrite:
            raise EdgeRankerError(f"{out} already exists: give a new file name, or --overwrite to replace it")
    reads_data = a.sts or a.retrieval or a.translation or a.personal or a.search or a.personal_search
    res = (
        {}
        if not others
        else evaluate_models(
            a.models,
            data_root(a.data) if reads_data else None,
            cache_root(a.cache),
            sts=a.sts,
            retrieval=a.retrieval,
            docs=a.docs,
            split=a.split,
            translation=a.translation,
            lexical_weight=a.lexical_weight,
            personal_users=(a.users or USERS) if a.personal else 0,
            personal_split=a.topics_split,
            item_sentences=a.item_sentences,
            search=a.search,
            bitexts=a.bitext,
            ranker_semantic=a.ranker_semantic,
            ranker_relevance=_model_or_none(a.ranker_relevance),
        )
    )
    if a.personal_search:
        from edge_ranker.evaluate.personal_search import USERS, evaluate_personal_search
        from edge_ranker.runtime.encoder import Encoder

        semantic, relevance = (Encoder.load(m) for m in a.models)
        res["personal_search"] = evaluate_personal_search(
            semantic, relevance, data_root(a.data), a.topics_split, a.users or USERS, strengths=tuple(a.strengths)
        )
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out = out.resolve() if out.is_symlink() else out  # written through a link, as the user linked it
        partial = out.with_name(f".{out.name}.partial-{os.getpid()}")
        try:
            partial.write_text(json.dumps(res, indent=2))
            os.replace(partial, out)  # whole or not at all: a full disk leaves the earlier file as it was
        finally:
            partial.unlink(missing_ok=True)
    _print_json(res)


def cmd_export(a: argparse.Namespace) -> None:
    from edge_ranker.export.onnx_graph import export_model, export_sentence_transformers

    metrics = _read_metrics(a.metrics) if a.metrics else None
    a.out = output_folder(a.out, "model", a.overwrite)
    if a.sentence_transformers:
        a.sentence_transformers = output_folder(a.sentence_transformers, "sentence-transformers model", a.overwrite)
    out = export_model(a.model_dir, a.out, quantize=a.quantize, name=a.name, metrics=metrics, windows=a.windows)
    if a.sentence_transformers:
        export_sentence_transformers(a.model_dir, a.sentence_transformers)
    print(json.dumps({"model_folder": str(out), "bytes": (out / "model.onnx").stat().st_size}))


def _read_metrics(path: str) -> dict:
    """The ``--metrics`` file: a JSON object, as the manifest holds it (the runtime refuses any other)."""
    metrics = read_json(path, "metrics file")
    if not isinstance(metrics, dict):
        raise EdgeRankerError(f"the metrics file {path} must hold a JSON object, not {type(metrics).__name__}")
    return metrics


def cmd_quantize_compare(a: argparse.Namespace) -> None:
    from edge_ranker.datasets.retrieval import check_set_name
    from edge_ranker.export.compare import compare_variants

    for name in a.retrieval:  # before every variant is exported
        check_set_name(name)
    a.out = output_folder(a.out, "variants", a.overwrite)
    evaluate = None
    if a.sts or a.retrieval:
        evaluate = {
            "data_root": data_root(a.data),
            "cache_dir": cache_root(None),
            "sts": a.sts,
            "retrieval": a.retrieval,
            "split": a.split,
        }
    _print_json(compare_variants(a.model_dir, a.out, a.variants or None, evaluate))


def _model_or_none(name: str) -> str | None:
    """A model option's value, with 'none' meaning no model (``--relevance``, ``--ranker-relevance``)."""
    return None if name == "none" else name


def _shipped(value: str | None, name: str) -> str:
    """A model option of ``rank``, ``feedback`` and ``demo``; left out, the shipped model ``name`` by its folder, so
    that a folder of that name where the command runs neither replaces it nor stops the command."""
    if value is not None:
        return value
    from edge_ranker.runtime.encoder import MODELS_DIR

    return str(MODELS_DIR / name)


def _relevance(a: argparse.Namespace):
    """The relevance model ``feedback`` and ``rank`` load (``--relevance none``: none)."""
    from edge_ranker.runtime.encoder import Encoder

    name = _model_or_none(_shipped(a.relevance, "relevance"))
    return None if name is None else Encoder.load(name, threads=a.threads)


def _ranker(a: argparse.Namespace):
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    path = _store_path(a.db)
    if a.db is not None and not path.absolute().parent.is_dir():  # ranking reads: a mistyped --db is said, not made
        raise EdgeRankerError(
            f"--db {path}: there is no folder {path.absolute().parent} (or it cannot be reached); create it, or check "
            "the path (`feedback` makes the folders of a new store)"
        )
    # ranking reads the interests: a store this user may only read ranks without keeping the document vectors
    read_only = path.is_file() and not _writable(path)
    return Ranker(
        Encoder.load(_shipped(a.semantic, "semantic"), threads=a.threads),
        _relevance(a),
        PreferenceStore(path, read_only=read_only),
        personal_weight=a.personal_weight,
        lexical_weight=a.lexical_weight,
        semantic_query_weight=a.semantic_query_weight,
        show_progress_bar=sys.stderr.isatty(),
    )


def _writable(path: Path) -> bool:
    """Whether this user may write the store: its file, and its folder, where SQLite keeps its WAL files."""
    return os.access(path, os.W_OK) and os.access(path.absolute().parent, os.W_OK)


def _read_docs(path: str | None) -> list:
    """JSON lines (a UTF-8 BOM is allowed), each a document; every problem is reported with its line number. Lines
    end at a line feed only: a JSON string may hold U+2028, U+2029 or U+0085, which ``str.splitlines`` would split
    at. A path may be a pipe (``<(cmd)``, ``/dev/stdin``)."""
    from edge_ranker.runtime.ranker import Document

    if path and path != "-":
        p = Path(path).expanduser()
        if p.is_dir() or not p.exists():
            raise EdgeRankerError(f"{path} is {'a folder' if p.is_dir() else 'not found'}; give a JSONL file or -")
        try:
            raw = p.read_bytes()
        except OSError as exc:
            raise EdgeRankerError(f"cannot read {path}: {exc.strerror}") from exc
    elif sys.stdin is None:  # started with its input closed (`<&-`)
        raise EdgeRankerError("standard input is closed: give the documents as a file, or pipe them in")
    else:  # UTF-8 whatever the locale says, as files are read
        if sys.stdin.isatty() and sys.stderr is not None:  # else it would seem to hang
            print("edge-ranker: reading documents (JSON lines) from the terminal; Ctrl-D ends", file=sys.stderr)
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
    for bom, encoding in WIDE_BOMS.items():
        if raw.startswith(bom):
            raise EdgeRankerError(f"the documents are {encoding} text; save them as UTF-8 (JSON lines are UTF-8)")
    docs, first_line = [], {}
    for n, line in enumerate(raw.removeprefix(codecs.BOM_UTF8).split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            doc = Document.from_dict(json.loads(_decoded(line)))
        except (ValueError, RecursionError) as exc:  # JSONDecodeError, or an integer past Python's digit limit
            raise EdgeRankerError(f"documents line {n} is not a JSON document: {str(exc)[:120]}") from exc
        except EdgeRankerError as exc:
            raise EdgeRankerError(f"documents line {n}: {exc}") from exc
        if doc.id in first_line:
            raise EdgeRankerError(f"documents line {n}: id {doc.id!r} was already given on line {first_line[doc.id]}")
        first_line[doc.id] = n
        docs.append(doc)
    return docs


def _decoded(line: bytes) -> str:
    """A JSON line's text: bytes that are not UTF-8 become U+FFFD in a text, as any text is accepted, but an id is
    an identity, refused rather than altered (two ids with other bad bytes would become one)."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        doc = json.loads(line.decode("utf-8", errors="surrogateescape"))
        if isinstance(doc, dict) and isinstance(doc.get("id"), str) and _ESCAPED.search(doc["id"]):
            raise EdgeRankerError("its 'id' holds bytes that are not UTF-8 (an id is kept as given)") from None
        return line.decode("utf-8", errors="replace")


_ESCAPED = re.compile("[\udc80-\udcff]")  # bytes that are not UTF-8, as errors="surrogateescape" keeps them


def cmd_rank(a: argparse.Namespace) -> None:
    docs = _read_docs(a.docs)
    ranker = _ranker(a)
    try:
        ranked = ranker.rank(docs, query=_typed(a.query))[: a.top or None]
        unreacted = ranker.store.feedback_count() == 0
    finally:
        ranker.store.close()
    if unreacted:  # a mistyped --db is a new, empty store: say that nothing personal ranked this feed
        print(
            f"edge-ranker: no likes or dislikes are stored in {ranker.store.path} yet, so nothing personal ranks "
            "this feed; `edge-ranker feedback like ID --text TEXT` stores one",
            file=sys.stderr,
        )
    if a.json or not sys.stdout.isatty():
        for r in ranked:
            print(_json(r.to_dict(), allow_nan=False))
        return
    texts = {d.id: d.text for d in docs}
    print(f"{'rank':>4}  {'score':>7}  {'id':<16}  text")
    for r in ranked:
        doc_id, text = _shown(r.id, 16), _shown(texts[r.id], 70)
        print(f"{r.rank:>4}  {r.score:7.4f}  {doc_id:<16}  {text}")


def _typed(text: str | None) -> str | None:
    """A text given on the command line: bytes in it that are not UTF-8, which Python keeps as lone surrogates, as
    U+FFFD, as the runtime reads such bytes in any text (a lone surrogate would become '?')."""
    if text is None:
        return None
    try:  # the bytes Python kept as U+DC80..U+DCFF; any other text (an ASCII locale's argv, read again) as it is
        return text.encode("utf-8", "surrogateescape").decode("utf-8", errors="replace")
    except UnicodeEncodeError:  # a surrogate no byte stands for: the runtime makes it '?', as from the API
        return text


def _shown(text: str, width: int) -> str:
    """``text`` for one cell of a terminal table: control and format characters (escape sequences, line breaks,
    a right-to-left override from a feed) become spaces, and a cut is marked with an ellipsis."""
    text = " ".join("".join(c if c.isprintable() else " " for c in text[: width * 4]).split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"


def cmd_feedback(a: argparse.Namespace) -> None:
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    if a.reaction == "undo":  # the store alone: no model to load
        if a.text is not None:
            raise EdgeRankerError("--text is for like and dislike; undo forgets every reaction to the document's id")
        store = _existing_store(a.db)
        undone = store.forget_document(a.doc_id)
        done = f"{undone} reaction{'' if undone == 1 else 's'} {'was' if undone == 1 else 'were'} undone"
        _report({"undone": undone, "doc_id": a.doc_id, "db": str(store.path)}, done)
        return
    if a.text is None:
        raise EdgeRankerError(f"{a.reaction} needs the document's text: --text TEXT")
    semantic = Encoder.load(_shipped(a.semantic, "semantic"), threads=a.threads)
    ranker = Ranker(semantic, _relevance(a), PreferenceStore(a.db))
    try:
        event = ranker.feedback({"id": a.doc_id, "text": _typed(a.text)}, a.reaction)
    finally:
        ranker.store.close()
    report = {"event": event, "doc_id": a.doc_id, "reaction": a.reaction, "db": str(ranker.store.path)}
    _report(report, f"the {a.reaction} was stored (event {event}): it needs no repeating")


def _report(obj: dict, done: str) -> None:
    """Print what a command that changed the store did; if standard output fails (a full disk), say that the change
    itself was made, so that it is not repeated."""
    try:
        print(json.dumps(obj))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise EdgeRankerError(f"standard output failed ({exc.strerror or exc}), but {done}") from exc


def cmd_prefs(a: argparse.Namespace) -> None:
    from edge_ranker.runtime.store import PreferenceStore

    if a.out is not None and a.prefs_command != "export":
        raise EdgeRankerError(f"--out is for export; {a.prefs_command} writes no file (export first to keep a copy)")
    if a.prefs_command == "recover":
        moved = PreferenceStore.recover(_store_path(a.db))
        print(f"moved the damaged database to {moved}; a fresh one starts on next use")
        return
    if a.prefs_command == "forget":
        _forget(a.db)
        return
    store = _existing_store(a.db, read_only=True)  # export, the one command left
    if a.out is not None and a.out != "-":
        print(f"wrote {store.export_to(a.out)}", file=sys.stderr)  # stdout may be the export (/dev/stdout)
    else:
        print(_json(store.export()))


def _forget(db: str | None) -> None:
    """Forget the store at ``db`` and the copies ``recover`` left beside it; copies alone (a store recovered and
    never used again) are the user's data too, so they go even when no database is there."""
    from edge_ranker.runtime.store import PreferenceStore
    from edge_ranker.runtime.store_files import holds_nothing

    path = _store_path(db)
    if not holds_nothing(path) or not (copies := PreferenceStore.forget_recovery_copies(path)):
        with _existing_store(db) as store:  # which says so when neither a database nor a copy is there
            copies = store.forget()
        print(f"deleted all feedback and interests in {path}")
    for c in copies:
        print(f"deleted the recovered copy {c}")


def _store_path(db: str | None) -> Path:
    """The preference store's path: ``db``, else the user's default."""
    from edge_ranker.runtime.store_files import default_path, user_path

    return user_path(db, "preference database path", database=True) if db is not None else default_path()


def _existing_store(db: str | None, read_only: bool = False):
    """The preference store at ``db`` (default: the user's), refusing to create one: reading or deleting a store
    that is not there should say so, not make an empty one. ``read_only``: opened without writing, so a store
    in a folder the user cannot write can still be exported."""
    from edge_ranker.runtime.store import PreferenceStore
    from edge_ranker.runtime.store_files import holds_nothing

    path = _store_path(db)
    if holds_nothing(path):  # an empty file too, which opening would make a store of
        raise EdgeRankerError(f"no preference database at {path}: nothing is stored there")
    return PreferenceStore(path, read_only=read_only)


def cmd_bench(a: argparse.Namespace) -> None:
    from edge_ranker.bench.report import notes, ratios, table
    from edge_ranker.bench.run import run_bench

    res = run_bench(
        a.models or None,
        threads=a.threads,
        runs=a.runs,
        with_energy=a.energy,
        powercap_root=a.powercap_root,
        window_s=a.window,
        repeats=a.repeats,
        out_dir=a.out,
        tag=a.tag,
        overwrite=a.overwrite,
    )
    print(table(res))
    specs = [m["spec"] for m in res["models"]]
    pairs = [(s, t) for s in specs for t in specs if t.startswith("teacher:") and not s.startswith("teacher:")]
    for k, v in ratios(res, pairs).items():
        print(f"latency ratio {k}: {v:.1f}x")
    for line in notes(res):
        print(line)
    print("wrote " + " and ".join(f for f in (res["files"]["json"], res["files"]["png"]) if f))
    failed = [f"{m['spec']}: {m['error']}" for m in res["models"] if "error" in m]
    if failed:  # the others were measured and written; a model that could not be is an error, not a table row
        raise EdgeRankerError(f"not benchmarked: {'; '.join(failed)}")


def cmd_demo(a: argparse.Namespace) -> None:
    from edge_ranker.demo import run_demo

    run_demo(_shipped(a.semantic, "semantic"), _model_or_none(_shipped(a.relevance, "relevance")), top=a.top)


def _add_ranker_args(p: argparse.ArgumentParser) -> None:
    from edge_ranker.runtime.fusion import LEXICAL_WEIGHT, PERSONAL_WEIGHT, SEMANTIC_QUERY_WEIGHT

    p.add_argument("--semantic", help=SEMANTIC_HELP)
    p.add_argument("--relevance", help=RELEVANCE_HELP)
    p.add_argument("--db", help="preference database (default: the user data folder)")
    p.add_argument("--threads", type=threads, default=1, help="onnxruntime threads per model (default 1)")
    p.add_argument(
        "--personal-weight",
        type=weight,
        default=PERSONAL_WEIGHT,
        help="how much the stored likes and dislikes move a query's results: they lift a document by how much of the "
        "query's words it holds, never one that holds none (default %(default)g; 0: the query alone; a feed without "
        "--query is ordered by them whatever this is)",
    )
    p.add_argument(
        "--lexical-weight",
        type=weight,
        default=LEXICAL_WEIGHT,
        help="weight of the query's BM25 beside the relevance cosine, both standardised, times the share of the "
        "query's words some document has (default %(default)g; 0: no BM25)",
    )
    p.add_argument(
        "--semantic-query-weight",
        type=weight,
        default=SEMANTIC_QUERY_WEIGHT,
        help="weight of the semantic model's query cosine, times the share of the query's words no document has "
        "(a query in another language than the documents; default %(default)g; 0: never, BM25 still counts by the "
        "share they have)",
    )


DESCRIPTION = """Private search and feed ranking on your own device. Rank documents (JSON lines) by what you
liked and disliked and an optional query, in any of 10 languages, with two tiny models that ship inside the
package; nothing leaves the machine. Start with `edge-ranker demo`, then `feedback`, `rank` and `prefs`. The
training side (`vocab`, `distill`, `export`, `eval`) needs `pip install 'edge-ranker[train]'`."""


# byte-order marks of the encodings a JSON lines file is not in (UTF-16: what PowerShell 5's > writes); UTF-32's
# first, as its little-endian mark begins with UTF-16's
WIDE_BOMS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}
BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines breaks a line at
LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in BREAKS}  # each written as its escape
ONE_LINE = re.compile(f"\\s*[{BREAKS}]+\\s*")  # a run of them, with the spaces around it


class Parser(argparse.ArgumentParser):
    """argparse's parser with its errors on one line (its usage block is what --help is for)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("edge-ranker").strip()
        message = message.translate(LINE_BREAKS)  # an argument's line break: still one line
        self.exit(2, f"edge-ranker: error: {command + ': ' if command else ''}{message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from edge_ranker import __version__
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.options import add_options
    from edge_ranker.distill.recipes import RECIPES, Recipe
    from edge_ranker.export.variants import VARIANTS

    p = Parser(prog="edge-ranker", description=DESCRIPTION)
    p.add_argument("--version", action="version", version=f"edge-ranker {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("vocab", help="vocabulary tooling")
    vs = v.add_subparsers(dest="vocab_command", required=True)
    b = vs.add_parser("build", help="build a smoothed multilingual WordPiece vocabulary")
    b.add_argument("--recipe", help="recipe JSON (e.g. vocab/recipe.json)")
    b.add_argument("--corpus", action="append", help="LANG=PATH (repeatable; plain, Leipzig or .gz)")
    b.add_argument("--data", help=DATA_HELP)
    b.add_argument("--out", required=True, help="folder for tokenizer.json, vocab.txt and report.json")
    b.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    b.add_argument("--size", type=vocab_size, default=50_000, help="vocabulary size in pieces (default 50,000)")
    b.add_argument(
        "--alpha", type=float, default=0.7, help="smoothing: each language sampled by its share^alpha (default 0.7)"
    )
    b.add_argument("--budget", type=int, default=20_000_000, help="total characters sampled")
    b.add_argument("--seed", type=int, default=0, help="sampling seed")
    b.add_argument("--cased", action="store_true", help="keep case (default: lowercase)")
    b.add_argument("--strip-accents", action="store_true", help="strip accents (default: keep them)")
    b.set_defaults(func=cmd_vocab)
    c = vs.add_parser("convert-spm", help="a teacher's SentencePiece model as a tokenizer.json (baseline)")
    c.add_argument("sp_model", help="the SentencePiece .model file")
    c.add_argument("--out", required=True, help="folder for the converted tokenizer")
    c.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    c.set_defaults(func=cmd_vocab_convert)

    d = sub.add_parser(
        "distill",
        help="distil a teacher into a small student (accelerate launch works)",
        description="Every option below sets one field of the recipe (distill/recipes.py) or of its training "
        "config (distill/config.py); unset ones keep the recipe's value, shown in parentheses, except that "
        "--parallel or --text turns the recipe's data sets off.",
    )
    d.add_argument(
        "recipe",
        help=f"the recipe: {' or '.join(sorted(RECIPES))} (edge_ranker/recipes/), or your own recipe JSON file",
    )
    d.add_argument("--vocab", required=True, help="folder with tokenizer.json")
    d.add_argument("--out", required=True, help="folder for the trained student")
    d.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    d.add_argument("--data", help=DATA_HELP)
    d.add_argument("--cache", help="teacher cache folder (default $EDGE_RANKER_CACHE or the user cache)")
    add_options(d, Recipe, RECIPES)
    add_options(d, TrainConfig, {name: r.train for name, r in RECIPES.items()})
    d.set_defaults(func=cmd_distill)

    e = sub.add_parser("eval", help="STS, retrieval and translation-retrieval figures for any encoders, in one run")
    e.add_argument("models", nargs="+", help="model folder, shipped name, student folder, teacher:NAME, reduced:DIR")
    e.add_argument("--sts", action="store_true", help="multilingual STS Spearman, 10 languages and 9 en-xx pairs")
    e.add_argument(
        "--retrieval",
        nargs="*",
        default=[],
        help="scifact squad-it wikiqa (test); wikiqa-dev, and scifact-dev squad-it-dev for runs trained with "
        "--hold-dev (to choose between runs)",
    )
    e.add_argument(
        "--translation",
        nargs="*",
        default=[],
        choices=["tatoeba", "flores"],
        help="translation retrieval accuracy, xx->en and en->xx, 9 languages: LASER Tatoeba test, FLORES devtest",
    )
    e.add_argument(
        "--personal",
        action="store_true",
        help="the personalised feed: simulated users like one SIB-200 topic and dislike another (mono, cross- and "
        "mixed-language), through the Ranker and with a plain max-cosine rule, beside random (nDCG@10)",
    )
    e.add_argument(
        "--users", type=positive, help="simulated users per setting for --personal and --personal-search (default 200)"
    )
    e.add_argument(
        "--topics-split",
        choices=["dev", "train"],
        default="dev",
        help="SIB-200 split of --personal and --personal-search (test is kept out)",
    )
    e.add_argument(
        "--item-sentences",
        type=positive,
        default=1,
        metavar="K",
        help="--personal items of K sentences of one topic, article-length (K=4 needs --topics-split train: dev has "
        "too few)",
    )
    e.add_argument(
        "--bitext",
        action="append",
        default=[],
        metavar="XX-YY=FILE",
        help="translation retrieval accuracy both ways on your own pairs (TSV or XX-YY=XX_FILE,YY_FILE); repeatable",
    )
    e.add_argument(
        "--search",
        action="store_true",
        help="search across languages: a FLORES article's first words in one language over the articles' bodies "
        "in another (xx->en and en->xx; 'avg'), and within each language ('within'), through the Ranker and by "
        "cosine (nDCG@10)",
    )
    e.add_argument(
        "--personal-search",
        action="store_true",
        help="search with a history, MODELS being the Ranker's SEMANTIC RELEVANCE pair: users whose history is about "
        "other topics search the QA dev sets and SIB-200 across languages (robustness: the share of the empty "
        "store's nDCG@10 kept), and users whose history favours one topic search a word of several topics "
        "(usefulness: graded nDCG@10); beside the query alone, the interests alone and reciprocal-rank fusion",
    )
    e.add_argument(
        "--strengths",
        type=weight,
        nargs="+",
        default=[],
        metavar="W",
        help="--personal-search also measures the Ranker at these personal weights",
    )
    e.add_argument(
        "--ranker-semantic",
        default="semantic",
        metavar="MODEL",
        help="the semantic model the Ranker holds beside each model in --search (default: the shipped one); its "
        "cosine joins a query by the share of the query's words no document has",
    )
    e.add_argument(
        "--ranker-relevance",
        default="relevance",
        metavar="MODEL",
        help="the relevance model the Ranker holds beside each model in --personal (default: the shipped one), whose "
        "passage vectors join the interests; 'none' for interests of the semantic model alone",
    )
    e.add_argument("--docs", help="encoder for documents (asymmetric mode), e.g. reduced:DIR")
    e.add_argument(
        "--lexical-weight",
        type=weight,
        default=0.0,
        help="also score each retrieval set by cosine + W x BM25, both standardised (reported as SET+lexical; the "
        "runtime's default W is 1, and it adds the semantic cosine by the share of the query's words no document "
        "has: bench/scripts/search_fusion.py)",
    )
    e.add_argument("--split", default="test", choices=["test", "dev"], help="STS split: test (default) or dev")
    e.add_argument("--data", help=DATA_HELP)
    e.add_argument("--cache", help="teacher embedding cache (default $EDGE_RANKER_CACHE or the user cache)")
    e.add_argument("--out", help="write JSON here")
    e.add_argument("--overwrite", action="store_true", help="replace the --out file if it exists")
    e.set_defaults(func=cmd_eval)

    x = sub.add_parser("export", help="export a student folder to an ONNX model folder with a manifest")
    x.add_argument("model_dir", help="a student folder written by distill")
    x.add_argument("--out", required=True, help="the model folder to write")
    x.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    x.add_argument(
        "--quantize",
        default="int8-weights",
        choices=list(VARIANTS),
        help="int8-weights (default: int8 word table and weights, fp32 activations, the same vector in any batch) "
        "or another variant (export/variants.py says what each is)",
    )
    x.add_argument("--name", help="model name in the manifest (default: folder name)")
    x.add_argument(
        "--windows",
        type=positive,
        default=1,
        help="windows of the model's max length the runtime reads of a long text, averaged (default 1: its first "
        "max length; the shipped semantic model, trained on sentences, reads 8)",
    )
    x.add_argument("--metrics", help="JSON file of evaluation figures to record in the manifest")
    x.add_argument("--sentence-transformers", metavar="DIR", help="also write a sentence-transformers folder")
    x.set_defaults(func=cmd_export)

    qc = sub.add_parser("quantize-compare", help="export every quantization variant and measure each")
    qc.add_argument("model_dir", help="a student folder written by distill")
    qc.add_argument("--out", required=True, help="folder for one model folder per variant")
    qc.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    qc.add_argument("--variants", nargs="*", help="variants to compare (default: all)")
    qc.add_argument("--sts", action="store_true", help="also score STS")
    qc.add_argument("--retrieval", nargs="*", default=[], help="also score these retrieval sets")
    qc.add_argument("--split", default="test", choices=["test", "dev"], help="STS split (default test)")
    qc.add_argument("--data", help=DATA_HELP)
    qc.set_defaults(func=cmd_quantize_compare)

    r = sub.add_parser("rank", help="rank documents (JSONL: id, text, published) by stored interests and a query")
    r.add_argument("docs", nargs="?", help="JSONL file, or - / nothing for stdin")
    r.add_argument("--query", help="rank by relevance to this query too (fused with the stored interests)")
    r.add_argument("--top", type=count, default=0, help="print only the first N (default 0: all)")
    r.add_argument(
        "--json", action="store_true", help="JSON lines with every score (the default when output is not a terminal)"
    )
    _add_ranker_args(r)
    r.set_defaults(func=cmd_rank)

    f = sub.add_parser("feedback", help="record a like or dislike, or undo the reactions to a document")
    f.add_argument("reaction", choices=["like", "dislike", "undo"], help="like, dislike, or undo (forget them)")
    f.add_argument("doc_id", help="the document's id")
    f.add_argument("--text", help="the document's text (required to like or dislike)")
    f.add_argument("--semantic", help=SEMANTIC_HELP)
    f.add_argument("--relevance", help=RELEVANCE_HELP)
    f.add_argument("--db", help="preference database (default: the user data folder)")
    f.add_argument("--threads", type=threads, default=1, help="onnxruntime threads (default 1)")
    f.set_defaults(func=cmd_feedback)

    pr = sub.add_parser("prefs", help="export, forget or recover the stored preferences")
    pr.add_argument(
        "prefs_command",
        choices=["export", "forget", "recover"],
        help="export everything stored, forget it all, or move a corrupted database aside",
    )
    pr.add_argument("--db", help="preference database (default: the user data folder)")
    pr.add_argument("--out", help="export: write the JSON to this file (private to the user; '-': stdout)")
    pr.set_defaults(func=cmd_prefs)

    bn = sub.add_parser("bench", help="latency, size, memory, CPU time and energy: students vs teachers")
    bn.add_argument(
        "models",
        nargs="*",
        help="model folders, shipped names or teacher:NAME (default: both shipped models and their teachers; "
        "teachers that are not installed are skipped with a note)",
    )
    bn.add_argument("--energy", action="store_true", help="also measure energy per inference (RAPL/powercap)")
    bn.add_argument("--threads", type=threads, default=1, help="threads per model, teachers included (default 1)")
    bn.add_argument("--runs", type=positive, default=300, help="timed batch-1 calls per model (default 300)")
    bn.add_argument("--window", type=seconds, default=2.0, help="energy window seconds (default 2)")
    bn.add_argument("--repeats", type=positive, default=5, help="energy windows per model (default 5)")
    bn.add_argument(
        "--powercap-root", default="/sys/class/powercap", help="powercap sysfs folder to read energy counters from"
    )
    bn.add_argument(
        "--out",
        help="folder for the JSON and PNG (default: the user data folder's edge-ranker/bench; "
        "the repository's committed results use --out bench/results)",
    )
    bn.add_argument("--tag", help="file stem for the JSON and PNG (default: bench-DATE-TIME)")
    bn.add_argument("--overwrite", action="store_true", help="replace results of the same --tag (default: refuse)")
    bn.set_defaults(func=cmd_bench)

    dm = sub.add_parser("demo", help="rank a small multilingual feed for a scripted user with the shipped models")
    dm.add_argument("--semantic", help=SEMANTIC_HELP)
    dm.add_argument(
        "--relevance",
        help="relevance model folder or shipped name (default: the shipped one; 'none': no query ranking)",
    )
    dm.add_argument("--top", type=count, default=8, help="documents shown per ranking (default 8; 0: all)")
    dm.set_defaults(func=cmd_demo)
    return p


EXTRAS = {
    "torch": "train",
    "transformers": "train",
    "onnx": "train",
    "sklearn": "train",
    "scipy": "train",
    "matplotlib": "bench",
    "tensorflow": "teachers",
    "sentence_transformers": "train",
}


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the console script: a character the output's encoding lacks is escaped, never a crash
        for stream in (sys.stdout, sys.stderr):
            if not _utf8(stream) and hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
        if codecs.lookup(sys.getfilesystemencoding()).name == "ascii":
            # an ASCII locale (LC_ALL=C without UTF-8 mode) decodes arguments as ASCII: "Größe" would be stored as
            # "Gr????e"; the bytes the shell passed are UTF-8 on any system this runs on
            argv = [os.fsencode(x).decode("utf-8", errors="replace") for x in sys.argv[1:]]
    try:
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        return 130
    if sys.stdout is None and _prints_result(args):  # started with its output closed (`>&-`): checked before
        # the command runs, so a like is not stored by a command that then reports failure
        return _fail("standard output is closed; edge-ranker prints its results there")
    try:
        args.func(args)
    except EdgeRankerError as exc:
        return _fail(str(exc))
    except ModuleNotFoundError as exc:  # a command whose extra is not installed
        extra = EXTRAS.get((exc.name or "").split(".")[0])
        hint = f"pip install 'edge-ranker[{extra}]'" if extra else f"install the package {exc.name!r}"
        return _fail(f"`{args.command}` needs {exc.name}, which is not installed: {hint}")
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc}" if exc.filename else str(exc))
    except (EOFError, UnicodeDecodeError, json.JSONDecodeError, zlib.error, csv.Error) as exc:  # a file's content
        if os.environ.get("EDGE_RANKER_DEBUG"):
            raise
        return _fail(
            f"a file is not in the format it should be ({type(exc).__name__}: {exc}): damaged, or another file in "
            "its place (EDGE_RANKER_DEBUG=1 shows which)"
        )
    except Exception as exc:
        if os.environ.get("EDGE_RANKER_DEBUG"):
            raise
        return _fail(f"unexpected {type(exc).__name__}: {exc} (a bug; EDGE_RANKER_DEBUG=1 shows where)")
    return 0


def _prints_result(a: argparse.Namespace) -> bool:
    """Whether the command writes its result to standard output: all do but an export to a file."""
    return not (a.command == "prefs" and a.prefs_command == "export" and a.out not in (None, "-"))


def _fail(message: str) -> int:
    if sys.stderr is not None:  # closed (`2>&-`): print would send the message to stdout, into the results
        # one line, its line breaks (and the spaces around them) made one space; spaces within a value stay
        print(f"edge-ranker: error: {ONE_LINE.sub(' ', message).strip()}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
