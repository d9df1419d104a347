"""``rank`` and ``feedback``: a user's documents ranked, and their likes and dislikes stored."""

from __future__ import annotations

import argparse
import codecs
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from edge_ranker.cli.common import (
    RELEVANCE_HELP,
    SEMANTIC_HELP,
    count,
    model_or_none,
    note,
    report_change,
    shipped,
    shown,
    terminal,
    threads,
    to_json,
    typed,
    view_seconds,
    weight,
)
from edge_ranker.cli.prefs import existing_store, store_path
from edge_ranker.errors import EdgeRankerError

if TYPE_CHECKING:
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker

# byte-order marks of the encodings a JSON lines file is not in (UTF-16: what PowerShell 5's > writes); UTF-32's
# first, as its little-endian mark begins with UTF-16's
WIDE_BOMS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}


def relevance_model(a: argparse.Namespace) -> Encoder | None:
    """The relevance model ``feedback`` and ``rank`` load (``--relevance none``: none)."""
    from edge_ranker.runtime.encoder import Encoder

    name = model_or_none(shipped(a.relevance, "relevance"))
    return None if name is None else Encoder.load(name, threads=a.threads)


def _ranker(a: argparse.Namespace) -> Ranker:
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    path = store_path(a.db)
    if a.db is not None and not path.absolute().parent.is_dir():  # ranking reads: a mistyped --db is said, not made
        raise EdgeRankerError(
            f"--db {path}: there is no folder {path.absolute().parent} (or it cannot be reached); create it, or check "
            "the path (`feedback` makes the folders of a new store)"
        )
    # ranking reads the interests: a store this user may only read ranks without keeping the document vectors
    read_only = path.is_file() and not _writable(path)
    return Ranker(
        Encoder.load(shipped(a.semantic, "semantic"), threads=a.threads),
        relevance_model(a),
        PreferenceStore(path, read_only=read_only),
        personal_weight=a.personal_weight,
        lexical_weight=a.lexical_weight,
        semantic_query_weight=a.semantic_query_weight,
        show_progress_bar=terminal(sys.stderr),
    )


def _writable(path: Path) -> bool:
    """Whether this user may write the store: its file, and its folder, where SQLite keeps its WAL files."""
    return os.access(path, os.W_OK) and os.access(path.absolute().parent, os.W_OK)


def _read_docs(path: str | None) -> list:
    """JSON lines (a UTF-8 BOM is allowed), each a document; every problem is reported with its line number. Lines
    end at a line feed only: a JSON string may hold U+2028, U+2029 or U+0085, which ``str.splitlines`` would split
    at. A path may be a pipe (``<(cmd)``, ``/dev/stdin``)."""
    from edge_ranker.runtime.documents import Document

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
        if terminal(sys.stdin):  # else it would seem to hang
            note("edge-ranker: reading documents (JSON lines) from the terminal; Ctrl-D ends")
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
        ranking = ranker.rank(
            docs, query=typed(a.query), duplicates=a.duplicates, reacted=a.reacted, diversity=a.diversity
        )
        ranked = ranking[: a.top or None]
        # what the user read ranks a feed too (implicit signals): said only where nothing personal ranked it
        personal = len(ranking) > 0 and ranking[0].personal_score is not None
        unreacted = not personal and ranker.store.feedback_count() == 0
    finally:
        ranker.store.close()
    if unreacted:  # a mistyped --db is a new, empty store: say that nothing personal ranked this feed
        note(
            f"edge-ranker: no likes or dislikes are stored in {ranker.store.path} yet, so nothing personal ranks "
            "this feed; `edge-ranker feedback like ID --text TEXT` stores one"
        )
    if a.json or not terminal(sys.stdout):
        for r in ranked:
            print(to_json(r.to_dict(), allow_nan=False))
        return
    texts = {d.id: d.text for d in docs}
    print(f"{'rank':>4}  {'score':>7}  {'id':<16}  text")
    for r in ranked:
        doc_id, text = shown(r.id, 16), shown(texts[r.id], 70)
        print(f"{r.rank:>4}  {r.score:7.4f}  {doc_id:<16}  {text}")


def cmd_feedback(a: argparse.Namespace) -> None:
    from edge_ranker.runtime.documents import Document
    from edge_ranker.runtime.encoder import Encoder
    from edge_ranker.runtime.ranker import Ranker
    from edge_ranker.runtime.store import PreferenceStore

    if a.seconds is not None and a.reaction != "view":
        raise EdgeRankerError("--seconds is for view: how long the document was read")
    if a.reaction == "undo":  # the store alone: no model to load
        if a.text is not None:
            raise EdgeRankerError("--text is for like and dislike; undo takes back every reaction to the document's id")
        store = existing_store(a.db)
        undone = store.undo(a.doc_id)
        done = f"{undone} reaction{'' if undone == 1 else 's'} {'was' if undone == 1 else 'were'} undone"
        report_change({"undone": undone, "doc_id": a.doc_id, "db": str(store.path)}, done)
        return
    if a.text is None:
        raise EdgeRankerError(f"{a.reaction} needs the document's text: --text TEXT")
    if a.reaction == "view" and a.seconds is None:
        raise EdgeRankerError("view needs how long the document was read: --seconds S")
    semantic = Encoder.load(shipped(a.semantic, "semantic"), threads=a.threads)
    ranker = Ranker(semantic, relevance_model(a), PreferenceStore(a.db))
    doc = {"id": a.doc_id, "text": typed(a.text)}
    try:
        if a.reaction in ("view", "shown") and not ranker._learnable(Document.from_dict(doc).text):
            # the Ranker keeps none of it (as it refuses to like it): said, not reported as stored
            raise EdgeRankerError(
                f"document {a.doc_id!r} has no word the models can read (empty, only punctuation or emoji, or mostly "
                f"a script their vocabulary lacks): no interest can be learnt from it, so the {a.reaction} was not "
                "stored"
            )
        if a.reaction == "view":
            ranker.viewed(doc, a.seconds)
        elif a.reaction == "shown":
            ranker.shown([doc])
        else:
            event = ranker.feedback(doc, a.reaction)
    finally:
        ranker.store.close()
    report = {"doc_id": a.doc_id, "reaction": a.reaction, "db": str(ranker.store.path)}
    if a.reaction in ("view", "shown"):
        report_change(report, f"the {a.reaction} was stored")
        return
    report_change({"event": event, **report}, f"the {a.reaction} was stored (event {event}): it needs no repeating")


def add_ranker_args(p: argparse.ArgumentParser) -> None:
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


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """rank, feedback"""
    r = sub.add_parser("rank", help="rank documents (JSONL: id, text, published) by stored interests and a query")
    r.add_argument("docs", nargs="?", help="JSONL file, or - / nothing for stdin")
    r.add_argument("--query", help="rank by relevance to this query; the stored interests order its answers")
    r.add_argument("--top", type=count, default=0, help="print only the first N (default 0: all)")
    r.add_argument(
        "--json", action="store_true", help="JSON lines with every score (the default when output is not a terminal)"
    )
    r.add_argument(
        "--duplicates",
        choices=["fold", "keep"],
        default="fold",
        help="fold (default): a document of the same story as one ranked above it follows all the others; keep: "
        "rank it by its score",
    )
    r.add_argument(
        "--reacted",
        choices=["sink", "leave_out", "keep"],
        help="what becomes of the documents already liked, disliked or opened (default: sink in a feed, keep in a "
        "search)",
    )
    r.add_argument(
        "--diversity",
        type=weight,
        help="in a feed, how much each document above it of the same liked interest lowers a document, so that "
        "several interests show near the top (default: the runtime's DIVERSITY; 0: the scores' order)",
    )
    add_ranker_args(r)
    r.set_defaults(func=cmd_rank)

    f = sub.add_parser(
        "feedback", help="record a like, dislike, view or showing of a document, or undo everything of one"
    )
    f.add_argument(
        "reaction",
        choices=["like", "dislike", "view", "shown", "undo"],
        help="like, dislike, view (opened and read for --seconds), shown (the app displayed it), or undo (every "
        "reaction and signal of the document)",
    )
    f.add_argument("doc_id", help="the document's id")
    f.add_argument("--text", help="the document's text (required but for undo)")
    f.add_argument("--seconds", type=view_seconds, help="how long the document was read (view)")
    f.add_argument("--semantic", help=SEMANTIC_HELP)
    f.add_argument("--relevance", help=RELEVANCE_HELP)
    f.add_argument("--db", help="preference database (default: the user data folder)")
    f.add_argument("--threads", type=threads, default=1, help="onnxruntime threads (default 1)")
    f.set_defaults(func=cmd_feedback)
