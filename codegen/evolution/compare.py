"""Compare two versions of one schema file, keyword by keyword, and claim whom each change breaks.

A change is *backward-incompatible* when some instance valid before is invalid now (consumers that
upgrade first reject old data), *forward-incompatible* when some instance valid now was invalid
before (old consumers reject new producers' data), and compatible when neither can happen. The
claims here are the rules' (SPEC.md 2.7): a raised ``minimum`` is backward, an added enum value
forward, an annotation neither. Where the rules cannot tell (a changed ``pattern``, a branch of a
``oneOf``, anything under ``if``), both directions are claimed and the witness search
(``witness.py``) says which hold. Order that has no meaning (``enum``, ``required``, ``type``,
object keys) is compared as sets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rcs_contracts.codegen.keywords import subschemas
from rcs_contracts.codegen.positions import escape

BACKWARD = "backward"
FORWARD = "forward"
BOTH = frozenset({BACKWARD, FORWARD})
NONE: frozenset[str] = frozenset()

# Keywords that never change which instances are valid (draft 2020-12's meta-data and content
# vocabularies are annotations; identifiers are compared through the references that use them).
ANNOTATIONS = frozenset(
    {
        "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment",
        "contentEncoding", "contentMediaType", "contentSchema", "$schema", "$id", "$anchor",
        "$dynamicAnchor", "$vocabulary",
    }
)  # fmt: skip
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_SAMPLES: dict[str, tuple[Any, ...]] = {
    "null": (None,),
    "boolean": (False, True),
    "integer": (0, 1, -1),
    "number": (0.5, 0, -1.5),
    "string": ("", "a"),
    "array": ([],),
    "object": ({},),
}
_TYPES = tuple(_SAMPLES)


@dataclass(frozen=True)
class Change:
    """One difference between the two versions of a schema file.

    ``pointer`` locates it in ``file`` (the new version's file when both have it); ``node`` is the
    deepest schema both versions have that holds it: a witness is an instance at a place where
    ``node`` applies. ``claims`` are the directions the rules say it breaks (empty: compatible);
    ``hints`` are values of ``node`` likely to tell the versions apart, by the direction they prove;
    ``steer`` is a schema the node's values are drawn under first, so that draws reach what changed
    (``{"required": ["p"]}`` for a property ``p`` added to an open object, which blind draws of the
    object almost never hold).
    """

    file: str
    pointer: str
    node: str
    keyword: str
    claims: frozenset[str]
    summary: str
    hints: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    steer: Mapping[str, Any] | None = field(default=None, compare=False)


def text(value: Any) -> str:
    """A value as it reads in a message: its JSON text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _types(schema: dict[str, Any]) -> frozenset[str] | None:
    found = schema.get("type")
    if found is None:
        return None
    return frozenset([found] if isinstance(found, str) else found)


def _covered(kind: str, types: frozenset[str] | None) -> bool:
    """Whether every value of JSON type ``kind`` is of one of ``types`` (None: any type)."""
    return types is None or kind in types or (kind == "integer" and "number" in types)


def _flip(claims: frozenset[str]) -> frozenset[str]:
    return frozenset({BACKWARD: FORWARD, FORWARD: BACKWARD}[c] for c in claims)


def _as_dict(schema: Any) -> dict[str, Any]:
    return {} if schema is True else schema if isinstance(schema, dict) else {"not": {}}


def _trivial(schema: Any) -> bool:
    """A schema every instance satisfies as written (``true`` or ``{}`` up to annotations)."""
    return schema is True or (isinstance(schema, dict) and all(k in ANNOTATIONS for k in schema))


def _number(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


# The largest hint values: a string is one value to the witness's shrinker, a long array or object
# is one member per try, so members stay few.
HINT_MAX_LENGTH = 1 << 16
HINT_MAX_MEMBERS = 256


def _bound_hints(keyword: str, old: Fraction, new: Fraction) -> tuple[tuple[str, Any], ...]:
    """Values at and beside both bounds of a moved bound, offered for both directions (candidates
    only: the witness search judges each), so a bound's witness does not wait on random draws."""
    points = sorted(
        {old, new, old - 1, old + 1, new - 1, new + 1, (old + new) / 2, old - Fraction(1, 2), new + Fraction(1, 2)}
    )
    values: list[Any] = []
    for point in points:
        if keyword.endswith(("imum", "Maximum", "Minimum")):
            values.append(int(point) if point.denominator == 1 else float(point))
        elif point >= 0 and point.denominator == 1:
            count = int(point)
            if keyword.endswith("Length") and count <= HINT_MAX_LENGTH:
                values.append("a" * count)
            elif keyword.endswith(("Items", "Contains")) and count <= HINT_MAX_MEMBERS:
                values.append([None] * count)
            elif keyword.endswith("Properties") and count <= HINT_MAX_MEMBERS:
                values.append({f"p{index}": None for index in range(count)})
    return tuple((direction, value) for value in values for direction in (BACKWARD, FORWARD))


class _Walk:
    """Walks two schemas side by side, collecting changes."""

    def __init__(self, file: str, label: Labeller, turned: dict[str, str | None] | None = None) -> None:
        self.file = file
        self.label = label
        self.turned = turned or {}
        self.found: list[Change] = []

    def emit(
        self,
        ptr: str,
        node: str,
        keyword: str,
        claims: frozenset[str],
        summary: str,
        mode: _Mode,
        hints: tuple[tuple[str, Any], ...] = (),
        steer: Mapping[str, Any] | None = None,
    ) -> None:
        claims = mode.apply(claims)
        hints = tuple((d, v) for d, v in mode.hints(hints) if d in claims)
        if mode.anchor is not None:  # values are then drawn at the anchor, where the steer means nothing
            node, steer = mode.anchor, None
        self.found.append(Change(self.file, ptr, node, keyword, claims, summary, hints, steer))

    def schema(self, old: Any, new: Any, ptr: str, mode: _Mode) -> None:
        """Every change between ``old`` and ``new``, both at ``ptr``."""
        where = self.label(ptr)
        if old is False and new is not False:
            self.emit(
                ptr, ptr, "false", frozenset({FORWARD}), f"{where} was false (nothing valid) and is not now", mode
            )
            return
        if new is False and old is not False:
            self.emit(ptr, ptr, "false", frozenset({BACKWARD}), f"{where} is now false (nothing valid)", mode)
            return
        a, b = _as_dict(old), _as_dict(new)
        self._annotations(a, b, ptr, where, mode)
        self._type(a, b, ptr, where, mode)
        self._values(a, b, ptr, where, mode)
        self._bounds(a, b, ptr, where, mode)
        self._strings(a, b, ptr, where, mode)
        self._required(a, b, ptr, where, mode)
        self._objects(a, b, ptr, where, mode)
        self._arrays(a, b, ptr, where, mode)
        self._logic(a, b, ptr, where, mode)
        self._references(a, b, ptr, where, mode)

    def _annotations(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        for key in sorted(set(a) | set(b)):
            known = key in _HANDLED
            if known and key not in ANNOTATIONS:
                continue
            if _key(a.get(key)) != _key(b.get(key)):
                verb = "added" if key not in a else "removed" if key not in b else "changed"
                what = "annotation" if key in ANNOTATIONS or not known else "keyword"
                self.emit(f"{ptr}/{escape(key)}", ptr, key, NONE, f"{what} {key} {verb} at {where}", mode)

    def _type(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        old, new = _types(a), _types(b)
        if old == new:
            return
        lost = [t for t in _TYPES if _covered(t, old) and not _covered(t, new)]
        gained = [t for t in _TYPES if _covered(t, new) and not _covered(t, old)]
        at = f"{ptr}/type"
        if lost:
            hints = tuple((BACKWARD, v) for t in lost for v in _SAMPLES[t])
            names = ", ".join(lost)
            self.emit(
                at,
                ptr,
                "type",
                frozenset({BACKWARD}),
                f"type narrowed at {where}: {names} no longer allowed",
                mode,
                hints,
            )
        if gained:
            hints = tuple((FORWARD, v) for t in gained for v in _SAMPLES[t])
            names = ", ".join(gained)
            self.emit(
                at, ptr, "type", frozenset({FORWARD}), f"type widened at {where}: {names} now allowed", mode, hints
            )

    def _values(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        if "enum" in a and "enum" in b:
            old = {_key(v): v for v in a["enum"]}
            new = {_key(v): v for v in b["enum"]}
            for k in sorted(set(old) - set(new)):
                summary = f"enum value {text(old[k])} removed from {where}"
                self.emit(f"{ptr}/enum", ptr, "enum", frozenset({BACKWARD}), summary, mode, ((BACKWARD, old[k]),))
            for k in sorted(set(new) - set(old)):
                summary = f"enum value {text(new[k])} added to {where}"
                self.emit(f"{ptr}/enum", ptr, "enum", frozenset({FORWARD}), summary, mode, ((FORWARD, new[k]),))
        elif "enum" in b:
            self.emit(f"{ptr}/enum", ptr, "enum", frozenset({BACKWARD}), f"enum added at {where}", mode)
        elif "enum" in a:
            self.emit(f"{ptr}/enum", ptr, "enum", frozenset({FORWARD}), f"enum removed at {where}", mode)
        if "const" in a and "const" in b:
            if _key(a["const"]) != _key(b["const"]):
                summary = f"const changed at {where}: {text(a['const'])} -> {text(b['const'])}"
                hints = ((BACKWARD, a["const"]), (FORWARD, b["const"]))
                self.emit(f"{ptr}/const", ptr, "const", BOTH, summary, mode, hints)
        elif "const" in b:
            self.emit(
                f"{ptr}/const", ptr, "const", frozenset({BACKWARD}), f"const {text(b['const'])} added at {where}", mode
            )
        elif "const" in a:
            self.emit(
                f"{ptr}/const", ptr, "const", frozenset({FORWARD}), f"const {text(a['const'])} removed at {where}", mode
            )

    def _bounds(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        for keyword in (*LOWER_BOUNDS, *UPPER_BOUNDS):
            old, new = _number(a.get(keyword)), _number(b.get(keyword))
            if old == new:
                continue
            at = f"{ptr}/{keyword}"
            if old is None:
                self.emit(at, ptr, keyword, frozenset({BACKWARD}), f"{keyword} {b[keyword]} added at {where}", mode)
            elif new is None:
                self.emit(at, ptr, keyword, frozenset({FORWARD}), f"{keyword} {a[keyword]} removed at {where}", mode)
            else:
                tighter = new > old if keyword in LOWER_BOUNDS else new < old
                verb = "raised" if new > old else "lowered"
                claims = frozenset({BACKWARD if tighter else FORWARD})
                summary = f"{keyword} {verb} at {where}: {a[keyword]} -> {b[keyword]}"
                self.emit(at, ptr, keyword, claims, summary, mode, _bound_hints(keyword, old, new))
        old, new = _number(a.get("multipleOf")), _number(b.get("multipleOf"))
        if old != new:
            at = f"{ptr}/multipleOf"
            if old is None:
                self.emit(
                    at, ptr, "multipleOf", frozenset({BACKWARD}), f"multipleOf {b['multipleOf']} added at {where}", mode
                )
            elif new is None:
                self.emit(
                    at,
                    ptr,
                    "multipleOf",
                    frozenset({FORWARD}),
                    f"multipleOf {a['multipleOf']} removed at {where}",
                    mode,
                )
            else:
                # A multiple of the old divisor only narrows; a divisor of it only widens.
                claims = (
                    frozenset({BACKWARD})
                    if (new / old).denominator == 1
                    else frozenset({FORWARD})
                    if (old / new).denominator == 1
                    else BOTH
                )
                summary = f"multipleOf changed at {where}: {a['multipleOf']} -> {b['multipleOf']}"
                self.emit(at, ptr, "multipleOf", claims, summary, mode)
        if bool(a.get("uniqueItems")) != bool(b.get("uniqueItems")):
            claims = frozenset({BACKWARD if b.get("uniqueItems") else FORWARD})
            verb = "now" if b.get("uniqueItems") else "no longer"
            self.emit(f"{ptr}/uniqueItems", ptr, "uniqueItems", claims, f"items of {where} {verb} unique", mode)

    def _whole(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode, keyword: str) -> None:
        """A keyword compared by its whole value: added narrows, removed widens, changed may do both."""
        old, new = a.get(keyword), b.get(keyword)
        if old == new:
            return
        at = f"{ptr}/{escape(keyword)}"
        if old is None:
            self.emit(at, ptr, keyword, frozenset({BACKWARD}), f"{keyword} {text(new)} added at {where}", mode)
        elif new is None:
            self.emit(at, ptr, keyword, frozenset({FORWARD}), f"{keyword} {text(old)} removed at {where}", mode)
        else:
            self.emit(at, ptr, keyword, BOTH, f"{keyword} changed at {where}: {text(old)} -> {text(new)}", mode)

    def _strings(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        for keyword in ("pattern", "format"):
            self._whole(a, b, ptr, where, mode, keyword)

    def _required(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        old, new = set(a.get("required", [])), set(b.get("required", []))
        for name in sorted(new - old):
            self.emit(f"{ptr}/required", ptr, "required", frozenset({BACKWARD}), f"{where}.{name} made required", mode)
        for name in sorted(old - new):
            self.emit(
                f"{ptr}/required", ptr, "required", frozenset({FORWARD}), f"{where}.{name} no longer required", mode
            )
        old_deps, new_deps = a.get("dependentRequired", {}), b.get("dependentRequired", {})
        for key in sorted(set(old_deps) | set(new_deps)):
            before, after = set(old_deps.get(key, [])), set(new_deps.get(key, []))
            at = f"{ptr}/dependentRequired/{escape(key)}"
            for name in sorted(after - before):
                summary = f"{where}.{name} now required when {key} is present"
                self.emit(at, ptr, "dependentRequired", frozenset({BACKWARD}), summary, mode, steer={"required": [key]})
            for name in sorted(before - after):
                summary = f"{where}.{name} no longer required when {key} is present"
                self.emit(at, ptr, "dependentRequired", frozenset({FORWARD}), summary, mode)

    def _objects(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        old_props, new_props = a.get("properties", {}), b.get("properties", {})
        for name in sorted(set(old_props) | set(new_props)):
            at = f"{ptr}/properties/{escape(name)}"
            if name in old_props and name in new_props:
                self.schema(old_props[name], new_props[name], at, mode)
            elif name in new_props:
                before = _governing(a, name)
                if before is False:
                    summary = f"property {name!r} added to {where}, which is closed"
                    self.emit(at, ptr, "properties", frozenset({FORWARD}), summary, mode, steer={"required": [name]})
                elif not _trivial(new_props[name]):
                    claims = frozenset({BACKWARD}) if _trivial(before) else BOTH
                    summary = f"property {name!r} added to {where}"
                    self.emit(at, ptr, "properties", claims, summary, mode, steer={"required": [name]})
                else:
                    self.emit(at, ptr, "properties", NONE, f"property {name!r} added to {where}", mode)
            else:
                after = _governing(b, name)
                if after is False:
                    summary = f"property {name!r} removed from {where}, which is closed"
                    self.emit(at, ptr, "properties", frozenset({BACKWARD}), summary, mode, steer={"required": [name]})
                elif not _trivial(old_props[name]):
                    claims = frozenset({FORWARD}) if _trivial(after) else BOTH
                    summary = f"property {name!r} removed from {where}"
                    self.emit(at, ptr, "properties", claims, summary, mode, steer={"required": [name]})
                else:
                    self.emit(at, ptr, "properties", NONE, f"property {name!r} removed from {where}", mode)
        old_patterns, new_patterns = a.get("patternProperties", {}), b.get("patternProperties", {})
        for pattern in sorted(set(old_patterns) | set(new_patterns)):
            at = f"{ptr}/patternProperties/{escape(pattern)}"
            if pattern in old_patterns and pattern in new_patterns:
                self.schema(old_patterns[pattern], new_patterns[pattern], at, mode)
            else:
                verb = "added to" if pattern in new_patterns else "removed from"
                self.emit(at, ptr, "patternProperties", BOTH, f"patternProperties {text(pattern)} {verb} {where}", mode)
        for keyword in ("additionalProperties", "unevaluatedProperties", "propertyNames"):
            self._one(a, b, ptr, keyword, where, mode)
        old_deps, new_deps = a.get("dependentSchemas", {}), b.get("dependentSchemas", {})
        for key in sorted(set(old_deps) | set(new_deps)):
            at = f"{ptr}/dependentSchemas/{escape(key)}"
            self.schema(old_deps.get(key, True), new_deps.get(key, True), at, mode)

    def _one(self, a: dict[str, Any], b: dict[str, Any], ptr: str, keyword: str, where: str, mode: _Mode) -> None:
        """A keyword taking one schema, absent meaning ``true``."""
        if keyword not in a and keyword not in b:
            return
        old, new = a.get(keyword, True), b.get(keyword, True)
        at = f"{ptr}/{escape(keyword)}"
        if keyword.endswith("Properties") and _trivial(old) and new is False:
            self.emit(at, ptr, keyword, frozenset({BACKWARD}), f"{where} closed ({keyword}: false)", mode)
        elif keyword.endswith("Properties") and old is False and _trivial(new):
            self.emit(at, ptr, keyword, frozenset({FORWARD}), f"{where} opened ({keyword} no longer false)", mode)
        else:
            self.schema(old, new, at, mode)

    def _arrays(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        old_prefix, new_prefix = a.get("prefixItems", []), b.get("prefixItems", [])
        for index in range(max(len(old_prefix), len(new_prefix))):
            at = f"{ptr}/prefixItems/{index}"
            if index < len(old_prefix) and index < len(new_prefix):
                self.schema(old_prefix[index], new_prefix[index], at, mode)
            else:
                added = index < len(new_prefix)
                verb = "added to" if added else "removed from"
                entry = new_prefix[index] if added else old_prefix[index]
                # The position passes between the entry and what follows the prefix on the other side:
                # with nothing there (no items, no unevaluatedItems) that is `true`, so the change
                # only narrows (added) or widens (removed); else either may follow.
                open_after = all(_trivial(s.get("items", True)) and "unevaluatedItems" not in s for s in (a, b))
                if open_after and _trivial(entry):
                    continue
                claims = frozenset({BACKWARD if added else FORWARD}) if open_after else BOTH
                self.emit(at, ptr, "prefixItems", claims, f"prefixItems[{index}] {verb} {where}", mode)
        for keyword in ("items", "unevaluatedItems"):
            self._one(a, b, ptr, keyword, where, mode)
        if "contains" in a and "contains" in b:
            self.schema(a["contains"], b["contains"], f"{ptr}/contains", mode)
        elif "contains" in a or "contains" in b:
            claims = frozenset({BACKWARD if "contains" in b else FORWARD})
            verb = "added to" if "contains" in b else "removed from"
            self.emit(f"{ptr}/contains", ptr, "contains", claims, f"contains {verb} {where}", mode)

    def _logic(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        for keyword, added in (("allOf", BACKWARD), ("anyOf", FORWARD), ("oneOf", None)):
            old, new = a.get(keyword), b.get(keyword)
            if old is None and new is None:
                continue
            at = f"{ptr}/{keyword}"
            if old is None or new is None:
                claims = frozenset({BACKWARD if new is not None else FORWARD})
                verb = "added to" if new is not None else "removed from"
                self.emit(at, ptr, keyword, claims, f"{keyword} {verb} {where}", mode)
                continue
            inner = mode if keyword != "oneOf" else mode.both(ptr)  # one more match can make a oneOf fail
            for index in range(min(len(old), len(new))):
                self.schema(old[index], new[index], f"{at}/{index}", inner)
            for index in range(len(old), len(new)):
                claims = BOTH if added is None else frozenset({added})
                self.emit(f"{at}/{index}", ptr, keyword, claims, f"{keyword} branch {index} added to {where}", mode)
            for index in range(len(new), len(old)):
                claims = BOTH if added is None else _flip(frozenset({added}))
                self.emit(f"{at}/{index}", ptr, keyword, claims, f"{keyword} branch {index} removed from {where}", mode)
        if "not" in a and "not" in b:
            self.schema(a["not"], b["not"], f"{ptr}/not", mode.negate(ptr))
        elif "not" in a or "not" in b:
            claims = frozenset({BACKWARD if "not" in b else FORWARD})
            self.emit(
                f"{ptr}/not", ptr, "not", claims, f"not {'added to' if 'not' in b else 'removed from'} {where}", mode
            )
        if "if" in a or "if" in b:
            self.schema(a.get("if", True), b.get("if", True), f"{ptr}/if", mode.both(ptr))
            for keyword in ("then", "else"):
                if keyword in a or keyword in b:
                    self.schema(a.get(keyword, True), b.get(keyword, True), f"{ptr}/{keyword}", mode)

    def _references(self, a: dict[str, Any], b: dict[str, Any], ptr: str, where: str, mode: _Mode) -> None:
        for keyword in ("$ref", "$dynamicRef"):
            self._whole(a, b, ptr, where, mode, keyword)
        old_defs, new_defs = a.get("$defs", {}), b.get("$defs", {})
        for name in sorted(set(old_defs) | set(new_defs)):
            at = f"{ptr}/$defs/{escape(name)}"
            if name in old_defs and name in new_defs:
                # Where it is used decides how a change inside reads; under not/if/oneOf, either way.
                turned = name in self.turned
                self.schema(old_defs[name], new_defs[name], at, _Mode(either=turned, anchor=self.turned.get(name)))
            else:
                verb = "added" if name in new_defs else "removed"
                # Only a reference makes a definition matter, and a changed reference is its own change.
                self.emit(at, ptr, "$defs", NONE, f"definition {name!r} {verb}", _Mode())


# Keywords some method above compares (any other is an annotation or unknown: compared as data).
_HANDLED = ANNOTATIONS | frozenset(
    {
        "type", "enum", "const", *LOWER_BOUNDS, *UPPER_BOUNDS, "multipleOf", "uniqueItems", "pattern", "format",
        "required", "dependentRequired", "properties", "patternProperties", "additionalProperties",
        "unevaluatedProperties", "propertyNames", "dependentSchemas", "prefixItems", "items",
        "unevaluatedItems", "contains", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
        "$dynamicRef", "$defs",
    }
)  # fmt: skip


def _governing(schema: dict[str, Any], name: str) -> Any:
    """The schema an object's property ``name`` meets when ``properties`` does not name it."""
    for pattern, sub in schema.get("patternProperties", {}).items():
        try:
            if re.search(pattern, name):
                return sub
        except re.error:
            return None  # unknown: neither true nor false
    return schema.get("additionalProperties", True)


@dataclass(frozen=True)
class _Mode:
    """How a change deep inside reads at the top: under ``not`` its directions swap; under ``if``
    or in a ``oneOf`` branch either direction may follow. ``anchor`` is the schema node where the
    first of these began: a value that tells the versions apart is looked for there, because below
    it acceptance does not carry to the top as it is."""

    negated: bool = False
    either: bool = False
    anchor: str | None = None

    def apply(self, claims: frozenset[str]) -> frozenset[str]:
        if not claims:
            return claims
        if self.either:
            return BOTH
        return _flip(claims) if self.negated else claims

    def hints(self, hints: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
        """The change's hints as they read at the anchor (candidates only: each is judged there)."""
        if self.either:
            return tuple((d, v) for _, v in hints for d in (BACKWARD, FORWARD))
        if self.negated:
            return tuple((d, v) for c, v in hints for d in _flip(frozenset({c})))
        return hints

    def negate(self, ptr: str) -> _Mode:
        return _Mode(not self.negated, self.either, self.anchor if self.anchor is not None else ptr)

    def both(self, ptr: str) -> _Mode:
        return _Mode(self.negated, True, self.anchor if self.anchor is not None else ptr)


class Labeller:
    """Names a place in a schema the way a reader does: the nearest title, then property names
    (``MapNode.type``, ``LiteratureMap.nodes[]``)."""

    def __init__(self, document: Any, fallback: str) -> None:
        self.document = document
        self.fallback = fallback

    def __call__(self, ptr: str) -> str:
        name = self.fallback
        path = ""
        current = self.document
        parts = [p.replace("~1", "/").replace("~0", "~") for p in ptr.split("/")[1:]]
        if isinstance(current, dict) and isinstance(current.get("title"), str):
            name = current["title"]
        index = 0
        while index < len(parts):
            key = parts[index]
            step = 1
            if key in ("properties", "patternProperties", "$defs", "dependentSchemas") and index + 1 < len(parts):
                step = 2
                if key == "$defs":
                    name, path = parts[index + 1], ""  # a definition is named by its own name
                elif key == "properties":
                    path += f".{parts[index + 1]}"
                elif key == "patternProperties":
                    path += f"[{parts[index + 1]}]"
            elif key in ("items", "prefixItems", "contains"):
                path += "[]"
                step = 2 if key == "prefixItems" and index + 1 < len(parts) else 1
            elif key in ("additionalProperties", "unevaluatedProperties"):
                path += ".*"
            elif key in ("allOf", "anyOf", "oneOf"):
                step = 2
            current = _step(current, parts[index : index + step])
            if isinstance(current, dict) and isinstance(current.get("title"), str):
                name, path = current["title"], ""
            index += step
        return name + path


def _step(current: Any, parts: list[str]) -> Any:
    for part in parts:
        if isinstance(current, dict):
            current = current.get(part)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


_TURNING = frozenset({"not", "if", "oneOf"})


def turned_definitions(*documents: Any) -> dict[str, str | None]:
    """The ``$defs`` of these documents referenced (``#/$defs/name``) from under a ``not``, an
    ``if`` or a ``oneOf``, directly or through another such definition: a change inside one may
    read the other way round at the top, so both directions are claimed for it. Each maps to the
    schema holding the first such keyword above a direct use (where a witness value is looked
    for), or None when it is used only through another definition."""
    uses: list[tuple[str | None, str | None, str]] = []  # (definition holding the $ref, anchor, target)
    for document in documents:
        for ptr, schema in subschemas(document):
            reference = schema.get("$ref") if isinstance(schema, dict) else None
            if not isinstance(reference, str) or not reference.startswith("#/$defs/"):
                continue
            parts = ptr.split("/")
            holder = parts[2] if len(parts) > 2 and parts[1] == "$defs" else None
            target = reference.removeprefix("#/$defs/").split("/")[0].replace("~1", "/").replace("~0", "~")
            turning = next((i for i, part in enumerate(parts) if part in _TURNING), None)
            anchor = "/".join(parts[:turning]) if turning is not None and holder is None else None
            uses.append((holder, anchor if turning is not None else "", target))
    turned: dict[str, str | None] = {}
    grown = True
    while grown:
        grown = False
        for holder, anchor, target in uses:
            if target not in turned and (anchor != "" or holder in turned):
                turned[target] = anchor if anchor != "" else None
                grown = True
    return turned


def schema_changes(file: str, old: Any, new: Any, fallback: str) -> list[Change]:
    """Every change between two versions of the schema document in ``file``."""
    walk = _Walk(file, Labeller(new if new is not None else old, fallback), turned_definitions(old, new))
    walk.schema(old, new, "", _Mode())
    return walk.found


def iter_claimed(changes: list[Change]) -> Iterator[tuple[Change, str]]:
    """Each (change, direction) the rules claim, in order."""
    for change in changes:
        for direction in sorted(change.claims):
            yield change, direction
