"""Centers of interest (CoI), after Xayn's open-source engine (xayn_ai / discovery engine, 2022).

Positive and negative points in embedding space. On feedback the closest CoI of that polarity is shifted
towards the document (``(1-a)*p + a*e``, a = 0.1, re-normalised) when its cosine is at least 0.67, else a
new CoI is created. Each CoI decays with time since its last view:
``decay = max(0, (e^{s*H} - e^{s*dt}) / (e^{s*H} - 1))``, s = -0.1/day, H = 30 days (1 at dt = 0, 0 at H).
Xayn's earlier "context" formula, which mixed distances and similarities, is not used.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.constants import (
    DAY,
    DECAY_RATE_PER_DAY,
    HORIZON_DAYS,
    MIN_POSITIVE_COIS,
    SEMANTIC_SHARE,
    SHIFT_FACTOR,
    THRESHOLD,
)

# two unit vectors side by side times these: a unit vector whose cosines are the shares' weighted sum
SEMANTIC_SCALE, PASSAGE_SCALE = np.float32(np.sqrt(SEMANTIC_SHARE)), np.float32(np.sqrt(1 - SEMANTIC_SHARE))


@dataclass(frozen=True)
class CoIConfig:
    shift_factor: float = SHIFT_FACTOR
    threshold: float = THRESHOLD
    horizon_days: float = HORIZON_DAYS
    decay_rate_per_day: float = DECAY_RATE_PER_DAY
    min_positive_cois: int = MIN_POSITIVE_COIS

    def __post_init__(self) -> None:
        for name in ("shift_factor", "threshold", "horizon_days", "decay_rate_per_day"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not finite(value):
                raise EdgeRankerError(f"{name} must be a finite number, got {value!r}")
        if isinstance(self.min_positive_cois, bool) or not isinstance(self.min_positive_cois, numbers.Integral):
            raise EdgeRankerError(f"min_positive_cois must be a whole number, got {self.min_positive_cois!r}")
        if not 0.0 < self.shift_factor <= 1.0:
            raise EdgeRankerError(f"shift_factor must be in (0, 1], got {self.shift_factor}")
        if not -1.0 <= self.threshold <= 1.0:
            raise EdgeRankerError(f"threshold must be a cosine in [-1, 1], got {self.threshold}")
        if self.horizon_days < 0:
            raise EdgeRankerError(f"horizon_days must be >= 0, got {self.horizon_days}")
        if self.decay_rate_per_day >= 0:
            raise EdgeRankerError("decay_rate_per_day must be negative")


@dataclass
class CoI:
    id: int
    positive: bool
    point: np.ndarray
    view_count: int
    view_time: float
    last_view: float  # unix seconds
    weight: float = 1.0  # how much its similarity counts: 1 for a like's or dislike's, less for a read's or skip's


def finite(x: numbers.Real) -> bool:
    """``math.isfinite``, False (not OverflowError) for an integer past a float."""
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer past a float
        return False


def _fade(last_views: np.ndarray, now: float, cfg: CoIConfig) -> np.ndarray:
    """Xayn's decay factor for each last view: 1 for a fresh view, 0 at or beyond the horizon, 1 for a future
    last view."""
    if cfg.horizon_days == 0:
        return np.zeros(last_views.shape)
    days = (now - last_views) / DAY
    s, h = cfg.decay_rate_per_day, cfg.horizon_days
    # a last view after ``now`` fades by nothing; clipped first, its exponential would overflow for a far future
    fading = np.maximum(0.0, (math.exp(s * h) - np.exp(s * np.maximum(days, 0.0))) / (math.exp(s * h) - 1.0))
    return np.where(days <= 0, 1.0, fading)


def decay(last_view: float, now: float, cfg: CoIConfig) -> float:
    """The decay factor of one last view (``_fade``)."""
    return float(_fade(np.array([last_view], dtype=np.float64), now, cfg)[0])


def decays(cois: list[CoI], now: float, cfg: CoIConfig) -> np.ndarray:
    """The decay factor of each CoI, as one array computed at once."""
    return _fade(np.array([c.last_view for c in cois], dtype=np.float64), now, cfg)


def alive(cois: list[CoI], now: float, cfg: CoIConfig) -> list[CoI]:
    """The interests whose decay at ``now`` is above 0. One past the horizon scores every document 0; left in, it
    would still be some documents' nearest interest and tie them, so that they kept their input order and, with no
    interest alive, a month-old like would hide the newest-first order of a cold start."""
    if not cois:
        return []
    return [c for c, d in zip(cois, decays(cois, now, cfg)) if d > 0.0]


def relevances(cois: list[CoI], now: float, cfg: CoIConfig, decay_of: np.ndarray | None = None) -> np.ndarray:
    """``rel_i = (count_i/sum count + time_i/sum time) * decay_i``, sums falling back to 1 when 0."""
    if not cois:
        return np.zeros(0)
    counts = np.array([c.view_count for c in cois], dtype=np.float64)
    times = np.array([c.view_time for c in cois], dtype=np.float64)
    cs, ts = counts.sum() or 1.0, times.sum() or 1.0
    return (counts / cs + times / ts) * (decays(cois, now, cfg) if decay_of is None else decay_of)


def unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    n = float(np.linalg.norm(v))
    if not math.isfinite(n) or n == 0.0:
        raise EdgeRankerError("embedding must be a finite, non-zero vector")
    return v / n


def interest_vectors(semantic: np.ndarray, passages: np.ndarray) -> np.ndarray:
    """Documents' interest vectors: the semantic and passage vectors side by side, times the square roots of
    ``SEMANTIC_SHARE`` and of the rest, so that a cosine of two is the two models' cosines weighed by the share
    (spec/rules/semantic-share.md). One float32 buffer, no copies."""
    out = np.empty((len(semantic), semantic.shape[1] + passages.shape[1]), dtype=np.float32)
    np.multiply(semantic, SEMANTIC_SCALE, out=out[:, : semantic.shape[1]])
    np.multiply(passages, PASSAGE_SCALE, out=out[:, semantic.shape[1] :])
    return out


def closest(cois: list[CoI], emb: np.ndarray, points: np.ndarray | None = None) -> tuple[int, float]:
    """Index and cosine of the CoI closest to a unit vector (-1, -inf when there is none). ``points``: the CoIs'
    points already stacked, for a caller that asks about many vectors."""
    if not cois:
        return -1, -math.inf
    sims = (np.stack([c.point for c in cois]) if points is None else points) @ emb
    i = int(np.argmax(sims))
    return i, float(sims[i])


def react(
    cois: list[CoI], emb: np.ndarray, positive: bool, ts: float, cfg: CoIConfig, weight: float = 1.0
) -> CoI | None:
    """How a reaction to a document (unit vector ``emb``) moves the interests of its polarity: the closest one,
    when its cosine reaches the threshold, shifted towards the document, counted (a like or a read), seen at ``ts``
    and weighing the larger of its weight and the reaction's (``weight``: 1 for a like or dislike, less for a read
    or a skip, spec/rules/implicit.md); ``None`` when the document starts a new interest of its own."""
    i, sim = closest(cois, emb)
    if i < 0 or sim < cfg.threshold:
        return None
    c = cois[i]
    point = unit((1 - cfg.shift_factor) * c.point + cfg.shift_factor * emb)
    count = c.view_count + 1 if positive else c.view_count
    return CoI(c.id, c.positive, point, count, c.view_time, max(ts, c.last_view), max(c.weight, weight))


@dataclass
class PersonalScores:
    """Per document, as arrays: the score and its parts, which add up to it, and the matched interests' ids
    (-1 where a polarity has no interest)."""

    score: np.ndarray
    positive_similarity: np.ndarray
    positive_decay: np.ndarray
    interest_relevance: np.ndarray
    negative_similarity: np.ndarray
    negative_decay: np.ndarray
    positive_coi: np.ndarray
    negative_coi: np.ndarray
    positive_weight: np.ndarray
    negative_weight: np.ndarray

    def explain(self, i: int) -> dict:
        """Document ``i``'s parts, as the ranker's explanations show them (None for a missing interest)."""
        pos, neg = int(self.positive_coi[i]), int(self.negative_coi[i])
        return {
            "positive_interest": pos if pos >= 0 else None,
            "positive_similarity": float(self.positive_similarity[i]),
            "positive_decay": float(self.positive_decay[i]),
            "interest_relevance": float(self.interest_relevance[i]),
            "negative_interest": neg if neg >= 0 else None,
            "negative_similarity": float(self.negative_similarity[i]),
            "negative_decay": float(self.negative_decay[i]),
            "positive_weight": float(self.positive_weight[i]),
            "negative_weight": float(self.negative_weight[i]),
        }


def _nearest(
    docs: np.ndarray, cois: list[CoI], decay_of: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each document, the closest CoI: its cosine, its decay, its weight, its id and its index (zeros, -1 if
    none)."""
    n = docs.shape[0]
    if not cois:
        return np.zeros(n), np.zeros(n), np.zeros(n), np.full(n, -1, np.int64), np.zeros(n, dtype=np.int64)
    sims = docs @ np.stack([c.point for c in cois]).T
    j = sims.argmax(axis=1)
    ids = np.array([c.id for c in cois], np.int64)[j]
    weights = np.array([c.weight for c in cois], np.float64)[j]
    return np.take_along_axis(sims, j[:, None], axis=1)[:, 0].astype(np.float64), decay_of[j], weights, ids, j


def personal_scores(
    docs: np.ndarray, positive: list[CoI], negative: list[CoI], now: float, cfg: CoIConfig
) -> PersonalScores:
    """Per document: ``pos_sim*decay(pos)*weight(pos) + relevance(pos) - neg_sim*decay(neg)*weight(neg)`` (Xayn
    2022, with the weights of implicit signals: 1 for an interest a like or dislike made), terms kept apart so an
    explanation adds up to the score; a missing polarity contributes 0. One matrix product per polarity, no Python
    per document."""
    n = docs.shape[0]
    pos_decay = decays(positive, now, cfg)
    ps, pd, pw, pid, j = _nearest(docs, positive, pos_decay)
    pr = relevances(positive, now, cfg, pos_decay)[j] if positive else np.zeros(n)
    ns, nd, nw, nid, _ = _nearest(docs, negative, decays(negative, now, cfg))
    return PersonalScores(ps * pd * pw + pr - ns * nd * nw, ps, pd, pr, ns, nd, pid, nid, pw, nw)
