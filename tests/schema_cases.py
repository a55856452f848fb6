"""Documents valid by construction from a project schema, and single known mutations of them (hypothesis).

The strategies are derived from the JSON Schema files under schemas/ (required properties, enums,
consts, bounds, lengths, patterns, formats), not from the code under test, so a test knows each
verdict in advance: a case without a mutation must be accepted, a mutated one rejected at
``case.path``. ``reference`` (python-jsonschema, draft 2020-12, formats asserted) is a second,
independent oracle that a test checks both labels against. A keyword this module does not know
raises ``Unsupported``, so a schema that grows a construct cannot make the cases silently wrong.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.conftest import ROOT

Location = tuple[str | int, ...]

# What a schema string may hold: no lone surrogates (they are not UTF-8) and no NUL (the one
# character a pattern here refuses; the "range" mutation inserts it on purpose).
CHARS = st.characters(exclude_categories=["Cs"], exclude_characters="\x00")
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(CHARS, max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(CHARS, max_size=8), inner, max_size=3),
    max_leaves=6,
)
_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default"}
_KNOWN = _ANNOTATIONS | {
    "$ref", "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems",
    "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
}  # fmt: skip
# One value of each JSON type, for the "retype" mutation (the first the node's types refuse is used).
_SAMPLES: tuple[Any, ...] = (None, True, 7, 1.5, "x", [], {})
# RFC 3339 near misses: an impossible day, an impossible hour, a space for T, a date, a word, no offset.
_BAD_DATE_TIMES = (
    "2026-02-30T00:00:00Z", "2026-11-22T25:00:00Z", "2026-11-22 00:00:00Z", "2026-11-22", "yesterday",
    "2026-11-22T00:00:00",
)  # fmt: skip
_ZONES = (dt.UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(-dt.timedelta(hours=8)))
# Characters inserted to break a pattern (checked against the pattern before use).
_PATTERN_BREAKERS = ("\x00", "A", "0", "-", " ", "é")


class Unsupported(Exception):
    """A schema construct these strategies do not derive instances of."""


@dataclass(frozen=True)
class Case:
    """A document and what was done to it: no ``mutation`` means valid by construction; otherwise the
    mutation's name and the location a verdict must name."""

    data: Any
    mutation: str | None = None
    path: Location = ()

    @property
    def valid(self) -> bool:
        return self.mutation is None


@dataclass(frozen=True, eq=False)  # hashed by identity: load_file hands out one object per file
class Schema:
    """One schema file of the project; its folder resolves cross-file references."""

    folder: Path
    name: str
    document: Mapping[str, Any]

    def resolve(self, node: Mapping[str, Any]) -> tuple[Schema, Mapping[str, Any]]:
        """The schema and node a ``$ref`` leads to (the node itself when it has none)."""
        schema = self
        while "$ref" in node:
            if set(node) - _ANNOTATIONS - {"$ref"}:
                raise Unsupported(f"{schema.name}: $ref beside other keywords")
            target, _, fragment = str(node["$ref"]).partition("#")
            if target:
                schema = load_file(schema.folder / target)
            node = schema.document
            for part in filter(None, fragment.split("/")):
                node = node[part]
        unknown = set(node) - _KNOWN
        if unknown:
            raise Unsupported(f"{schema.name}: {sorted(unknown)}")
        return schema, node


@cache
def load_file(path: Path) -> Schema:
    """A schema file, read once."""
    return Schema(path.parent, path.name, json.loads(path.read_text(encoding="utf-8")))


def load(domain: str, name: str) -> Schema:
    """``schemas/<domain>/<name>.schema.json``."""
    return load_file(ROOT / "schemas" / domain / f"{name}.schema.json")


@cache
def reference(schema: Schema) -> Draft202012Validator:
    """python-jsonschema's draft 2020-12 verdict on ``schema``, formats asserted, sibling files resolvable."""
    resources = [
        (path.name, Resource.from_contents(json.loads(path.read_text(encoding="utf-8")), DRAFT202012))
        for path in sorted(schema.folder.glob("*.schema.json"))
    ]
    return Draft202012Validator(
        {"$ref": schema.name},
        registry=Registry().with_resources(resources),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def _types(node: Mapping[str, Any]) -> set[str]:
    """The JSON types a node admits (from "type", else from its const or enum values)."""
    if "type" in node:
        return {node["type"]} if isinstance(node["type"], str) else set(node["type"])
    if "const" in node:
        return {_type_of(node["const"])}
    if "enum" in node:
        return {_type_of(value) for value in node["enum"]}
    return {"null", "boolean", "number", "string", "array", "object"}


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}[type(value)]


def _accepts(types: set[str], value: Any) -> bool:
    kind = _type_of(value)
    return kind in types or (kind == "integer" and "number" in types)


def date_times() -> st.SearchStrategy[str]:
    """RFC 3339 date-times: any instant in years 1-9999, with Z or a numeric offset, micro-seconds or none."""
    moments = st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30),
                           timezones=st.sampled_from(_ZONES))  # fmt: skip
    return moments.map(lambda moment: moment.isoformat().replace("+00:00", "Z"))


def instances(schema: Schema, node: Mapping[str, Any] | None = None) -> st.SearchStrategy[Any]:
    """Values valid against ``node`` (the whole schema by default), derived from its keywords."""
    schema, node = schema.resolve(schema.document if node is None else node)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    return st.one_of([_of_type(schema, node, kind) for kind in sorted(_types(node))])


def _of_type(schema: Schema, node: Mapping[str, Any], kind: str) -> st.SearchStrategy[Any]:
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        low, high = node.get("minLength", 0), node.get("maxLength", node.get("minLength", 0) + 16)
        if node.get("format") == "date-time":
            return date_times()
        if "format" in node:
            raise Unsupported(f"{schema.name}: format {node['format']}")
        if "pattern" in node:
            matching = st.from_regex(node["pattern"], fullmatch=True, alphabet=CHARS)
            return matching.filter(lambda text: low <= len(text) <= high)
        return st.text(CHARS, min_size=low, max_size=high)
    if kind in ("number", "integer"):
        return _numbers(node, integral=kind == "integer")
    if kind == "array":
        least = node.get("minItems", 0)
        return st.lists(instances(schema, node.get("items", {})), min_size=least, max_size=least + 3)
    if kind == "object":
        return _objects(schema, node)
    raise Unsupported(f"{schema.name}: type {kind}")


def _numbers(node: Mapping[str, Any], integral: bool) -> st.SearchStrategy[Any]:
    low = node.get("minimum", node.get("exclusiveMinimum", -(2**53)))
    high = node.get("maximum", node.get("exclusiveMaximum", 2**53))
    above, below = "exclusiveMinimum" in node, "exclusiveMaximum" in node
    whole = st.integers(
        math.floor(low) + 1 if above else math.ceil(low), math.ceil(high) - 1 if below else math.floor(high)
    )
    if integral:
        return whole
    return whole | st.floats(low, high, exclude_min=above, exclude_max=below, allow_nan=False, allow_infinity=False)


def _objects(schema: Schema, node: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties: Mapping[str, Any] = node.get("properties", {})
    extra = node.get("additionalProperties", True)
    if not properties:
        if extra not in (True, {}):
            raise Unsupported(f"{schema.name}: an object with only additionalProperties {extra!r}")
        return st.dictionaries(st.text(CHARS, max_size=8), JSON_VALUES, max_size=3)  # free-form data
    if extra is not False:
        raise Unsupported(f"{schema.name}: properties beside additionalProperties {extra!r}")
    required = node.get("required", [])
    if set(required) - set(properties):
        raise Unsupported(f"{schema.name}: a required key without a property schema")
    return st.fixed_dictionaries(
        {key: instances(schema, properties[key]) for key in required},
        optional={key: instances(schema, sub) for key, sub in properties.items() if key not in required},
    )


@dataclass(frozen=True)
class _Slot:
    """A value in a document whose schema node is known: where it is and what it must be."""

    schema: Schema
    node: Mapping[str, Any]
    path: Location


def _slots(schema: Schema, node: Mapping[str, Any], value: Any, path: Location) -> list[_Slot]:
    schema, node = schema.resolve(node)
    found = [_Slot(schema, node, path)]
    if isinstance(value, dict) and "properties" in node:
        for key, sub in value.items():
            if key in node["properties"]:
                found += _slots(schema, node["properties"][key], sub, (*path, key))
    elif isinstance(value, list) and "items" in node:
        for index, sub in enumerate(value):
            found += _slots(schema, node["items"], sub, (*path, index))
    return found


def _out_of_range(node: Mapping[str, Any]) -> list[st.SearchStrategy[Any]]:
    """Values of the node's own type that break one of its other keywords."""
    options: list[st.SearchStrategy[Any]] = []
    if "enum" in node or "const" in node:
        allowed = node.get("enum", [node.get("const")])
        options.append(st.text(CHARS, max_size=12).filter(lambda text: text not in allowed))
    if node.get("minLength", 0) > 0:
        options.append(st.text(CHARS, max_size=node["minLength"] - 1))
    if "pattern" in node:
        pattern = node["pattern"]
        spliced = st.builds(_broken, st.just(pattern), st.from_regex(pattern, fullmatch=True, alphabet=CHARS),
                            st.integers(0, 40), st.integers(0, len(_PATTERN_BREAKERS) - 1))  # fmt: skip
        options.append(spliced.filter(lambda text: text is not None))
    if node.get("format") == "date-time":
        options.append(st.sampled_from(_BAD_DATE_TIMES))
    if "exclusiveMinimum" in node:
        options.append(st.sampled_from([node["exclusiveMinimum"], node["exclusiveMinimum"] - 1]))
    if "minimum" in node:
        options.append(st.just(node["minimum"] - 1))
    if "maximum" in node:
        options.append(st.sampled_from([node["maximum"] + 1, node["maximum"] * 2]))
    if "exclusiveMaximum" in node:
        options.append(st.just(node["exclusiveMaximum"]))
    if node.get("minItems", 0) > 0:
        options.append(st.just([]))
    return options


def _broken(pattern: str, text: str, at: int, first: int) -> str | None:
    """``text`` with one breaker spliced in at ``at``: the first, from ``first`` on, that the pattern refuses."""
    for breaker in _PATTERN_BREAKERS[first:] + _PATTERN_BREAKERS[:first]:
        candidate = text[:at] + breaker + text[at:]
        if re.search(pattern, candidate) is None:
            return candidate
    return None


def _parent(data: Any, path: Location) -> Any:
    for part in path[:-1]:
        data = data[part]
    return data


Refine = Callable[[Any], Any]


@st.composite
def mutated(
    draw: st.DrawFn, schema: Schema, fixed: Mapping[str, Any] | None = None, refine: Refine | None = None
) -> Case:
    """A valid document with exactly one schema violation: a required key dropped ("drop"), a key
    added where additionalProperties is false ("extra"), a value of a type the node refuses
    ("retype") or of its type but out of its enum, length, pattern, format or bounds ("range")."""
    data = draw(valid(schema, fixed, refine))
    choices: list[tuple[str, _Slot]] = []
    for slot in _slots(schema, schema.document, data, ()):
        if isinstance(_value_at(data, slot.path), dict) and "properties" in slot.node:
            choices += [("drop", _Slot(slot.schema, slot.node, (*slot.path, key)))
                        for key in slot.node.get("required", []) if key in _value_at(data, slot.path)]  # fmt: skip
            if slot.node.get("additionalProperties") is False:
                choices.append(("extra", slot))
        if slot.path:  # the root stays an object: a test adds its own damage to the whole document
            if any(not _accepts(_types(slot.node), sample) for sample in _SAMPLES):
                choices.append(("retype", slot))
            if _out_of_range(slot.node):
                choices.append(("range", slot))
    # The kind first, then where: each kind is as likely as the others however many slots it has.
    how = draw(st.sampled_from(sorted({kind for kind, _ in choices})))
    slot = draw(st.sampled_from([where for kind, where in choices if kind == how]))
    if how == "extra":
        at = _value_at(data, slot.path)
        key = draw(st.text(CHARS, min_size=1, max_size=8).filter(lambda k: k not in slot.node["properties"]))
        at[key] = draw(JSON_VALUES)
        return Case(data, how, (*slot.path, key))
    parent = _parent(data, slot.path)
    if how == "drop":
        del parent[slot.path[-1]]
    elif how == "retype":
        parent[slot.path[-1]] = draw(st.sampled_from([s for s in _SAMPLES if not _accepts(_types(slot.node), s)]))
    else:
        parent[slot.path[-1]] = draw(st.one_of(_out_of_range(slot.node)))
    return Case(data, how, slot.path)


def _value_at(data: Any, path: Location) -> Any:
    for part in path:
        data = data[part]
    return data


def valid(
    schema: Schema, fixed: Mapping[str, Any] | None = None, refine: Refine | None = None
) -> st.SearchStrategy[Any]:
    """Valid documents. ``fixed`` pins top-level values a test needs exactly; ``refine`` applies a
    domain rule the schema cannot state (both must keep the document valid)."""
    pinned = instances(schema).map(lambda data: {**data, **(fixed or {})})
    return pinned.map(refine) if refine else pinned


def cases(
    schema: Schema, fixed: Mapping[str, Any] | None = None, refine: Refine | None = None
) -> st.SearchStrategy[Case]:
    """Valid documents and single-mutation ones, about half each."""
    return st.one_of(valid(schema, fixed, refine).map(Case), mutated(schema, fixed, refine))


# Characters YAML 1.2 does not allow raw (DEL, C1 controls, non-characters, a BOM) or that rcs
# refuses raw (NEL, U+2028, U+2029: line breaks to PyYAML); written as \u escapes, all in the BMP.
_YAML_ESCAPED = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def yaml_scalar(value: Any) -> str:
    """A JSON value as YAML 1.2 flow text (JSON is YAML 1.2). Characters outside the BMP are written
    raw, not as a \\u surrogate pair: safeio.yaml_data reads such a pair as two lone surrogates."""
    text = json.dumps(value, ensure_ascii=False)
    return _YAML_ESCAPED.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def yaml_text(value: Any, block: bool) -> str:
    """A JSON value as a YAML document: one flow line, or block mappings and lists around flow leaves."""
    return ("\n".join(_block(value, 0)) if block else yaml_scalar(value)) + "\n"


def _block(value: Any, indent: int) -> list[str]:
    pad = "  " * indent
    if isinstance(value, dict) and value:
        lines = []
        for key, sub in value.items():
            if isinstance(sub, dict | list) and sub:
                lines += [f"{pad}{yaml_scalar(key)}:", *_block(sub, indent + 1)]
            else:
                lines.append(f"{pad}{yaml_scalar(key)}: {yaml_scalar(sub)}")
        return lines
    if isinstance(value, list) and value:
        return [f"{pad}- {yaml_scalar(item)}" for item in value]
    return [pad + yaml_scalar(value)]
