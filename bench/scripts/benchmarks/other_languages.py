"""How much of languages outside the 10 the shipped vocabulary spells: per language, 500 messages of five words or
more (no format placeholders, one line) drawn with seed 0 from the system's gettext catalogues
(``/usr/share/locale/LANG/LC_MESSAGES/*.mo``), the share of their word pieces that are [UNK] and the share of
messages the Ranker sets apart as unreadable (``runtime/readable.py``). The README's figures for Swedish, Greek and
Ukrainian come from Debian bookworm's catalogues.
``python bench/scripts/benchmarks/other_languages.py [--langs sv el uk] [--model semantic]``"""

from __future__ import annotations

import argparse
import glob
from gettext import GNUTranslations

import numpy as np

from edge_ranker.runtime.encoder import Encoder
from edge_ranker.runtime.readable import VocabularyCoverage

MESSAGES = 500


def messages(lang: str) -> list[str]:
    """The catalogues' translated messages in ``lang`` that read as sentences, ``MESSAGES`` of them, seeded."""
    found: set[str] = set()
    for mo in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo")):
        try:
            with open(mo, "rb") as fh:
                catalogue = GNUTranslations(fh)._catalog
        except (OSError, ValueError, UnicodeDecodeError):  # a catalogue in another encoding or format
            continue
        found.update(
            v.strip()
            for v in catalogue.values()
            if isinstance(v, str) and len(v.split()) >= 5 and "%" not in v and "\n" not in v.strip()
        )
    texts = sorted(found)
    picked = np.random.default_rng(0).choice(len(texts), min(MESSAGES, len(texts)), replace=False) if texts else []
    return [texts[i] for i in picked]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--langs", nargs="+", default=["sv", "el", "uk"])
    parser.add_argument("--model", default="semantic", help="model folder or shipped name (default: semantic)")
    a = parser.parse_args()
    model = Encoder.load(a.model)
    reader, unk = VocabularyCoverage(model, 10), model.tokenizer.token_to_id("[UNK]")
    for lang in a.langs:
        texts = messages(lang)
        if not texts:
            print(f"{lang}: no catalogue messages under /usr/share/locale/{lang}")
            continue
        ids = [e.ids[1:-1] for e in model.tokenizer.encode_batch(texts)]  # without [CLS] and [SEP]
        pieces = np.mean([np.mean([i == unk for i in x]) if x else 0.0 for x in ids])
        apart = np.mean([not reader.readable(t) for t in texts])
        print(f"{lang}: {len(texts)} messages, {pieces:.0%} of the pieces unknown, {apart:.0%} set apart as unreadable")


if __name__ == "__main__":
    main()
