"""Each language's function words, as ``spec/stopwords/stopwords.tsv`` lists them (spec/rules/stopwords.md): the
words every text of a language holds, which a query shares with a document without either being about anything.
A document's language is the one whose function words it holds most; a query word it holds counts as a match
only where it is not one of that language's function words. The file ships inside the package, a copy the tests
hold equal to spec/'s."""

from __future__ import annotations

from importlib import resources

LANGUAGES = ("en", "de", "fr", "it", "es", "pl", "pt", "nl", "ru", "tr")  # the order ties are decided in


def function_words() -> dict[str, list[str]]:
    """Each language's function words, most frequent first, read from the packaged list."""
    out: dict[str, list[str]] = {lang: [] for lang in LANGUAGES}
    text = resources.files("edge_ranker.runtime").joinpath("stopwords.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            lang, word = line.split("\t")
            out[lang].append(word)
    return out
