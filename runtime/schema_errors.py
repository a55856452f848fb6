"""Turn a Pydantic ``ValidationError`` into the domain's contract errors, in document order."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from generated._support import Location, RcsError


class SchemaErrorFactories(Protocol):
    """What a domain's generated errors module offers for parse and schema failures."""

    def json_syntax(self, *, detail: str, location: Location = ()) -> RcsError: ...

    def schema_violation(self, *, detail: str, location: Location = ()) -> RcsError: ...

    def schema_missing_property(self, *, name: str, location: Location = ()) -> RcsError: ...

    def schema_unknown_property(self, *, name: str, location: Location = ()) -> RcsError: ...


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def model_at(root: type[BaseModel], loc: tuple[str | int, ...]) -> Any:
    """The declared type found at ``loc`` below ``root`` (None when the path leaves the models)."""
    current: Any = root
    for part in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            fields = current.model_fields
            name = next((n for n, f in fields.items() if part in (n, f.alias)), None)
            if name is None:
                return None
            current = fields[name].annotation
            continue
        origin = typing.get_origin(current)
        args = typing.get_args(current)
        if origin is list and isinstance(part, int) and args:
            current = args[0]
        elif origin is dict and isinstance(part, str) and len(args) == 2:
            current = args[1]
        else:
            return None
    return _unwrap(current)


def describe(error: ErrorDetails, factories: SchemaErrorFactories) -> RcsError:
    """The contract error for one Pydantic error, in JSON Schema words where they differ."""
    loc: Location = tuple(error["loc"])
    if error["type"] == "missing" and loc:
        return factories.schema_missing_property(name=str(loc[-1]), location=loc)
    if error["type"] == "extra_forbidden" and loc:
        return factories.schema_unknown_property(name=str(loc[-1]), location=loc)
    return factories.schema_violation(detail=str(error["msg"]), location=loc)


def schema_errors(
    exc: ValidationError,
    factories: SchemaErrorFactories,
    special: typing.Callable[[ErrorDetails], tuple[RcsError, Location] | None] | None = None,
) -> Iterator[RcsError]:
    """Map each Pydantic error to a contract error; ``special`` may claim a whole subtree.

    When ``special`` returns ``(error, prefix)``, that error replaces every error under ``prefix``
    (used for URL-only evidence refs, whose contract message replaces the schema noise).
    """
    details = exc.errors(include_url=False, include_context=False)
    claims: dict[Location, RcsError] = {}
    if special is not None:
        for error in details:
            found = special(error)
            if found is not None:
                claims.setdefault(found[1], found[0])
    emitted: set[Location] = set()
    for error in details:
        loc: Location = tuple(error["loc"])
        prefix = next((p for p in claims if loc[: len(p)] == p), None)
        if prefix is not None:
            if prefix not in emitted:
                emitted.add(prefix)
                yield claims[prefix]
            continue
        if error["type"] == "json_invalid":
            # Pydantic's text starts with its own "Invalid JSON: "; the template adds ours.
            message = str(error["msg"])
            yield factories.json_syntax(detail=message.removeprefix("Invalid JSON: "), location=())
            continue
        yield describe(error, factories)
