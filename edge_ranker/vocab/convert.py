"""A teacher's own SentencePiece vocabulary as a ``tokenizers`` Unigram tokenizer, for the paper's baseline
of a student that keeps the teacher's multilingual vocabulary instead of a generated one."""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from edge_ranker.errors import EdgeRankerError

EXTRA_SPECIALS = ["[PAD]", "[CLS]", "[SEP]", "[MASK]"]


def from_sentencepiece(sp_model: str | Path, out_dir: str | Path) -> Path:
    """Write ``tokenizer.json`` (pieces and scores of ``sp_model``, NFKC, metaspace, [CLS] $A [SEP])."""
    path = Path(sp_model)
    if not path.is_file():
        what = "a folder" if path.is_dir() else "not found"
        raise EdgeRankerError(f"{path} is {what}: give a SentencePiece .model file")
    try:
        import sentencepiece as spm
    except ImportError as exc:
        raise EdgeRankerError("converting a SentencePiece model needs: pip install sentencepiece") from exc
    try:
        sp = spm.SentencePieceProcessor(model_file=str(path))
    except (RuntimeError, OSError) as exc:  # sentencepiece says INTERNAL: could not parse ModelProto, and the like
        raise EdgeRankerError(f"{path} is not a SentencePiece model ({' '.join(str(exc).split())[:120]})") from exc
    pieces = [(sp.id_to_piece(i), float(sp.get_score(i))) for i in range(sp.get_piece_size())]
    base = len(pieces)
    pieces += [(t, 0.0) for t in EXTRA_SPECIALS]
    tok = Tokenizer(models.Unigram(pieces, unk_id=sp.unk_id(), byte_fallback=False))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.add_special_tokens(["[PAD]", "[CLS]", "[SEP]", "[MASK]", sp.id_to_piece(sp.unk_id())])
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", base + 1), ("[SEP]", base + 2)]
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok.save(str(out / "tokenizer.json"))
    return out
