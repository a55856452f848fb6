"""Draft 2020-12's keywords, and where a schema holds other schemas.

The walk follows only the keywords that take schemas (applicators, ``$defs``, ``contentSchema``),
so the values of ``const``, ``enum``, ``default`` and ``examples`` are never read as schemas.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rcs_contracts.codegen.positions import escape

# Keywords that take a map of name -> schema, a list of schemas, or one schema.
SCHEMA_MAPS = ("$defs", "properties", "patternProperties", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_ONE = (
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
)

# Every keyword of the seven vocabularies of draft 2020-12 (core, applicator, unevaluated,
# validation, format-annotation, content, meta-data).
KNOWN = frozenset(
    {
        "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
        *SCHEMA_MAPS, *SCHEMA_LISTS, *SCHEMA_ONE,
        "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
        "maxProperties", "minProperties", "required", "dependentRequired",
        "format", "contentEncoding", "contentMediaType",
        "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    }
)  # fmt: skip

# Keywords of earlier drafts that 2020-12 ignores: a schema using one most likely means the old rule.
REPLACED = {
    "definitions": "$defs",
    "dependencies": "dependentRequired or dependentSchemas",
    "additionalItems": "items (with prefixItems)",
    "$recursiveRef": "$dynamicRef",
    "$recursiveAnchor": "$dynamicAnchor",
}


DATA = ("const", "enum", "default", "examples")  # keywords whose values are instances, not schemas


def objects(schema: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside ``schema`` outside the data keywords (unknown keywords included)."""
    stack = [schema]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            yield current
            stack.extend(v for k, v in current.items() if k not in DATA)
        elif isinstance(current, list):
            stack.extend(current)


def children(schema: Any, ptr: str) -> Iterator[tuple[str, Any]]:
    """The schemas directly inside ``schema`` (one level), with their pointers."""
    if not isinstance(schema, dict):
        return
    for key in SCHEMA_MAPS:
        members = schema.get(key)
        if isinstance(members, dict):
            for name, sub in members.items():
                yield f"{ptr}/{escape(key)}/{escape(name)}", sub
    for key in SCHEMA_LISTS:
        members = schema.get(key)
        if isinstance(members, list):
            for index, sub in enumerate(members):
                yield f"{ptr}/{key}/{index}", sub
    for key in SCHEMA_ONE:
        if key in schema:
            yield f"{ptr}/{key}", schema[key]


def subschemas(schema: Any, ptr: str = "") -> Iterator[tuple[str, Any]]:
    """Every schema inside ``schema`` (itself included, booleans too) with its JSON pointer."""
    yield ptr, schema
    for child_ptr, child in children(schema, ptr):
        yield from subschemas(child, child_ptr)
