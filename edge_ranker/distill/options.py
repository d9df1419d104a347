"""Command-line options generated from the settings' own declarations: each field of ``Recipe`` and
``TrainConfig`` that carries help metadata (``setting``) becomes one ``distill`` option, so a setting is declared
once. This module imports no training dependency: ``edge-ranker --help`` works on the base install."""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any

OPTION = "option"  # the metadata key a field's command-line description lives under


def setting(default: Any = dataclasses.MISSING, *, help: str, factory: Any = None, **cli: Any) -> Any:
    """A dataclass field that is also a ``distill`` option: ``help`` says what it sets; ``cli`` may give
    ``choices``, ``flag`` (the option's name, when not the field's), ``metavar`` or ``append`` (a list option
    given once per value)."""
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
    if not sep or not name or weight is None or weight < 0:
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
        elif origin is list:
            kw.update(action="append") if meta.get("append") else kw.update(nargs="*")
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
