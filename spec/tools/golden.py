"""Golden vectors from the Python runtime for other runtimes (the Android/JVM core) to reproduce.

Plain tab-separated text (texts base64-encoded) so a JVM test needs no JSON library. The vectors of
``*_embeddings.tsv`` (text, role or "-", vector) are computed one text at a time, as the JVM encodes. Regenerate with
``python -m spec.tools.golden [OUT_DIR]`` (default spec/golden) after changing a shipped model.
"""

from __future__ import annotations

import base64
import copy
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from edge_ranker.runtime.documents import Document
from edge_ranker.runtime.encoder import Encoder, split_windows
from edge_ranker.runtime.interests import DAY, CoIConfig
from edge_ranker.runtime.ranker import Ranker, model_key
from edge_ranker.runtime.ranking import Ranking
from edge_ranker.runtime.readable import UNKNOWN_LIMIT, VocabularyCoverage
from edge_ranker.runtime.store import PreferenceStore

TEXTS = [
    "",
    " ",
    "Hello, World!",
    "The quick brown fox jumps over the lazy dog.",
    "Ärger über Öl-Preise: Straße gesperrt, Fußgänger überrascht.",
    "Ça va? L'été à Noël, façade et œuvre.",
    "¿Dónde está la estación? ¡Mañana!",
    "Zażółć gęślą jaźń — Łódź, Kraków.",
    "São Paulo: ação, coração, não.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Işık, ağaç, şehir, çiçek, öğrenci, İstanbul.",
    "Het is een mooie dag in Amsterdam, nietwaar?",
    "日本語のテキストと中文文本混在",
    "emoji 😀🎉👍🏽 and flags 🇩🇪🇹🇷",
    "tabs\tnew\nlines\r\nand\x00control\x07chars",
    "ﬁ ligature ＦＵＬＬ-width ①②",
    "a" * 150 + " " + "b" * 99,
    "caf\u0065\u0301 combining accent",
    "lone surrogate \ud800 here",
    "word " * 300,
    "Съешь же ещё этих мягких булок, да выпей чаю. Het is een mooie dag in Amsterdam, nietwaar? " * 30,
    "Ünïcödé ÀÉÎÕÜ ÿ ñ ß",
    "مرحبا بالعالم",
    "Ελληνικά γράμματα",
    "क्या हाल है",
    "x-ray, e-mail; (brackets) [and] {braces}",
    # newer than Java 17's Unicode 13 (emoji 🥹 🫠 🫶, U+A7C0 with its lowercase, U+2E4F), private use, unassigned
    "so cute \U0001f979 lol\U0001fae0 thanks \U0001faf6 \ua7c0 Dash\u2e43with \ue000 \U000e0080",
    "Click [MASK] here, a[SEP]b [cls] [UNK]",  # special tokens written in a text
]


def _b64(s: str) -> str:
    return base64.b64encode(s.encode("utf-8", "replace")).decode("ascii")


def _vec(v: np.ndarray) -> str:
    return ",".join(f"{x:.8g}" for x in v)


def write_tokens(enc: Encoder, path: Path) -> None:
    rows = []
    roles = [None] + ([r for r in ("query", "passage") if r in enc.manifest.prefixes])
    for role in roles:
        for t, ids in zip(TEXTS, enc.tokenize(TEXTS, role=role)):
            rows.append(f"{_b64(t)}\t{role or '-'}\t{','.join(map(str, ids))}")
    path.write_text("\n".join(rows) + "\n", encoding="ascii")


def _roles(enc: Encoder) -> list[str | None]:
    """The relevance model encodes queries and passages (prefixed); the semantic model has no role."""
    return [r for r in ("query", "passage") if r in enc.manifest.prefixes] or [None]


# (max_length, windows, prefix tokens, text tokens): fits, one over, the windows' capacity and past it, with and
# without a prefix, so another runtime splits a long text exactly as ``split_windows`` does.
SPLITS = [(8, 3, h, n) for h in (0, 2) for n in (6 - h, 7 - h, 3 * (6 - h), 3 * (6 - h) + 1, 40)] + [(64, 8, 0, 900)]


def write_splits(path: Path) -> None:
    """Each ``SPLITS`` case: ids 1.. between [CLS] (101) and [SEP] (102), then the windows, ``;`` between them."""
    rows = []
    for max_length, windows, head, n in SPLITS:
        ids = [101, *range(1, head + n + 1), 102]
        split = ";".join(",".join(map(str, w)) for w in split_windows(ids, max_length, windows, head))
        rows.append(f"{max_length}\t{windows}\t{head}\t{','.join(map(str, ids))}\t{split}")
    path.write_text("\n".join(rows) + "\n", encoding="ascii")


# Manifest edits whose model keys the JVM must make alike: (prefixes, tokenizer file name, max_length); None keeps
# the model's own. Other letters, an astral one, a line separator, the roles in reverse order, no roles, a prefix that
# spells the separators and the two it would imitate, a tokenizer the manifest does not list, another max_length.
KEY_CASES: list[tuple[dict[str, str] | None, str | None, int | None]] = [
    (None, None, None),
    ({"query": "requête : ", "passage": "Абзац: "}, None, None),
    ({"passage": "\U0001d52d\u2028: ", "query": "q: "}, None, None),
    ({}, None, None),
    ({"passage": "x\nquery\ty"}, None, None),
    ({"passage": "x", "query": "y"}, None, None),
    (None, "tok/tokenizer.json", None),
    (None, None, 128),
]


def write_keys(enc: Encoder, path: Path) -> None:
    """Each ``KEY_CASES`` edit of ``enc``'s manifest: prefixes (JSON, base64), tokenizer, max_length, the key's hash."""
    m, rows = enc.manifest, []
    for prefixes, tokenizer, max_length in KEY_CASES:
        edit = replace(
            m,
            prefixes=m.prefixes if prefixes is None else prefixes,
            tokenizer=tokenizer or m.tokenizer,
            max_length=max_length or m.max_length,
            windows=1,
        )
        edited = copy.copy(enc)
        edited.manifest = edit
        key = model_key(edited).split(":")[1]
        rows.append(
            f"{_b64(json.dumps(edit.prefixes, ensure_ascii=False))}\t{edit.tokenizer}\t{edit.max_length}\t{key}"
        )
    path.write_text("\n".join(rows) + "\n", encoding="ascii")


def write_unknown(enc: Encoder, path: Path) -> None:
    """Each text's share of words the model's vocabulary cannot spell (``VocabularyCoverage.unknown_share``)."""
    reader = VocabularyCoverage(enc, len(TEXTS))
    path.write_text("\n".join(f"{_b64(t)}\t{reader.unknown_share(t)!r}" for t in TEXTS) + "\n", encoding="ascii")


def write_embeddings(enc: Encoder, path: Path) -> None:
    """Every text's vector, each encoded alone (a batch of one: no padding), as the JVM forward pass runs."""
    rows = [f"{_b64(t)}\t{role or '-'}\t{_vec(enc.encode([t], role=role)[0])}" for role in _roles(enc) for t in TEXTS]
    path.write_text("\n".join(rows) + "\n", encoding="ascii")


# A query in another language than the feed's cooking items: its words are partly missing from the documents, so
# the semantic model's cosine joins the query score (``fusion.query_scores``).
CROSSING_QUERY = "Tomatensuppe mit Basilikum und garlic"
# A like of another topic 40 days before ``now``: its interest is past the 30-day horizon, so it must count for
# nothing, not even as the nearest interest of the cooking items (``interests.alive``).
FADED_LIKE = {"id": "h0", "text": "Ein Rezept für Tomatensuppe mit frischem Basilikum und Knoblauch."}
FADED_DAYS = 40.0
# The scenario orders by the scores alone; the fold of duplicates and the sink of reacted documents, which come
# after the scores, have their own cases (spec/cases/duplicates, spec/cases/reacted)
SCORES_ONLY = {"duplicates": "keep", "reacted": "keep"}
# A document without a word (emoji and punctuation): interests and queries rank it last (``lexical.has_word``).
WORDLESS = Document("no-words", "\U0001f642 \u2026 !!")
# A document in a script the vocabulary lacks (Thai): the interests rank it last and its query cosines are neutral
# (``readable``); ``SCRIPT_QUERY``, in Thai too, shares a word with it, which BM25 alone then matches.
SCRIPT_QUERY = "\u0e1f\u0e38\u0e15\u0e1a\u0e2d\u0e25"  # football
# A Thai query no document has a word of ("tax"): it adds no order, so the interests alone rank.
BLIND_QUERY = "\u0e20\u0e32\u0e29\u0e35"
# After the scenario: time on a liked story, then a liked document's reactions undone (both of its likes), whose
# interest's dwell time moves to the closest rebuilt one
STEPS = (("viewed", "space-en-1", 95.0), ("viewed", "cooking-it-1", 40.0), ("undo", "h2", None))
# Publication times as apps write them: ISO-8601 with a zone, without one (UTC), a date, unix seconds, none
COLD = [
    {"id": "c-zone", "text": "The council approved the new bridge.", "published": "2026-11-20T10:30:00+01:00"},
    {"id": "c-utc", "text": "Die Bahn baut eine neue Strecke.", "published": "2026-11-20T09:45:00"},
    {"id": "c-z", "text": "Le musée rouvre ses portes.", "published": "2026-11-20T09:40:00Z"},
    {"id": "c-none", "text": "Nuevo parque en el centro.", "published": None},
    {"id": "c-date", "text": "Il treno arriva in ritardo.", "published": "2026-11-21"},
    {"id": "c-words", "text": "\U0001f642 !!", "published": "2026-11-22T00:00:00Z"},
    {"id": "c-seconds", "text": "Nowy most otwarty.", "published": 1763631000.5},
    {"id": "c-space", "text": "Yeni köprü açıldı.", "published": "2026-11-20 09:50"},
]
# An Italian word only a story of the disliked topic holds, searched at a personal weight strong enough to sink that
# answer below documents that lack the word but for the bound that keeps it above them (``fusion.personal_lift``)
SINKING_QUERY, SINKING_WEIGHT = "dopo", 64.0
# "football team wins"
UNREADABLE = Document("thai", SCRIPT_QUERY + " \u0e17\u0e35\u0e21\u0e0a\u0e32\u0e15\u0e34 \u0e0a\u0e19\u0e30")


def write_ranking(semantic: Encoder, relevance: Encoder, out: Path, tmp: Path) -> None:
    """A scripted like/dislike history, ``FADED_LIKE`` then one reaction a day from 24 to 15 days before ``now``, then
    the demo feed, ``WORDLESS`` and ``UNREADABLE`` ranked without a query, with the demo's query (at the Ranker's
    personal weight and at 0), with
    ``CROSSING_QUERY``, with ``SCRIPT_QUERY``, with ``BLIND_QUERY`` and with ``SINKING_QUERY`` at its weight."""
    from edge_ranker.demo import load_feed

    docs, history = load_feed()
    docs = [*docs, WORDLESS, UNREADABLE]
    now = 1_750_000_000.0  # a fixed past instant: reaction times may not lie in the future
    cfg = CoIConfig()
    ranker = Ranker(semantic, relevance, PreferenceStore(tmp / "golden.sqlite", cfg))
    events = [(d, "like") for d in history["likes"]] + [(d, "dislike") for d in history["dislikes"]]
    hist = []
    timed = [(FADED_LIKE, "like", now - FADED_DAYS * DAY)]
    # repeats exercise the shift-towards path; over this span no two scores nearly tie (tests/test_golden.py)
    timed += [(d, reaction, now - (24 - k) * DAY) for k, (d, reaction) in enumerate(events * 2)]
    for d, reaction, ts in timed:
        ranker.feedback(d, reaction, ts=ts)
        vector = _vec(ranker.interest_vectors([d["text"]])[0])
        hist.append(f"{reaction}\t{ts!r}\t{vector}\t{_b64(d['text'])}\t{d['id']}")
    (out / "history.tsv").write_text("\n".join(hist) + "\n", encoding="ascii")
    sem = semantic.encode([d.text for d in docs])
    rel = relevance.encode([d.text for d in docs], role="passage")
    unread = ranker.reader.unreadable([d.text for d in docs])
    (out / "documents.tsv").write_text(
        "\n".join(
            f"{d.id}\t{_vec(s)}\t{_vec(r)}\t{_b64(d.text)}\t{int(u)}" for d, s, r, u in zip(docs, sem, rel, unread)
        )
        + "\n",
        encoding="ascii",
    )
    scenario = (
        f"now\t{now!r}\nshift_factor\t{cfg.shift_factor}\nthreshold\t{cfg.threshold}\n"
        f"horizon_days\t{cfg.horizon_days}\ndecay_rate_per_day\t{cfg.decay_rate_per_day}\n"
        f"personal_weight\t{ranker.personal_weight}\n"
        f"lexical_weight\t{ranker.lexical_weight}\nsemantic_query_weight\t{ranker.semantic_query_weight}\n"
        f"k\t{ranker.k}\nmodel_key\t{ranker.model_key}\nunknown_limit\t{UNKNOWN_LIMIT!r}\n"
    )
    queries = (  # (case, query, personal weight: None for the Ranker's)
        ("personal", None, None),
        ("search", history["query"], None),
        ("alone", history["query"], 0.0),  # the same search with the interests turned down to nothing
        ("crossing", CROSSING_QUERY, None),
        ("script", SCRIPT_QUERY, None),
        ("blind", BLIND_QUERY, None),
        ("sinking", SINKING_QUERY, SINKING_WEIGHT),
    )
    for name, query, weight in queries:
        feed = [Document(d.id, d.text, d.published) for d in docs]
        ranked = ranker.rank(feed, query=query, now=now, personal_weight=weight, **SCORES_ONLY)
        if query is not None and name != "alone":
            scenario += f"{name}_weight\t{weight!r}\n" if weight is not None else ""
            scenario += (
                f"{name}_text\t{_b64(query)}\n{name}_relevance\t{_vec(relevance.encode([query], role='query')[0])}\n"
                f"{name}_semantic\t{_vec(semantic.encode([query])[0])}\n{name}_coverage\t{ranked.query_coverage!r}\n"
                f"{name}_blind\t{int(not ranker.reader.readable(query))}\n"
            )
        (out / f"expected_{name}.tsv").write_text(_ranking_rows(ranked), encoding="ascii")
    (out / "scenario.tsv").write_text(scenario, encoding="ascii")
    write_steps(ranker, docs, history, now, out)
    ranker.store.close()
    write_cold(semantic, relevance, now, out, tmp)
    write_adopted(semantic, relevance, docs, history, now, out, tmp)


def _ranking_rows(ranked: Ranking) -> str:
    return "".join(
        f"{r.rank}\t{r.id}\t{r.score!r}\t{r.personal_score!r}\t{r.relevance_score!r}\t{r.lexical_score!r}"
        f"\t{r.semantic_score!r}\n"
        for r in ranked
    )


def write_steps(ranker: Ranker, docs: list[Document], history: dict, now: float, out: Path) -> None:
    """What an app does next with the scenario's user (``STEPS``: time spent on a document, a document's
    reactions undone, which rebuilds the interests and moves the dwell time), then the feed ranked again."""
    texts = {d["id"]: d["text"] for d in [FADED_LIKE, *history["likes"], *history["dislikes"]]}
    texts |= {d.id: d.text for d in docs}
    lines = []
    for step, doc_id, seconds in STEPS:
        if step == "viewed":
            ranker.viewed({"id": doc_id, "text": texts[doc_id]}, seconds)
        else:
            ranker.undo(doc_id)
        lines.append(f"{step}\t{doc_id}\t{_b64(texts[doc_id])}\t{seconds!r}\n")
    (out / "steps.tsv").write_text("".join(lines), encoding="ascii")
    ranked = ranker.rank([Document(d.id, d.text, d.published) for d in docs], now=now, **SCORES_ONLY)
    (out / "expected_steps.tsv").write_text(_ranking_rows(ranked), encoding="ascii")
    # the same feed as an app ranks it: the reacted documents sunk, taking no topic's turn (spec/rules/diversity.md)
    sunk = ranker.rank([Document(d.id, d.text, d.published) for d in docs], now=now, duplicates="keep")
    (out / "expected_steps_sunk.tsv").write_text(_ranking_rows(sunk), encoding="ascii")


def write_adopted(
    semantic: Encoder, relevance: Encoder, docs: list[Document], history: dict, now: float, out: Path, tmp: Path
) -> None:
    """A model update: the scenario's likes and dislikes (and dwell time) stored by a Ranker of the semantic model
    alone, then taken into the pair's space by a Ranker of both (``Adoption``), which ranks the feed."""
    store = PreferenceStore(tmp / "adopted.sqlite")
    alone = Ranker(semantic, None, store)
    events = [(d, "like") for d in history["likes"]] + [(d, "dislike") for d in history["dislikes"]]
    steps = [(reaction, now - (10 - k) * DAY, d) for k, (d, reaction) in enumerate(events)]
    steps.append(("viewed", 60.0, history["likes"][0]))
    for step, number, d in steps:
        if step == "viewed":
            alone.viewed(d, number)
        else:
            alone.feedback(d, step, ts=number)
    (out / "adopted.tsv").write_text(
        "".join(f"{step}\t{number!r}\t{_b64(d['text'])}\t{d['id']}\n" for step, number, d in steps), encoding="ascii"
    )
    both = Ranker(semantic, relevance, store)
    ranked = both.rank([Document(d.id, d.text, d.published) for d in docs], now=now, **SCORES_ONLY)
    (out / "expected_adopted.tsv").write_text(_ranking_rows(ranked), encoding="ascii")
    store.close()


def write_cold(semantic: Encoder, relevance: Encoder, now: float, out: Path, tmp: Path) -> None:
    """A user with no reactions: ``COLD`` ranked newest first by its publication times, each written as an app may
    write it, unknown times and the wordless last."""
    ranker = Ranker(semantic, relevance, PreferenceStore(tmp / "cold.sqlite"))
    (out / "cold.tsv").write_text(
        "".join(f"{d['id']}\t{_b64(d['text'])}\t{json.dumps(d['published'])}\n" for d in COLD), encoding="ascii"
    )
    (out / "expected_cold.tsv").write_text(_ranking_rows(ranker.rank(COLD, now=now, **SCORES_ONLY)), encoding="ascii")
    ranker.store.close()


def generate(out_dir: str | Path, semantic: str = "semantic", relevance: str = "relevance") -> Path:
    import tempfile

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sem, rel = Encoder.load(semantic), Encoder.load(relevance)
    for name, enc in (("semantic", sem), ("relevance", rel)):
        m = enc.manifest
        (out / f"{name}_config.tsv").write_text(
            f"max_length\t{m.max_length}\nwindows\t{m.windows}\n"
            + "".join(f"prefix_{r}\t{_b64(p)}\n" for r, p in sorted(m.prefixes.items())),
            encoding="ascii",
        )
        write_tokens(enc, out / f"{name}_tokens.tsv")
        write_unknown(enc, out / f"{name}_unknown.tsv")
        write_embeddings(enc, out / f"{name}_embeddings.tsv")
    write_splits(out / "windows.tsv")
    write_keys(rel, out / "keys.tsv")
    with tempfile.TemporaryDirectory() as tmp:
        write_ranking(sem, rel, out, Path(tmp))
    return out


if __name__ == "__main__":
    print(generate(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "golden"))
