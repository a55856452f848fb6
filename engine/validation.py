"""Validate one artifact: JSON text -> the schema's verdict -> the typed model -> the domain's checks.

1. the text is read as JSON (``runtime/json_text.py``); a syntax error is the domain's JSON_SYNTAX;
2. the JSON Schema engine (``runtime/engine.py``) decides, exactly as draft 2020-12 says; its
   errors become the domain's schema errors (``runtime/schema_errors.py``);
3. only then is the value turned into the generated model (strict; R-GEN-3: the value is what
   ``model_validate_json`` would read, see ``engine.kinds.parser_of``), which is generated from a
   view of the schema that can only be looser (``codegen/view.py``): it cannot reject what the
   schema accepted, and if it ever did, that is an rcs bug, raised as ``ModelDisagreement``;
4. the domain's own rules run on the model.

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

from rcs_contracts.engine import json_text, project, verdict
from rcs_contracts.engine.kinds import holds_untyped, model_of, parser_of
from rcs_contracts.engine.schema_errors import SchemaErrorFactories, schema_errors
from rcs_contracts.generated._support import Kind, Location, RcsError, format_location
from rcs_contracts.generated.cli import messages as M


@dataclass(frozen=True)
class Context:
    """What checks may consult besides the artifact: an evidence store and a claim policy."""

    evidence: Any = None
    claim_policy: Any = None


Check = Callable[[BaseModel, Context], Iterator[RcsError]]
Special = Callable[[verdict.SchemaError], tuple[RcsError, Location] | None]


class ModelDisagreement(RuntimeError):
    """The generated model rejected an artifact its schema accepts: a bug in rcs, never a verdict."""


@dataclass(frozen=True)
class DomainRules:
    """The hand-written rules of one domain (see the module docstring)."""

    errors: SchemaErrorFactories
    checks: Mapping[str, Check]
    special: Callable[[Any], Special | None]


def _no_special(model: Any) -> Special | None:
    return None


def _default_errors() -> ModuleType:
    from rcs_contracts.generated.cli import messages

    return importlib.import_module(f"rcs_contracts.generated.{messages.DEFAULT_DOMAIN}.errors")


@cache
def rules_for(domain: str) -> DomainRules:
    """Load ``runtime.<domain>.checks`` (or only the generated errors when it has none).

    A domain compiled without an errors table reports in the default domain's error classes. A
    user project's domains (engine/project.py) have no hand-written rules, even when one shares a
    name with one of rcs's.
    """
    try:
        if not project.is_rcs():
            raise ModuleNotFoundError(name=f"rcs_contracts.runtime.{domain}")
        module: ModuleType = importlib.import_module(f"rcs_contracts.runtime.{domain}.checks")
    except ModuleNotFoundError as exc:
        if exc.name not in (f"rcs_contracts.runtime.{domain}", f"rcs_contracts.runtime.{domain}.checks"):
            raise
        name = f"{project.package()}.{domain}.errors"
        try:
            errors = importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name != name:
                raise
            errors = _default_errors()
        return DomainRules(cast(SchemaErrorFactories, errors), {}, _no_special)
    return DomainRules(
        cast(SchemaErrorFactories, module.ERRORS),
        module.CHECKS,
        getattr(module, "special_schema_error", _no_special),
    )


project.on_change(rules_for.cache_clear)


def _model(kind: Kind, value: Any) -> Any:
    """The typed model of a value the schema accepted."""
    try:
        return parser_of(kind)(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = format_location(data_path(value, first["loc"]))
        raise ModelDisagreement(M.model_disagreement(kind=kind.kind, detail=str(first["msg"]), where=where)) from None


def data_path(value: Any, loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """The part of a pydantic error location that indexes the data: the names pydantic gives union
    branches and validators (``int``, ``dict[str,...]``, ``function-after[...]``) are not in it."""
    path: list[str | int] = []
    for part in loc:
        in_object = isinstance(value, dict) and isinstance(part, str) and part in value
        in_array = isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value)
        if in_object or in_array:
            value = value[part]
            path.append(part)
    return tuple(path)


def _schema_stage(kind: Kind, text: str | bytes, rules: DomainRules) -> tuple[list[RcsError], Any]:
    """Steps 1-3: the syntax and schema errors, or none and the typed model.

    An overflowing number (``1e400``) is read as infinity, which the engine sees as null. It is a
    syntax error (I-JSON), looked for only where it could change the outcome: when the engine
    rejects the text, when the model rejects it, or when the kind's model holds values it does not
    type (``holds_untyped``), where an infinity could pass unseen. A fully typed model rejects every
    infinity itself (``allow_inf_nan=False``), so valid texts of such kinds skip the byte scan.
    """
    overflow = [rules.errors.json_syntax(detail=json_text.OVERFLOW, location=())]
    try:
        value = json_text.read(text)
    except json_text.JsonTextError as exc:
        return [rules.errors.json_syntax(detail=str(exc), location=())], None
    found = verdict.errors(kind.uri, value)
    if found:
        if json_text.overflows(text, value):
            return overflow, None
        return list(schema_errors(found, rules.errors, rules.special(model_of(kind)))), None
    if holds_untyped(kind) and json_text.overflows(text, value):
        return overflow, None
    try:
        return [], _model(kind, value)
    except ModelDisagreement:
        if json_text.overflows(text, value):
            return overflow, None
        raise


def schema_verdict(kind: Kind, text: str | bytes) -> list[RcsError]:
    """The schema-level verdict (steps 1-3): the syntax or schema errors of ``text``; none when valid.

    When the schema accepts the text, its typed model is built too (a model that disagreed would
    raise ``ModelDisagreement``), but the domain's own rules are not run.
    """
    errors, _ = _schema_stage(kind, text, rules_for(kind.domain))
    return errors


def violations(kind: Kind, text: str | bytes, context: Context) -> Iterator[RcsError]:
    """Every violation of ``text`` as an artifact of ``kind``, in document order."""
    rules = rules_for(kind.domain)
    errors, model = _schema_stage(kind, text, rules)
    yield from errors
    check = rules.checks.get(kind.name)
    if not errors and check is not None:
        yield from check(model, context)


def validate(kind: Kind, text: str | bytes, context: Context) -> Any:
    """The validated model of ``text``; raises the first violation."""
    rules = rules_for(kind.domain)
    errors, model = _schema_stage(kind, text, rules)
    if errors:
        raise errors[0]
    check = rules.checks.get(kind.name)
    if check is not None:
        for error in check(model, context):
            raise error
    return model
