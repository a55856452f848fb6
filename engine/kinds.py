"""Artifact kinds (R-GEN-7): find the kind of a file from ``--kind`` or its ``$schema``.

A kind is ``<domain>/<name>`` for ``schemas/<domain>/<name>.schema.json``. The bare ``<name>`` is
accepted when exactly one domain has it. The registry itself is generated (``generated.kinds``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter

from rcs_contracts.engine import project
from rcs_contracts.generated._support import Kind

_SCHEMA_REF = re.compile(r"(?:^|/)([A-Za-z0-9_]+)/([A-Za-z0-9_]+)\.schema\.json$")


class KindError(Exception):
    """A kind could not be determined; ``problem`` is ``unknown`` or ``ambiguous``."""

    def __init__(self, problem: str, kind: str, candidates: tuple[str, ...]) -> None:
        super().__init__(f"{problem} kind {kind!r}")
        self.problem = problem
        self.kind = kind
        self.candidates = candidates


def known_kinds() -> tuple[str, ...]:
    """Every kind the compiler produced, sorted."""
    return tuple(sorted(project.kinds()))


def resolve(kind: str) -> Kind:
    """The Kind named by ``<domain>/<name>`` or an unambiguous bare ``<name>``."""
    known: Mapping[str, Kind] = project.kinds()
    if kind in known:
        return known[kind]
    matches = tuple(k for k, v in sorted(known.items()) if v.name == kind)
    if len(matches) == 1:
        return known[matches[0]]
    raise KindError("ambiguous" if matches else "unknown", kind, matches or known_kinds())


def kind_from_schema_ref(ref: str) -> Kind | None:
    """The kind a ``$schema`` value names, or None when it names none (R-GEN-7)."""
    match = _SCHEMA_REF.search(ref.partition("#")[0])
    if match is None:
        return None
    found: Kind | None = project.kinds().get(f"{match[1]}/{match[2]}")
    return found


@cache
def model_of(kind: Kind) -> Any:
    """The generated model of a kind (imported on first use): a class, or a type alias for a schema
    that is not an object."""
    return getattr(importlib.import_module(kind.module), kind.model)


@cache
def parser_of(kind: Kind) -> Callable[[Any], Any]:
    """A JSON value (as pydantic-core's JSON parser reads it) -> the kind's typed model.

    ``model_validate`` in strict mode, or a strict TypeAdapter for an alias. It equals
    ``model_validate_json`` on the text (R-GEN-3): strict mode treats JSON and Python input alike
    except for date, time, UUID, bytes and Decimal types, which the model view never generates.
    """
    model = model_of(kind)
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model.model_validate
    adapter: TypeAdapter[Any] = TypeAdapter(model, config=ConfigDict(strict=True, allow_inf_nan=False))
    return adapter.validate_python


_UNTYPED = re.compile(r"'type': 'any'|'extra_fields_behavior': 'allow'|'extra_behavior': 'allow'")


@cache
def holds_untyped(kind: Kind) -> bool:
    """Whether the kind's model keeps some value without validating it (an ``Any`` field, extra
    members of an open object, a type alias): there, unlike in typed fields, an infinite float is
    not refused by the model (``runtime/validation.py`` then looks for one itself)."""
    model = model_of(kind)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return True
    return _UNTYPED.search(repr(model.__pydantic_core_schema__)) is not None


@cache
def _by_model() -> dict[tuple[str, str], Kind]:
    return {(k.module, k.model): k for k in project.kinds().values()}


project.on_change(_by_model.cache_clear)


def kind_of_model(model: type[BaseModel]) -> Kind | None:
    """The kind whose top-level model is ``model`` (None for a nested model)."""
    return _by_model().get((model.__module__, model.__name__))
