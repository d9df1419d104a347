"""Training-data readers on a tiny data root in the shared data's layout: alignment and held-out filtering."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from edge_ranker.datasets import retrieval
from edge_ranker.datasets.held_out import HeldText, drop_held, eval_sentences, retrieval_eval_texts
from edge_ranker.datasets.training import (
    file_passages,
    judged_pairs,
    mono_groups,
    news_groups,
    news_mono_groups,
    news_passages,
    retrieval_texts,
    sts_train_groups,
    wiki_summaries,
)
from edge_ranker.errors import EdgeRankerError

EN = ["A man plays a guitar.", "A dog runs.", "Two cats sleep.", "A woman cooks rice."]
DE = ["Ein Mann spielt Gitarre.", "Ein Hund rennt.", "Zwei Katzen schlafen.", "Eine Frau kocht Reis."]


def _sts(root: Path, split: str, en: list[str], de: list[str]) -> None:
    (root / "sts" / "stsbenchmark_en").mkdir(parents=True, exist_ok=True)
    (root / "sts" / "stsb-multi-mt").mkdir(parents=True, exist_ok=True)
    rows = [f"main-captions\tMSRvid\t2012\t{i:04d}\t3.0\t{a}\t{b}" for i, (a, b) in enumerate(zip(en[::2], en[1::2]))]
    (root / "sts" / "stsbenchmark_en" / f"sts-{split}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    rows = [f'"{a}","{b}",3.0' for a, b in zip(de[::2], de[1::2])]
    (root / "sts" / "stsb-multi-mt" / f"stsb-de-{split}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture
def root(tmp_path) -> Path:
    _sts(tmp_path, "train", EN, DE)
    _sts(tmp_path, "dev", ["A bird sings.", "A dog runs."], ["Ein Vogel singt.", "Ein Hund rennt."])
    _sts(tmp_path, "test", ["A car stops.", "A bus waits."], ["Ein Auto hält.", "Ein Bus wartet."])
    return tmp_path


def test_sts_train_groups_are_row_aligned_and_drop_dev_and_test_sentences(root):
    groups = sts_train_groups(root, ["de"])
    assert groups == [[EN[i], DE[i]] for i in (0, 2, 1, 3)]  # first sentences, then second sentences
    held = eval_sentences(root)
    assert "A dog runs." in held and "Ein Auto hält." in held
    kept = drop_held(groups, held)
    assert ["A dog runs.", "Ein Hund rennt."] not in kept and len(kept) == 3


def test_drop_held_keeps_a_group_without_its_held_translation():
    assert drop_held([["en", "held", "fr"], ["held", "x"]], {"held"}) == [["en", "fr"]]


def test_sts_train_groups_refuse_misaligned_files(root):
    _sts(root, "train", EN, DE[:2])
    with pytest.raises(EdgeRankerError, match="row-aligned"):
        sts_train_groups(root, ["de"])


def _ntrex(root: Path) -> None:
    d = root / "parallel" / "ntrex128"
    d.mkdir(parents=True)
    (d / "newstest2019-src.eng.txt").write_text("\n".join(EN) + "\n", encoding="utf-8")
    (d / "newstest2019-ref.deu.txt").write_text("\n".join(DE) + "\n", encoding="utf-8")
    (d / "DOCUMENT_IDS.tsv").write_text("a\na\na\nb\n", encoding="utf-8")
    w = root / "parallel" / "wmt_newstest" / "eng-deu"
    w.mkdir(parents=True)
    (w / "newstest2014.eng").write_text("\n".join(EN) + "\n", encoding="utf-8")
    (w / "newstest2014.deu").write_text("\n".join(DE) + "\n", encoding="utf-8")


def test_news_sentences_and_passages_keep_translations_together(tmp_path):
    _ntrex(tmp_path)
    sentences = news_groups(tmp_path, ["de"])
    assert sentences[:4] == [[e, d] for e, d in zip(EN, DE)] and len(sentences) == 8  # NTREX + WMT
    passages = news_passages(tmp_path, ["de"], size=2)
    # document "a" (3 sentences) gives chunks of 2 and 1, document "b" one; WMT gives 2 chunks of 2
    assert passages[0] == [" ".join(EN[:2]), " ".join(DE[:2])]
    assert passages[1] == [EN[2], DE[2]] and passages[2] == [EN[3], DE[3]]
    assert len(passages) == 5


def test_mono_groups_sample_each_language(tmp_path):
    d = tmp_path / "mono" / "leipzig_wiki_10k"
    d.mkdir(parents=True)
    (d / "eng_wiki_10K-sentences.txt").write_text("".join(f"{i}\tEnglish sentence {i}.\n" for i in range(30)))
    (d / "deu_wiki_10K-sentences.txt").write_text("".join(f"{i}\tDeutscher Satz {i}.\n" for i in range(30)))
    groups = mono_groups(tmp_path, 5, seed=1)
    assert len(groups) == 10 and all(len(g) == 1 and not g[0][0].isdigit() for g in groups)
    assert mono_groups(tmp_path, 5, seed=1) == groups


def test_news_mono_groups_sample_each_language_minus_excluded_sentences(tmp_path):
    for code, word in (("deu", "Satz"), ("rus", "предложение")):
        d = tmp_path / "mono" / "wmt_newstest_mono" / code
        d.mkdir(parents=True)
        (d / f"newstest2017.{code}").write_text("".join(f"{word} Nummer {i}.\n" for i in range(20)))
        (d / f"newstest2018.{code}").write_text(f"{word} Nummer 0.\nkurz\n")  # a duplicate, a too-short line
    used = {"Satz Nummer 3."}
    groups = news_mono_groups(tmp_path, ["de", "ru", "tr"], 100, used, seed=1)  # no Turkish files: skipped
    texts = [g[0] for g in groups]
    assert all(len(g) == 1 for g in groups)
    assert len(texts) == len(set(texts)) == 39 and "Satz Nummer 3." not in texts and "kurz" not in texts
    assert len(news_mono_groups(tmp_path, ["de", "ru"], 5, used, seed=1)) == 10
    assert news_mono_groups(tmp_path, ["de", "ru"], 5, used, seed=1) == news_mono_groups(
        tmp_path, ["de", "ru"], 5, used, seed=1
    )


def _judged():
    """A training config with the judged loss, which makes a recipe link each query's judged passages."""
    from edge_ranker.distill.config import TrainConfig

    return TrainConfig(losses={"mse": 1.0, "judged": 1.0})


def _two_role_recipe(**options):
    """A German relevance recipe with the e5 query/passage prefixes, plus ``options``."""
    from edge_ranker.distill.recipes import Recipe

    prefixes = {"query": "query: ", "passage": "passage: "}
    return Recipe(kind="relevance", teacher="unused", langs=["de"], roles=list(prefixes), prefixes=prefixes, **options)


def test_training_set_puts_translated_passages_in_passage_role_and_fits_pca_on_them(tmp_path):
    from conftest import HashTeacher

    from edge_ranker.distill.recipes import Recipe
    from edge_ranker.distill.training_set import build_training_set
    from edge_ranker.teachers import CachedTeacher

    _ntrex(tmp_path)
    _tatoeba(tmp_path, ["Good morning.", "Thank you."], ["Guten Morgen.", "Danke."])
    recipe = _two_role_recipe(news_passages=True, sentences_per_passage=2, pca_fit="passages")
    teacher = CachedTeacher(HashTeacher(dim=8), tmp_path / "cache")
    groups, raw, fit = build_training_set(recipe, teacher, tmp_path, show_progress=False)
    passages = groups[fit]
    assert len(raw) == len(groups) == 2 * 2 + 5  # two sources in two roles, five passage groups
    assert all(t.startswith("passage: ") for g in passages for t in g.texts)
    assert passages[0].texts == ["passage: " + " ".join(EN[:2]), "passage: " + " ".join(DE[:2])]
    assert [g.target for g in passages] == list(range(4, 9))
    sources_only = build_training_set(Recipe(kind="relevance", teacher="unused", langs=["de"]), teacher, tmp_path)
    assert sources_only[2] == slice(0, 2)


def test_training_set_fits_the_pca_on_the_wikipedia_sentences_when_asked(tmp_path):
    from conftest import HashTeacher

    from edge_ranker.distill.recipes import Recipe
    from edge_ranker.distill.training_set import build_training_set
    from edge_ranker.teachers import CachedTeacher

    _tatoeba(tmp_path, ["Good morning.", "Thank you."], ["Guten Morgen.", "Danke."])
    d = tmp_path / "mono" / "leipzig_wiki_10k"
    d.mkdir(parents=True)
    (d / "eng_wiki_10K-sentences.txt").write_text("".join(f"{i}\tEnglish sentence {i}.\n" for i in range(4)))
    teacher = CachedTeacher(HashTeacher(dim=8), tmp_path / "cache")
    recipe = Recipe(kind="semantic", teacher="unused", langs=["de"], mono_per_lang=3, pca_fit="wikipedia")
    groups, raw, fit = build_training_set(recipe, teacher, tmp_path, show_progress=False)
    assert sorted(g.texts[0] for g in (groups[i] for i in fit)) == [f"English sentence {i}." for i in range(3)]
    assert raw[fit].shape == (3, 8) and list(fit) == [2, 3, 4]  # after the two Tatoeba sources
    sources = build_training_set(
        Recipe(kind="semantic", teacher="unused", langs=["de"], mono_per_lang=3), teacher, tmp_path
    )
    assert sources[2] == slice(0, 2) and len(sources[0]) == len(groups)  # the same groups, another fit sample


def _tatoeba(root: Path, en: list[str], de: list[str]) -> None:
    d = root / "parallel" / "tatoeba_v2021" / "deu-eng"
    d.mkdir(parents=True)
    (d / "t.eng").write_text("".join(f"{x}\n" for x in en), encoding="utf-8")
    (d / "t.deu").write_text("".join(f"{x}\n" for x in de), encoding="utf-8")


def _squad_it(root: Path, context: str = "Paragrafo {p} sul tema {p}.", questions: int = 2) -> None:
    """Four paragraphs (``context`` formatted with their number) with ``questions`` questions each, in
    SQuAD-it's gzip JSON layout."""
    d = root / "retrieval" / "squad-it"
    d.mkdir(parents=True)
    pars = [
        {
            "context": context.format(p=p),
            "qas": [{"id": f"q{p}{k}", "question": f"Domanda {k} su {p}?"} for k in range(questions)],
        }
        for p in range(4)
    ]
    data = {"data": [{"title": "t", "paragraphs": pars}]}
    with gzip.open(d / "SQuAD_it-test.json.gz", "wt", encoding="utf-8") as fh:
        json.dump(data, fh)


def test_retrieval_training_texts_never_touch_the_evaluation_sample(tmp_path, monkeypatch):
    _squad_it(tmp_path)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))  # evaluate 2 questions over 2 paragraphs
    ev = retrieval.load_retrieval("squad-it", tmp_path)
    queries, passages = retrieval_texts(tmp_path, ["squad-it"], max_docs=10)
    assert len(ev.queries) == 2 and len(ev.corpus) == 2
    assert sorted(passages) == sorted(set(f"Paragrafo {p} sul tema {p}." for p in range(4)) - set(ev.corpus.values()))
    # only questions about the two paragraphs outside the evaluated corpus are trained on
    asked = {q: next(iter(ev_q)) for q, ev_q in retrieval._squad_it(tmp_path).qrels.items()}
    expected = {f"Domanda {q[-1]} su {q[1]}?" for q, pid in asked.items() if pid not in ev.corpus}
    assert set(queries) == expected and len(queries) == 4
    assert not set(queries) & set(ev.queries.values())
    same_queries, cut = retrieval_texts(tmp_path, ["squad-it"], max_docs=1, words=2)
    assert same_queries == queries and len(cut) == 1 and cut[0] in {" ".join(p.split()[:2]) for p in passages}


def test_judged_pairs_are_the_training_questions_and_their_own_paragraphs(tmp_path, monkeypatch):
    _squad_it(tmp_path)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))
    ev = retrieval.load_retrieval("squad-it", tmp_path)
    queries, passages = retrieval_texts(tmp_path, ["squad-it"], max_docs=10, words=None)
    pairs = judged_pairs(tmp_path, ["squad-it"])
    assert sorted({q for q, _ in pairs}) == sorted(queries) and {d for _, d in pairs} == set(passages)
    for q, d in pairs:  # "Domanda k su p?" is about "Paragrafo p ..."
        assert d.startswith(f"Paragrafo {q.split()[-1].rstrip('?')} ")
    assert not {d for _, d in pairs} & set(ev.corpus.values())


def test_wikiqa_pools_every_candidate_sentence_and_keeps_answered_questions(tmp_path):
    d = tmp_path / "retrieval" / "wikiqa"
    d.mkdir(parents=True)
    rows = [
        ("Q1", "who wrote it", "D1-0", "A said so.", "0"),
        ("Q1", "who wrote it", "D1-1", 'B wrote "it".', "1"),
        ("Q2", "where is it", "D2-0", "Nowhere.", "0"),
    ]
    head = "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tLabel\n"
    body = "".join(f"{q}\t{t}\tD\tT\t{s}\t{x}\t{y}\n" for q, t, s, x, y in rows)
    (d / "WikiQA-test-gold.tsv").write_text(head + body, encoding="utf-8")
    (d / "WikiQA-dev.tsv").write_text(head + "Q9\twhy\tD\tT\tD9-0\tBecause.\t1\n", encoding="utf-8")
    ds = retrieval.load_retrieval("wikiqa", tmp_path)
    assert ds.queries == {"Q1": "who wrote it"} and ds.qrels == {"Q1": {"D1-1"}}
    assert ds.corpus == {"D1-0": "A said so.", "D1-1": 'B wrote "it".', "D2-0": "Nowhere."}
    dev = retrieval.load_retrieval("wikiqa-dev", tmp_path)  # the split to choose between runs on
    assert dev.name == "wikiqa-dev" and dev.qrels == {"Q9": {"D9-0"}} and dev.corpus == {"D9-0": "Because."}


def test_retrieval_texts_name_a_missing_set_and_how_to_train_without_it(tmp_path):
    with pytest.raises(EdgeRankerError, match="--retrieval-train"):
        retrieval_texts(tmp_path, ["scifact"], max_docs=10)


def test_passage_queries_are_whole_sentences_of_their_passage_within_the_word_limits():
    import random

    from edge_ranker.datasets.training import passage_queries

    text = "Too short. This sentence has exactly six words. Is this a question of seven words? Tiny!"
    picked = passage_queries(text, 5, random.Random(0), min_words=5, max_words=7)
    assert sorted(picked) == ["Is this a question of seven words?", "This sentence has exactly six words."]
    assert len(passage_queries(text, 1, random.Random(0), min_words=5, max_words=7)) == 1
    assert passage_queries("", 3, random.Random(0)) == []


def test_passage_crops_are_distinct_windows_of_the_whole_passage_within_the_word_limits():
    import random

    from edge_ranker.datasets.training import passage_crops

    text = " ".join(f"w{i}" for i in range(50))
    crops = passage_crops(text, 6, random.Random(0), min_words=5, max_words=8)
    assert 1 < len(crops) <= 6 and len(set(crops)) == len(crops)
    for c in crops:
        assert 5 <= len(c.split()) <= 8 and f" {c} " in f" {text} "
    later = passage_crops(text, 30, random.Random(1), 5, 8)
    assert any(int(c.split()[-1][1:]) > 40 for c in later)  # not just the start
    assert passage_crops("too few words here", 3, random.Random(0), min_words=4) == []
    short = passage_crops("five words and no more", 9, random.Random(0), min_words=2, max_words=9)
    assert short and "five words and no more" not in short  # a window is never the whole passage


def test_training_set_batches_each_passage_query_with_its_own_held_out_free_passage(tmp_path, monkeypatch):
    from conftest import HashTeacher

    from edge_ranker.distill.training_set import build_training_set
    from edge_ranker.teachers import CachedTeacher

    _squad_it(tmp_path, "Il paragrafo {p} parla del tema {p} in modo chiaro. Poi aggiunge una frase {p} sul tema.", 1)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))
    ev = retrieval.load_retrieval("squad-it", tmp_path)
    _tatoeba(tmp_path, ["Good morning."], ["Guten Morgen."])
    recipe = _two_role_recipe(retrieval_train=["squad-it"], passage_queries=2)
    teacher = CachedTeacher(HashTeacher(dim=8), tmp_path / "cache")
    groups, raw, _ = build_training_set(recipe, teacher, tmp_path, show_progress=False)
    pseudo = [g for g in groups if g.linked]
    # a Tatoeba source in two roles, 2 training paragraphs, their 2 questions, 2 sentences of each paragraph
    assert len(raw) == len(groups) == 2 + 2 + 2 + 4 and len(pseudo) == 4
    for g in pseudo:
        (passage,) = g.linked
        sentence = g.texts[0].removeprefix("query: ")
        assert g.texts[0].startswith("query: ") and sentence in passage.texts[0]
        assert passage.texts[0].removeprefix("passage: ") not in ev.corpus.values()
    assert len({g.target for g in groups}) == len(groups)


def test_training_set_adds_the_users_passages_but_not_one_quoting_an_evaluation_paragraph(tmp_path, monkeypatch):
    from conftest import HashTeacher

    from edge_ranker.distill.training_set import build_training_set
    from edge_ranker.teachers import CachedTeacher

    _squad_it(tmp_path, "Il paragrafo {p} parla del tema {p} in modo chiaro. Poi aggiunge una frase {p} sul tema.", 1)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))
    evaluated = sorted(retrieval.load_retrieval("squad-it", tmp_path).corpus.values())[0]
    _tatoeba(tmp_path, ["Good morning."], ["Guten Morgen."])
    mine = "Un testo mio sul giardino, le piante e il sole che le fa crescere ogni giorno di più."
    (tmp_path / "mine.txt").write_text(f"{mine}\nPrima riga. {evaluated}\n", encoding="utf-8")
    recipe = _two_role_recipe(extra_passages=[str(tmp_path / "mine.txt")])
    teacher = CachedTeacher(HashTeacher(dim=8), tmp_path / "cache")
    groups, raw, _ = build_training_set(recipe, teacher, tmp_path, show_progress=False)
    assert len(raw) == len(groups) == 2 + 1  # a Tatoeba source in two roles, then the one line that quotes nothing
    assert groups[-1].texts == [f"passage: {mine}"]


def test_training_set_crops_the_whole_document_not_the_cut_passage_and_batches_each_crop_with_it(tmp_path, monkeypatch):
    from conftest import HashTeacher

    from edge_ranker.distill import training_set
    from edge_ranker.teachers import CachedTeacher

    _squad_it(tmp_path, " ".join(f"p{{p}}w{i}" for i in range(60)), 1)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))
    _tatoeba(tmp_path, ["Good morning."], ["Guten Morgen."])
    # training sees each paragraph's first 10 of its 60 words
    recipe = _two_role_recipe(retrieval_train=["squad-it"], passage_crops=3, doc_words=10)
    groups, raw, _ = training_set.build_training_set(
        recipe, CachedTeacher(HashTeacher(dim=8), tmp_path / "cache"), tmp_path, show_progress=False
    )
    crops = [g for g in groups if g.linked]
    assert 2 <= len(crops) <= 6 and len(raw) == len(groups) == 2 + 2 + 2 + len(crops)
    for g in crops:
        (passage,) = g.linked
        cut = passage.texts[0].removeprefix("passage: ")
        assert len(cut.split()) == 10 and g.texts[0].startswith("passage: ")
        words = g.texts[0].removeprefix("passage: ").split()
        assert 30 <= len(words) <= 59 and words[0].split("w")[0] == cut.split()[0].split("w")[0]  # same paragraph
    assert any(int(w.split("w")[1]) >= 10 for g in crops for w in g.texts[0].split()[1:])  # beyond the cut
    assert len({g.target for g in groups}) == len(groups)


def test_training_set_batches_each_training_question_with_its_judged_paragraph(tmp_path, monkeypatch):
    from conftest import HashTeacher

    from edge_ranker.distill import training_set
    from edge_ranker.teachers import CachedTeacher

    _squad_it(tmp_path, " ".join(f"p{{p}}w{i}" for i in range(20)), 2)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))
    _tatoeba(tmp_path, ["Good morning."], ["Guten Morgen."])
    teacher = CachedTeacher(HashTeacher(dim=8), tmp_path / "cache")
    recipe = _two_role_recipe(retrieval_train=["squad-it"], train=_judged(), doc_words=10)
    groups, _, _ = training_set.build_training_set(recipe, teacher, tmp_path, show_progress=False)
    judged = [g for g in groups if g.positives]
    assert len(judged) == 4  # 2 questions on each of the 2 paragraphs outside the evaluation sample
    for g in judged:
        (passage,) = g.linked
        assert passage.target == g.positives[0] and g.texts[0].startswith("query: Domanda")
        about = g.texts[0].rstrip("?").split()[-1]  # "Domanda k su p?" asks about paragraph p
        assert passage.texts[0] == "passage: " + " ".join(f"p{about}w{i}" for i in range(10))
    with pytest.raises(EdgeRankerError, match="--retrieval-train"):
        training_set.build_training_set(_two_role_recipe(train=_judged()), teacher, tmp_path, show_progress=False)


def _summaries(folder: Path, lang_file: str, extracts: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    entries = {f"T{i}": {"title": f"T{i}", "extract": e} for i, e in enumerate(extracts)}
    (folder / lang_file).write_text(json.dumps(entries), encoding="utf-8")


def test_wiki_summaries_drop_paragraphs_quoting_an_evaluation_text_and_cap_each_language(tmp_path):
    words = " ".join(f"w{i}" for i in range(40))
    answer = "The answer sentence that an evaluation set pools as a document."
    en = [f"Alpha {words}.", f"Beta {words} {answer} More text.", "Too short to be a passage."]
    _summaries(tmp_path, "summaries_en-us.json", en)
    _summaries(tmp_path, "summaries_es-es.json", [f"Uno {words}.", f"Dos {words}.", f"Tres {words}."])
    _summaries(tmp_path, "summaries_fr-fr.json", [])
    out = wiki_summaries(2, HeldText.of([answer.upper()]), folder=tmp_path, words=60)
    firsts = [t.split()[0] for t in out]
    assert firsts[0] == "Alpha" and "Beta" not in firsts  # Beta quotes the held answer, in another case
    assert len(out) == 3 and set(firsts[1:]) < {"Uno", "Dos", "Tres"}  # 2 per language; the short one is none
    assert out == wiki_summaries(2, HeldText.of([answer]), folder=tmp_path, words=60)  # seeded
    cut = wiki_summaries(5, HeldText.of([]), folder=tmp_path, words=10)
    assert len(cut) == 5 and all(len(t.split()) == 10 for t in cut)  # Beta is back without the held text


def test_wiki_summaries_name_a_missing_or_broken_file(tmp_path):
    with pytest.raises(EdgeRankerError, match="no Wikipedia summaries"):
        wiki_summaries(1, HeldText.of([]), folder=tmp_path)
    for name in ("summaries_en-us.json", "summaries_es-es.json", "summaries_fr-fr.json"):
        (tmp_path / name).write_bytes(b"{not json \xff")
    with pytest.raises(EdgeRankerError, match="not valid JSON"):
        wiki_summaries(1, HeldText.of([]), folder=tmp_path)


def test_file_passages_cut_filter_and_deduplicate_the_users_lines_across_files(tmp_path):
    words = " ".join(f"w{i}" for i in range(30))
    answer = "The answer sentence that an evaluation set pools as a document."
    plain = tmp_path / "a.txt"
    plain.write_bytes(
        f"Alpha {words}\nA held claim.\n\nBeta {words} {answer}\n".encode() + b"\xff\xfe " + words.encode() + b"\n"
    )
    packed = tmp_path / "b.txt.gz"
    packed.write_bytes(gzip.compress(f"Gamma {words} 🙂 ok\nAlpha {words}\nShort one.\n".encode()))
    out = file_passages([plain, packed], HeldText.of([answer.upper(), "A held claim."]), words=20)
    assert [t.split()[0] for t in out] == ["Alpha", "Gamma", "Short"]  # held, quoting, undecodable, repeated go
    assert [len(t.split()) for t in out] == [20, 20, 2]
    assert len(file_passages([plain], HeldText.of([]), words=200)) == 3  # Beta, the claim back
    with pytest.raises(EdgeRankerError, match="not found"):
        file_passages([tmp_path / "missing.txt"], HeldText.of([]))
    (tmp_path / "latin1.txt").write_bytes("Città più bella\nPerché no\n".encode("latin-1"))
    with pytest.raises(EdgeRankerError, match=r"no UTF-8 text lines .*\(2 undecodable\)"):
        file_passages([tmp_path / "latin1.txt"], HeldText.of([]))


def test_retrieval_eval_texts_are_the_evaluation_samples_of_the_sets_present(tmp_path, monkeypatch):
    _squad_it(tmp_path)
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 2, 2))
    ev = retrieval.load_retrieval("squad-it", tmp_path)
    assert sorted(retrieval_eval_texts(tmp_path)) == sorted([*ev.queries.values(), *ev.corpus.values()])


def test_dev_splits_are_disjoint_from_the_test_sample_and_held_out_of_training_on_request(tmp_path, monkeypatch):
    _squad_it(tmp_path, questions=3)  # 4 paragraphs, 12 questions
    read, _, _ = retrieval.SETS["squad-it"]
    monkeypatch.setitem(retrieval.SETS, "squad-it", (read, 1, 1))  # test: 1 question over its paragraph
    monkeypatch.setitem(retrieval.DEV_SPLITS, "squad-it", (2, 1))  # dev: 2 of the other 9 over theirs
    test = retrieval.load_retrieval("squad-it", tmp_path)
    dev = retrieval.load_retrieval("squad-it-dev", tmp_path)
    assert dev.name == "squad-it-dev" and len(dev.queries) == 2 and dev.qrels

    def texts(ds: retrieval.RetrievalSet) -> set[str]:
        return set(ds.queries.values()) | set(ds.corpus.values())

    assert not texts(test) & texts(dev)
    queries, passages = retrieval_texts(tmp_path, ["squad-it"], max_docs=10)
    assert texts(dev) <= set(queries) | set(passages)  # by default the dev split is trained on
    held_q, held_p = retrieval_texts(tmp_path, ["squad-it"], max_docs=10, hold_dev=True)
    assert not (set(held_q) | set(held_p)) & (texts(dev) | texts(test))
    # a question about a dev paragraph stays out with it
    dev_pars = set(dev.corpus.values())
    assert all(q.split(" su ")[1].rstrip("?") not in {p.split()[1] for p in dev_pars} for q in held_q)
    assert held_q and held_p and set(held_q) < set(queries) and set(held_p) < set(passages)


def test_unknown_retrieval_set_lists_the_dev_splits(tmp_path):
    with pytest.raises(EdgeRankerError, match="squad-it-dev"):
        retrieval.load_retrieval("msmarco", tmp_path)


def test_bible_articles_keep_to_the_verses_a_recipe_leaves_out(tmp_path):
    import sqlite3

    from edge_ranker.datasets.articles import load_bible_articles
    from edge_ranker.datasets.training import bible_verses, trained_verses

    db = tmp_path / "bible.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE bible (bbName TEXT, bNumber INT, cNumber INT, vNumber INT, vText TEXT)")
    for book, chapter, verse in ((b, c, v) for b in (1, 2) for c in (1, 2, 3) for v in range(1, 8)):
        con.execute(
            "INSERT INTO bible VALUES ('k', ?, ?, ?, ?)", (book, chapter, verse, f"en {book} {chapter} {verse}")
        )
        con.execute(
            "INSERT INTO bible VALUES ('s', ?, ?, ?, ?)", (book, chapter, verse, f"de {book} {chapter} {verse}")
        )
    con.commit()
    con.close()
    keys, _ = bible_verses(["de", "nl"], db)  # Dutch has no Bible here: left out
    trained = {f"{b} {c} {v}" for b, c, v in trained_verses(keys, 20, seed=0)}
    articles = load_bible_articles(["de", "nl"], trained=20, articles=4, db=db)
    assert list(articles.queries) == ["en", "de"] and len(articles.queries["en"]) == 4
    for lang in ("en", "de"):
        for query, body in zip(articles.queries[lang], articles.bodies[lang]):
            verses = [query] + [f"{lang} {rest}" for rest in body.split(f"{lang} ")[1:]]
            assert all(v.split(" ", 1)[1].strip() not in trained for v in verses)  # never a trained verse
            assert 1 <= len(verses) - 1 <= 4 and len({v.split()[2] for v in verses}) == 1  # one chapter, up to 4
    assert [q.replace("en", "de", 1) for q in articles.queries["en"]] == articles.queries["de"]  # aligned
