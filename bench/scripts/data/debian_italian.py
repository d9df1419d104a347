"""Italian passages from three Debian packages, for `edge-ranker distill --extra-passages FILE`.

The data folder has little Italian prose (10k Leipzig sentences, 0.4 MB of news), and SQuAD-it's unevaluated
paragraphs are all trained on already, so this tries the one other offline source of coherent Italian text:
fortunes-it (quotes and jokes), debian-reference-it and libreoffice-help-it (software manuals). The text is
read from the packages at run time and never copied into the project.

Usage: python bench/scripts/data/debian_italian.py OUT.txt [--max 6000] [--seed 0]
(needs `apt-get download`, i.e. Debian's package index; about 6 MB of downloads)
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

PACKAGES = ["fortunes-it", "debian-reference-it", "libreoffice-help-it"]
BLOCKS = {"p", "li", "td", "dd", "div", "h1", "h2", "h3", "pre", "br", "tr", "title"}


class _Paragraphs(HTMLParser):
    """Text of each block element of a page, scripts and styles skipped."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[str] = []
        self._cur: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._skip += tag in ("script", "style")
        if tag in BLOCKS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")
        if tag in BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._cur.append(data)

    def _flush(self) -> None:
        text = " ".join(" ".join(self._cur).split())
        self._cur = []
        if text:
            self.out.append(text)


def _prose(text: str, min_words: int = 12) -> bool:
    """A sentence-like paragraph, not a menu path, a command line or a table of numbers."""
    return len(text.split()) >= min_words and sum(c.isalpha() for c in text) > 0.6 * len(text)


def _page_passages(paragraphs: list[str], target_words: int = 80) -> list[str]:
    """Consecutive prose paragraphs of one page joined until each passage has about ``target_words`` words."""
    out: list[str] = []
    cur: list[str] = []
    for p in filter(_prose, paragraphs):
        cur.append(p)
        if sum(len(c.split()) for c in cur) >= target_words:
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def passages(root: Path) -> list[str]:
    """Every fortune and every joined manual passage under the unpacked packages at ``root``."""
    out: list[str] = []
    for f in sorted((root / "usr/share/games/fortunes/it").glob("*")):
        if f.is_file() and f.suffix != ".dat":
            text = f.read_bytes().decode("utf-8", "replace")
            out += [" ".join(x.split()) for x in re.split(r"^%\s*$", text, flags=re.M) if _prose(x)]
    pages = [
        *sorted(root.glob("usr/share/debian-reference/*.it.html")),
        *sorted(root.glob("usr/share/libreoffice/help/it/**/*.html")),
    ]
    for page in pages:
        parser = _Paragraphs()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        parser.close()
        out += _page_passages(parser.out)
    return list(dict.fromkeys(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--max", type=int, default=6000, help="passages kept, a seeded sample (default 6000)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["apt-get", "download", *PACKAGES], cwd=tmp, check=True, capture_output=True)
        root = Path(tmp) / "root"
        for deb in sorted(Path(tmp).glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        found = passages(root)
    random.Random(a.seed).shuffle(found)
    a.out.write_text("\n".join(found[: a.max]) + "\n", encoding="utf-8")
    print(f"{len(found)} passages found, {min(len(found), a.max)} written to {a.out}")


if __name__ == "__main__":
    main()
