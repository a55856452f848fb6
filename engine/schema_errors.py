"""Turn the engine's schema errors into the domain's contract errors, in document order."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Any, Protocol

from pydantic import MISSING, BaseModel

from rcs_contracts.engine.verdict import SchemaError
from rcs_contracts.generated._support import Location, RcsError


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
        elif hasattr(annotation, "__value__"):  # a type alias
            annotation = annotation.__value__
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None) and a is not MISSING]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def model_at(root: Any, loc: tuple[str | int, ...]) -> Any:
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


def describe(error: SchemaError, factories: SchemaErrorFactories) -> Iterator[RcsError]:
    """The contract errors for one schema error: named properties get their own messages."""
    if error.keyword == "required":
        for name in error.names:
            yield factories.schema_missing_property(name=name, location=(*error.location, name))
    elif error.keyword in ("additionalProperties", "unevaluatedProperties"):
        for name in error.names:
            yield factories.schema_unknown_property(name=name, location=(*error.location, name))
    else:
        yield factories.schema_violation(detail=error.message, location=error.location)


def schema_errors(
    found: list[SchemaError],
    factories: SchemaErrorFactories,
    special: typing.Callable[[SchemaError], tuple[RcsError, Location] | None] | None = None,
) -> Iterator[RcsError]:
    """Map each schema error to contract errors; ``special`` may claim a whole subtree.

    When ``special`` returns ``(error, prefix)``, that error replaces every error under ``prefix``
    (used for URL-only evidence refs, whose contract message replaces the schema noise).
    """
    claims: dict[Location, RcsError] = {}
    if special is not None:
        for error in found:
            claimed = special(error)
            if claimed is not None:
                claims.setdefault(claimed[1], claimed[0])
    emitted: set[Location] = set()
    for error in found:
        prefix = next((p for p in claims if error.location[: len(p)] == p), None)
        if prefix is not None:
            if prefix not in emitted:
                emitted.add(prefix)
                yield claims[prefix]
            continue
        yield from describe(error, factories)
