"""The ``edge-ranker`` parser and the run of one command: every failure said in one line, never a traceback."""

from __future__ import annotations

import argparse
import codecs
import csv
import json
import os
import re
import sys
import zlib
from typing import NoReturn

from edge_ranker.cli import bench, data, demo, distill, evaluate, export, prefs, rank, vocab
from edge_ranker.cli.common import utf8_stream
from edge_ranker.errors import EdgeRankerError

DESCRIPTION = """Private search and feed ranking on your own device. Rank documents (JSON lines) by what you
liked and disliked and an optional query, in any of 10 languages, with two tiny models that ship inside the
package; nothing leaves the machine. Start with `edge-ranker demo`, then `feedback`, `rank` and `prefs`. The
training side (`vocab`, `distill`, `export`, `eval`) needs `pip install 'edge-ranker[train]'`."""

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

    p = Parser(prog="edge-ranker", description=DESCRIPTION)
    p.add_argument("--version", action="version", version=f"edge-ranker {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for group in (demo, rank, prefs, vocab, data, distill, evaluate, export, bench):  # the order --help lists them in
        group.add_parsers(sub)
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
    "pooch": "fetch",
}


def run(argv: list[str] | None = None) -> int:
    """The command line ``argv`` (default: the process's) run; its exit status. Every failure is one line."""
    if argv is None:  # the console script: a character the output's encoding lacks is escaped, never a crash
        for stream in (sys.stdout, sys.stderr):
            if not utf8_stream(stream) and hasattr(stream, "reconfigure"):
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
