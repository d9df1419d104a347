"""Whether a model can read a text: the share of its words the model's vocabulary cannot spell.

Why: WordPiece turns a word it cannot spell into one [UNK] piece, so texts in a script the vocabulary lacks (Thai,
Arabic, Hindi, Korean; most words of a Chinese or Japanese text) come out as a few [UNK] pieces and get nearly one
vector whatever they say: three Thai sentences on football, a tax and a cat have cosines of 1.00 with each other
under the shipped semantic model. A like of one would lift them all, and a query's cosine to them says nothing, so
the ranker learns no interest from such a text and ranks it by its words alone. The words are BM25's
(``lexical.terms``: those with a letter or number, so emoji and punctuation count neither way). Over the SIB-200
train sentences of the 10 languages the shipped vocabulary was built for, at most 12% of a sentence's words are
unknown; in one sentence each of Thai, Arabic, Hindi, Korean, Chinese and Japanese, 83-100%.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from typing import Protocol

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.runtime.lexical import terms

UNKNOWN_LIMIT = 0.5  # a text with a larger share of unknown words is one the model cannot read
# BERT's white space (tab, line feed, carriage return and category Zs), as a regular expression class
WHITE = r"\t\n\r\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"


class Model(Protocol):
    """What a ``Reader`` uses of an ``Encoder``."""

    tokenizer: Tokenizer

    def cut(self, text: str) -> str: ...


class Reader:
    """Which texts a model can read, each decided once per process (bounded: the oldest go first). A text whose
    every character the vocabulary spells, alone and within a word, is decided by one regular expression search;
    the others word by word (``unknown_share``)."""

    def __init__(self, model: Model, capacity: int) -> None:
        self.tokenizer, self.cut, self.capacity = model.tokenizer, model.cut, capacity
        wordpiece = self.tokenizer.model
        token = getattr(wordpiece, "unk_token", None)
        self._unknown = self.tokenizer.token_to_id(token) if token is not None else getattr(wordpiece, "unk_id", None)
        self._odd = _odd_characters(self.tokenizer)
        self._known: dict[str, bool] = {}
        self._lock = threading.Lock()

    def unknown_share(self, text: str) -> float:
        """The share of the words the model reads of ``text`` (``lexical.terms`` of ``cut(text)``) that its
        tokenizer can only give as the unknown token; 0 for a text without words, or a model without that token."""
        text = self.cut(text)
        if self._unknown is None or self._odd is not None and not self._odd.search(text):
            return 0.0
        words = Counter(terms(self.tokenizer, text))
        if not words:
            return 0.0
        unknown, model = self._unknown, self.tokenizer.model
        missed = sum(n for w, n in words.items() if all(t.id == unknown for t in model.tokenize(w)))
        return missed / sum(words.values())

    def readable(self, text: str) -> bool:
        """Whether the model knows enough of ``text``'s words for its vector to say what the text says."""
        return self.unknown_share(text) <= UNKNOWN_LIMIT

    def unreadable(self, texts: list[str]) -> np.ndarray:
        """Per text, whether the model cannot read it: one dict probe per text seen before."""
        with self._lock:
            known = self._known
            for t in dict.fromkeys(texts):
                if t not in known:
                    known[t] = self.readable(t)
            out = np.fromiter((not known[t] for t in texts), bool, len(texts))
            while len(known) > self.capacity:
                del known[next(iter(known))]
            return out


def _odd_characters(tokenizer: Tokenizer) -> re.Pattern | None:
    """A pattern that finds, in a text before normalisation, what could make one of its words unknown: a character
    that does not normalise to one the vocabulary spells both alone and as a continuation (punctuation: alone, as it
    is split off as a word of its own), or a run longer than WordPiece spells between BERT's white space. ``None``
    for a tokenizer that is not WordPiece: every text goes word by word. Upper-case letters are checked through
    the normaliser itself, so the pattern never passes a character the normaliser would change otherwise."""
    model = tokenizer.model
    prefix, longest = getattr(model, "continuing_subword_prefix", None), getattr(model, "max_input_chars_per_word", 0)
    if prefix is None or not longest:
        return None
    vocab = tokenizer.get_vocab()
    alone = {t for t in vocab if len(t) == 1}
    within = {t[len(prefix) :] for t in vocab if t.startswith(prefix) and len(t) == len(prefix) + 1}
    spelt = {c for c in alone if (c in within or _split_off(c)) and not c.isspace()}
    cased = sorted({u for c in spelt for u in (c.upper(), c.title()) if len(u) == 1 and u != c})
    norm = tokenizer.normalizer
    if norm is not None:
        spelt = {c for c in spelt if norm.normalize_str(c) == c}
        lowered = norm.normalize_str(" ".join(cased)).split(" ")
        spelt |= {u for u, n in zip(cased, lowered) if n in spelt} if len(lowered) == len(cased) else set()
    allowed = "".join(re.escape(c) for c in sorted(spelt))
    return re.compile(rf"[^{allowed}{WHITE}]|[^{WHITE}]{{{longest + 1},}}")


def _split_off(c: str) -> bool:
    """Whether BERT's pre-tokenizer makes ``c`` a word of its own: ASCII punctuation and symbols, Unicode P*."""
    o = ord(c)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 or unicodedata.category(c)[0] == "P"
