"""Writes the JVM tokenizer's table of non-ASCII characters from the shipped tokenizer.json's own normaliser and
pre-tokenizer (the Rust tokenizers library), so that the JVM splits and lowercases every character as Python
does whatever Unicode version its JDK knows: Java 17 knows Unicode 13, and drops newer emoji (🥹, 🫠) as
unassigned where the tokenizers library keeps them as [UNK].

Each line: ``R FIRST LAST CLASS`` (hex code points; D dropped, S whitespace, C a CJK character spaced apart,
P punctuation split off; every other character is kept), ``L CHAR LOWER...`` (its lowercase, when not itself) or
``A FIRST LAST`` (letters and numbers, Unicode L* and N* as Python's unicodedata has them: what BM25 counts words by
and what makes a text have a word, so that the JVM decides both as the Python runtime does).
Usage: python -m spec.tools.unicode_table [OUT] (default spec/unicode/unicode.tsv)
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER = ROOT / "edge_ranker" / "models" / "semantic" / "tokenizer.json"
TABLE = ROOT / "spec" / "unicode" / "unicode.tsv"
# The letters and numbers follow the Unicode of the Python that writes the table, as the runtime does where it runs
UNICODE = f"Unicode {unicodedata.unidata_version} (Python's unicodedata)"
SURROGATES = range(0xD800, 0xE000)  # not characters: the JVM replaces a lone one before the table is read


def classify(tokenizer: Tokenizer, c: int) -> tuple[str, str]:
    """The class of code point ``c`` (D, S, C, P or "" for kept) and its normalised text."""
    ch = chr(c)
    norm = tokenizer.normalizer.normalize_str(ch)
    if norm == "":
        return "D", norm
    if norm == " ":
        return "S", norm
    if norm == f" {ch} ":
        return "C", norm
    pieces = [p for p, _ in tokenizer.pre_tokenizer.pre_tokenize_str(f"a{ch}b")]
    return ("P" if pieces == ["a", ch, "b"] else ""), norm


def table(tokenizer: Tokenizer) -> list[str]:
    lines = [
        "# edge-ranker JVM tokenizer: non-ASCII characters as the tokenizers library normalises and splits them",
        "# R FIRST LAST CLASS (D dropped, S whitespace, C CJK, P punctuation) | L CHAR LOWERCASE (hex)",
        f"# A FIRST LAST (letters and numbers, Unicode L* and N*): {UNICODE}",
    ]
    start, current = None, ""
    lowers = []
    for c in range(0x80, 0x110000):
        kind, norm = ("D", "") if c in SURROGATES else classify(tokenizer, c)
        if kind != current:
            if current:
                lines.append(f"R {start:x} {c - 1:x} {current}")
            start, current = c, kind
        if kind in ("", "P") and norm != chr(c):
            lowers.append(f"L {c:x} {' '.join(f'{ord(x):x}' for x in norm)}")
    if current:
        lines.append(f"R {start:x} {0x10FFFF:x} {current}")
    return lines + lowers + letters_and_numbers()


def letters_and_numbers() -> list[str]:
    """The runs of non-ASCII code points of Unicode category L* or N* (``lexical.has_word`` and ``lexical.terms``)."""
    runs, start = [], None
    for c in range(0x80, 0x110001):
        inside = c <= 0x10FFFF and unicodedata.category(chr(c))[0] in "LN"
        if inside and start is None:
            start = c
        elif not inside and start is not None:
            runs.append(f"A {start:x} {c - 1:x}")
            start = None
    return runs


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else TABLE
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(table(Tokenizer.from_file(str(TOKENIZER)))) + "\n", encoding="ascii")
    print(out)


if __name__ == "__main__":
    main()
