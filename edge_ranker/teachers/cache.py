"""On-disk teacher-embedding cache: teacher encoding dominates distillation cost, so pay it once.

SQLite keyed by sha1(teacher name, role, text); rows are committed per chunk, so an interrupted run
resumes where it stopped and a rerun costs nothing.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from edge_ranker.teachers.base import Role, Teacher, check_role


def _key(name: str, role: str, text: str) -> bytes:
    return hashlib.sha1(f"{name}\x00{role}\x00{text}".encode("utf-8", "surrogatepass")).digest()


class CachedTeacher:
    """Wraps a teacher; ``encode`` returns cached rows and computes only the missing ones."""

    def __init__(self, teacher: Teacher, cache_dir: str | Path, chunk_size: int = 512) -> None:
        self.teacher = teacher
        self.name = teacher.name
        self.chunk_size = chunk_size
        path = Path(cache_dir)
        path.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in teacher.name)
        self.db = sqlite3.connect(path / f"{safe}.sqlite", check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS emb (k BLOB PRIMARY KEY, v BLOB NOT NULL)")
        self.computed = 0  # rows the wrapped teacher actually encoded, for tests and logs

    def _lookup(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        for i in range(0, len(keys), 900):
            part = keys[i : i + 900]
            q = f"SELECT k, v FROM emb WHERE k IN ({','.join('?' * len(part))})"
            for k, v in self.db.execute(q, part):
                found[k] = np.frombuffer(v, dtype=np.float32)
        return found

    def encode(self, texts: list[str], role: Role = "passage", show_progress: bool = False) -> np.ndarray:
        check_role(role)
        keys = [_key(self.name, role, t) for t in texts]
        found = self._lookup(list(set(keys)))
        missing: dict[bytes, str] = {}
        for k, t in zip(keys, texts):
            if k not in found:
                missing.setdefault(k, t)
        todo = list(missing.items())
        bar = tqdm(total=len(todo), desc=f"teacher {self.name} ({role})", disable=not show_progress or not todo)
        for i in range(0, len(todo), self.chunk_size):
            chunk = todo[i : i + self.chunk_size]
            vecs = np.asarray(self.teacher.encode([t for _, t in chunk], role=role), dtype=np.float32)
            with self.db:
                self.db.executemany(
                    "INSERT OR REPLACE INTO emb VALUES (?, ?)", [(k, v.tobytes()) for (k, _), v in zip(chunk, vecs)]
                )
            for (k, _), v in zip(chunk, vecs):
                found[k] = v
            self.computed += len(chunk)
            bar.update(len(chunk))
        bar.close()
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def close(self) -> None:
        self.db.close()
