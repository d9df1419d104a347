"""Whether a model can read a text: the share of the words it reads that its vocabulary cannot spell.

Why: WordPiece turns a word it cannot spell into one [UNK] piece, so texts in a script the vocabulary lacks (Thai,
Arabic, Hindi, Korean; most words of a Chinese or Japanese text) come out as a few [UNK] pieces and get nearly one
vector whatever they say: three Thai sentences on football, a tax and a cat have cosines of 1.00 with each other
under the shipped semantic model. A like of one would lift them all, and a query's cosine to them says nothing, so
the ranker learns no interest from such a text and ranks it by its words alone.

The words are the tokenizer's (its normaliser and pre-tokenizer, as BM25's ``lexical.terms``), in order, as far as
the model reads them: up to ``windows`` x (``max_length`` - 2) pieces, so a long English article that ends in Chinese
is read, and a Thai text that ends in English is not. Only words with a letter or number count (emoji and
punctuation count neither way). Over the SIB-200 train sentences of the 10 languages the shipped vocabulary was built
for, at most 12% of a sentence's words are unknown; in one sentence each of Thai, Arabic, Hindi, Korean, Chinese and
Japanese, 83-100%. The JVM core's ``Encoder.unknownShare`` counts alike (its golden test compares every share).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Protocol

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.runtime.cache import drop_oldest
from edge_ranker.runtime.constants import UNKNOWN_LIMIT
from edge_ranker.runtime.lexical import is_term, words
from edge_ranker.runtime.manifest import Manifest

# BERT's white space (tab, line feed, carriage return and category Zs), as a regular expression class
WHITE = r"\t\n\r\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
WORDS_KEPT = 200_000  # words whose pieces are remembered: most words of a feed recur


class Model(Protocol):
    """What a ``VocabularyCoverage`` uses of an ``Encoder``."""

    tokenizer: Tokenizer
    manifest: Manifest

    def cut(self, text: str) -> str: ...


class VocabularyCoverage:
    """Which texts a model can read, each decided once per process (bounded: the oldest go first). A text none of
    whose words can hold a character the vocabulary does not spell is decided by one regular-expression search
    (``unknown_share`` is then 0 whatever the model reads of it); the others word by word."""

    def __init__(self, model: Model, capacity: int) -> None:
        self.tokenizer, self.cut, self.capacity = model.tokenizer, model.cut, capacity
        manifest = model.manifest
        self.pieces = (manifest.max_length - 2) * manifest.windows  # the text pieces the model reads, at most
        wordpiece = self.tokenizer.model
        token = getattr(wordpiece, "unk_token", None)
        self._unknown = self.tokenizer.token_to_id(token) if token is not None else getattr(wordpiece, "unk_id", None)
        self._odd: re.Pattern | None | bool = False  # built on first use: a Ranker that never asks pays nothing
        self._known: dict[str, bool] = {}
        self._last: tuple[list[str], np.ndarray] | None = None  # the last feed asked about, and its answer
        self._words: dict[str, tuple[int, bool, bool]] = {}
        self._lock = threading.RLock()  # the memos change as texts are read: a ranking and a reaction at once

    def unknown_share(self, text: str) -> float:
        """The share of the words the model reads of ``text`` (those with a letter or number) that its tokenizer
        can only give as the unknown token; 0 for a text without such words, or a model without that token."""
        text = self.cut(text)
        with self._lock:
            if self._unknown is None or self._plain(text):
                return 0.0
            read = counted = missed = 0
            for word in words(self.tokenizer, text):
                if read >= self.pieces:
                    break
                pieces, counts, unknown = self._word(word)
                read += pieces
                counted += counts
                missed += unknown
            return missed / counted if counted else 0.0

    def readable(self, text: str) -> bool:
        """Whether the model knows enough of ``text``'s words for its vector to say what the text says."""
        return self.unknown_share(text) <= UNKNOWN_LIMIT

    def unreadable(self, texts: list[str]) -> np.ndarray:
        """Per text, whether the model cannot read it: one dict probe per text seen before; a feed of more texts than
        the capacity is decided without being kept."""
        texts = list(texts)  # a copy: kept as the last feed, whatever the caller does to its own list
        with self._lock:
            if self._last is not None and self._last[0] == texts:  # a feed ranked again: no probe per text
                return self._last[1].copy()
            known = self._known
            if len(texts) > self.capacity:
                flags = (known[t] if t in known else self.readable(t) for t in texts)
                return ~np.fromiter(flags, bool, len(texts))
            for t in dict.fromkeys(texts):
                if t not in known:
                    known[t] = self.readable(t)
            out = np.fromiter((not known[t] for t in texts), bool, len(texts))
            drop_oldest(known, len(known) - self.capacity)
            self._last = (texts, out)
            return out.copy()

    def _word(self, word: str) -> tuple[int, bool, bool]:
        """How many pieces the tokenizer gives a word, whether it counts (a letter or number), and whether it counts
        as unknown (all its pieces the unknown token)."""
        found = self._words.get(word)
        if found is None:
            tokens = self.tokenizer.model.tokenize(word)
            counts = is_term(word)
            found = (len(tokens), counts, counts and all(t.id == self._unknown for t in tokens))
            self._words[word] = found
            if len(self._words) > WORDS_KEPT:  # a tenth at once: one at a time would walk the emptied slots each time
                drop_oldest(self._words, WORDS_KEPT // 10)
        return found

    def _plain(self, text: str) -> bool:
        """Whether no word of ``text`` can be unknown: each of its characters normalises to one the vocabulary spells
        alone and within a word, but for symbols (emoji) standing in words without a letter or number, and no run
        of characters is longer than WordPiece spells."""
        if self._odd is False:
            self._odd = _odd_characters(self.tokenizer)
        if self._odd is None:
            return False
        checked = 0  # where the last word checked ends: its other symbols need no second look (a run of emoji)
        for found in self._odd.finditer(text):
            c = found.group()
            if len(c) > 1 or _may_count(c):  # a long run, or a letter it may not spell
                return False
            if found.start() < checked:
                continue
            start, end = found.start(), found.end()  # the symbol's word: as far as white space or punctuation
            while start > 0 and not _ends_word(text[start - 1]):
                start -= 1
            while end < len(text) and not _ends_word(text[end]):
                end += 1
            if any(map(_may_count, text[start:end])):
                return False
            checked = end
        return True


def _odd_characters(tokenizer: Tokenizer) -> re.Pattern | None:
    """A pattern that finds, in a text before normalisation, what could make one of its words unknown: a character
    that does not normalise to one the vocabulary spells both alone and as a continuation (punctuation: alone, as it
    is split off as a word of its own), or a run longer than WordPiece spells between BERT's white space. ``None``
    unless the tokenizer is BERT's (its normaliser and pre-tokenizer, WordPiece), which the pattern assumes: every
    text then goes word by word. Upper-case letters are checked through the normaliser itself, so the pattern never
    passes a character the normaliser would change otherwise."""
    model, norm, pre = tokenizer.model, tokenizer.normalizer, tokenizer.pre_tokenizer
    prefix, longest = getattr(model, "continuing_subword_prefix", None), getattr(model, "max_input_chars_per_word", 0)
    bert = type(norm).__name__ == "BertNormalizer" and type(pre).__name__ == "BertPreTokenizer"
    if prefix is None or not longest or not bert:
        return None
    vocab = tokenizer.get_vocab()
    alone = {t for t in vocab if len(t) == 1}
    within = {t[len(prefix) :] for t in vocab if t.startswith(prefix) and len(t) == len(prefix) + 1}
    spelt = {c for c in alone if (c in within or _split_off(c)) and not c.isspace() and norm.normalize_str(c) == c}
    cased = sorted({u for c in spelt for u in (c.upper(), c.title()) if len(u) == 1 and u != c})
    lowered = norm.normalize_str(" ".join(cased)).split(" ")
    spelt |= {u for u, n in zip(cased, lowered) if n in spelt} if len(lowered) == len(cased) else set()
    allowed = "".join(re.escape(c) for c in sorted(spelt))
    return re.compile(rf"[^{allowed}{WHITE}]|[^{WHITE}]{{{longest + 1},}}")


def _may_count(c: str) -> bool:
    """Whether ``c`` may be a letter or number once normalised: it is one (Unicode L* or N*), or it is unassigned in
    Python's Unicode, which the tokenizers library's newer one may make a letter (U+A7CB lowercases to U+0264)."""
    category = unicodedata.category(c)
    return category[0] in "LN" or category == "Cn"


def _ends_word(c: str) -> bool:
    """Whether BERT's pre-tokenizer ends a word at ``c``: white space, or a character it splits off."""
    return c.isspace() or _split_off(c)


def _split_off(c: str) -> bool:
    """Whether BERT's pre-tokenizer makes ``c`` a word of its own: ASCII punctuation and symbols, Unicode P*."""
    o = ord(c)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 or unicodedata.category(c)[0] == "P"
