"""Artifact kinds (R-GEN-7): find the kind of a file from ``--kind`` or its ``$schema``.

A kind is ``<domain>/<name>`` for ``schemas/<domain>/<name>.schema.json``. The bare ``<name>`` is
accepted when exactly one domain has it. The registry itself is generated (``generated.kinds``).
"""

from __future__ import annotations

import importlib
import re
from functools import cache

from pydantic import BaseModel

from generated._support import Kind
from generated.kinds import KINDS

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
    return tuple(sorted(KINDS))


def resolve(kind: str) -> Kind:
    """The Kind named by ``<domain>/<name>`` or an unambiguous bare ``<name>``."""
    if kind in KINDS:
        return KINDS[kind]
    matches = tuple(k for k, v in sorted(KINDS.items()) if v.name == kind)
    if len(matches) == 1:
        return KINDS[matches[0]]
    raise KindError("ambiguous" if matches else "unknown", kind, matches or known_kinds())


def kind_from_schema_ref(ref: str) -> Kind | None:
    """The kind a ``$schema`` value names, or None when it names none (R-GEN-7)."""
    match = _SCHEMA_REF.search(ref.split("#", 1)[0])
    if match is None:
        return None
    return KINDS.get(f"{match[1]}/{match[2]}")


@cache
def model_of(kind: Kind) -> type[BaseModel]:
    """The generated model class of a kind (imported on first use)."""
    model: type[BaseModel] = getattr(importlib.import_module(kind.module), kind.model)
    return model
