"""Offline fixtures: tiny corpora, a tiny vocabulary, a tiny deterministic teacher and tiny models.

Nothing here reads ../shared/data or a model hub; everything is generated in a temp folder.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import numpy as np
import pytest

SYLLABLES = {
    "en": ["the", "cat", "run", "blue", "house", "tree", "light", "water", "stone", "river", "green", "fast"],
    "de": ["der", "katze", "lauf", "blau", "haus", "baum", "licht", "wasser", "stein", "fluss", "grün", "schnell"],
    "tr": ["kedi", "ağaç", "ışık", "su", "taş", "nehir", "yeşil", "hızlı", "ev", "mavi", "koş", "bu"],
}
# word-by-word "translations" so the tiny teacher is cross-lingual, like a real multilingual teacher
CONCEPT = {w: i for lang in SYLLABLES.values() for i, w in enumerate(lang)}


def make_sentences(lang: str, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = SYLLABLES[lang]
    return [
        " ".join(rng.choice(words) + rng.choice(["", "s", "er", "ing"]) for _ in range(rng.randint(3, 9)))
        for _ in range(n)
    ]


def write_bitexts(root: Path, xx: list[bytes], en: list[bytes], laser: str = "deu", flores: str = "deu_Latn") -> None:
    """Tiny LASER-Tatoeba and FLORES files (same lines in both) for one language, in the data root's layout."""
    tat = root / "parallel" / "laser_tatoeba_v1"
    flo = root / "parallel" / "flores200_devtest"
    tat.mkdir(parents=True, exist_ok=True)
    flo.mkdir(parents=True, exist_ok=True)
    (tat / f"tatoeba.{laser}-eng.{laser}").write_bytes(b"\n".join(xx) + b"\n")
    (tat / f"tatoeba.{laser}-eng.eng").write_bytes(b"\n".join(en) + b"\n")
    (flo / f"{flores}.devtest").write_bytes(b"\n".join(xx) + b"\n")
    (flo / "eng_Latn.devtest").write_bytes(b"\n".join(en) + b"\n")


class HashTeacher:
    """Deterministic bag-of-concepts teacher: each known word maps to a fixed random vector shared across
    its translations; unknown words hash to their own vector. Enough structure to distil and rank."""

    name = "hash-teacher"

    def __init__(self, dim: int = 48) -> None:
        self.dim = dim
        rng = np.random.default_rng(0)
        self.table = rng.normal(size=(len(SYLLABLES["en"]), dim)).astype(np.float32)

    def _word(self, w: str) -> np.ndarray:
        base = w.rstrip("s").removesuffix("er").removesuffix("ing") or w
        if base in CONCEPT:
            return self.table[CONCEPT[base]]
        seed = int.from_bytes(hashlib.sha1(w.encode("utf-8", "replace")).digest()[:4], "little")
        return np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)

    def encode(self, texts: list[str], role: str = "passage") -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            words = t.lower().split() or ["<empty>"]
            v = np.mean([self._word(w) for w in words], axis=0) + (0.05 if role == "query" else 0.0)
            out[i] = v / np.linalg.norm(v)
        return out


@pytest.fixture(scope="session")
def corpora(tmp_path_factory) -> dict[str, list[Path]]:
    root = tmp_path_factory.mktemp("corpora")
    sizes = {"en": 3000, "de": 1200, "tr": 300}
    out = {}
    for lang, n in sizes.items():
        p = root / f"{lang}.txt"
        lines = make_sentences(lang, n, seed=len(lang) + n)
        if lang == "en":  # so the tiny vocabulary knows the relevance model's role prefixes
            lines += [f"{role}: {s}" for s in lines[:200] for role in ("query", "passage")]
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out[lang] = [p]
    return out


@pytest.fixture(scope="session")
def tiny_vocab(corpora, tmp_path_factory) -> Path:
    from edge_ranker.vocab.builder import build_vocab

    out = tmp_path_factory.mktemp("vocab")
    build_vocab(corpora, out, vocab_size=150, budget_chars=60_000, heldout_lines=50, show_progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_student(tiny_vocab, tmp_path_factory) -> Path:
    """A random (untrained) student: enough to build and test export and runtime."""
    import torch
    from tokenizers import Tokenizer

    from edge_ranker.modeling.student import Student, StudentInfo, save_student

    torch.manual_seed(0)
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    model = Student.create(tok.get_vocab_size(), hidden=32, heads=2, ffn=64, max_length=128)
    with torch.no_grad():  # non-uniform row norms, like a trained table, so per-tensor int8 is a real test
        w = model.bert.embeddings.word_embeddings.weight
        w.mul_(torch.linspace(0.2, 5.0, w.shape[0]).unsqueeze(1))
    model.eval()
    out = tmp_path_factory.mktemp("student")
    save_student(
        model,
        tok,
        StudentInfo(
            max_length=64,
            prefixes={"query": "query: ", "passage": "passage: "},
            kind="relevance",
            teacher="hash-teacher",
        ),
        out,
    )
    return out


@pytest.fixture(scope="session")
def tiny_model(tiny_student, tmp_path_factory) -> Path:
    from edge_ranker.export.onnx_graph import export_model

    return export_model(tiny_student, tmp_path_factory.mktemp("model"), name="tiny")


VARIED = [
    "",
    " ",
    "a",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "Быстрая коричневая лиса прыгает через ленивую собаку.",
    "Hızlı kahverengi tilki tembel köpeğin üzerinden atlar.",
    "日本語のテキストも大丈夫です。",
    "مرحبا بالعالم",
    "emoji 😀🎉👍🏽 only",
    "x" * 3000,
    "word " * 400,
    "café naïve façade São Paulo Kraków Łódź",
    "line\nbreaks\tand\x00control\x07chars",
    "🇩🇪🇫🇷🇹🇷",
    "ﬁ ligature and ＦＵＬＬ-width",
]
