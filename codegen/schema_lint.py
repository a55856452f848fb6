"""Lint of schema files: correctness rules (always on) and house-style rules (``[tool.rcs] house-style``).

Correctness: the schema must mean what it says, exactly as draft 2020-12 defines it.

* it is a schema (an object or a boolean) that passes the 2020-12 metaschema, and every ``$schema``
  in it names draft 2020-12 (or a metaschema of this project that is a 2020-12 dialect);
* the engine compiles it (valid ECMA-262 regexes among others) and every ``$ref``/``$dynamicRef``
  resolves, across files and configured resources, with nothing downloaded;
* every keyword is a 2020-12 keyword or a declared annotation (``[tool.rcs] annotations``): a typo
  such as ``requred`` would otherwise be an annotation that checks nothing;
* every ``format`` is one the engine asserts (codegen/engine.py): formats are never ignored;
* nothing that cannot be meant: ``enum: []``, a lower bound above its upper bound, a ``required``
  name that ``additionalProperties: false`` (with no property or pattern admitting it) forbids.

House style (on by default): ``$schema`` and ``$id`` (the file's own name, unique across all
domains) stated, every object says ``additionalProperties`` (``false`` when it lists
``properties``), no ``\\d \\w \\s`` in patterns, no union of types but ``[T, "null"]``, and a
top-level artifact schema has a ``title`` and an optional ``$schema`` property (R-GEN-4). The
unique ``$id`` and the unions keep every schema loadable as it is by Ajv in strict mode and by any
registry keyed by ``$id`` (SPEC.md 2.1). These messages end in ``[house style]``.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import jsonschema_rs

from rcs_contracts.codegen import engine
from rcs_contracts.codegen.diagnostics import Diagnostic
from rcs_contracts.codegen.keywords import KNOWN, REPLACED, children, subschemas
from rcs_contracts.codegen.positions import escape, line_of, pointer
from rcs_contracts.codegen.sources import SourceFile
from rcs_contracts.safeio.regex import PatternError, compile_linear

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
HOUSE = " [house style]"
_SHORTHANDS = set("dwsDWS")
# (lower, upper, strict): the pair cannot be met when lower > upper, or lower >= upper when strict.
_BOUNDS = (
    ("minimum", "maximum", False),
    ("exclusiveMinimum", "maximum", True),
    ("minimum", "exclusiveMaximum", True),
    ("exclusiveMinimum", "exclusiveMaximum", True),
    ("minLength", "maxLength", False),
    ("minItems", "maxItems", False),
    ("minProperties", "maxProperties", False),
    ("minContains", "maxContains", False),
)


@dataclass
class Engine:
    """The registry every schema of the project is compiled with, and the URIs nobody provides."""

    registry: jsonschema_rs.Registry | None
    missing: set[str] = field(default_factory=set)
    dialects: frozenset[str] = frozenset()  # metaschemas of the project that are 2020-12 dialects
    failure: str | None = None


def build_engine(documents: list[tuple[str, Any]]) -> Engine:
    """Register every document; a URI nobody provides is recorded (each ``$ref`` to it is reported)."""
    missing: set[str] = set()

    def record(uri: str) -> Any:
        missing.add(uri.split("#", 1)[0])
        return True

    dialects = frozenset(
        uri
        for uri, doc in documents
        if isinstance(doc, dict) and doc.get("$schema") == DRAFT_2020_12 and "$vocabulary" in doc
    )
    try:
        as_read = [(uri, engine.engine_document(doc)) for uri, doc in documents]
        registry = jsonschema_rs.Registry(as_read, retriever=record)
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        return Engine(None, missing, dialects, str(exc).splitlines()[0])
    return Engine(registry, missing, dialects)


def _diag(sf: SourceFile, ptr: str, message: str) -> Diagnostic:
    return Diagnostic(sf.rel, line_of(sf.lines, ptr), message)


def shorthand_escapes(pattern: str) -> list[str]:
    """The ``\\d``-style class shorthands used in a regex (an escaped backslash is not one)."""
    found: list[str] = []
    index = 0
    while index < len(pattern):
        if pattern[index] == "\\" and index + 1 < len(pattern):
            if pattern[index + 1] in _SHORTHANDS:
                found.append("\\" + pattern[index + 1])
            index += 2
            continue
        index += 1
    return found


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _matches(pattern: str, name: str) -> bool:
    try:
        return bool(jsonschema_rs.is_valid({"pattern": pattern}, name))
    except (jsonschema_rs.ValidationError, ValueError):
        return False  # an invalid pattern is reported by the engine compile


# --- correctness --------------------------------------------------------------------------------


# jsonschema-rs compares a bound of 2**63 or more (in magnitude) with a fractional number inexactly.
EXACT_BOUND = 2**63


def _inexact(sf: SourceFile, ptr: str, sub: dict[str, Any]) -> Iterator[Diagnostic]:
    """Numeric bounds the engine cannot compare exactly with every number."""
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        value = sub.get(key)
        if _number(value) and abs(value) >= EXACT_BOUND:
            yield _diag(
                sf,
                f"{ptr}/{key}",
                f"{key} {value} is beyond +-2**63, where rcs's JSON Schema engine compares numbers inexactly; "
                "use a bound within that range",
            )


def _unmeant(sf: SourceFile, ptr: str, sub: dict[str, Any]) -> Iterator[Diagnostic]:
    """Constructs that accept nothing by accident."""
    if sub.get("enum") == []:
        yield _diag(sf, ptr + "/enum", "'enum: []' allows no value at all; use 'false' if nothing is meant")
    for lower, upper, strict in _BOUNDS:
        low, high = sub.get(lower), sub.get(upper)
        if not (_number(low) and _number(high)):
            continue
        if low >= high if strict else low > high:
            yield _diag(sf, f"{ptr}/{lower}", f"{lower} {low} is above {upper} {high}: no value can satisfy both")
    required = sub.get("required")
    if not isinstance(required, list):
        return
    props: dict[str, Any] = sub["properties"] if isinstance(sub.get("properties"), dict) else {}
    patterns: dict[str, Any] = sub["patternProperties"] if isinstance(sub.get("patternProperties"), dict) else {}
    for index, name in enumerate(required):
        if not isinstance(name, str):
            continue
        if props.get(name) is False:
            yield _diag(
                sf, f"{ptr}/required/{index}", f"required property {name!r} can never be present: properties says false"
            )
        elif (
            sub.get("additionalProperties") is False
            and name not in props
            and not any(_matches(p, name) for p in patterns)
        ):
            yield _diag(
                sf,
                f"{ptr}/required/{index}",
                f"required property {name!r} can never be present: additionalProperties is false and no property "
                "or patternProperties admits it (add it to 'properties')",
            )


def _keywords(sf: SourceFile, ptr: str, sub: dict[str, Any], annotations: frozenset[str]) -> Iterator[Diagnostic]:
    for key in sub:
        if key in KNOWN or key in annotations:
            continue
        if key in REPLACED:
            hint = f"draft 2020-12 ignores {key!r}; use {REPLACED[key]}"
        else:
            hint = f"unknown keyword {key!r} would be ignored (a typo?); declare it in [tool.rcs] annotations if meant"
        yield _diag(sf, f"{ptr}/{escape(key)}", hint)
    fmt = sub.get("format")
    if isinstance(fmt, str) and fmt not in engine.ASSERTED_FORMATS:
        yield _diag(
            sf,
            f"{ptr}/format",
            f"format {fmt!r} is not one rcs asserts, so it would check nothing (asserted: "
            f"{', '.join(sorted(engine.ASSERTED_FORMATS))})",
        )


def _dialect(sf: SourceFile, ptr: str, sub: dict[str, Any], known: Engine) -> Iterator[Diagnostic]:
    declared = sub.get("$schema")
    if declared is None or declared == DRAFT_2020_12 or declared in known.dialects:
        return
    yield _diag(sf, f"{ptr}/$schema", f"'$schema' must be draft 2020-12 ({DRAFT_2020_12}) or a 2020-12 dialect")


def _refs(sf: SourceFile, known: Engine) -> Iterator[Diagnostic]:
    """Every $ref and $dynamicRef resolves, each from the base URI in force where it stands."""
    if known.registry is None:
        return
    stack: list[tuple[str, Any, Any]] = [("", sf.data, known.registry.resolver(sf.uri))]
    while stack:
        ptr, sub, resolver = stack.pop()
        if not isinstance(sub, dict):
            continue
        if isinstance(sub.get("$id"), str):
            try:
                resolver = resolver.lookup(sub["$id"]).resolver
            except (jsonschema_rs.ReferencingError, ValueError) as exc:
                yield _diag(sf, ptr + "/$id", f"$id does not resolve: {exc}")
                continue
        for key in ("$ref", "$dynamicRef"):
            ref = sub.get(key)
            if not isinstance(ref, str):
                continue
            try:
                target = resolver.lookup(ref)
            except (jsonschema_rs.ReferencingError, ValueError):
                yield _diag(sf, f"{ptr}/{escape(key)}", f"{key} does not resolve: {ref}")
                continue
            if target.resolver.base_uri.split("#", 1)[0] in known.missing:
                message = f"{key} does not resolve: {ref} (no such document; nothing is downloaded)"
                yield _diag(sf, f"{ptr}/{escape(key)}", message)
        stack.extend((child_ptr, child, resolver) for child_ptr, child in children(sub, ptr))


def _linear(pattern: str) -> str | None:
    """Why the engine cannot run ``pattern`` in linear time, or None when it can."""
    try:
        jsonschema_rs.validator_for({"pattern": engine.ecma_pattern(pattern)}, pattern_options=engine.pattern_options())
    except (jsonschema_rs.ValidationError, ValueError):
        try:
            compile_linear(pattern)
        except PatternError as exc:
            return exc.detail
        return "the regex engine refuses it"
    return None


def _patterns(sf: SourceFile, ptr: str, schema: dict[str, Any]) -> Iterator[Diagnostic]:
    """Patterns run on a linear-time engine: what needs backtracking is refused, named (SPEC 2.1)."""
    found = [(f"{ptr}/pattern", schema["pattern"])] if isinstance(schema.get("pattern"), str) else []
    if isinstance(schema.get("patternProperties"), dict):
        found.extend((f"{ptr}/patternProperties/{escape(key)}", key) for key in schema["patternProperties"])
    for where, pattern in found:
        why = _linear(pattern)
        if why is None:
            continue
        if "look-around" in why or "backreference" in why:
            yield _diag(sf, where, f"pattern {pattern!r} cannot run on rcs's linear-time regex engine: {why}")
        else:
            yield _diag(sf, where, f"pattern {pattern!r} does not compile: {why}")


def _compiles(sf: SourceFile, known: Engine) -> Iterator[Diagnostic]:
    if known.registry is None:
        return
    try:
        engine.compile_schema(sf.data, sf.uri, known.registry)
    except jsonschema_rs.ValidationError as exc:
        first = exc.message.splitlines()[0]
        yield _diag(sf, pointer(exc.instance_path), f"the JSON Schema engine refuses it: {first}")
    except (ValueError, jsonschema_rs.ReferencingError, UnicodeError) as exc:
        yield _diag(sf, "", f"the JSON Schema engine refuses it: {str(exc).splitlines()[0]}")


def _meta_errors(schema: dict[str, Any]) -> list[Any]:
    """Where the schema breaks the 2020-12 meta-schema, in document order.

    jsonschema-rs answers "valid" in microseconds where python-jsonschema's walk takes ~10 ms a schema
    (a third of `rcs codegen`'s lint), so it decides first; python-jsonschema names the errors of the
    few that fail. Only for a 2020-12 (or unstated) dialect: jsonschema-rs picks the meta-schema by
    ``$schema``, and any other dialect is refused by name elsewhere but must still be judged by 2020-12.
    """
    if schema.get("$schema", DRAFT_2020_12) in (DRAFT_2020_12, DRAFT_2020_12 + "#"):
        try:
            if jsonschema_rs.meta.is_valid(schema):
                return []
        except (jsonschema_rs.ReferencingError, ValueError):
            pass  # python-jsonschema's verdict below
    from jsonschema import Draft202012Validator  # ~70 ms to import: only for a schema that needs it

    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    return sorted(meta.iter_errors(schema), key=lambda e: list(e.absolute_path))


def correctness(sf: SourceFile, known: Engine, annotations: frozenset[str]) -> Iterator[Diagnostic]:
    """Rules that hold for every schema rcs compiles, the project's own and any a user writes."""
    schema = sf.data
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        yield _diag(sf, "", "a schema file must hold a JSON object (or true/false)")
        return
    found = [
        _diag(sf, pointer(error.absolute_path), f"not a valid 2020-12 schema: {error.message}")
        for error in _meta_errors(schema)
    ]
    for ptr, sub in subschemas(schema):
        if isinstance(sub, dict):
            found.extend(_dialect(sf, ptr, sub, known))
            found.extend(_keywords(sf, ptr, sub, annotations))
            found.extend(_unmeant(sf, ptr, sub))
            found.extend(_inexact(sf, ptr, sub))
            found.extend(_patterns(sf, ptr, sub))
    found.extend(_refs(sf, known))
    yield from found
    if not found:  # the engine's own refusal, for what the rules above do not name
        yield from _compiles(sf, known)


def root_uri(sf: SourceFile) -> str:
    """The URI a schema file's root answers to: its ``$id`` resolved against the file's own URI."""
    own = sf.data.get("$id") if isinstance(sf.data, dict) else None
    if not isinstance(own, str):
        return sf.uri
    if urllib.parse.urlsplit(own).scheme:
        return own.split("#", 1)[0]
    # urljoin knows only the schemes it was told are hierarchical; rcs:/// paths resolve like file:/// paths.
    joined = urllib.parse.urljoin("file" + sf.uri[len(engine.URI_BASE) - 4 :], own)
    return engine.URI_BASE + joined.removeprefix("file:///").split("#", 1)[0]


def shared_ids(files: list[SourceFile]) -> Iterator[Diagnostic]:
    """Two schema files with one ``$id`` (house style: the file's name) in different folders: a
    validator that keys schemas by ``$id`` (Ajv, any registry loading the exported bundle) holds
    one of them only."""
    first: dict[str, SourceFile] = {}
    for sf in sorted(files, key=lambda f: f.rel):
        own = sf.data.get("$id") if isinstance(sf.data, dict) else None
        if not isinstance(own, str):
            continue
        other = first.setdefault(own, sf)
        if other is not sf:
            message = f"'$id' {own!r} is also {other.rel}'s: every $id must be unique across all domains"
            yield _diag(sf, "/$id", message + HOUSE)


def shared_uris(files: list[SourceFile]) -> Iterator[Diagnostic]:
    """Two documents answering to one URI: a reference to it could mean either."""
    owners: dict[str, SourceFile] = {sf.uri: sf for sf in files}
    for sf in files:
        claimed = root_uri(sf)
        other = owners.get(claimed)
        if claimed != sf.uri and other is not None and other is not sf:
            message = f"'$id' makes this file answer to {claimed}, which {other.rel} already does (one URI, one file)"
            yield _diag(sf, "/$id", message)
        else:
            owners.setdefault(claimed, sf)


# --- house style --------------------------------------------------------------------------------


def _is_object_schema(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema


def house_style(sf: SourceFile, artifact: bool) -> Iterator[Diagnostic]:
    """This project's conventions; ``[tool.rcs] house-style = false`` switches them off."""
    schema = sf.data
    if not isinstance(schema, dict):
        yield _diag(sf, "", "a schema file holds an object with '$schema', '$id' and a 'title'" + HOUSE)
        return
    if schema.get("$schema") != DRAFT_2020_12:
        yield _diag(sf, "/$schema", f"'$schema' must be {DRAFT_2020_12!r} (R-GEN-1)" + HOUSE)
    if not isinstance(schema.get("$id"), str) or not schema["$id"]:
        yield _diag(sf, "", "every schema file needs an '$id'" + HOUSE)
    elif schema["$id"] != sf.path.name:
        # A relative $id equal to the file name keeps every cross-file $ref resolvable from where the
        # file lies, by any validator, with no network and no registry configuration.
        yield _diag(sf, "/$id", f"'$id' must be the file's own name, {sf.path.name!r}" + HOUSE)
    for ptr, sub in subschemas(schema):
        if not isinstance(sub, dict):
            continue
        if _is_object_schema(sub):
            extra = sub.get("additionalProperties", None)
            if "properties" in sub and extra is not False:
                yield _diag(sf, ptr, "object schema with properties must say 'additionalProperties: false'" + HOUSE)
            elif "additionalProperties" not in sub and "properties" not in sub:
                yield _diag(
                    sf, ptr, "map schema must say 'additionalProperties' (a schema for its values, or true)" + HOUSE
                )
        kinds = sub.get("type")
        if isinstance(kinds, list) and len(kinds) > 1 and not (len(kinds) == 2 and "null" in kinds):
            # Ajv's strict mode (strictTypes) refuses a union of types other than one type or null;
            # integer and number: "number" holds every integer already.
            fix = "'number'" if set(kinds) == {"integer", "number"} else "anyOf with one type in each branch"
            yield _diag(sf, ptr + "/type", f"type union {kinds} is refused by Ajv's strict mode; write {fix}" + HOUSE)
        patterns: list[tuple[str, str]] = []
        if isinstance(sub.get("pattern"), str):
            patterns.append((ptr + "/pattern", sub["pattern"]))
        if isinstance(sub.get("patternProperties"), dict):
            patterns.extend((f"{ptr}/patternProperties/{escape(k)}", k) for k in sub["patternProperties"])
        for where, regex in patterns:
            for short in shorthand_escapes(regex):
                yield _diag(
                    sf, where, f"pattern uses {short}, which differs across regex dialects; spell the class out" + HOUSE
                )
    if artifact:
        if not isinstance(schema.get("title"), str):
            yield _diag(sf, "", "a top-level artifact schema needs a 'title' (it names the model class)" + HOUSE)
        props = schema.get("properties")
        if not isinstance(props, dict) or "$schema" not in props:
            yield _diag(
                sf,
                "/properties",
                "a top-level artifact schema must allow an optional '$schema' string (R-GEN-4)" + HOUSE,
            )
        elif "$schema" in schema.get("required", []):
            yield _diag(sf, "/required", "'$schema' must be optional (R-GEN-4)" + HOUSE)
