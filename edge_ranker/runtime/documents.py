"""What ``Ranker.rank`` and the reactions take as a document: a ``Document``, a dict, an ``(id, text)`` pair or a
plain text, each checked once and made a ``Document`` (an id is an identity, refused rather than altered; any text is
accepted)."""

from __future__ import annotations

import json
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from operator import attrgetter
from typing import Any

import numpy as np

from edge_ranker.errors import EdgeRankerError
from edge_ranker.runtime.constants import LAST_SECOND
from edge_ranker.runtime.encoder import clean_text
from edge_ranker.runtime.interests import finite


class Unlearnable(EdgeRankerError):
    """A reaction ``feedback`` refuses because no interest can be learnt from its text: an app shows the message and
    goes on; nothing was stored."""




@dataclass(frozen=True)
class Document:
    """A document to rank: a non-blank string ``id``, its ``text`` (any text; bytes are decoded leniently, None is
    empty) and optionally when it was ``published`` (unix seconds, an ISO-8601 string or a ``datetime``; one
    without a time zone is UTC), which orders a feed before the user has reacted. Frozen: it is checked once, when
    made, so it cannot be changed into one that was not."""

    id: str
    text: str
    published: float | None = None  # unix seconds once made

    def __post_init__(self) -> None:
        # every way in is checked, not only from_dict: an id is an identity (refused, never altered, but for an
        # integer, which is its decimal string, as from_dict reads it), text is made storable (a lone surrogate cannot
        # be written to SQLite)
        object.__setattr__(self, "id", decimal_id(self.id))
        check_id(self.id)
        object.__setattr__(self, "text", clean_text(self.text))
        object.__setattr__(self, "published", _published(self.published, self.id))

    @classmethod
    def from_dict(cls, d: dict) -> Document:
        """A document from JSON-like data: ``id`` (a string, or an integer, kept as its decimal string: ids are
        strings, so ``1`` and ``"1"`` are one document), ``text`` and optional ``published``, as ``Document`` takes
        them."""
        if not isinstance(d, dict) or "id" not in d or "text" not in d:
            raise EdgeRankerError(f"a document needs an 'id' and a 'text', got {str(d)[:80]!r}")
        if not (isinstance(d["id"], str) or integer_id(d["id"])) or d["id"] == "":
            raise EdgeRankerError(f"a document's 'id' must be a non-blank string or an integer, got {d['id']!r}")
        doc_id = decimal_id(d["id"])
        text = d["text"]
        if text is not None and not isinstance(text, (str, bytes, bytearray)):
            raise EdgeRankerError(f"document {doc_id}: 'text' must be a string, got {type(text).__name__}")
        return cls(doc_id, text, d.get("published"))


def documents(docs: Iterable[Document | dict | str | tuple]) -> list[Document]:
    """``docs`` as Documents: each a ``Document``, a dict (``Document.from_dict``), an ``(id, text)`` pair or a plain
    text, whose id is then its position ("0", "1", ...)."""
    if docs is None or isinstance(docs, (str, bytes, dict, Document)) or not isinstance(docs, Iterable):
        raise EdgeRankerError(
            f"docs must be a list of documents (Document, {{'id', 'text'}} dicts, (id, text) pairs or texts), got "
            f"{type(docs).__name__}"
        )
    docs = docs if isinstance(docs, list) else list(docs)  # a generator is read once
    if set(map(type, docs)) <= {Document}:  # the common case, checked without a Python step per document
        return docs
    return [_document(d, i) for i, d in enumerate(docs)]


def _document(doc: object, position: int) -> Document:
    if isinstance(doc, Document):
        return doc
    if isinstance(doc, (str, bytes)):
        return Document(str(position), doc)
    if isinstance(doc, tuple) and len(doc) == 2:
        return Document.from_dict({"id": doc[0], "text": doc[1]})
    if isinstance(doc, dict):
        return Document.from_dict(doc)
    raise EdgeRankerError(
        f"document {position} must be a Document, an {{'id', 'text'}} dict, an (id, text) pair or a text, got "
        f"{type(doc).__name__}"
    )


def one_pair(docs: object) -> bool:
    """Whether ``docs`` is one ``(id, text)`` document, a tuple of an id and a text, rather than a sequence of two
    texts: what a call taking a list of documents refuses where a call taking one document takes it."""
    return (
        isinstance(docs, tuple)
        and len(docs) == 2
        and isinstance(docs[1], (str, bytes))
        and (isinstance(docs[0], (str, bytes)) or integer_id(docs[0]))
    )


def integer_id(value: object) -> bool:
    """Whether ``value`` is an integer, numpy's included (ids often come from a numpy or pandas column), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def decimal_id(doc_id: Any) -> Any:
    """An integer id as the string it stands for (one past Python's digit limit for ``str`` refused in words); any
    other id as it is, for its checks to take or refuse."""
    if not integer_id(doc_id):
        return doc_id
    doc_id = int(doc_id)
    try:
        return str(doc_id)
    except ValueError as exc:
        raise EdgeRankerError(f"a document id must be a string or an integer of at most 4,300 digits: {exc}") from exc


def _published(value: object, doc_id: str) -> float | None:
    """A publication time as unix seconds: from seconds, an ISO-8601 string or a ``datetime`` (UTC when it names no
    time zone, so that an order does not depend on the machine's); refused when not finite or after the year 9999."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise EdgeRankerError(f"document {doc_id}: 'published' is not ISO-8601: {value!r}") from exc
    if isinstance(value, datetime):
        value = (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).timestamp()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not finite(value):
        raise EdgeRankerError(f"document {doc_id}: 'published' must be unix seconds, ISO-8601 or a datetime")
    if value > LAST_SECOND:  # would sort first in every cold start, for ever
        raise EdgeRankerError(
            f"document {doc_id}: 'published' {value!r} lies after the year 9999: unix seconds, not milliseconds?"
        )
    return float(value)


def reacted(doc: object) -> Document:
    """The document of a reaction: a ``Document``, a dict or an ``(id, text)`` pair, as ``rank`` takes one. A plain
    text is refused, since an id given where a document belongs (``like(result.id)``) would be learnt as a text."""
    if isinstance(doc, (str, bytes)):
        raise EdgeRankerError(
            "a reaction needs the document, with its id: {'id': ..., 'text': ...}, an (id, text) pair or a Document, "
            "not a plain text"
        )
    return documents([doc])[0]


def unique_ids(docs: list[Document]) -> list[str]:
    """The documents' ids, refused where one appears twice: two documents of one id could not be told apart."""
    ids = list(map(attrgetter("id"), docs))
    if len(set(ids)) != len(ids):
        seen: dict[str, int] = {}
        for i, d in enumerate(ids):
            if seen.setdefault(d, i) != i:
                shown = json.dumps(d, ensure_ascii=False)  # in the JVM core's and web/'s words (spec/cases/checks)
                raise EdgeRankerError(f"document id {shown} appears twice (positions {seen[d] + 1} and {i + 1})")
    return ids


def check_id(doc_id: object, blank_ok: bool = False) -> None:
    """A document id is an identity: a string of valid Unicode, not empty nor (``blank_ok`` aside, which lets an
    id stored before this check be forgotten) blank, refused (never altered) otherwise."""
    if not isinstance(doc_id, str) or not doc_id or (not blank_ok and not doc_id.strip()):
        raise EdgeRankerError(f"a document id must be a non-blank string, got {doc_id!r}")
    try:
        doc_id.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EdgeRankerError(f"document id {doc_id!r} is not valid Unicode (a lone surrogate?)") from exc
