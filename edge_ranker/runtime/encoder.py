"""``Encoder``: text -> L2-normalised float32 vectors with onnxruntime and tokenizers. A stable public API.

Any text is accepted: bytes are decoded with replacement, lone surrogates and other unencodable code
points are replaced, empty text encodes to the [CLS] [SEP] vector, and huge text is cut before
tokenisation. A model whose manifest gives ``windows`` > 1 reads a text longer than its ``max_length`` in up to that
many windows of at most ``max_length`` tokens, as long as the texts it was trained on, and the text's vector is
their token-weighted mean: a long document counts as a whole instead of by its first ``max_length`` tokens.
"""

from __future__ import annotations

import hashlib
import logging
import numbers
import os
import time
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

import edge_ranker
from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.manifest import Manifest, read_manifest, verified_bytes, verify_files

log = logging.getLogger("edge_ranker")
MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
CHARS_PER_TOKEN_CAP = 64  # a WordPiece token never covers more characters than this in practice


def resolve_model_path(name_or_path: str | Path) -> Path:
    """The name of a model shipped inside the package (``semantic``, ``relevance``), or a folder path. A shipped
    name always means the shipped model, whatever folder of that name the working directory holds: a folder planted
    there must not replace it (and re-embed a user's reactions under its key); ``./semantic`` is that folder."""
    if not isinstance(name_or_path, (str, os.PathLike)) or isinstance(name_or_path, bytes) or not str(name_or_path):
        raise EdgeRankerError(
            f"a model is a folder path or a shipped name (a non-empty str or pathlib.Path), got {name_or_path!r}"
        )
    name = os.fspath(name_or_path)
    if "\0" in name:
        raise EdgeRankerError(f"cannot use {name!r} as a model folder: it holds a NUL character, which no path can")
    if isinstance(name_or_path, str) and name in shipped_names():
        return MODELS_DIR / name
    try:
        p = Path(name).expanduser()
    except RuntimeError as exc:  # ~user with no such user
        raise EdgeRankerError(f"cannot expand {name!r}: {exc}") from exc
    try:
        found = p.is_dir()
    except OSError as exc:  # a name too long for the file system
        raise EdgeRankerError(f"cannot use {name!r} as a model folder: {exc.strerror or exc}") from exc
    if found:
        return p
    raise EdgeRankerError(f"no model folder at {name!r}; shipped models: {', '.join(shipped_names()) or 'none'}")


def shipped_names() -> list[str]:
    """The models the package ships, by name."""
    if not MODELS_DIR.is_dir():
        return []
    return sorted(d.name for d in MODELS_DIR.iterdir() if (d / "manifest.json").is_file())


def text_list(texts: object) -> list:
    """A batch of texts as a list. A dict would give its keys' vectors and a set its texts' in no set order, and
    neither is what was meant; what is not iterable is no batch."""
    if not isinstance(texts, (Mapping, AbstractSet)):
        try:
            return list(texts)
        except TypeError:
            pass
    hint = " (a document: pass its 'text')" if isinstance(texts, Mapping) else ""
    raise EdgeRankerError(f"texts must be a string, bytes or a list of them, got {type(texts).__name__}{hint}")


def split_windows(ids: list[int], max_length: int, windows: int, head: int = 0) -> list[list[int]]:
    """Token ids ``[CLS] prefix text [SEP]`` (``head``: the prefix's tokens) as the graph reads them: themselves when
    they fit ``max_length``, else at most ``windows`` windows of equal share of the text, each ``[CLS] prefix ...
    [SEP]`` and at most ``max_length`` long; text past the last window is not read."""
    if len(ids) <= max_length:
        return [ids]
    step = max_length - 2 - head
    rest = ids[1 + head : -1][: step * windows]
    n = -(-len(rest) // step)
    cuts = [len(rest) * i // n for i in range(n + 1)]
    return [[*ids[: 1 + head], *rest[a:b], ids[-1]] for a, b in zip(cuts, cuts[1:])]


def check_threads(threads: object) -> int:
    """onnxruntime's intra-op threads: a whole number >= 1, capped at the cores this process may run on (more only
    slow it down), so that a setting made on a large machine still runs on a small one."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if not isinstance(threads, numbers.Integral) or isinstance(threads, bool) or threads < 1:
        raise EdgeRankerError(f"threads must be a whole number >= 1, got {threads!r}")
    if threads > cores:
        log.info("threads=%d capped at the %d cores this process may run on", threads, cores)
    return min(int(threads), cores)


def clean_text(text: str | bytes | bytearray | memoryview | None, what: str = "text") -> str:
    """Make any input encodable: decode bytes leniently, replace lone surrogates, None -> '' (a feed item whose
    text is null is an empty one, not an error). ``what`` names the input in the error for a non-text."""
    if text is None:
        return ""
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise EdgeRankerError(f"{what} must be str or bytes-like, got {type(text).__name__}")
    return text.encode("utf-8", errors="replace").decode("utf-8")


class Encoder:
    """A model folder loaded for inference: ``Encoder.load("semantic")`` (a shipped model) or
    ``Encoder.load(path)``, then ``encode(texts)`` (or ``encode(texts, role="query")`` for a relevance model).
    Loading checks every file's hash and the graph against the manifest; one thread by default, as on a phone."""

    def __init__(
        self,
        folder: Path,
        manifest: Manifest,
        threads: int = 1,
        batch_size: int = 32,
        session_options: ort.SessionOptions | None = None,
        providers: list[str] | None = None,
        verify: bool = True,
    ) -> None:
        threads = check_threads(threads)
        if edge_ranker.ONNXRUNTIME_TELEMETRY:
            raise EdgeRankerError(
                "onnxruntime was imported before edge_ranker, with its telemetry on (it writes files under "
                "~/.cache/Microsoft and looks up Microsoft's event host): import edge_ranker first, or set "
                "ORT_DISABLE_TELEMETRY=1 in the environment before onnxruntime loads"
            )
        if not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size < 1:
            raise EdgeRankerError(f"batch_size must be a whole number >= 1, got {batch_size!r}")
        batch_size = int(batch_size)
        self.folder, self.manifest = folder, manifest
        self.dim, self.max_length, self.batch_size = manifest.dim, manifest.max_length, batch_size
        opts = session_options or ort.SessionOptions()
        if session_options is None:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # the bytes that were verified are the bytes loaded: a file swapped after its check is never opened
        graph = verified_bytes(folder, manifest, manifest.onnx, verify)
        vocabulary = verified_bytes(folder, manifest, manifest.tokenizer, verify)
        if verify:
            verify_files(folder, manifest, skip=(manifest.onnx, manifest.tokenizer))
        try:
            self.session = ort.InferenceSession(
                graph, sess_options=opts, providers=providers or ["CPUExecutionProvider"]
            )
            self.tokenizer = Tokenizer.from_str(vocabulary.decode("utf-8"))
        except Exception as exc:  # onnxruntime/tokenizers raise their own types for bad files
            raise EdgeRankerError(f"cannot load model from {folder}: {exc}") from exc
        self.tokenizer.enable_truncation(max_length=self.max_length * manifest.windows)
        self.tokenizer.no_padding()
        self._prefix_len = {
            role: len(self.tokenizer.encode(prefix, add_special_tokens=False).ids)
            for role, prefix in manifest.prefixes.items()
        }
        longest = max(self._prefix_len.values(), default=0)
        if longest + 2 >= self.max_length:
            raise EdgeRankerError(
                f"{folder}: max_length={self.max_length} leaves no room for text beside [CLS], [SEP] and a "
                f"{longest}-token role prefix: every text would get the same vector"
            )
        pad = self.tokenizer.token_to_id("[PAD]")
        self.pad_id = 0 if pad is None else pad
        self.name = manifest.name
        self._check_graph()

    def _check_graph(self) -> None:
        """Two runs that name a broken folder at load rather than fail inside onnxruntime at the first text that
        meets the fault: the tokenizer's largest id (a tokenizer.json with ids past the graph's word table), then
        the manifest's max length (a wrong ``dim``, a ``max_length`` beyond the position table); both must give
        finite vectors."""
        names = {i.name for i in self.session.get_inputs()}
        if names != {"input_ids", "attention_mask"}:
            raise EdgeRankerError(
                f"{self.folder}: the graph's inputs are {sorted(names)}, not input_ids and attention_mask"
            )
        top = max(max(self.tokenizer.get_vocab().values(), default=0), self.pad_id)
        self._run_check(np.array([[top]], dtype=np.int64), f"tokenizer.json's ids (up to {top})")
        full = np.full((1, self.max_length), self.pad_id, dtype=np.int64)
        out = self._run_check(full, f"max_length={self.max_length} tokens, as the manifest says")
        if out.shape != (1, self.dim):
            raise EdgeRankerError(
                f"{self.folder}: the graph gives vectors of shape {out.shape[1:]}, the manifest says dim={self.dim}"
            )

    def _run_check(self, ids: np.ndarray, what: str) -> np.ndarray:
        try:
            quiet = ort.RunOptions()
            quiet.log_severity_level = 4  # the failure is reported below, once, not also by onnxruntime's log
            out = self.session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)}, quiet)[0]
        except Exception as exc:  # onnxruntime raises its own types
            first = " ".join(str(exc).split())
            raise EdgeRankerError(f"{self.folder}: the graph cannot read {what} ({first[:300]})") from exc
        if not np.isfinite(out).all():
            raise EdgeRankerError(f"{self.folder}: the graph gives vectors that are not finite (NaN or infinity)")
        return out

    @classmethod
    def load(
        cls,
        name_or_path: str | Path,
        threads: int = 1,
        batch_size: int = 32,
        verify: bool = True,
        session_options: ort.SessionOptions | None = None,
        providers: list[str] | None = None,
    ) -> Encoder:
        """Load a model folder, or a shipped model by name ("semantic", "relevance"). ``verify`` checks each file's
        sha256 against the manifest; ``threads`` is onnxruntime's intra-op threads (one, as on a phone)."""
        start = time.perf_counter()
        folder = resolve_model_path(name_or_path)
        manifest = read_manifest(folder, verify=False)  # the files are checked as they are read, once
        enc = cls(folder, manifest, threads, batch_size, session_options, providers, verify)
        log.debug("loaded %r from %s in %.0f ms", enc.name, folder, (time.perf_counter() - start) * 1e3)
        return enc

    def get_sentence_embedding_dimension(self) -> int:
        """The vectors' length (``dim``), by sentence-transformers' name for it."""
        return self.dim

    @property
    def roles(self) -> list[str]:
        """The roles ``encode`` takes ("query", "passage"); empty for a symmetric model."""
        return sorted(self.manifest.prefixes)

    def tokenize(self, texts: Sequence[str | bytes], role: str | None = None) -> list[list[int]]:
        """Token ids per text with the role prefix, [CLS] ... [SEP], as far as the model reads (``windows_of``
        splits them into what the graph is fed; used by parity tests)."""
        prefix = self.manifest.prefixes.get(role, "") if role else ""
        if role is not None and role not in ("query", "passage"):
            raise EdgeRankerError(f"role must be 'query', 'passage' or None, got {role!r}")
        return [e.ids for e in self.tokenizer.encode_batch([prefix + self.cut(t) for t in texts])]

    def windows_of(self, ids: list[int], role: str | None = None) -> list[list[int]]:
        """``tokenize``'s ids of one text as the graph reads them (``split_windows`` by the manifest's ``windows``)."""
        head = self._prefix_len.get(role, 0) if role else 0
        return split_windows(ids, self.max_length, self.manifest.windows, head)

    @property
    def cut_chars(self) -> int:
        """How many characters of a text ``cut`` keeps: 64 per token the model reads."""
        return self.max_length * self.manifest.windows * CHARS_PER_TOKEN_CAP

    def cut(self, text: str | bytes | None) -> str:
        """A text cut at ``cut_chars`` (more than the model's windows hold): the ranker's BM25 reads the same cut,
        so a huge document costs no more than a long one."""
        return clean_text(text)[: self.cut_chars]

    def encode(
        self,
        texts: Sequence[str | bytes] | str | bytes,
        role: str | None = None,
        batch_size: int | None = None,
        show_progress_bar: bool = False,
        normalize_embeddings: bool = True,
        convert_to_numpy: bool = True,
        convert_to_tensor: bool = False,
        prompt_name: str | None = None,
        device: str | None = None,
        precision: str = "float32",
    ) -> Any:
        """Unit-length float32 vectors: (n, dim) for a list of texts, (dim,) for a single text, as
        sentence-transformers' ``encode`` takes them.

        ``role``: "query" or "passage" for a model whose manifest defines prefixes (see ``roles``); left out, a text
        is embedded as a document ("passage"), as the Ranker embeds documents (``encode_query`` embeds a query). A
        model without roles refuses one rather than ignore it. ``batch_size``: windows per onnxruntime call (a text
        longer than ``max_length`` is read in its manifest's ``windows``; default the encoder's); a text's vector
        does not depend on it. ``show_progress_bar``: a tqdm bar on stderr when there is more than one batch.
        ``normalize_embeddings``: True, as the graph ends in an L2 normalisation (False is refused).
        ``convert_to_tensor``: a torch tensor (torch must be installed); ``convert_to_numpy=False``: a list of one
        array per text. sentence-transformers' ``prompt_name`` is ``role`` ("query" or "passage"); ``device`` is the
        CPU's ("cpu" or left out) and ``precision`` "float32": any other is refused in words, not ignored.
        """
        if prompt_name is not None:
            if role is not None and role != prompt_name:
                raise EdgeRankerError(
                    f"role={role!r} and prompt_name={prompt_name!r} name one thing (sentence-transformers calls the "
                    "role a prompt name): give one of them"
                )
            role = prompt_name
        if device not in (None, "cpu"):
            raise EdgeRankerError(
                f"device={device!r}: edge-ranker models run on the CPU through onnxruntime, as on a phone; leave "
                "device out or pass 'cpu'"
            )
        if precision != "float32":
            raise EdgeRankerError(
                f"precision={precision!r}: the vectors are float32 (the weights inside are int8 already); quantise "
                "them from the float32 vectors where an index needs it"
            )
        if role is not None and not self.manifest.prefixes:
            raise EdgeRankerError(
                f"model {self.name!r} has no roles (it embeds queries and passages alike): "
                f"call encode without role={role!r}"
            )
        for name, flag in (
            ("show_progress_bar", show_progress_bar),
            ("normalize_embeddings", normalize_embeddings),
            ("convert_to_numpy", convert_to_numpy),
            ("convert_to_tensor", convert_to_tensor),
        ):
            if not isinstance(flag, (bool, np.bool_)):
                raise EdgeRankerError(f"{name} must be True or False, got {flag!r}")
        if not normalize_embeddings:
            raise EdgeRankerError("normalize_embeddings=False: these models' vectors are unit length by construction")
        role = role if role is not None or not self.manifest.prefixes else "passage"
        single = isinstance(texts, (str, bytes, bytearray, memoryview))
        items = [texts] if single else text_list(texts)
        odd = next((i for i, t in enumerate(items) if not isinstance(t, (str, bytes, bytearray, memoryview))), None)
        if odd is not None:
            what = "texts" if single else f"text {odd}"
            raise EdgeRankerError(f"{what} must be a string or bytes, got {type(items[odd]).__name__}")
        tokens = self.tokenize(items, role)
        size = self.batch_size if batch_size is None else batch_size
        if not isinstance(size, numbers.Integral) or isinstance(size, bool) or size < 1:
            raise EdgeRankerError(f"batch_size must be a whole number >= 1, got {size!r}")
        size = int(size)
        parts = [self.windows_of(t, role) for t in tokens]
        ids = [w for p in parts for w in p]
        vecs = np.zeros((len(ids), self.dim), dtype=np.float32)
        order = np.argsort([len(x) for x in ids], kind="stable")  # similar lengths share a batch: less padding
        starts = range(0, len(order), size)
        if show_progress_bar and len(starts) > 1:
            from tqdm.auto import tqdm

            starts = tqdm(starts, desc=f"embedding ({self.name})", unit="batch")
        for start in starts:
            idx = order[start : start + size]
            width = max(len(ids[i]) for i in idx)
            batch = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                batch[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1
            vecs[idx] = self.session.run(None, {"input_ids": batch, "attention_mask": mask})[0]
        out = vecs if len(ids) == len(parts) else self._pooled(parts, vecs)
        out = out[0] if single else out
        if convert_to_tensor:
            try:
                import torch
            except ModuleNotFoundError as exc:
                raise EdgeRankerError("convert_to_tensor=True needs torch, which is not installed") from exc
            return torch.from_numpy(out)
        return out if convert_to_numpy or single else list(out)

    def encode_query(
        self, texts: Sequence[str | bytes] | str | bytes, batch_size: int | None = None, show_progress_bar: bool = False
    ) -> np.ndarray:
        """``encode`` in the query role where the model has roles, else as any text: sentence-transformers'
        ``encode_query``, so search code can embed queries one way whichever model it holds."""
        return self.encode(texts, "query" if self.roles else None, batch_size, show_progress_bar)

    def encode_document(
        self, texts: Sequence[str | bytes] | str | bytes, batch_size: int | None = None, show_progress_bar: bool = False
    ) -> np.ndarray:
        """``encode`` in the passage role where the model has roles, else as any text: sentence-transformers'
        ``encode_document``."""
        return self.encode(texts, "passage" if self.roles else None, batch_size, show_progress_bar)

    @staticmethod
    def similarity(a: Any, b: Any) -> np.ndarray:
        """The cosine of every row of ``a`` with every row of ``b`` (one vector is one row): an (n, m) array, as
        sentence-transformers' ``similarity``."""
        try:
            x, y = (np.atleast_2d(np.asarray(v, dtype=np.float32)) for v in (a, b))
        except (TypeError, ValueError) as exc:
            raise EdgeRankerError(f"similarity takes vectors (arrays of numbers): {exc}") from exc
        if x.ndim != 2 or y.ndim != 2 or x.shape[1] != y.shape[1]:
            raise EdgeRankerError(f"similarity takes vectors of one size, got shapes {x.shape} and {y.shape}")
        norms = [np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12) for v in (x, y)]
        return (x / norms[0]) @ (y / norms[1]).T

    def _pooled(self, parts: list[list[list[int]]], vecs: np.ndarray) -> np.ndarray:
        """Each text's vector: its windows' unit vectors weighted by their tokens, renormalised (one window: as is)."""
        out = np.zeros((len(parts), self.dim), dtype=np.float32)
        first = 0
        for i, windows in enumerate(parts):
            block = vecs[first : first + len(windows)]
            first += len(windows)
            if len(windows) == 1:
                out[i] = block[0]
                continue
            mean = np.array([len(w) for w in windows], dtype=np.float64) @ block.astype(np.float64)
            out[i] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return out

    def __repr__(self) -> str:
        m = self.manifest
        return (
            f"Encoder({m.name!r}, dim={m.dim}, max_length={m.max_length}, windows={m.windows}, roles={self.roles}, "
            f"folder={self.folder})"
        )


def model_key(encoder: Encoder) -> str:
    """A model's identity in stored data: its name, the start of a hash of what its manifest says makes a text's
    vector (the graph, the tokenizer and vocabulary files, max_length, each role's prefix) and, when it reads long
    texts in windows, how many. A history stored under another key is embedded again, from its stored texts: so a
    folder whose tokenizer, max_length or prefixes changed under the same graph does not keep vectors the model no
    longer makes. Each prefix goes in as its own hash, so no prefix can spell the separators."""
    m = encoder.manifest
    sha = [m.files.get(name, {}).get("sha256", "") for name in (m.onnx, m.tokenizer, m.vocab)]
    roles = [f"{role}\t{_sha256(prefix)}" for role, prefix in sorted(m.prefixes.items())]
    made = "\n".join([*sha, str(m.max_length), *roles])
    key = f"{m.name}:{_sha256(made)[:16]}"
    return key if m.windows == 1 else f"{key}:{m.windows}w"


def _sha256(text: str) -> str:
    """A text's SHA-256 in hex, of its UTF-8 bytes, as the JVM core's Encoder.sha256 reads them."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
