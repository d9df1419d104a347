"""``Ranker``: order candidate documents by the user's stored interests and, when given, a query.

Personalisation: the semantic model and the centers of interest (see ``interests``). Relevance: cosine of
the relevance model's query and passage vectors plus ``lexical_weight`` times the query's BM25 over the
candidates, both standardised over the candidates (``lexical``: the student alone ranks far below BM25 on the
retrieval sets here, the sum above both). The two orders are fused by weighted reciprocal-rank
fusion, ``sum_i w_i / (k + rank_i)`` with k = 60, as in Xayn's later engine: ranks need no score
calibration between two unrelated models. Default weights favour an explicit query (1.0) over implicit
interests (0.5). Cold start: no interests yet -> relevance alone with a query, else newest first (then
input order). Every explanation's contributions add up to its fused score.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.encoder import Encoder, clean_text
from edge_ranker.runtime.interests import CoIConfig, personal_scores
from edge_ranker.runtime.lexical import Bag, Feed, bm25, query_scores, terms
from edge_ranker.runtime.store import PreferenceStore


@dataclass
class Document:
    id: str
    text: str
    published: float | None = None  # unix seconds; ISO-8601 strings are accepted by ``from_dict``

    def __post_init__(self) -> None:
        # every way in gets storable text (a lone surrogate cannot be written to SQLite), not only from_dict
        self.text = clean_text(self.text)

    @classmethod
    def from_dict(cls, d: dict) -> Document:
        """A document from JSON-like data: ``id`` (string or integer), ``text`` (string), optional ``published``."""
        if not isinstance(d, dict) or "id" not in d or "text" not in d:
            raise EdgeRankerError(f"a document needs an 'id' and a 'text', got {str(d)[:80]!r}")
        if isinstance(d["id"], bool) or not isinstance(d["id"], (str, int)) or d["id"] == "":
            raise EdgeRankerError(f"a document's 'id' must be a non-empty string or an integer, got {d['id']!r}")
        if not isinstance(d["text"], str):
            raise EdgeRankerError(f"document {d['id']}: 'text' must be a string, got {type(d['text']).__name__}")
        pub = d.get("published")
        if isinstance(pub, str):
            try:
                pub = datetime.fromisoformat(pub.replace("Z", "+00:00")).timestamp()
            except ValueError as exc:
                raise EdgeRankerError(f"document {d['id']}: 'published' is not ISO-8601: {pub!r}") from exc
        elif pub is not None and (isinstance(pub, bool) or not isinstance(pub, (int, float)) or not math.isfinite(pub)):
            raise EdgeRankerError(f"document {d['id']}: 'published' must be ISO-8601 or unix seconds")
        return cls(str(d["id"]), d["text"], float(pub) if pub is not None else None)


@dataclass
class Ranked:
    id: str
    score: float
    rank: int
    personal_score: float | None = None
    relevance_score: float | None = None  # the relevance model's cosine
    lexical_score: float | None = None  # the query's BM25 over the candidates
    contributions: dict[str, float] = field(default_factory=dict)  # sum == score
    interest: dict | None = None  # which interest matched, and the parts of the personal score

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


class DocumentCache:
    """LRU of what a document costs to compute, its vectors and its terms, keyed by (model, role, text), so a
    feed is embedded and split into words once per process."""

    def __init__(self, capacity: int = 50_000) -> None:
        self.capacity, self._d = capacity, OrderedDict()
        self._last_feed: tuple[tuple, Feed] | None = None

    def embed(self, encoder: Encoder, texts: list[str], role: str | None) -> np.ndarray:
        vecs = self._get(encoder, texts, role, lambda missing: encoder.encode(missing, role=role))
        return np.stack(vecs) if vecs else np.zeros((0, encoder.dim), np.float32)

    def feed(self, encoder: Encoder, texts: list[str]) -> Feed:
        """The texts' terms for BM25; the last feed is kept whole, as a search box ranks it on every keystroke."""
        key = (encoder.name, tuple(texts))
        last = self._last_feed
        if last is None or last[0] != key:
            split = encoder.tokenizer
            bags = self._get(
                encoder, texts, "#terms", lambda missing: [Bag.of(terms(split, encoder.cut(t))) for t in missing]
            )
            last = self._last_feed = (key, Feed.of(bags))
        return last[1]

    def _get(self, encoder: Encoder, texts: list[str], role: str | None, compute) -> list:
        keys = [(encoder.name, role, t) for t in texts]  # str hashes are cached by Python: cheap to rebuild
        missing = [i for i, k in enumerate(keys) if k not in self._d]
        if missing:
            for i, v in zip(missing, compute([texts[i] for i in missing])):
                self._d[keys[i]] = v
        out = [self._d[k] for k in keys]
        if len(self._d) > self.capacity:
            for k in keys:
                self._d.move_to_end(k)
            while len(self._d) > self.capacity:
                self._d.popitem(last=False)
        return out


class Ranker:
    def __init__(
        self,
        semantic: Encoder,
        relevance: Encoder | None,
        store: PreferenceStore,
        personal_weight: float = 0.5,
        query_weight: float = 1.0,
        lexical_weight: float = 1.0,
        k: int = 60,
        config: CoIConfig | None = None,
    ) -> None:
        if not (isinstance(k, int) and k > 0):
            raise EdgeRankerError(f"RRF k must be a positive integer, got {k!r}")
        for name, w in (("personal", personal_weight), ("query", query_weight), ("lexical", lexical_weight)):
            if not (isinstance(w, (int, float)) and math.isfinite(w) and w >= 0):
                raise EdgeRankerError(f"the {name} weight must be a finite number >= 0, got {w!r}")
        self.semantic, self.relevance, self.store = semantic, relevance, store
        self.personal_weight, self.query_weight, self.k = personal_weight, query_weight, k
        self.lexical_weight = lexical_weight
        self.config = config or store.config
        self.cache = DocumentCache()
        m = semantic.manifest
        # Interests live in one model's vector space: key them by the model's identity.
        self.model_key = f"{m.name}:{m.files.get(m.onnx, {}).get('sha256', '')[:16]}"

    def feedback(self, doc: Document | dict, reaction: str, ts: float | None = None) -> int:
        """Like or dislike a document: embed it with the semantic model and store it; returns the event id."""
        doc = doc if isinstance(doc, Document) else Document.from_dict(doc)
        emb = self.cache.embed(self.semantic, [doc.text], None)[0]
        return self.store.add_feedback(doc.id, emb, reaction, self.model_key, text=doc.text, ts=ts)

    def _fuse(self, name: str, scores: np.ndarray, weight: float, total: np.ndarray, parts: list[dict]) -> None:
        """Add ``weight / (k + rank)`` of one ranked list to the totals, recording it as contribution ``name``."""
        order = np.argsort(-scores, kind="stable")
        ranks = np.empty(len(scores), dtype=np.int64)
        ranks[order] = np.arange(1, len(scores) + 1)
        contrib = weight * (1.0 / (self.k + ranks))
        total += contrib
        for i, c in enumerate(contrib):
            parts[i][name] = float(c)

    def rank(self, docs: list[Document | dict], query: str | None = None, now: float | None = None) -> list[Ranked]:
        docs = [d if isinstance(d, Document) else Document.from_dict(d) for d in docs]
        if not docs:
            return []
        seen: dict[str, int] = {}
        for i, d in enumerate(docs):
            if seen.setdefault(d.id, i) != i:
                raise EdgeRankerError(f"document id {d.id!r} appears twice (positions {seen[d.id] + 1} and {i + 1})")
        now = time.time() if now is None else now
        if not (isinstance(now, (int, float)) and math.isfinite(now)):
            raise EdgeRankerError(f"'now' must be finite unix seconds, got {now!r}")
        query = clean_text(query).strip() if query is not None else None
        positive, negative = self.store.interests(self.model_key)
        use_personal = len(positive) >= self.config.min_positive_cois or bool(negative)
        use_query = bool(query) and self.relevance is not None
        if query and self.relevance is None:
            raise EdgeRankerError("a query needs a relevance model")
        n = len(docs)
        total = np.zeros(n)
        parts: list[dict[str, float]] = [{} for _ in range(n)]
        personal = relevance = lexical = None
        if use_personal:
            emb = self.cache.embed(self.semantic, [d.text for d in docs], None)
            personal = personal_scores(emb, positive, negative, now, self.config)
            self._fuse("personal", np.array([p.score for p in personal]), self.personal_weight, total, parts)
        if use_query:
            q = self.relevance.encode([query], role="query")[0]
            d = self.cache.embed(self.relevance, [doc.text for doc in docs], "passage")
            relevance = d @ q
            if self.lexical_weight:
                feed = self.cache.feed(self.relevance, [doc.text for doc in docs])
                lexical = bm25(terms(self.relevance.tokenizer, self.relevance.cut(query)), feed)
            self._fuse("query", query_scores(relevance, lexical, self.lexical_weight), self.query_weight, total, parts)
        if not use_personal and not use_query:  # cold start: newest first, unknown dates last, then input order
            recency = np.array([d.published if d.published is not None else -math.inf for d in docs])
            recency = np.where(np.isfinite(recency), recency, -1e18) - np.arange(n) * 1e-9
            self._fuse("recency", recency, 1.0, total, parts)
        order = sorted(range(n), key=lambda i: (-total[i], i))
        out = []
        for r, i in enumerate(order, start=1):
            interest = None
            if personal is not None:
                p = personal[i]
                interest = {
                    "positive_interest": p.positive_coi,
                    "positive_similarity": p.positive_similarity,
                    "positive_decay": p.positive_decay,
                    "interest_relevance": p.interest_relevance,
                    "negative_interest": p.negative_coi,
                    "negative_similarity": p.negative_similarity,
                    "negative_decay": p.negative_decay,
                }
            out.append(
                Ranked(
                    docs[i].id,
                    float(total[i]),
                    r,
                    personal[i].score if personal is not None else None,
                    float(relevance[i]) if relevance is not None else None,
                    float(lexical[i]) if lexical is not None else None,
                    parts[i],
                    interest,
                )
            )
        return out
