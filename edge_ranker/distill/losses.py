"""Distillation losses. Rows are student outputs, ``group`` maps each row to its teacher target.

- mse: the paper's Eq. 2 (corrected: source AND translation regress to PCA(teacher(source))), summed
  over dimensions and averaged over sentences.
- l2: LEAF's un-squared Euclidean distance.
- cosine: 1 - cos, scale-free.
- relational: KL between student and teacher in-batch similarity distributions (ReAugKD/EmbedDistill).
- contrastive: InfoNCE of each student row against all in-batch teacher targets (IBKD-style).
- pairwise: KL between the student's own row-to-row similarity distribution and the teacher's (RKD/
  EmbedDistill score matching). The others compare student rows with teacher targets; this one trains the
  geometry that ranking uses, where queries, documents and translations are all student-encoded.
- judged: InfoNCE of each query row towards the target of the passage judged relevant to it (the retrieval
  sets' training judgments; IBKD's labelled stage folded into the one training run). The only loss that
  reads labels rather than the teacher.

relational and pairwise take the teacher's side of their distributions from ``teacher`` when given: the
teacher's full-dimension vectors (one per target), so they pass on the ranking that PCA-128 loses
(multilingual-e5-small: 79.8 -> 59.9 nDCG@10 on SciFact) instead of the PCA targets' own similarities.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

LOSSES = ("mse", "l2", "cosine", "relational", "contrastive", "pairwise", "judged")
# Softmax temperature of the in-batch losses. At 0.05 the teacher's in-batch distribution is nearly one-hot;
# higher values keep its graded similarities (what STS and ranking measure).
TEMPERATURE = 0.05


def mse(s: torch.Tensor, t: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    return ((s - t[group]) ** 2).sum(-1).mean()


def l2(s: torch.Tensor, t: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    return (s - t[group]).norm(dim=-1).mean()


def cosine(s: torch.Tensor, t: torch.Tensor, group: torch.Tensor) -> torch.Tensor:
    return (1 - F.cosine_similarity(s, t[group], dim=-1)).mean()


def _kl(student_logits: torch.Tensor, teacher_logits: torch.Tensor) -> torch.Tensor:
    """KL(teacher || student) between row-wise softmax distributions, averaged over rows."""
    return F.kl_div(
        F.log_softmax(student_logits, -1), F.log_softmax(teacher_logits, -1), log_target=True, reduction="batchmean"
    )


def relational(
    s: torch.Tensor,
    t: torch.Tensor,
    group: torch.Tensor,
    temperature: float = TEMPERATURE,
    teacher: torch.Tensor | None = None,
    lexical: torch.Tensor | None = None,
) -> torch.Tensor:
    """KL between how each student row and its own target see all targets. ``lexical`` (targets x targets:
    each target's text as a query, its BM25 over the targets' texts, standardised per row and weighted) is
    added to the teacher's cosines in units of each row's cosine spread, so the teacher side ranks as the
    runtime does, cosine plus BM25."""
    sn, tn = F.normalize(s, dim=-1), F.normalize(t, dim=-1)
    student_logits = sn @ tn.T / temperature  # (rows, groups): how the student row sees all targets
    fn = tn if teacher is None else F.normalize(teacher, dim=-1)
    if lexical is None:
        teacher_logits = fn[group] @ fn.T / temperature  # how its own target sees all targets
    else:
        sim = fn @ fn.T
        teacher_logits = (sim + sim.std(1, keepdim=True) * lexical.to(sim))[group] / temperature
    return _kl(student_logits, teacher_logits)


def contrastive(
    s: torch.Tensor, t: torch.Tensor, group: torch.Tensor, temperature: float = TEMPERATURE
) -> torch.Tensor:
    logits = F.normalize(s, dim=-1) @ F.normalize(t, dim=-1).T / temperature
    return F.cross_entropy(logits, group)


def pairwise(
    s: torch.Tensor,
    t: torch.Tensor,
    group: torch.Tensor,
    temperature: float = TEMPERATURE,
    teacher: torch.Tensor | None = None,
) -> torch.Tensor:
    if len(s) < 2:
        return s.new_zeros(())
    sn, tn = F.normalize(s, dim=-1), F.normalize(t if teacher is None else teacher, dim=-1)[group]
    self_pair = torch.eye(len(s), dtype=torch.bool, device=s.device)  # a row's similarity to itself says nothing
    student_logits = (sn @ sn.T / temperature).masked_fill(self_pair, -1e4)
    teacher_logits = (tn @ tn.T / temperature).masked_fill(self_pair, -1e4)
    return _kl(student_logits, teacher_logits)


def judged(
    s: torch.Tensor, t: torch.Tensor, group: torch.Tensor, positive: torch.Tensor, temperature: float = TEMPERATURE
) -> torch.Tensor:
    """Cross-entropy of each row with a judgment (``positive``: the column of its judged passage, -1 for none)
    over all in-batch targets but its own: a query's own target is near its passage's and is no negative."""
    rows = positive >= 0
    if not bool(rows.any()):
        return s.new_zeros(())
    logits = F.normalize(s[rows], dim=-1) @ F.normalize(t, dim=-1).T / temperature
    own = F.one_hot(group[rows], len(t)).bool()
    return F.cross_entropy(logits.masked_fill(own, -1e4), positive[rows])


_PER_ROW = {"mse": mse, "l2": l2, "cosine": cosine}
_IN_BATCH = {"relational": relational, "contrastive": contrastive, "pairwise": pairwise}  # take a temperature
_TEACHER_SCORED = {"relational", "pairwise"}  # in-batch losses that can also score with the full teacher
_FUNCS = {**_PER_ROW, **_IN_BATCH, "judged": judged}


def combined(
    weights: dict[str, float],
    s: torch.Tensor,
    t: torch.Tensor,
    group: torch.Tensor,
    temperature: float = TEMPERATURE,
    teacher: torch.Tensor | None = None,
    lexical: torch.Tensor | None = None,
    positive: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Weighted sum of the named losses (``temperature`` for the in-batch ones, ``teacher`` for those that
    score with it, ``lexical`` for the relational one, ``positive`` for judged); also returns each part."""
    unknown = set(weights) - set(_FUNCS)
    if unknown:
        raise ValueError(f"unknown loss(es) {sorted(unknown)}; choose from {LOSSES}")
    total = s.new_zeros(())
    parts: dict[str, float] = {}
    for name, w in weights.items():
        if w:
            if name == "judged":
                if positive is None:
                    raise ValueError("the judged loss needs each row's judged column (positive)")
                v = judged(s, t, group, positive, temperature)
            elif name in _IN_BATCH:
                extra = (teacher,) if name in _TEACHER_SCORED else ()
                extra += (lexical,) if name == "relational" else ()
                v = _IN_BATCH[name](s, t, group, temperature, *extra)
            else:
                v = _PER_ROW[name](s, t, group)
            parts[name] = float(v.detach())
            total = total + w * v
    return total, parts
