"""The verdict: draft 2020-12 exactly as jsonschema-rs implements it, over the documents codegen compiled.

``generated/_documents.py`` holds every artifact schema (and configured resource) as JSON text by
URI, and the engine options; this module builds one registry from them (nothing is ever fetched)
and one compiled validator per schema URI, both on first use. ``errors`` turns the engine's
findings into small immutable records in document order; mapping them to a domain's contract
errors is ``runtime/schema_errors.py``'s job.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema_rs

from rcs_contracts.base import formats
from rcs_contracts.engine import project
from rcs_contracts.generated._support import Location

# Messages longer than this show the value as "value" instead of its JSON text (a whole object
# under "not" or "type" would otherwise be printed back in full).
MESSAGE_LIMIT = 200
# The keywords whose error names the properties it did not expect.
_UNEXPECTED = ("additionalProperties", "unevaluatedProperties")


@dataclass(frozen=True)
class SchemaError:
    """One thing the schema rejects: where, which keyword, the engine's message, the names involved.

    ``names`` are the missing property (``required``) or the unexpected ones
    (``additionalProperties``, ``unevaluatedProperties``); ``instance`` is the rejected value.
    """

    location: Location
    keyword: str
    message: str
    names: tuple[str, ...] = ()
    instance: Any = None


def _refuse(uri: str) -> Any:
    # Lint proved every reference resolves inside the compiled documents; nothing is downloaded.
    raise LookupError(f"{uri} is not among the compiled schema documents")


def _documents() -> Any:
    """The compiled documents of the project in use (``<package>._documents``)."""
    return project.module("_documents")


@cache
def _formats() -> dict[str, Callable[[str], bool]]:
    return formats.checks(_documents().FORMAT_SHAPES)


@cache
def _registry() -> jsonschema_rs.Registry:
    documents = _documents().DOCUMENTS
    return jsonschema_rs.Registry([(uri, json.loads(text)) for uri, text in documents.items()], retriever=_refuse)


@cache
def validator(uri: str, masked: bool = False) -> jsonschema_rs.Validator:
    """The compiled validator of the schema document at ``uri`` (with values masked in messages)."""
    documents = _documents()
    return jsonschema_rs.validator_for(
        json.loads(documents.DOCUMENTS[uri]),
        registry=_registry(),
        base_uri=uri,
        retriever=_refuse,
        mask="value" if masked else None,
        formats=_formats(),
        pattern_options=documents.pattern_options(),
        **documents.ENGINE_OPTIONS,
    )


def _forget() -> None:
    # Another project's documents: every cached registry, format check and validator is theirs no more.
    for cached in (_formats, _registry, validator):
        cached.cache_clear()


project.on_change(_forget)


def is_valid(uri: str, value: Any) -> bool:
    """The schema's verdict on ``value`` (a parsed JSON value)."""
    return bool(validator(uri).is_valid(value))


def _order(value: Any, location: Location) -> tuple[int, ...]:
    """Where ``location`` lies in the document: object members in the order they were written."""
    key: list[int] = []
    current = value
    for part in location:
        # mutation: equivalent: the engine's locations index objects with strings only (and arrays
        # with integers), so either test alone decides
        if isinstance(current, dict) and isinstance(part, str):
            if part not in current:
                key.append(len(current))  # a missing property sorts after those present
                break
            key.append(list(current).index(part))
            current = current[part]
        # mutation: equivalent: the engine's locations name only array items that exist; the guards
        # only keep a malformed location from breaking the sort
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            key.append(part)
            current = current[part]
        else:
            break
    return tuple(key)


def _record(error: jsonschema_rs.ValidationError, message: str) -> SchemaError:
    kind = error.kind
    location: Location = tuple(error.instance_path)
    names: tuple[str, ...] = ()
    if kind.name == "required":
        names = (str(kind.as_dict()["property"]),)
    elif kind.name in _UNEXPECTED:
        names = tuple(str(n) for n in kind.as_dict()["unexpected"])
    elif kind.name == "pattern":
        read = str(kind.as_dict()["pattern"])
        message = message.replace(read, _documents().PATTERNS.get(read, read))  # the pattern as written
    return SchemaError(location, kind.name, message, names, error.instance)


def errors(uri: str, value: Any) -> list[SchemaError]:
    """Every error the schema at ``uri`` finds in ``value``, in document order (none when valid)."""
    check = validator(uri)
    if check.is_valid(value):
        return []
    found = list(check.iter_errors(value))
    messages = [e.message for e in found]
    long = [i for i, m in enumerate(messages) if len(m) > MESSAGE_LIMIT]
    if long:
        masked = [e.message for e in validator(uri, masked=True).iter_errors(value)]
        if len(masked) == len(found):
            for i in long:
                messages[i] = masked[i]
    records = [_record(e, messages[i]) for i, e in enumerate(found)]
    return sorted(records, key=lambda r: _order(value, _place(r)))


def _place(record: SchemaError) -> Location:
    """Where an error sorts: a missing property after its object's members, an unexpected one at it."""
    return (*record.location, record.names[0]) if record.names else record.location
