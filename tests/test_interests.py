from __future__ import annotations

import math

import numpy as np
import pytest

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.interests import DAY, CoI, CoIConfig, decay, personal_scores, relevances

CFG = CoIConfig()


def test_decay_formula_values():
    assert decay(0.0, 0.0, CFG) == 1.0
    assert decay(0.0, 5 * DAY, CFG) == pytest.approx(0.5859, abs=1e-4)  # Xayn's unit test value
    s, h, t = -0.1, 30.0, 12.5
    expected = (math.exp(s * h) - math.exp(s * t)) / (math.exp(s * h) - 1)
    assert decay(0.0, t * DAY, CFG) == pytest.approx(expected, rel=1e-12)
    assert decay(0.0, 30 * DAY, CFG) == 0.0 and decay(0.0, 45 * DAY, CFG) == 0.0
    assert decay(10 * DAY, 0.0, CFG) == 1.0  # a future last view
    assert decay(0.0, DAY, CoIConfig(horizon_days=0)) == 0.0


def test_config_validation():
    with pytest.raises(EdgeRankerError):
        CoIConfig(shift_factor=0)
    with pytest.raises(EdgeRankerError):
        CoIConfig(threshold=2)
    with pytest.raises(EdgeRankerError):
        CoIConfig(decay_rate_per_day=0.1)


def _coi(i, v, count=1, time_=0.0, last=0.0, positive=True):
    v = np.asarray(v, dtype=np.float32)
    return CoI(i, positive, v / np.linalg.norm(v), count, time_, last)


def test_relevance_formula():
    cois = [_coi(1, [1, 0], count=3, time_=10.0), _coi(2, [0, 1], count=1, time_=30.0, last=-5 * DAY)]
    r = relevances(cois, 0.0, CFG)
    assert r[0] == pytest.approx((3 / 4 + 10 / 40) * 1.0)
    assert r[1] == pytest.approx((1 / 4 + 30 / 40) * decay(-5 * DAY, 0.0, CFG))


def test_old_interest_weighs_less_and_score_parts_add_up():
    now = 40 * DAY
    pos = [_coi(1, [1, 0, 0], last=now - 1 * DAY), _coi(2, [0, 1, 0], last=now - 20 * DAY)]
    neg = [_coi(3, [0, 0, 1], last=now, positive=False)]
    docs = np.eye(3, dtype=np.float32)
    s = personal_scores(docs, pos, neg, now, CFG)
    assert s.score[0] > s.score[1] > s.score[2]
    parts = s.positive_similarity * s.positive_decay + s.interest_relevance - s.negative_similarity * s.negative_decay
    np.testing.assert_allclose(s.score, parts)
    assert s.explain(0)["positive_interest"] == 1 and s.explain(1)["positive_interest"] == 2
    assert s.explain(2)["negative_interest"] == 3


def test_react_moves_the_closest_interest_or_starts_a_new_one():
    from edge_ranker.runtime.interests import react

    cois = [_coi(1, [1, 0, 0], count=2, last=10.0), _coi(2, [0, 1, 0], count=1, last=20.0)]
    near = np.array([0.9, 0.1, 0], np.float32) / np.linalg.norm([0.9, 0.1, 0])
    moved = react(cois, near, True, 5.0, CFG)
    assert moved.id == 1 and moved.view_count == 3 and moved.last_view == 10.0  # an older reaction keeps last view
    np.testing.assert_allclose(
        moved.point, (0.9 * cois[0].point + 0.1 * near) / np.linalg.norm(0.9 * cois[0].point + 0.1 * near), rtol=1e-6
    )
    assert react(cois, near, False, 30.0, CFG).view_count == 2  # a dislike moves but does not count
    assert react(cois, np.array([0, 0, 1], np.float32), True, 30.0, CFG) is None  # far from both: a new interest
    assert react([], near, True, 30.0, CFG) is None
