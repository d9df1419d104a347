"""Reading text corpora robustly: plain or gzip, one sentence per line or Leipzig ``id<TAB>sentence``.

Invalid UTF-8 never crashes a run: the line is skipped and counted, so a report can say how much was lost.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from edge_ranker.errors import EdgeRankerError

_LEIPZIG = re.compile(rb"^\d+\t")


def read_json(path: str | Path, what: str) -> object:
    """A JSON file the user gave (a UTF-8 BOM allowed), or a one-line error naming ``what`` it is and the fault."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise EdgeRankerError(f"cannot read the {what} {path}: {exc.strerror}") from exc
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON
        raise EdgeRankerError(f"the {what} {path} is not JSON: {str(exc)[:120]}") from exc


@dataclass
class ReadStats:
    """What happened while reading: kept lines and lines skipped for bad bytes, per file."""

    lines: int = 0
    invalid_utf8: int = 0
    invalid_examples: list[str] = field(default_factory=list)


def _open_binary(path: Path):
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def read_lines(path: str | Path, stats: ReadStats | None = None) -> Iterator[str]:
    """Yield non-empty stripped lines; Leipzig ids are removed, undecodable lines skipped and counted."""
    path = Path(path)
    if not path.exists():
        raise EdgeRankerError(f"corpus file not found: {path}")
    if not path.is_file():
        raise EdgeRankerError(f"corpus path is not a file: {path}")
    stats = stats if stats is not None else ReadStats()
    try:
        with _open_binary(path) as fh:
            for lineno, raw in enumerate(fh, start=1):
                raw = _LEIPZIG.sub(b"", raw, count=1)
                try:
                    line = raw.decode("utf-8").strip()
                except UnicodeDecodeError:
                    stats.invalid_utf8 += 1
                    if len(stats.invalid_examples) < 5:
                        stats.invalid_examples.append(f"{path}:{lineno}")
                    continue
                if line:
                    stats.lines += 1
                    yield line
    except (OSError, EOFError) as exc:  # truncated gzip, unreadable file
        raise EdgeRankerError(f"cannot read corpus {path}: {exc}") from exc
