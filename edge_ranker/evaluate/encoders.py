"""Resolve an encoder spec for evaluation: exported model folder or shipped name, torch student folder,
``teacher:NAME`` (cached), or ``reduced:STUDENT_DIR`` (the student's teacher followed by its PCA map)."""

from __future__ import annotations

import json
from pathlib import Path

from edge_ranker.errors import EdgeRankerError


def check_spec(spec: str) -> None:
    """Refuse a spec that names nothing before any model is evaluated: found only when its turn came, an unknown
    second model cost the first one's whole evaluation. A ``teacher:`` id is any sentence-transformers model, which
    only loading it can tell."""
    if spec.startswith("teacher:"):
        if not spec.split(":", 1)[1].strip():
            raise EdgeRankerError(f"{spec!r} names no teacher: give teacher:NAME, a sentence-transformers id or folder")
        return
    if spec.startswith("reduced:"):
        folder = Path(spec.split(":", 1)[1])
        for name in ("student.json", "pca.npz"):
            if not (folder / name).is_file():
                raise EdgeRankerError(f"{spec!r}: {folder} has no {name} (reduced: takes a student folder of distill)")
        _teacher_of(folder)
        from edge_ranker.modeling.pca import PCAMap

        PCAMap.load(folder / "pca.npz")
        return
    if not (Path(spec) / "student.json").exists():
        from edge_ranker.runtime.encoder import resolve_model_path

        resolve_model_path(spec)  # a model folder or a shipped name, else what is wrong


def resolve_encoder(spec: str, cache_dir: str | Path):
    from edge_ranker.teachers import CachedTeacher, load_teacher

    if spec.startswith("teacher:"):
        return CachedTeacher(load_teacher(spec.split(":", 1)[1]), cache_dir)
    if spec.startswith("reduced:"):
        from edge_ranker.modeling.pca import PCAMap, ReducedTeacher

        folder = Path(spec.split(":", 1)[1])
        teacher = CachedTeacher(load_teacher(_teacher_of(folder)), cache_dir)
        return ReducedTeacher(teacher, PCAMap.load(folder / "pca.npz"))
    p = Path(spec)
    if (p / "student.json").exists():
        from edge_ranker.modeling.student import TorchStudentEncoder

        return TorchStudentEncoder(p)
    if (p / "manifest.json").exists() or not p.exists():
        from edge_ranker.runtime.encoder import Encoder

        return EvaluatedModel(Encoder.load(spec))
    raise EdgeRankerError(f"cannot tell what {spec!r} is: not a model folder, student folder or teacher:NAME")


def _teacher_of(folder: Path) -> str:
    """The teacher a student folder's student.json names, or what is wrong with it."""
    path = folder / "student.json"
    try:
        teacher = json.loads(path.read_text(encoding="utf-8")).get("teacher")
    except (ValueError, AttributeError) as exc:  # not JSON (or not UTF-8), not an object
        raise EdgeRankerError(f"{path} is damaged: {str(exc)[:160]}") from exc
    if not isinstance(teacher, str) or not teacher:
        raise EdgeRankerError(f"{path} names no teacher: reduced: needs the student folder distill wrote")
    return teacher


class EvaluatedModel:
    """A runtime ``Encoder`` as the evaluators call every encoder, ``encode(texts, role)``: a model without roles
    gets none (the runtime refuses one, to catch an app's mistake; an evaluator asks every model alike)."""

    def __init__(self, encoder) -> None:
        self.encoder = encoder

    def __getattr__(self, name: str):
        return getattr(self.encoder, name)

    def encode(self, texts, role: str | None = None):
        return self.encoder.encode(texts, role=role if self.encoder.roles else None)


def runtime_model(encoder):
    """The runtime ``Encoder`` behind an evaluated encoder (an exported model folder), or None for a teacher or a
    torch student: those have no ``Ranker`` path to measure."""
    from edge_ranker.runtime.encoder import Encoder

    inner = encoder.encoder if isinstance(encoder, EvaluatedModel) else encoder
    return inner if isinstance(inner, Encoder) else None
