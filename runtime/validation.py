"""Validate one artifact: JSON text -> generated model (strict, R-GEN-3) -> the domain's checks.

Each domain with hand-written rules has a ``runtime.<domain>.checks`` module offering:

* ``ERRORS``: its generated errors module (``json_syntax``, ``schema_violation`` factories);
* ``CHECKS``: kind name -> ``check(model, context)``, a generator of violations in document order;
* ``special_schema_error``: optional hook that turns a schema error into a contract error.

Validators are generators: the Python API raises the first violation, the CLI reports them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, cast

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from generated._support import Kind, Location, RcsError
from runtime.kinds import model_of
from runtime.schema_errors import SchemaErrorFactories, schema_errors


@dataclass(frozen=True)
class Context:
    """What checks may consult besides the artifact: an evidence store and a claim policy."""

    evidence: Any = None
    claim_policy: Any = None


Check = Callable[[BaseModel, Context], Iterator[RcsError]]
Special = Callable[[ErrorDetails], tuple[RcsError, Location] | None]


@dataclass(frozen=True)
class DomainRules:
    """The hand-written rules of one domain (see the module docstring)."""

    errors: SchemaErrorFactories
    checks: Mapping[str, Check]
    special: Callable[[type[BaseModel]], Special | None]


def _no_special(model: type[BaseModel]) -> Special | None:
    return None


@cache
def rules_for(domain: str) -> DomainRules:
    """Load ``runtime.<domain>.checks`` (or only the generated errors when it has none)."""
    try:
        module: ModuleType = importlib.import_module(f"runtime.{domain}.checks")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"runtime.{domain}", f"runtime.{domain}.checks"):
            raise
        errors = importlib.import_module(f"generated.{domain}.errors")
        return DomainRules(cast(SchemaErrorFactories, errors), {}, _no_special)
    return DomainRules(
        cast(SchemaErrorFactories, module.ERRORS),
        module.CHECKS,
        getattr(module, "special_schema_error", _no_special),
    )


def violations(kind: Kind, text: str | bytes, context: Context) -> Iterator[RcsError]:
    """Every violation of ``text`` as an artifact of ``kind``, in document order."""
    rules = rules_for(kind.domain)
    model_cls = model_of(kind)
    try:
        model = model_cls.model_validate_json(text)
    except ValidationError as exc:
        yield from schema_errors(exc, rules.errors, rules.special(model_cls))
        return
    check = rules.checks.get(kind.name)
    if check is not None:
        yield from check(model, context)


def validate(kind: Kind, text: str | bytes, context: Context) -> BaseModel:
    """The validated model of ``text``; raises the first violation."""
    rules = rules_for(kind.domain)
    model_cls = model_of(kind)
    try:
        model = model_cls.model_validate_json(text)
    except ValidationError as exc:
        raise next(schema_errors(exc, rules.errors, rules.special(model_cls))) from None
    check = rules.checks.get(kind.name)
    if check is not None:
        for error in check(model, context):
            raise error
    return model
