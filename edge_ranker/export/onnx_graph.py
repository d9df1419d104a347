"""ONNX export of the whole encoder: embeddings, the layers, pooling (masked mean or weighted) and L2 normalisation.

Exporter: ``torch.onnx.export(dynamo=False)`` (TorchScript). It yields plain MatMul/Gather graphs that
onnxruntime's quantizer handles, and dynamic batch/sequence axes without dynamo's shape-guard issues on
transformers' mask code. optimum is not used: optimum-onnx pins transformers < 4.58, this project runs
transformers 5, and optimum exports the transformer only, without pooling and normalisation.
"""

from __future__ import annotations

import copy
import json
import os
import secrets
import shutil
from pathlib import Path

import torch
from tokenizers import Tokenizer

from edge_ranker import __version__
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling.student import STUDENT_FILE, Student, load_student
from edge_ranker.runtime.manifest import MANIFEST, MAX_WINDOWS, Manifest, validate, write_manifest

OPSET = 17


class _Graph(torch.nn.Module):
    def __init__(self, student: Student) -> None:
        super().__init__()
        self.student = student

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.student.graph(input_ids, attention_mask)


def keep_read_positions(student: Student, max_length: int) -> None:
    """Drop the position vectors past ``max_length``: the runtime reads every window in at most that many tokens,
    so those rows are never read, and the table is stored in fp32 (64 KB for 64 rows at 256-d)."""
    table = student.bert.embeddings.position_embeddings
    if table.num_embeddings < max_length:
        raise EdgeRankerError(f"the student has {table.num_embeddings} positions, fewer than max_length={max_length}")
    if table.num_embeddings > max_length:
        student.bert.embeddings.position_embeddings = torch.nn.Embedding.from_pretrained(
            table.weight.detach()[:max_length].clone()
        )


def export_onnx(student: Student, path: str | Path) -> Path:
    """Write the fp32 graph: inputs ``input_ids``, ``attention_mask`` (int64, [batch, seq]) -> ``embedding``."""
    student.eval()
    ids = torch.tensor([[2, 10, 11, 12, 3], [2, 13, 3, 0, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    path = Path(path)
    with torch.inference_mode():
        torch.onnx.export(
            _Graph(student),
            (ids, mask),
            str(path),
            dynamo=False,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "seq"},
                "attention_mask": {0: "batch", 1: "seq"},
                "embedding": {0: "batch"},
            },
        )
    return path


def export_model(
    student_dir: str | Path,
    out_dir: str | Path,
    quantize: str = "int8-weights",
    name: str | None = None,
    metrics: dict | None = None,
    windows: int = 1,
) -> Path:
    """Export a student folder to a model folder with the chosen quantization variant and a manifest; ``windows``:
    how many windows of its max length the runtime reads of a long text. The folder is written whole beside
    ``out_dir`` and then put in its place, so a failure leaves no half-written model and an earlier one intact;
    where nothing can be put in its place (a mount point, a folder whose parent the user cannot write), it is
    written into as it stands."""
    from edge_ranker.export.quantize import VARIANTS, check_table_width

    if quantize not in VARIANTS:
        raise EdgeRankerError(f"unknown quantization {quantize!r}; choose from {sorted(VARIANTS)}")
    if isinstance(windows, bool) or not isinstance(windows, int) or not 1 <= windows <= MAX_WINDOWS:
        raise EdgeRankerError(f"windows must be between 1 and {MAX_WINDOWS}, got {windows}")
    if name is not None and name != name.encode("utf-8", "replace").decode("utf-8"):
        raise EdgeRankerError(f"the model name {name!r} is not valid text (a lone surrogate from undecodable bytes?)")
    final_dir = Path(out_dir).expanduser().absolute()  # "." has no name to put a folder beside
    if final_dir.exists() and not final_dir.is_dir():  # it would be moved aside and the model put in its place
        raise EdgeRankerError(f"{final_dir} is a file, not a folder for the model")
    student, tokenizer, info = load_student(student_dir)
    check_table_width(quantize, student.dim)
    manifest = Manifest(
        name=name or Path(student_dir).name,
        kind=info.kind,
        dim=student.dim,
        max_length=info.max_length,
        windows=windows,
        prefixes=info.prefixes,
        quantization=quantize,
        teacher=info.teacher,
        teacher_dim=info.teacher_dim,
        pca={"dim": info.pca_dim, "explained_variance": info.pca_explained_variance}
        if (Path(student_dir) / "pca.npz").exists()
        else {},
        languages=info.languages,
        metrics=metrics or info.metrics,
        created_by=f"edge-ranker {__version__}",
    )
    try:  # the runtime's own checks, before any work: a student.json no app could load the export of is named here
        validate(manifest, final_dir)
    except EdgeRankerError as exc:
        raise EdgeRankerError(f"{Path(student_dir) / STUDENT_FILE} gives a model no runtime loads: {exc}") from exc
    keep_read_positions(student, info.max_length)
    in_place = final_dir.is_dir() and (os.path.ismount(final_dir) or not os.access(final_dir.parent, os.W_OK))
    if in_place:
        out = final_dir
    else:
        final_dir.parent.mkdir(parents=True, exist_ok=True)
        out = final_dir.parent / f".{final_dir.name}.partial-{os.getpid()}-{secrets.token_hex(4)}"
        out.mkdir()  # with the user's umask, as the model folder itself
    try:
        _write_model(student, tokenizer, out, quantize, manifest)
        if not in_place:
            _put_in_place(out, final_dir)
    finally:
        if not in_place:
            shutil.rmtree(out, ignore_errors=True)
    return final_dir


def _put_in_place(new: Path, final: Path) -> None:
    """``final`` made to hold the model in ``new``. A folder of nothing but model files is swapped whole: the earlier
    one moves aside and goes once the new one stands. Into a folder that also holds the user's own files, each model
    file moves over its namesake, the manifest last, so nothing of the user's is ever moved: a stop between two of
    those moves leaves a folder whose manifest refuses it (its hashes), never one that loads wrong. A link to a folder
    is written through, as the user linked it."""
    if final.is_symlink() or final.exists() and any(not (new / p.name).exists() for p in final.iterdir()):
        for entry in sorted(new.iterdir(), key=lambda p: p.name == MANIFEST):
            os.replace(entry, final / entry.name)
        return
    old = new.with_name(f"{new.name}-old")
    if final.exists():
        final.rename(old)
    try:
        new.rename(final)
    except OSError:
        if old.exists():
            old.rename(final)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _write_model(student: Student, tokenizer: Tokenizer, out: Path, quantize: str, manifest: Manifest) -> None:
    """The model folder's files, written into ``out``."""
    from edge_ranker.export.quantize import quantize_model

    fp32 = out / "model.fp32.onnx"
    export_onnx(student, fp32)
    final = out / "model.onnx"
    quantize_model(fp32, final, quantize)
    fp32.unlink(missing_ok=True)
    tokenizer.save(str(out / "tokenizer.json"))
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])  # for runtimes without a JSON parser
    (out / "vocab.txt").write_text("".join(f"{t}\n" for t, _ in vocab), encoding="utf-8")
    write_manifest(out, manifest)


def export_sentence_transformers(student_dir: str | Path, out_dir: str | Path) -> Path:
    """A sentence-transformers folder (Transformer + mean Pooling + Normalize) for researchers; a wide student's
    map up is folded into a word table of its layer's width, and its map down is a Dense module after the pooling.

    The tokenizer is wrapped as a ``BertTokenizerFast`` so ``SentenceTransformer(path)`` loads it offline.
    """
    from sentence_transformers import SentenceTransformer, models
    from transformers import PreTrainedTokenizerFast

    student, tokenizer, info = load_student(student_dir)
    if student.pooling != "mean":
        raise EdgeRankerError(
            f"{student_dir} uses {student.pooling} pooling, which sentence-transformers has no module for; "
            "export it to ONNX with `edge-ranker export` instead"
        )
    tmp = Path(out_dir) / "_hf"
    tmp.mkdir(parents=True, exist_ok=True)
    bert = student.bert
    if student.wide:
        bert = copy.deepcopy(bert)
        bert.config.vocab_size = student.vocab_size
        with torch.no_grad():
            bert.set_input_embeddings(torch.nn.Embedding.from_pretrained(student.up(student.table.weight)))
    bert.save_pretrained(tmp)
    hf_tok = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=info.max_length,
    )
    hf_tok.save_pretrained(tmp)
    word = models.Transformer(str(tmp), max_seq_length=info.max_length)
    pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
    down = []
    if student.wide:
        identity = torch.nn.Identity()
        down = [models.Dense(student.config.hidden_size, student.dim, bias=False, activation_function=identity)]
        with torch.no_grad():
            down[0].linear.weight.copy_(student.down.weight)
    st = SentenceTransformer(modules=[word, pool, *down, models.Normalize()], device="cpu")
    if info.prefixes:
        st.prompts = dict(info.prefixes)
    st.save(str(out_dir))
    shutil.rmtree(tmp)
    (Path(out_dir) / "edge_ranker_student.json").write_text(json.dumps({"prefixes": info.prefixes}), encoding="utf-8")
    return Path(out_dir)
