"""The Python runtime against spec/: every conformance case of spec/cases run by the reference functions, the
constants each runtime is generated with, and the rules' documents. The JVM core (SpecTest) and web/
(test/spec.test.js) run the same cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from spec.tools import cases as spec_cases
from spec.tools import constants as spec_constants

SPEC = Path(__file__).resolve().parent.parent / "spec"
CASE_FILES = sorted((SPEC / "cases").glob("*/*.json"))


def close(got: object, want: object, tolerance: float, where: str = "") -> None:
    """``got`` equals ``want``, numbers within ``tolerance``; the message says where they part."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: keys {got} != {want}"
        for key in want:
            close(got[key], want[key], tolerance, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got} != {want}"
        for i, (g, w) in enumerate(zip(got, want)):
            close(g, w, tolerance, f"{where}[{i}]")
    elif isinstance(want, bool) or want is None or isinstance(want, str):
        assert got == want, f"{where}: {got!r} != {want!r}"
    else:
        assert abs(got - want) <= tolerance, f"{where}: {got} != {want} (tolerance {tolerance})"


@pytest.mark.parametrize("path", CASE_FILES, ids=[f"{p.parent.name}/{p.stem}" for p in CASE_FILES])
def test_the_python_runtime_passes_the_case(path):
    case = json.loads(path.read_text(encoding="utf-8"))
    got = spec_cases.run(case["function"], case["input"])
    rule = f"rule {case['rule']}, case {path.stem}"
    assert ("error" in got) == ("error" in case), f"{rule}: {got} where the case says {case}"
    if "error" in case:
        assert got["error"] == case["error"], f"{rule}: the refusal's words differ"
    else:
        close(got["expected"], case["expected"], case["tolerance"], rule)


def test_the_case_files_are_the_generators():
    """Every case the generator defines is on disk and no other: ``python -m spec.tools.cases`` after a change."""
    written = {p.relative_to(SPEC / "cases") for p in spec_cases.cases()}
    assert {p.relative_to(SPEC / "cases") for p in CASE_FILES} == written


def test_the_spec_has_its_rules_and_enough_cases():
    rules = {p.parent.name for p in CASE_FILES}
    assert len(CASE_FILES) >= 20 and len(rules) >= 6
    for rule in rules | {c["rule"] for c in spec_constants.load().values()}:
        assert (SPEC / "rules" / f"{rule}.md").is_file(), f"spec/rules/{rule}.md is missing"


@pytest.mark.parametrize("runtime", sorted(spec_constants.TARGETS))
def test_each_runtimes_constants_module_is_generated_from_the_spec(runtime):
    target = spec_constants.TARGETS[runtime]
    assert target.read_text(encoding="utf-8") == spec_constants.generated()[runtime], (
        f"{target.relative_to(SPEC.parent)} differs from spec/constants.json: run python -m spec.tools.constants"
    )


def test_the_python_runtime_uses_the_spec_constants():
    """What the modules rank with, not only what constants.py holds: a module that declared its own value again
    would pass the generated file's test and fail here, by name."""
    from edge_ranker.runtime import duplicates, fusion, interests, lexical, manifest, ranker, readable, signals
    from edge_ranker.runtime.documents import LAST_SECOND
    from edge_ranker.runtime.store import events

    cfg = interests.CoIConfig()
    used = {
        "PERSONAL_WEIGHT": ranker.Ranker.__init__.__defaults__[0],
        "LEXICAL_WEIGHT": ranker.Ranker.__init__.__defaults__[1],
        "SEMANTIC_QUERY_WEIGHT": ranker.Ranker.__init__.__defaults__[2],
        "RRF_K": ranker.Ranker.__init__.__defaults__[3],
        "SINK": fusion.SINK,
        "K1": lexical.K1,
        "B": lexical.B,
        "SEMANTIC_SHARE": float(interests.SEMANTIC_SCALE) ** 2,
        "UNKNOWN_LIMIT": readable.UNKNOWN_LIMIT,
        "DAY": interests.DAY,
        "SHIFT_FACTOR": cfg.shift_factor,
        "THRESHOLD": cfg.threshold,
        "HORIZON_DAYS": cfg.horizon_days,
        "DECAY_RATE_PER_DAY": cfg.decay_rate_per_day,
        "MIN_POSITIVE_COIS": cfg.min_positive_cois,
        "MAX_VIEW_S": events.MAX_VIEW_S,
        "LAST_SECOND": LAST_SECOND,
        "MAX_WINDOWS": manifest.MAX_WINDOWS,
        "MAX_LENGTH_MIN": manifest.MAX_LENGTH_RANGE[0],
        "MAX_LENGTH_MAX": manifest.MAX_LENGTH_RANGE[1],
        "MANIFEST_SCHEMA_VERSION": manifest.SCHEMA_VERSION,
        "READ_MIN_S": signals.READ_MIN_S,
        "READ_FULL_S": signals.READ_FULL_S,
        "READ_WEIGHT": signals.read_weight(signals.READ_FULL_S),
        "SKIP_AFTER": signals.SKIP_AFTER,
        "SKIP_WEIGHT": signals.SKIP_WEIGHT,
        "DUPLICATE_COSINE": duplicates.fold.__defaults__[1],
        "FOLD_WINDOW": duplicates.fold.__defaults__[2],
        "DIVERSITY": ranker.DIVERSITY,  # what ``rank`` takes when given no ``diversity``
        "DIVERSITY_WINDOW": ranker.DIVERSITY_WINDOW,
    }
    spec = spec_constants.load()
    assert sorted(used) == sorted(spec), "a constant of spec/constants.json is not checked here"
    for name, value in used.items():
        want = spec[name]["value"]
        assert np.isclose(value, want, rtol=1e-6, atol=0), f"{name} is {value}, spec/constants.json says {want}"


def test_the_packaged_function_words_are_the_spec_list():
    """The wheel carries its own copy of spec/stopwords/stopwords.tsv (``python -m spec.tools.stopwords`` writes
    both); the copy the runtime reads must not drift from the one the JVM core and web/ read."""
    from importlib import resources

    packaged = resources.files("edge_ranker.runtime").joinpath("stopwords.tsv").read_text(encoding="utf-8")
    assert packaged == (SPEC / "stopwords" / "stopwords.tsv").read_text(encoding="utf-8")


def test_the_function_words_are_ten_languages_of_lowercase_words():
    from edge_ranker.runtime.stopwords import LANGUAGES, function_words

    listed = function_words()
    assert tuple(listed) == LANGUAGES
    for lang, words in listed.items():
        assert len(words) >= 50 and len(set(words)) == len(words), lang
        assert all(w == w.lower() and w.isalpha() for w in words), lang
