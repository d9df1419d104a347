"""Translation pairs from the gettext catalogues (``.mo``) of unpacked Debian packages: every English message and
its translation into each language asked for, as ``LANG-en.tsv`` (translation, tab, English) plus one plain-text
file per language for the vocabulary builder.

Messages of fewer than 3 words (menu labels, single terms) are left out, keyboard mnemonics (``_File``, ``&Open``)
and markup tags are removed, and each English message keeps the first translation found, so a corpus has no
duplicate English side. With ``--hold DOMAIN`` that catalogue (e.g. ``gnucash``) is left out of training, and its
pairs whose English no language's training pairs contain go to ``LANG-en.held.tsv``: a test from an application
the student never saw. ``python bench/scripts/data/gettext_pairs.py ROOT OUT sv fi --hold gnucash``
"""

from __future__ import annotations

import argparse
import gettext
import re
import sys
from pathlib import Path

MIN_WORDS, MAX_WORDS = 3, 60
_MARKUP = re.compile(r"<[^>]{1,40}>")
_MNEMONIC = re.compile(r"(?<!\w)[_&](?=\w)")


def clean(text: str) -> str:
    return " ".join(_MNEMONIC.sub("", _MARKUP.sub(" ", text)).split())


def catalogue_pairs(root: Path, lang: str, domains: set[str] | None = None, skip: str = "") -> dict[str, str]:
    """English message -> translation, over every ``LANG/LC_MESSAGES/*.mo`` under ``root`` in path order (only the
    ``domains`` given, when given; never ``skip``)."""
    pairs: dict[str, str] = {}
    for mo in sorted(root.rglob(f"{lang}/LC_MESSAGES/*.mo")):
        if mo.stem == skip or (domains is not None and mo.stem not in domains):
            continue
        try:
            with open(mo, "rb") as fh:
                catalogue = gettext.GNUTranslations(fh)._catalog  # noqa: SLF001 (the only way to list messages)
        except (OSError, gettext.error, UnicodeDecodeError) as exc:
            print(f"skipped {mo}: {exc}", file=sys.stderr)
            continue
        for key, value in catalogue.items():
            if isinstance(key, tuple):  # plural forms: (msgid, index); the singular is index 0
                if key[1] != 0:
                    continue
                key = key[0]
            en, xx = clean(key.split("\x04")[-1]), clean(value)  # \x04 separates a message context
            if en and xx and en != xx and MIN_WORDS <= len(en.split()) <= MAX_WORDS and "\t" not in en + xx:
                pairs.setdefault(en, xx)
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", help="folder of unpacked packages")
    parser.add_argument("out", help="folder for the TSV and text files")
    parser.add_argument("langs", nargs="+", help="language codes of the catalogues, e.g. sv fi")
    parser.add_argument("--hold", default="", help="catalogue (domain) kept out of training as a test")
    a = parser.parse_args()
    folder = Path(a.out)
    folder.mkdir(parents=True, exist_ok=True)
    english: dict[str, None] = {}
    trained = {lang: catalogue_pairs(Path(a.root), lang, skip=a.hold) for lang in a.langs}
    for pairs in trained.values():
        english.update(dict.fromkeys(pairs))
    for lang, pairs in trained.items():
        (folder / f"{lang}-en.tsv").write_text("".join(f"{xx}\t{en}\n" for en, xx in pairs.items()), encoding="utf-8")
        (folder / f"{lang}.txt").write_text("".join(f"{xx}\n" for xx in pairs.values()), encoding="utf-8")
        print(f"{lang}: {len(pairs)} pairs")
        if a.hold:  # only English that no language's training pairs contain: the student never saw it
            held = {en: xx for en, xx in catalogue_pairs(Path(a.root), lang, {a.hold}).items() if en not in english}
            text = "".join(f"{xx}\t{en}\n" for en, xx in held.items())
            (folder / f"{lang}-en.held.tsv").write_text(text, encoding="utf-8")
            print(f"{lang}: {len(held)} held-out pairs from {a.hold}")
    (folder / "en.txt").write_text("".join(f"{en}\n" for en in english), encoding="utf-8")


if __name__ == "__main__":
    main()
