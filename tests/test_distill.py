from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from conftest import HashTeacher, make_sentences

from edge_ranker.distill import losses
from edge_ranker.distill.batch import Batch
from edge_ranker.modeling.pca import ReducedTeacher, fit_pca
from edge_ranker.teachers import CachedTeacher


class CountingTeacher(HashTeacher):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def encode(self, texts, role="passage"):
        self.calls += len(texts)
        return super().encode(texts, role)


def loss(name, s, t, group, temperature=losses.TEMPERATURE, teacher=None, lexical=None, positive=None):
    """One loss of ``losses.LOSSES`` on a one-process batch."""
    return losses.LOSSES[name](temperature)(Batch(s, t, group, torch.arange(len(t)), positive, teacher, lexical))


def combined(weights, s, t, group, temperature=losses.TEMPERATURE, teacher=None, lexical=None, positive=None):
    return losses.Combined(weights, temperature)(Batch(s, t, group, torch.arange(len(t)), positive, teacher, lexical))


def test_cache_computes_once_and_resumes(tmp_path):
    texts = make_sentences("en", 50, 1)
    t = CountingTeacher()
    c = CachedTeacher(t, tmp_path, chunk_size=16)
    a = c.encode(texts[:30])
    assert t.calls == len(set(texts[:30]))
    c.close()
    c2 = CachedTeacher(t, tmp_path, chunk_size=16)  # a new process would see the same file
    b = c2.encode(texts)
    assert t.calls == len(set(texts))  # only the 20 new ones were computed
    np.testing.assert_array_equal(b[:30], a)
    np.testing.assert_allclose(c2.encode(texts, role="passage"), HashTeacher().encode(texts), rtol=1e-6)
    assert t.calls == len(set(texts))  # a rerun costs nothing
    q = c2.encode(texts[:3], role="query")  # roles are separate keys
    assert not np.allclose(q, b[:3])


def test_pca_map_reproduces_sklearn_exactly():
    from sklearn.decomposition import PCA

    x = np.random.default_rng(0).normal(size=(300, 48)).astype(np.float32) + 3.0
    p = fit_pca(x, 16)
    ref = PCA(n_components=16, svd_solver="full").fit(x).transform(x)
    np.testing.assert_allclose(p.transform(x), ref, atol=1e-4)
    np.testing.assert_allclose(x.astype(np.float64) @ p.weight.T + p.bias, ref, atol=1e-4)  # affine form
    assert 0 < p.explained_variance_ratio.sum() < 1


def test_reduced_teacher_is_an_encoder():
    t = HashTeacher()
    p = fit_pca(t.encode(make_sentences("en", 100, 2)), 8)
    z = ReducedTeacher(t, p).encode(["the cat runs", "der katze lauf"])
    assert z.shape == (2, 8)
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1.0, rtol=1e-5)


def test_pca_dimension_error():
    from edge_ranker.errors import EdgeRankerError

    with pytest.raises(EdgeRankerError, match="exceeds"):
        fit_pca(np.zeros((10, 4)), 8)


S = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
T = torch.tensor([[1.0, 1.0], [0.0, 1.0]])
G = torch.tensor([0, 1, 1])


def test_mse_is_corrected_eq2():
    # rows 0,1,2 -> targets 0,1,1: squared errors summed over dims: 1, 1, 9+9=18 -> mean 20/3
    assert loss("mse", S, T, G).item() == pytest.approx(20 / 3)


def test_l2_unsquared():
    assert loss("l2", S, T, G).item() == pytest.approx((1 + 1 + math.sqrt(18)) / 3)


def test_cosine():
    c0 = 1 / math.sqrt(2)
    c2 = 4 / 5
    assert loss("cosine", S, T, G).item() == pytest.approx(((1 - c0) + 0 + (1 - c2)) / 3, rel=1e-5)


def test_relational_and_contrastive_zero_or_low_when_student_equals_teacher():
    t = torch.nn.functional.normalize(torch.randn(6, 8), dim=-1)
    g = torch.arange(6)
    assert loss("relational", t, t, g).item() == pytest.approx(0.0, abs=1e-6)
    good = loss("contrastive", t, t, g).item()
    bad = loss("contrastive", t[torch.randperm(6, generator=torch.Generator().manual_seed(1))], t, g).item()
    assert good < bad


def test_contrastive_matches_hand_computation():
    s = torch.tensor([[1.0, 0.0]])
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    v = loss("contrastive", s, t, torch.tensor([0]), temperature=1.0).item()
    assert v == pytest.approx(-math.log(math.e / (math.e + 1)))


def test_judged_matches_hand_computation_skips_unjudged_rows_and_masks_the_rows_own_target():
    s = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    # row 0 (a query, own target 0) is judged to match column 2; row 1 has no judgment
    v = loss("judged", s, t, torch.tensor([0, 1]), 1.0, positive=torch.tensor([2, -1])).item()
    c = 1 / math.sqrt(2)  # cos(row 0, column 2); column 0, its own target, is no negative
    assert v == pytest.approx(-math.log(math.exp(c) / (math.exp(c) + math.exp(0.0))))
    assert loss("judged", s, t, torch.tensor([0, 1]), positive=torch.tensor([-1, -1])).item() == 0.0
    total, parts = combined({"judged": 2.0}, s, t, torch.tensor([0, 1]), 1.0, positive=torch.tensor([2, -1]))
    assert total.item() == pytest.approx(2 * v) and parts["judged"] == pytest.approx(v)
    with pytest.raises(ValueError, match="judged loss needs the batch.s positive"):
        combined({"judged": 1.0}, s, t, torch.tensor([0, 1]))


def test_pairwise_zero_when_student_rows_match_their_targets_and_hand_computed():
    t = torch.nn.functional.normalize(torch.randn(4, 8), dim=-1)
    g = torch.tensor([0, 1, 1, 3])  # rows 1 and 2 share a target (a sentence and its translation)
    assert loss("pairwise", t[g], t, g).item() == pytest.approx(0.0, abs=1e-6)
    # 3 rows, temperature 1. Teacher rows e0, e0, e1; student rows e0, e1, e1. Each row against the other two:
    # row 0: teacher sims (1, 0), student (0, 0); row 1: teacher (1, 0), student (0, 1); row 2: teacher (0, 0),
    # student (0, 1).
    tt = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    s = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    grp = torch.tensor([0, 0, 1])
    hi, lo = math.e / (math.e + 1), 1 / (math.e + 1)

    def kl(p, q):
        return sum(a * math.log(a / b) for a, b in zip(p, q))

    kl_row0, kl_row1, kl_row2 = kl([hi, lo], [0.5, 0.5]), kl([hi, lo], [lo, hi]), kl([0.5, 0.5], [lo, hi])
    want = (kl_row0 + kl_row1 + kl_row2) / 3
    assert loss("pairwise", s, tt, grp, temperature=1.0).item() == pytest.approx(want, rel=1e-5)


def test_combined_passes_its_temperature_to_the_in_batch_losses_only():
    s = torch.tensor([[1.0, 0.0], [0.6, 0.8]])
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    g = torch.tensor([0, 1])
    weights = {"mse": 1.0, "contrastive": 1.0}
    # contrastive at temperature 1 by hand: row 0 logits (1, 0), row 1 logits (0.6, 0.8), targets 0 and 1
    want_c = (-math.log(math.e / (math.e + 1)) - math.log(math.exp(0.8) / (math.exp(0.6) + math.exp(0.8)))) / 2
    want_mse = (0.0 + 0.6**2 + 0.2**2) / 2  # row 0 matches its target; row 1 is off by (0.6, -0.2)
    total, parts = combined(weights, s, t, g, temperature=1.0)
    assert parts["contrastive"] == pytest.approx(want_c, rel=1e-5)
    assert parts["mse"] == pytest.approx(want_mse, rel=1e-5)
    assert total.item() == pytest.approx(want_c + want_mse, rel=1e-5)
    assert combined(weights, s, t, g)[1]["contrastive"] != pytest.approx(want_c, rel=1e-3)


def test_relational_scores_its_teacher_side_with_the_full_teacher_when_given():
    """Student equal to its PCA targets: zero loss against the targets' own similarities, the hand-computed KL
    against a full teacher that ranks differently (that difference is what the option passes on)."""
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0]])  # PCA targets: the two targets look unrelated
    full = torch.tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])  # the full teacher finds them similar (cos 0.6)
    g = torch.tensor([0, 1])
    assert loss("relational", t, t, g, temperature=1.0).item() == pytest.approx(0.0, abs=1e-6)
    # row 0: student logits (1, 0), teacher (1, 0.6); row 1: student (0, 1), teacher (0.6, 1)
    p_t = [math.e / (math.e + math.exp(0.6)), math.exp(0.6) / (math.e + math.exp(0.6))]
    p_s = [math.e / (math.e + 1), 1 / (math.e + 1)]
    kl = sum(a * math.log(a / b) for a, b in zip(p_t, p_s))  # both rows give the same KL by symmetry
    got = loss("relational", t, t, g, temperature=1.0, teacher=full).item()
    assert got == pytest.approx(kl, rel=1e-5)


def test_relational_adds_the_lexical_matrix_to_the_teachers_cosines_in_units_of_their_spread():
    """Student equal to its targets: zero loss without BM25; with it, row 0's teacher side moves by the given
    standardised scores times that row's cosine std, and the hand-computed KL follows."""
    t = torch.tensor([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    g = torch.tensor([0, 1, 2])
    lexical = torch.tensor([[0.0, 1.0, -1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert loss("relational", t, t, g, 1.0, None, torch.zeros(3, 3)).item() == pytest.approx(0.0, abs=1e-6)
    cos = [1.0, 0.6, 0.0]
    mean = sum(cos) / 3
    sd = math.sqrt(sum((c - mean) ** 2 for c in cos) / 2)  # torch's std: n - 1
    teacher = [cos[0], cos[1] + sd, cos[2] - sd]

    def softmax(x: list[float]) -> list[float]:
        e = [math.exp(v) for v in x]
        return [v / sum(e) for v in e]

    p_t, p_s = softmax(teacher), softmax(cos)
    kl = sum(a * math.log(a / b) for a, b in zip(p_t, p_s))
    got = loss("relational", t, t, g, 1.0, None, lexical).item()
    assert got == pytest.approx(kl / 3, rel=1e-5)  # rows 1 and 2 are unchanged: KL 0
    weights = {"mse": 1.0, "relational": 1.0}
    assert combined(weights, t, t, g, 1.0, None, lexical)[1]["relational"] == pytest.approx(got)


def test_soft_relational_is_the_relational_loss_at_a_temperature_of_at_least_0_2():
    gen = torch.Generator().manual_seed(0)
    s, t, g = torch.randn(5, 8, generator=gen), torch.randn(5, 8, generator=gen), torch.arange(5)
    at = {x: loss("relational", s, t, g, temperature=x).item() for x in (0.05, 0.2, 0.5)}
    assert at[0.2] != pytest.approx(at[0.05])
    assert loss("soft_relational", s, t, g).item() == pytest.approx(at[0.2], rel=1e-6)
    assert loss("soft_relational", s, t, g, temperature=0.5).item() == pytest.approx(at[0.5], rel=1e-6)


def test_graded_is_the_cosine_error_in_units_of_the_teachers_cosine_variance():
    t = torch.nn.functional.normalize(torch.randn(4, 8), dim=-1)
    g = torch.tensor([0, 1, 1, 3])
    assert loss("graded", t[g] * 3.0, t, g).item() == pytest.approx(0.0, abs=1e-6)  # scale-free: cosines only
    # Teacher rows e0, e0, e1 (off-diagonal cosines 1, 0, 0 twice each); student rows e0, e1, e1 (0, 0, 1 twice).
    tt = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    s = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    teacher = torch.tensor([1.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    want = (2 * 1.0 + 2 * 1.0) / 6 / teacher.var().item()
    assert loss("graded", s, tt, torch.tensor([0, 0, 1])).item() == pytest.approx(want, rel=1e-5)
    assert loss("graded", s[:2], tt, torch.tensor([0, 1])).item() == 0.0  # two rows have one pair: no spread


def test_pairwise_with_a_full_teacher_matches_the_student_to_that_teachers_similarities():
    s = torch.nn.functional.normalize(torch.randn(5, 4, generator=torch.Generator().manual_seed(0)), dim=-1)
    t = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))
    full = torch.randn(3, 12, generator=torch.Generator().manual_seed(2))
    g = torch.tensor([0, 1, 1, 2, 0])
    # pairwise reads targets only for its teacher side, so a full teacher there is the same as full targets
    assert loss("pairwise", s, t, g, 0.5, teacher=full).item() == pytest.approx(
        loss("pairwise", s, full, g, 0.5).item()
    )
    assert loss("pairwise", s, t, g, 0.5, teacher=full).item() != pytest.approx(loss("pairwise", s, t, g, 0.5).item())


def test_combined_gives_the_full_teacher_to_relational_and_pairwise_only():
    s = torch.tensor([[1.0, 0.0], [0.6, 0.8]])
    t = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    full = torch.tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])
    g = torch.tensor([0, 1])
    weights = {"mse": 1.0, "contrastive": 1.0, "relational": 1.0, "pairwise": 1.0}
    with_full = combined(weights, s, t, g, 1.0, full)[1]
    without = combined(weights, s, t, g, 1.0)[1]
    for name in ("mse", "contrastive"):
        assert with_full[name] == pytest.approx(without[name])
    assert with_full["relational"] == pytest.approx(loss("relational", s, t, g, 1.0, full).item())
    assert with_full["pairwise"] == pytest.approx(loss("pairwise", s, t, g, 1.0, full).item())
    assert with_full["relational"] != pytest.approx(without["relational"])


def test_combined_rejects_unknown_loss():
    with pytest.raises(ValueError, match="unknown"):
        combined({"nope": 1.0}, S, T, G)


def test_anchor_pulls_each_translation_to_its_groups_source_row_and_needs_the_sources():
    from edge_ranker.distill.batch import Group, collate

    class _Tok:
        def __call__(self, texts):
            return {"n": len(texts)}

    enc = collate(_Tok(), torch.randn(4, 3))([Group(["en a", "de a", "fr a"], 0), Group(["en b", "de b"], 1)])
    assert enc["source"].tolist() == [0, 0, 0, 3, 3]  # each text's group source: its member's first text
    s = torch.randn(5, 3)
    want = (((s[1] - s[0]) ** 2).sum() + ((s[2] - s[0]) ** 2).sum() + ((s[4] - s[3]) ** 2).sum()) / 3
    assert losses.LOSSES["anchor"]()(Batch.of(s, enc)).item() == pytest.approx(want.item(), rel=1e-6)
    alone = Batch(s[:1], enc["target"][:1], torch.tensor([0]), torch.tensor([0]), source=torch.tensor([0]))
    assert losses.LOSSES["anchor"]()(alone).item() == 0.0  # a source alone has nothing to pull
    with pytest.raises(ValueError, match="the anchor loss needs the batch's source"):
        losses.Combined({"anchor": 1.0})(Batch(s, enc["target"], enc["group"], enc["column"]))
