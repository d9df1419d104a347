"""Build a WordPiece vocabulary for chosen languages from smoothed samples of their text.

Determinism: the sampled text is a pure function of inputs and seed (``sample_sha256`` in the report).
The ``tokenizers`` WordPiece trainer itself breaks count ties in hash-map order (upstream issue
huggingface/tokenizers#1794, fix proposed in PR #2066, unreleased), so two runs can differ in a few
marginal pieces; the tests bound that difference.

Defaults: lowercase (case carries little ranking signal and doubles many entries), but keep accents:
BERT's accent stripping maps Turkish ``ı/i``, Polish ``ł``-free letters and Russian ``й -> и``, merging
different words (e.g. Spanish ``año``/``ano``, Polish ``łaska``/``laska`` stay distinct only with accents).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from edge_ranker.errors import EdgeRankerError
from edge_ranker.paths import write_files
from edge_ranker.textio import ReadStats, read_json, read_lines
from edge_ranker.vocab.sampling import sample_to_budget, smoothed_weights

SPECIAL_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
MAX_WORD_CHARS = 100  # a longer word is [UNK] to the tokenizer, whole (WordPiece's max_input_chars_per_word)


@dataclass
class LanguageReport:
    raw_share: float
    smoothed_share: float
    lines_available: int
    lines_used: int
    chars_used: int
    heldout_lines: int
    invalid_utf8_lines: int
    unk_rate: float = 0.0
    fertility: float = 0.0


@dataclass
class VocabReport:
    vocab_size: int
    requested_size: int
    alpha: float
    budget_chars: int
    seed: int
    lowercase: bool
    strip_accents: bool
    seconds: float
    sample_sha256: str = ""  # digest of the sampled training text: equal for equal inputs and seed
    languages: dict[str, LanguageReport] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False)


def make_tokenizer(lowercase: bool = True, strip_accents: bool = False) -> Tokenizer:
    """An untrained BERT-style WordPiece tokenizer with our normaliser policy."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=MAX_WORD_CHARS))
    # strip_accents must be explicit: BertNormalizer's default follows lowercase.
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=strip_accents, lowercase=lowercase
    )
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def without_long_words(tok: Tokenizer, line: str) -> str:
    """``line`` without the words (as ``tok`` splits them) longer than ``MAX_WORD_CHARS``: they are [UNK] whole, and
    the WordPiece trainer's time grows with the square of a word's length (a 400,000-character one took 49 s)."""
    if len(line) <= MAX_WORD_CHARS:  # its words are short enough; case folding ("İ") at most doubles them
        return line
    words = tok.pre_tokenizer.pre_tokenize_str(tok.normalizer.normalize_str(line))
    return " ".join(w for w, _ in words if len(w) <= MAX_WORD_CHARS)


def _finish(tok: Tokenizer) -> None:
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )


def tokenization_stats(tok: Tokenizer, lines: list[str]) -> tuple[float, float]:
    """[UNK] rate (share of tokens) and fertility (subword tokens per pre-tokenized word)."""
    if not lines:
        return 0.0, 0.0
    unk = tok.token_to_id("[UNK]")
    n_tok = n_unk = n_words = 0
    for enc in tok.encode_batch(lines, add_special_tokens=False):
        n_tok += len(enc.ids)
        n_unk += sum(1 for i in enc.ids if i == unk)
        n_words += len({w for w in enc.word_ids if w is not None})
    return (n_unk / n_tok if n_tok else 0.0), (n_tok / n_words if n_words else 0.0)


def _wordfreq_lines(spec: str) -> list[str]:
    """``wordfreq:LANG[:N]``: the N most frequent words of LANG from the wordfreq package (one per line)."""
    try:
        import wordfreq
    except ImportError as exc:
        raise EdgeRankerError(f"{spec} needs the wordfreq package: pip install 'edge-ranker[teachers]'") from exc
    parts = spec.split(":")
    if len(parts) > 3 or (len(parts) == 3 and not re.fullmatch(r"[0-9]+", parts[2])):
        raise EdgeRankerError(f"{spec!r} must be wordfreq:LANG or wordfreq:LANG:N, N a whole number of words")
    n = int(parts[2]) if len(parts) > 2 else 30_000
    try:
        words = wordfreq.top_n_list(parts[1], n)
    except (LookupError, ValueError):  # an unknown or malformed language code
        words = []
    if not words:
        raise EdgeRankerError(f"wordfreq has no words for language {parts[1]!r}")
    return words


def _load_language(paths: list[str | Path]) -> tuple[list[str], list[str], ReadStats]:
    """Corpus lines (some are held out for the report) and word-list lines (training only)."""
    stats = ReadStats()
    lines: list[str] = []
    words: list[str] = []
    for p in paths:
        if str(p).startswith("wordfreq:"):
            words.extend(_wordfreq_lines(str(p)))
        else:
            lines.extend(read_lines(p, stats))
    return lines, words, stats


def split_corpora(
    corpora: dict[str, list[str | Path]], rng: random.Random, heldout_lines: int
) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, ReadStats]]:
    """Read each language, de-duplicate, shuffle, hold out up to ``heldout_lines`` corpus lines for the report.

    The split depends only on the corpora and the seed (not on alpha or size), so reports of vocabularies
    built with the same seed are measured on the same held-out text.
    """
    train_lines: dict[str, list[str]] = {}
    held: dict[str, list[str]] = {}
    stats: dict[str, ReadStats] = {}
    for lang in sorted(corpora):
        paths = list(corpora[lang])
        if not paths:
            raise EdgeRankerError(f"language {lang!r} has no corpus files")
        lines, words, st = _load_language(paths)
        if not lines and not words:
            raise EdgeRankerError(f"language {lang!r} has no usable text in {', '.join(map(str, paths))}")
        lines = sorted(set(lines))  # deterministic order, duplicates would inflate a language's amount
        rng.shuffle(lines)
        n_held = min(heldout_lines, len(lines) // 10)
        held[lang], train_lines[lang], stats[lang] = lines[:n_held], lines[n_held:] + words, st
    return held, train_lines, stats


def build_vocab(
    corpora: dict[str, list[str | Path]],
    out_dir: str | Path,
    vocab_size: int = 50_000,
    alpha: float = 0.7,
    budget_chars: int = 20_000_000,
    seed: int = 0,
    lowercase: bool = True,
    strip_accents: bool = False,
    heldout_lines: int = 500,
    min_frequency: int = 2,
    show_progress: bool = True,
) -> VocabReport:
    """Sample each language to its smoothed share of ``budget_chars``, train WordPiece, write the folder.

    Output: ``vocab.txt``, ``tokenizer.json`` and ``report.json`` (per-language shares, lines used, and
    [UNK] rate and fertility on held-out lines that were never sampled for training).
    """
    if vocab_size < len(SPECIAL_TOKENS) + 50:
        raise EdgeRankerError(f"vocab_size {vocab_size} is too small (minimum {len(SPECIAL_TOKENS) + 50})")
    if budget_chars <= 0:
        raise EdgeRankerError("budget_chars must be positive")
    if not corpora:
        raise EdgeRankerError("no corpora given")
    smoothed_weights({"_": 1.0}, alpha)  # validates alpha before any reading
    start = time.perf_counter()
    rng = random.Random(seed)
    held, train_lines, stats = split_corpora(corpora, rng, heldout_lines)
    amounts = {lang: float(sum(len(s) for s in ls)) for lang, ls in train_lines.items()}
    shares = smoothed_weights(amounts, alpha)
    total = sum(amounts.values())
    sampled: dict[str, list[str]] = {
        lang: sample_to_budget(train_lines[lang], int(shares[lang] * budget_chars), rng) for lang in sorted(shares)
    }
    mixed = [line for lang in sorted(sampled) for line in sampled[lang]]
    rng.shuffle(mixed)
    digest = hashlib.sha256("\n".join(mixed).encode("utf-8", "surrogatepass")).hexdigest()

    tok = make_tokenizer(lowercase=lowercase, strip_accents=strip_accents)
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=SPECIAL_TOKENS,
        limit_alphabet=1000,
        continuing_subword_prefix="##",
        show_progress=show_progress,
    )
    words = make_tokenizer(lowercase=lowercase, strip_accents=strip_accents)  # not ``tok``: it is locked in training
    tok.train_from_iterator([without_long_words(words, line) for line in mixed], trainer=trainer, length=len(mixed))
    _finish(tok)

    vocab = sorted(tok.get_vocab().items(), key=lambda kv: kv[1])
    report = VocabReport(
        vocab_size=tok.get_vocab_size(),
        requested_size=vocab_size,
        alpha=alpha,
        budget_chars=budget_chars,
        seed=seed,
        lowercase=lowercase,
        strip_accents=strip_accents,
        seconds=0.0,
        sample_sha256=digest,
    )
    for lang in sorted(shares):
        unk, fert = tokenization_stats(tok, held[lang])
        report.languages[lang] = LanguageReport(
            raw_share=amounts[lang] / total,
            smoothed_share=shares[lang],
            lines_available=len(train_lines[lang]),
            lines_used=len(sampled[lang]),
            chars_used=sum(len(s) for s in sampled[lang]),
            heldout_lines=len(held[lang]),
            invalid_utf8_lines=stats[lang].invalid_utf8,
            unk_rate=unk,
            fertility=fert,
        )
    report.seconds = round(time.perf_counter() - start, 2)
    _write_folder(
        Path(out_dir),
        {
            "tokenizer.json": tok.to_str(pretty=True),
            "vocab.txt": "".join(f"{t}\n" for t, _ in vocab),
            "report.json": report.to_json(),
        },
    )
    return report


def _write_folder(out: Path, files: dict[str, str]) -> None:
    """``files`` (name: UTF-8 text) written into ``out`` together (``write_files``), so a failure (a full disk, a
    file that cannot be written) leaves an earlier vocabulary whole."""
    out.mkdir(parents=True, exist_ok=True)
    for name in files:
        if (out / name).exists() and not (out / name).is_file():
            raise EdgeRankerError(f"{out / name} is not a file the vocabulary can be written to; nothing was changed")
    write_files({out / name: text.encode("utf-8") for name, text in files.items()})


def load_recipe(path: str | Path, data_root: str | Path) -> dict[str, list[str | Path]]:
    """Read a recipe JSON ``{"languages": {lang: [glob under data_root | "wordfreq:LANG:N"]}}``; a file of another
    shape is refused with what it should hold."""
    recipe = read_json(path, "vocabulary recipe")
    languages = recipe.get("languages") if isinstance(recipe, dict) else None
    if not isinstance(languages, dict) or not all(
        isinstance(rels, list) and all(isinstance(r, str) for r in rels) for rels in languages.values()
    ):
        raise EdgeRankerError(
            f'the vocabulary recipe {path} must be {{"languages": {{LANG: [file glob under the data folder, or '
            '"wordfreq:LANG:N", ...]}}'
        )
    root = Path(data_root)
    corpora: dict[str, list[str | Path]] = {}
    for lang, rels in languages.items():
        files: list[str | Path] = []
        for rel in rels:
            if rel.startswith("wordfreq:"):
                files.append(rel)
                continue
            try:
                matches = sorted(root.glob(rel))
            except (NotImplementedError, ValueError) as exc:  # an absolute pattern; "a**b"
                raise EdgeRankerError(
                    f"recipe {path}: {rel!r} is not a file pattern under the data folder ({exc})"
                ) from exc
            if not matches:
                raise EdgeRankerError(f"recipe {path}: no file matches {root / rel} (set EDGE_RANKER_DATA?)")
            files.extend(matches)
        corpora[lang] = files
    return corpora
