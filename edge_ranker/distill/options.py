"""Command-line options generated from the settings' own declarations: each field of ``Recipe`` and
``TrainConfig`` that carries help metadata (``setting``) becomes one ``distill`` option, so a setting is declared
once. This module imports no training dependency: ``edge-ranker --help`` works on the base install."""

from __future__ import annotations

import argparse
import dataclasses
import math
import typing
from typing import Any

from edge_ranker.errors import EdgeRankerError

OPTION = "option"  # the metadata key a field's command-line description lives under


def setting(default: Any = dataclasses.MISSING, *, help: str, factory: Any = None, **cli: Any) -> Any:
    """A dataclass field that is also a ``distill`` option: ``help`` says what it sets; ``cli`` may give
    ``choices``, ``flag`` (the option's name, when not the field's), ``metavar``, ``append`` (a list option
    given once per value) or ``source`` (one of the project's data sets, which the user's own data replaces)."""
    meta = {OPTION: {"help": help, **cli}}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def _flag(f: dataclasses.Field) -> str:
    return f.metadata[OPTION].get("flag") or "--" + f.name.replace("_", "-")


def _weights(text: str) -> tuple[str, float]:
    """An argparse type: NAME=WEIGHT."""
    name, sep, value = text.partition("=")
    try:
        weight = float(value)
    except ValueError:
        weight = None
    if not sep or not name or weight is None or not math.isfinite(weight) or weight < 0:
        raise argparse.ArgumentTypeError(f"must be NAME=WEIGHT with a weight >= 0, got {text!r}")
    return name, weight


def add_options(parser: argparse.ArgumentParser, cls: type, defaults: dict[str, Any]) -> None:
    """One option per documented field of dataclass ``cls``; ``defaults`` maps a name (e.g. a recipe's) to an
    instance whose values the help quotes. Absent options stay out of the parsed namespace."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if OPTION not in f.metadata:
            continue
        meta = dict(f.metadata[OPTION])
        values = sorted({f"{name}: {_shown(getattr(obj, f.name))}" for name, obj in defaults.items()})
        kw: dict[str, Any] = {
            "dest": f.name,
            "default": argparse.SUPPRESS,
            "help": meta["help"] + (f" ({'; '.join(values)})" if values else ""),
        }
        kind = hints[f.name]
        args = typing.get_args(kind)
        base = next((a for a in args if a is not type(None)), kind) if type(None) in args else kind
        origin = typing.get_origin(base)
        if base is bool:
            kw["action"] = argparse.BooleanOptionalAction
        elif origin is dict:
            kw.update(action="append", type=_weights, metavar="NAME=WEIGHT")
        elif origin is list and meta.get("append"):
            kw["action"] = "append"
        elif origin is list:
            kw["nargs"] = "*"
        else:
            kw["type"] = base
        for key in ("choices", "metavar"):
            if key in meta:
                kw[key] = meta[key]
        parser.add_argument(_flag(f), **kw)


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}={v:g}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return " ".join(map(str, value)) or "none"
    return str(value)


def given(namespace: argparse.Namespace, *classes: type) -> dict[str, Any]:
    """The settings the user gave on the command line, by field name (a dict option's pairs as a dict)."""
    names = {f.name for cls in classes for f in dataclasses.fields(cls) if OPTION in f.metadata}
    out = {k: v for k, v in vars(namespace).items() if k in names}
    return {k: dict(v) if isinstance(v, list) and v and isinstance(v[0], tuple) else v for k, v in out.items()}


def check_types(cls: type, values: dict[str, Any], where: str) -> None:
    """Refuse a value whose JSON type does not fit its field's annotation (a recipe file's ``"epochs": "five"``),
    naming the file and the setting, before any of it is used."""
    hints = typing.get_type_hints(cls)
    for name, value in values.items():
        if name in hints and not _fits(value, hints[name]):
            raise EdgeRankerError(f"{where}: {name} must be {_describe(hints[name])}, not {value!r}")


def _fits(value: Any, kind: Any) -> bool:
    args = typing.get_args(kind)
    if type(None) in args:
        return value is None or _fits(value, next(a for a in args if a is not type(None)))
    origin = typing.get_origin(kind)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(_fits(k, args[0]) and _fits(v, args[1]) for k, v in value.items())
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind) if isinstance(kind, type) else True


def _describe(kind: Any) -> str:
    """``dict[str, float]`` in full: an element of the wrong type is as wrong as the container."""
    if typing.get_origin(kind) is not None:
        return str(kind).replace("typing.", "")
    return getattr(kind, "__name__", None) or str(kind).replace("typing.", "")
