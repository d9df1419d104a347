"""The model-folder manifest: the one contract between export, runtime, benchmarks and the Android demo.

A folder holds ``manifest.json``, the ONNX graph and ``tokenizer.json``. Loading verifies the schema
version and every file's size and sha256, so a truncated, corrupted or newer-format folder is refused
with a message that says which file and what to do.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import BinaryIO

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.constants import MANIFEST_SCHEMA_VERSION as SCHEMA_VERSION
from edge_ranker.runtime.constants import MAX_LENGTH_MAX, MAX_LENGTH_MIN, MAX_WINDOWS

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 1 << 20  # a manifest is a few kilobytes; a bound, so that no file put in its place is read whole


@dataclass
class Manifest:
    name: str
    kind: str  # semantic | relevance
    dim: int
    max_length: int
    # Windows of ``max_length`` tokens the runtime reads of a long text (1: its first ``max_length`` tokens): a
    # model trained on sentences reads a document best in sentence-sized pieces.
    windows: int = 1
    onnx: str = "model.onnx"
    tokenizer: str = "tokenizer.json"
    vocab: str = "vocab.txt"  # the same WordPiece vocabulary, one token per line (id = line), for the JVM
    prefixes: dict[str, str] = field(default_factory=dict)  # role -> prefix; empty: symmetric model
    quantization: str = "fp32"
    teacher: str = ""
    teacher_dim: int = 0
    pca: dict = field(default_factory=dict)
    languages: list[str] = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    files: dict[str, dict] = field(default_factory=dict)  # file -> {"sha256", "bytes"}
    schema_version: int = SCHEMA_VERSION
    created_by: str = ""


def _utf8(text: str) -> bool:
    """Whether a text is one UTF-8 can write (JSON can spell a lone surrogate, which no tokenizer takes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def sha256_file(path: Path) -> str:
    with open(path, "rb") as fh:
        return sha256_of(fh)


def sha256_of(fh: BinaryIO) -> str:
    """An open file's sha256, read in blocks: a model file is read whole only to be loaded."""
    h = hashlib.sha256()
    for block in iter(lambda: fh.read(1 << 20), b""):
        h.update(block)
    return h.hexdigest()


def write_manifest(folder: str | Path, manifest: Manifest) -> Path:
    """Hash the ONNX and tokenizer files and write ``manifest.json`` next to them."""
    folder = Path(folder)
    manifest.files = {}
    for name in (manifest.onnx, manifest.tokenizer, manifest.vocab):
        p = folder / name
        if p.exists() or name != manifest.vocab:
            manifest.files[name] = {"sha256": sha256_file(p), "bytes": p.stat().st_size}
    path = folder / MANIFEST
    path.write_text(json.dumps(asdict(manifest), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def open_regular(path: Path, what: str) -> int:
    """A descriptor of ``path`` for reading, refused in words unless it is a regular file. Opened without waiting
    (a pipe put there would block until a writer came) and checked on the descriptor, so what is read is what was
    checked."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        named = f" ({MANIFEST} names it)" if path.name != MANIFEST else ""
        raise EdgeRankerError(f"{what} missing: {path}{named}") from None
    except OSError as exc:
        raise EdgeRankerError(f"cannot read the {what} {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise EdgeRankerError(
            f"the {what} {path} is not a regular file (a folder, pipe or device): re-export the model"
        )
    return fd


def read_at_most(path: Path, what: str, limit: int) -> bytes:
    """A regular file's bytes, refused before any is read when it holds more than ``limit``."""
    fd = open_regular(path, what)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise EdgeRankerError(f"the {what} {path} is {size} bytes, more than the {limit} it may be")
        return read_open(fd, path, what, limit)
    finally:
        os.close(fd)


def read_open(fd: int, path: Path, what: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the open file ``fd`` (``path``'s), refused when it holds more: a file that grew
    since its size was looked at is still read no further."""
    try:
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise EdgeRankerError(f"cannot read the {what} {path}: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise EdgeRankerError(f"the {what} {path} holds more than the {limit} bytes it may")
    return data


def read_manifest(folder: str | Path, verify: bool = True) -> Manifest:
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.exists() and not path.is_symlink():
        raise EdgeRankerError(f"{folder} is not a model folder: {MANIFEST} is missing")
    _confined(folder, MANIFEST, "the manifest")
    try:
        raw = json.loads(read_at_most(path, "manifest", MAX_MANIFEST_BYTES).decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, an integer of thousands of digits
        raise EdgeRankerError(f"{path} is corrupted (not valid JSON: {exc}); re-export the model") from exc
    if not isinstance(raw, dict):
        raise EdgeRankerError(f"{path} is corrupted: expected a JSON object")
    version = raw.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise EdgeRankerError(f"{path} has no valid schema_version (a whole number from 1), got {version!r:.60}")
    if version > SCHEMA_VERSION:
        raise EdgeRankerError(
            f"{path} uses manifest schema {version}, newer than this edge-ranker understands ({SCHEMA_VERSION}); "
            "upgrade edge-ranker"
        )
    known = set(Manifest.__dataclass_fields__)
    required = [f.name for f in fields(Manifest) if f.default is MISSING and f.default_factory is MISSING]
    missing = [name for name in required if name not in raw]
    if missing:
        raise EdgeRankerError(f"{path} lacks the field{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}")
    manifest = Manifest(**{k: v for k, v in raw.items() if k in known})
    validate(manifest, folder)
    if verify:
        verify_files(folder, manifest)
    return manifest


KINDS = ("semantic", "relevance")  # which ranker a model is, and so which roles an app may ask of it
MAX_DIM = 65536  # far past any sentence embedding: a bound that keeps a damaged number from sizing arrays
MAX_LENGTH_RANGE = (MAX_LENGTH_MIN, MAX_LENGTH_MAX)


def _field_type(name: str) -> type:
    return {"int": int, "str": str, "dict": dict, "list": list}[
        str(Manifest.__dataclass_fields__[name].type).split("[")[0]
    ]


def _confined(folder: Path, name: str, what: str) -> None:
    """A file name the manifest gives must stay inside its folder: no absolute path, no ``..``, no link out."""
    if "\0" in name:
        raise EdgeRankerError(f"{folder / MANIFEST}: {what} {name!r} holds a NUL character, which no file name can")
    p = Path(name)
    if not name or p.is_absolute() or ".." in p.parts or not (folder / p).resolve().is_relative_to(folder.resolve()):
        raise EdgeRankerError(f"{folder / MANIFEST}: {what} {name!r} is not a file inside the model folder")


def validate(manifest: Manifest, folder: Path) -> None:
    """Types, ranges and paths, one clear error each, before anything is loaded or hashed."""
    where = folder / MANIFEST
    for name in Manifest.__dataclass_fields__:
        value, want = getattr(manifest, name), _field_type(name)
        if isinstance(value, bool) or not isinstance(value, want):
            raise EdgeRankerError(f"{where}: {name!r} must be a JSON {want.__name__}, got {value!r:.60}")
    if manifest.kind not in KINDS:
        raise EdgeRankerError(f"{where}: kind must be one of {', '.join(KINDS)}, got {manifest.kind!r:.60}")
    if not manifest.name.strip() or not _utf8(manifest.name):
        raise EdgeRankerError(f"{where}: name must be a non-blank text, got {manifest.name!r:.60}")
    lo, hi = MAX_LENGTH_RANGE
    if not lo <= manifest.max_length <= hi:
        raise EdgeRankerError(f"{where}: max_length must be between {lo} and {hi} tokens, got {manifest.max_length}")
    if not 1 <= manifest.windows <= MAX_WINDOWS:
        raise EdgeRankerError(f"{where}: windows must be between 1 and {MAX_WINDOWS}, got {manifest.windows}")
    if not 1 <= manifest.dim <= MAX_DIM:
        raise EdgeRankerError(f"{where}: dim must be between 1 and {MAX_DIM}, got {manifest.dim}")
    if not 0 <= manifest.teacher_dim <= MAX_DIM:
        raise EdgeRankerError(f"{where}: teacher_dim must be between 0 and {MAX_DIM}, got {manifest.teacher_dim}")
    for role, prefix in manifest.prefixes.items():
        if role not in ("query", "passage") or not isinstance(prefix, str) or not _utf8(prefix):
            raise EdgeRankerError(f"{where}: prefixes map 'query'/'passage' to text, got {role!r}: {prefix!r:.60}")
    if not all(isinstance(x, str) for x in manifest.languages):
        raise EdgeRankerError(f"{where}: languages must be a list of language codes")
    for what in ("onnx", "tokenizer", "vocab"):
        _confined(folder, getattr(manifest, what), what)
    for name, meta in manifest.files.items():
        _confined(folder, name, "files entry")
        digest = meta.get("sha256") if isinstance(meta, dict) else None
        size = meta.get("bytes") if isinstance(meta, dict) else None
        ok = isinstance(digest, str) and len(digest) == 64 and set(digest) <= set("0123456789abcdef")
        if not ok or isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise EdgeRankerError(
                f"{where}: files[{name!r}] must be {{'sha256': 64 lowercase hex digits, 'bytes': a whole number >= 0}}"
            )


def verified_bytes(folder: Path, manifest: Manifest, name: str, verify: bool = True) -> bytes:
    """A model file's bytes, read once and checked against the manifest's size and sha256 when ``verify``: the
    runtime loads these bytes, not the path, so a file swapped after the check cannot be loaded unverified."""
    path = folder / name
    fd = open_regular(path, "model file")
    try:
        size = os.fstat(fd).st_size
        meta = manifest.files.get(name)
        if verify and meta is None:
            raise EdgeRankerError(f"{folder / MANIFEST} lists no hash for {name}")
        if verify and size != meta["bytes"]:  # before reading: a huge or sparse file put there is never read whole
            raise EdgeRankerError(
                f"model file {path} is truncated or altered: {size} bytes, manifest says {meta['bytes']}"
            )
        data = read_open(fd, path, "model file", meta["bytes"] if verify else size)
    finally:
        os.close(fd)
    if verify:
        if len(data) != meta["bytes"]:
            raise EdgeRankerError(
                f"model file {path} is truncated or altered: {len(data)} bytes, manifest says {meta['bytes']}"
            )
        if hashlib.sha256(data).hexdigest() != meta["sha256"]:
            raise EdgeRankerError(f"model file {path} is corrupted: sha256 does not match the manifest")
    return data


def verify_files(folder: Path, manifest: Manifest, skip: tuple[str, ...] = ()) -> None:
    """Every file the manifest lists, by size and sha256 (but ``skip``, checked as they were read)."""
    for name in (manifest.onnx, manifest.tokenizer):
        if not (folder / name).exists():
            raise EdgeRankerError(f"model file missing: {folder / name} ({MANIFEST} names it)")
        if name not in manifest.files:
            raise EdgeRankerError(f"{folder / MANIFEST} lists no hash for {name}")
    for name, meta in manifest.files.items():
        if name in skip:
            continue
        p = folder / name
        fd = open_regular(p, "model file")
        try:
            size = os.fstat(fd).st_size
            if size != meta.get("bytes"):
                raise EdgeRankerError(
                    f"model file {p} is truncated or altered: {size} bytes, manifest says {meta.get('bytes')}"
                )
            with os.fdopen(os.dup(fd), "rb") as fh:
                digest = sha256_of(fh)
        except OSError as exc:
            raise EdgeRankerError(f"cannot read the model file {p}: {exc.strerror or exc}") from exc
        finally:
            os.close(fd)
        if digest != meta.get("sha256"):
            raise EdgeRankerError(f"model file {p} is corrupted: sha256 does not match the manifest")
