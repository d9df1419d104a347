"""What every command shares: argument types, the model options' help, and printing that no output encoding or
full disk turns into a crash or a lost change."""

from __future__ import annotations

import argparse
import codecs
import json
import math
import sys
from collections.abc import Callable
from typing import Any, TextIO

from edge_ranker.errors import EdgeRankerError


def to_json(obj: object, **kw: Any) -> str:
    """JSON for standard output: its characters as they are where the output is UTF-8, else escaped (\\uXXXX),
    so that no character is lost or crashes an output in another encoding (a Windows console, LANG=C)."""
    return json.dumps(obj, ensure_ascii=not utf8_stream(sys.stdout), **kw)


def utf8_stream(stream) -> bool:
    """Whether ``stream`` takes any character: a UTF-8 stream (by any alias) or one of text alone (StringIO)."""
    encoding = getattr(stream, "encoding", None)
    if encoding is None:
        return True
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal; a stream the command was started without (``2>&-``: None) is none."""
    return stream is not None and stream.isatty()


def note(message: str) -> None:
    """A line for the person at the terminal, on standard error; nowhere when it is closed (``2>&-``), where print
    would send it to standard output, into the results."""
    if sys.stderr is not None:
        print(message, file=sys.stderr)


def print_json(obj: object) -> None:
    """``obj`` as indented JSON on standard output (``to_json``)."""
    print(to_json(obj, indent=2))


def count(text: str) -> int:
    """An argparse type: a whole number >= 0."""
    return number(text, int, lambda v: v >= 0, "a whole number >= 0")


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
    return number(text, int, lambda v: 1 <= v <= 1_000_000, "a whole number from 1 to 1,000,000")


def positive(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    return number(text, int, lambda v: v >= 1, "a whole number >= 1")


def seed(text: str) -> int:
    """An argparse type: a random seed, a whole number >= 0 (numpy's generators refuse a negative one)."""
    return number(text, int, lambda v: v >= 0, "a whole number >= 0")


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
    return number(text, float, lambda v: math.isfinite(v) and v >= 0, "a finite number >= 0")


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, more than 0 and at most an hour (a window a run can wait)."""
    return number(text, float, lambda v: 0 < v <= 3600, "seconds, more than 0 and at most 3600")


def view_seconds(text: str) -> float:
    """An argparse type: how long a document was read, from 0 to a day (``MAX_VIEW_S``)."""
    from edge_ranker.runtime.constants import MAX_VIEW_S

    return number(text, float, lambda v: 0 <= v <= MAX_VIEW_S, f"seconds from 0 to {MAX_VIEW_S}")


def number(text: str, kind: type, ok: Callable[[Any], bool], what: str) -> Any:
    """``text`` as a ``kind`` that ``ok`` accepts, else argparse's error saying it must be ``what``."""
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def model_or_none(name: str) -> str | None:
    """A model option's value, with 'none' meaning no model (``--relevance``, ``--ranker-relevance``)."""
    return None if name == "none" else name


def shipped(value: str | None, name: str) -> str:
    """A model option of ``rank``, ``feedback`` and ``demo``; left out, the shipped model ``name`` by its folder, so
    that a folder of that name where the command runs neither replaces it nor stops the command."""
    if value is not None:
        return value
    from edge_ranker.runtime.encoder import MODELS_DIR

    return str(MODELS_DIR / name)


def report_change(obj: dict, done: str) -> None:
    """Print what a command that changed the store did; if standard output fails (a full disk), say that the change
    itself was made, so that it is not repeated."""
    try:
        print(json.dumps(obj))
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise EdgeRankerError(f"standard output failed ({exc.strerror or exc}), but {done}") from exc


def typed(text: str | None) -> str | None:
    """A text given on the command line: bytes in it that are not UTF-8, which Python keeps as lone surrogates, as
    U+FFFD, as the runtime reads such bytes in any text (a lone surrogate would become '?')."""
    if text is None:
        return None
    try:  # the bytes Python kept as U+DC80..U+DCFF; any other text (an ASCII locale's argv, read again) as it is
        return text.encode("utf-8", "surrogateescape").decode("utf-8", errors="replace")
    except UnicodeEncodeError:  # a surrogate no byte stands for: the runtime makes it '?', as from the API
        return text


def shown(text: str, width: int) -> str:
    """``text`` for one cell of a terminal table: control and format characters (escape sequences, line breaks,
    a right-to-left override from a feed) become spaces, and a cut is marked with an ellipsis."""
    text = " ".join("".join(c if c.isprintable() else " " for c in text[: width * 4]).split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"
