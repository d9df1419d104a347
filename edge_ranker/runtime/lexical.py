"""BM25 of a query over the documents being ranked: the lexical half of the relevance score.

Why: on the retrieval sets here BM25 alone ranks far better than the 128-d relevance student, and the two
fused rank better than either. A one-layer 128-d vector blurs the exact words a question shares with its answer;
BM25 keeps them, and costs no model bytes.

Terms are the words of the relevance model's own tokenizer (its normaliser, then its pre-tokeniser: lower case,
punctuation split off, each CJK character a word), so every script is handled as the model handles it; tokens
with no letter or number (Unicode L* or N*: punctuation, emoji) are dropped. The Android core's
``Lexical.java`` does the same, checked by the golden test. The statistics (document frequency, average
length) come from the documents being ranked, since the device holds no other corpus. Lucene's BM25:
idf = ln(1 + (N - df + 0.5) / (df + 0.5)), k1 1.2, b 0.75. A query word a document holds counts only where it is not
a function word of the document's language (``stopwords``): "in" is English and German, and a German text holding
it answers nothing of "budget debate in parliament"; in a feed that mixes languages such words made the query's
language, not its meaning, decide. Numpy and tokenizers only (the runtime's
dependencies); the bm25s package, which bench/scripts/benchmarks/bm25_baseline.py uses, needs scipy.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tokenizers import Tokenizer

from edge_ranker.runtime.constants import K1, B
from edge_ranker.runtime.stopwords import LANGUAGES, function_words

_ALNUM = re.compile(r"[^\W_]")  # str.isalnum(): letters and numbers, the candidates of ``has_word``


def words(tokenizer: Tokenizer, text: str) -> list[str]:
    """The words of ``text`` as the model's tokenizer splits them before WordPiece (its normaliser, then its
    pre-tokenizer), punctuation and emoji included."""
    if tokenizer.normalizer is not None:
        text = tokenizer.normalizer.normalize_str(text)
    pre = tokenizer.pre_tokenizer
    return [w for w, _ in pre.pre_tokenize_str(text)] if pre is not None else text.split()


def is_term(word: str) -> bool:
    """Whether a word holds a letter or number (Unicode L* or N*): what BM25 and readability count."""
    return any(unicodedata.category(c)[0] in "LN" for c in word)


def terms(tokenizer: Tokenizer, text: str) -> list[str]:
    """The words of ``text`` as the model's tokenizer splits them before WordPiece, with a letter or number."""
    return [w for w in words(tokenizer, text) if is_term(w)]


def _hashes(words: list[str]) -> np.ndarray:
    return np.fromiter((hash(w) for w in words), np.int64, len(words))


def _function_table() -> tuple[np.ndarray, np.ndarray]:
    """The function words' hashes, sorted, and beside each the languages it is a function word of, one bit each
    in ``LANGUAGES`` order ("in": English, German, Italian, Portuguese, Dutch)."""
    bits: dict[int, int] = {}
    listed = function_words()
    for i, lang in enumerate(LANGUAGES):
        for h in _hashes(listed[lang]).tolist():
            bits[h] = bits.get(h, 0) | 1 << i
    ids = np.array(sorted(bits), dtype=np.int64)
    return ids, np.array([bits[h] for h in ids.tolist()], dtype=np.int64)


_FUNCTION_IDS, _FUNCTION_BITS = _function_table()


def function_bits(ids: np.ndarray) -> np.ndarray:
    """For each term hash, the languages it is a function word of (0: a content word everywhere)."""
    at = np.minimum(np.searchsorted(_FUNCTION_IDS, ids), _FUNCTION_IDS.size - 1)
    return np.where(_FUNCTION_IDS[at] == ids, _FUNCTION_BITS[at], 0)


def language(ids: np.ndarray, counts: np.ndarray) -> int:
    """The index in ``LANGUAGES`` of the language whose function words a text's terms (hashes, counts) hold most,
    the first in that order on a tie; -1 for a text holding none (another language, or only names and numbers)."""
    bits = function_bits(ids)
    held = ((bits[:, None] >> np.arange(len(LANGUAGES))) & 1) * counts[:, None]
    totals = held.sum(axis=0)
    return int(totals.argmax()) if totals.max(initial=0) > 0 else -1


@dataclass(frozen=True)
class Bag:
    """A text's distinct terms (as sorted 64-bit hashes, valid within one process like the cache holding them)
    over their counts, one 2-row array, so a feed's terms are one concatenation and BM25 has no per-term loops;
    and its language (``language``), found once per text."""

    terms: np.ndarray  # int64, shape (2, distinct terms): hashes, counts
    lang: int = -1

    @classmethod
    def of(cls, words: list[str]) -> Bag:
        ids, counts = np.unique(_hashes(words), return_counts=True)
        return cls(np.stack([ids, counts.astype(np.int64)]), language(ids, counts))


@dataclass(frozen=True)
class TermIndex:
    """The term arrays of the documents being ranked, concatenated once (a search box ranks the same feed on
    every keystroke): hashes, counts, where each document's columns end, each document's length in terms and
    its BM25 length normalisation, k1 (1 - b + b length / mean length), which depends on the feed alone, and
    each document's language (``Bag.lang``)."""

    ids: np.ndarray
    counts: np.ndarray
    ends: np.ndarray
    lengths: np.ndarray
    norm: np.ndarray
    langs: np.ndarray

    @classmethod
    def of(cls, bags: Sequence[Bag]) -> TermIndex:
        packed = np.concatenate([b.terms for b in bags], axis=1) if bags else np.zeros((2, 0), np.int64)
        ends = np.cumsum(np.fromiter((b.terms.shape[1] for b in bags), np.int64, len(bags)))
        running = np.concatenate([[0], np.cumsum(packed[1])])
        lengths = (running[ends] - running[ends - np.diff(ends, prepend=0)]).astype(np.float64)
        norm = K1 * (1 - B + B * lengths / max(float(lengths.mean()) if lengths.size else 0.0, 1e-9))
        langs = np.fromiter((b.lang for b in bags), np.int64, len(bags))
        return cls(packed[0], packed[1].astype(np.float64), ends, lengths, norm, langs)

    def __len__(self) -> int:
        return self.ends.size


def _postings(query: list[str], feed: TermIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Where the query's distinct terms occur as content: each occurrence's column in the feed, its document and its
    term, and each term's document frequency, leaving out a term where it is a function word of the document's
    language; None when there are no documents or no terms."""
    wanted = np.unique(_hashes(query))
    if not len(feed) or not wanted.size:
        return None
    hit = np.flatnonzero(np.isin(feed.ids, wanted))
    owner = np.searchsorted(feed.ends, hit, side="right")
    term = np.searchsorted(wanted, feed.ids[hit])
    lang = feed.langs[owner]
    function = (lang >= 0) & ((function_bits(wanted)[term] >> np.maximum(lang, 0)) & 1 == 1)
    hit, owner, term = hit[~function], owner[~function], term[~function]
    return hit, owner, term, np.bincount(term, minlength=wanted.size)


def bm25(query: list[str], feed: TermIndex) -> np.ndarray:
    """BM25 score of each document for the query's distinct terms; 0 for a document sharing none."""
    n = len(feed)
    if (found := _postings(query, feed)) is None:
        return np.zeros(n)
    hit, owner, term, df = found
    weight = term_weights(n, df[term], feed.counts[hit], feed.norm[owner])
    return np.bincount(owner, weights=weight, minlength=n)


def matched(query: list[str], feed: TermIndex) -> np.ndarray:
    """Each document's share of the query's distinct terms, each weighed by its idf over the documents (BM25's):
    1 for a document holding every query word that some document has, 0 for one holding none (all 0 when no
    document has any). It says how far a document answers the query in words, whatever their counts or its length."""
    n = len(feed)
    if (found := _postings(query, feed)) is None:
        return np.zeros(n)
    _, owner, term, df = found
    weights = idf(n, df) * (df > 0)
    total = float(weights.sum())
    return np.bincount(owner, weights=weights[term], minlength=n) / total if total > 0 else np.zeros(n)


def term_weights(n: int, df: np.ndarray, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """BM25's weight of each (document, term) entry: idf from the document frequency among ``n`` documents,
    times the term count saturated by the document's length normalisation ``TermIndex.norm``."""
    return idf(n, df) * tf * (K1 + 1) / (tf + norm)


def idf(n: int, df: np.ndarray) -> np.ndarray:
    """Lucene's BM25 idf of terms found in ``df`` of ``n`` documents."""
    return np.log1p((n - df + 0.5) / (df + 0.5))


def standardise(x: np.ndarray) -> np.ndarray:
    """(x - mean) / std over the ranked documents; all zeros when they are all equal (a query with no shared
    word then leaves the ranking to the other score)."""
    x = np.asarray(x, dtype=np.float64)
    sd = float(x.std())
    return (x - x.mean()) / sd if sd > 1e-12 else np.zeros_like(x)


def coverage(query: list[str], feed: TermIndex) -> float:
    """The share of the query's distinct terms that at least one document holds as content (``_postings``); 1 for a
    query without terms (nothing says it is in another language)."""
    wanted = np.unique(_hashes(query))
    if not wanted.size:
        return 1.0
    content = function_bits(wanted) == 0
    if not content.any():
        return 1.0
    found = _postings(query, feed)
    return float(((found[3] > 0) & content).sum() / content.sum()) if found is not None else 0.0


def has_word(text: str, end: int | None = None) -> bool:
    """Whether ``text[:end]`` holds a character BM25 counts words by (Unicode L* or N*): a text without one
    (empty, blank, only punctuation or emoji) holds nothing that interests or a query can match, yet its vector
    sits close to many others (an empty document ranked second for any query), so the ranker puts it last. The
    regular expression finds candidates at C speed (a long text without a letter costs no Python loop); each is
    confirmed by its category, as ``terms`` does. Like ``terms``, it follows Python's Unicode tables; the JVM core
    reads the same from a table of them (``spec/unicode/unicode.tsv``, written under Python 3.11), whatever its JDK
    knows, so the two differ only on letters another Python's Unicode adds or changes."""
    if text[:1].isalpha():  # the common case, decided without the search: str.isalpha is exactly category L*
        return True
    stop = len(text) if end is None else min(end, len(text))
    pos = 0
    while (found := _ALNUM.search(text, pos, stop)) is not None:
        if unicodedata.category(found.group())[0] in "LN":
            return True
        pos = found.end()
    return False
