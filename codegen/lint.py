"""Lint: everything that must hold before rendering, reported as ``file:line: message``.

Checks, in order, per file:

* artifact and table schemas: declared 2020-12, carry an ``$id``, pass the 2020-12 metaschema,
  every ``$ref`` resolves; every object schema says ``additionalProperties`` (``false`` when it
  lists ``properties``; a schema or ``true`` for maps); no ``\\d \\w \\s`` in patterns (their
  meaning differs between regex dialects); top-level artifact schemas have a ``title`` (the model's
  class name) and allow an optional ``$schema`` string (R-GEN-4);
* rule tables: valid against their table schema (R-GEN-2); every code/name listed once; every error
  class a code names exists; every template placeholder is a field the error carries.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

from codegen.diagnostics import Diagnostic
from codegen.positions import escape, line_of, pointer
from codegen.sources import Domain, Project, SourceFile, Table

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
TEMPLATES = Path(__file__).parent / "templates"
_SHORTHANDS = set("dwsDWS")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)


def _diag(sf: SourceFile, ptr: str, message: str) -> Diagnostic:
    return Diagnostic(sf.rel, line_of(sf.lines, ptr), message)


def subschemas(schema: Any, ptr: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside ``schema`` (itself included) with its JSON pointer."""
    if not isinstance(schema, dict):
        return
    yield ptr, schema
    for key in _SCHEMA_MAPS:
        members = schema.get(key)
        if isinstance(members, dict):
            for name, sub in members.items():
                yield from subschemas(sub, f"{ptr}/{escape(key)}/{escape(name)}")
    for key in _SCHEMA_LISTS:
        members = schema.get(key)
        if isinstance(members, list):
            for index, sub in enumerate(members):
                yield from subschemas(sub, f"{ptr}/{key}/{index}")
    for key in _SCHEMA_ONE:
        yield from subschemas(schema.get(key), f"{ptr}/{key}")


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


def _is_object_schema(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in schema


def lint_schema(sf: SourceFile, registry: Registry[Any], artifact: bool) -> Iterator[Diagnostic]:
    """House rules and metaschema for one schema file."""
    schema = sf.data
    if not isinstance(schema, dict):
        yield _diag(sf, "", "a schema file must hold a JSON object")
        return
    if schema.get("$schema") != DRAFT_2020_12:
        yield _diag(sf, "/$schema", f"'$schema' must be {DRAFT_2020_12!r} (R-GEN-1)")
    if not isinstance(schema.get("$id"), str) or not schema["$id"]:
        yield _diag(sf, "", "every schema file needs an '$id'")
    elif schema["$id"] != sf.path.name:
        # A relative $id equal to the file name keeps every cross-file $ref resolvable from where the
        # file lies, by any validator, with no network and no registry configuration.
        yield _diag(sf, "/$id", f"'$id' must be the file's own name, {sf.path.name!r}")
    for error in Draft202012Validator(Draft202012Validator.META_SCHEMA).iter_errors(schema):
        yield _diag(sf, pointer(error.absolute_path), f"not a valid 2020-12 schema: {error.message}")
    resolver = registry.resolver(base_uri=sf.path.as_uri())
    for ptr, sub in subschemas(schema):
        ref = sub.get("$ref")
        if isinstance(ref, str):
            try:
                resolver.lookup(ref)
            except Unresolvable:
                yield _diag(sf, ptr + "/$ref", f"$ref does not resolve: {ref}")
        if _is_object_schema(sub):
            extra = sub.get("additionalProperties", None)
            if "properties" in sub and extra is not False:
                yield _diag(sf, ptr, "object schema with properties must say 'additionalProperties: false'")
            elif "additionalProperties" not in sub and "properties" not in sub:
                yield _diag(sf, ptr, "map schema must say 'additionalProperties' (a schema for its values, or true)")
        patterns: list[tuple[str, str]] = []
        if isinstance(sub.get("pattern"), str):
            patterns.append((ptr + "/pattern", sub["pattern"]))
        if isinstance(sub.get("patternProperties"), dict):
            patterns.extend((f"{ptr}/patternProperties/{escape(k)}", k) for k in sub["patternProperties"])
        for where, regex in patterns:
            for short in shorthand_escapes(regex):
                yield _diag(
                    sf, where, f"pattern uses {short}, which differs across regex dialects; spell the class out"
                )
    if artifact:
        if not isinstance(schema.get("title"), str):
            yield _diag(sf, "", "a top-level artifact schema needs a 'title' (it names the model class)")
        props = schema.get("properties")
        if not isinstance(props, dict) or "$schema" not in props:
            yield _diag(
                sf, "/properties", "a top-level artifact schema must allow an optional '$schema' string (R-GEN-4)"
            )
        elif "$schema" in schema.get("required", []):
            yield _diag(sf, "/required", "'$schema' must be optional (R-GEN-4)")


def _key_field(item: dict[str, Any]) -> str | None:
    for key in ("code", "name"):
        if isinstance(item.get(key), str):
            return key
    return None


def _unique(sf: SourceFile, value: Any, ptr: str) -> Iterator[Diagnostic]:
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from _unique(sf, sub, f"{ptr}/{escape(key)}")
    elif isinstance(value, list):
        seen: dict[str, int] = {}
        for index, item in enumerate(value):
            if isinstance(item, dict):
                field = _key_field(item)
                key = item[field] if field else None
            else:
                field, key = None, item if isinstance(item, str) else None
            if isinstance(key, str):
                if key in seen:
                    what = f"{field} {key!r}" if field else repr(key)
                    yield _diag(sf, f"{ptr}/{index}", f"{what} is listed twice (first as item {seen[key]})")
                else:
                    seen[key] = index
            yield from _unique(sf, item, f"{ptr}/{index}")


def placeholders(template: str) -> list[str]:
    """Field names a ``str.format`` template uses; ValueError when it cannot be parsed."""
    names: list[str] = []
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"placeholder {{{name}}} must be a plain field name")
        names.append(name)
    return names


def _lint_templates(sf: SourceFile, items: Any, ptr: str, text_key: str) -> Iterator[Diagnostic]:
    if not isinstance(items, list):
        return
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get(text_key), str):
            continue
        fields = item.get("fields") or {}
        where = f"{ptr}/{index}/{text_key}"
        try:
            used = placeholders(item[text_key])
        except ValueError as exc:
            yield _diag(sf, where, f"bad message template: {exc}")
            continue
        for name in used:
            if name not in fields:
                yield _diag(sf, where, f"template placeholder {{{name}}} is not a field the error carries")


def lint_table(table: Table, registry: Registry[Any]) -> Iterator[Diagnostic]:
    """Validate one rule table against its schema and the table rules."""
    sf = table.source
    # Anchor the table schema at its file, so its relative $id and $refs resolve like on disk.
    anchored = dict(table.schema.data, **{"$id": table.schema.path.as_uri()})
    validator = Draft202012Validator(anchored, registry=registry)
    errors = sorted(validator.iter_errors(sf.data), key=lambda e: [str(p) for p in e.absolute_path])
    for error in errors:
        yield _diag(sf, pointer(error.absolute_path), f"{error.message} (table schema {table.schema.rel})")
    if errors:
        return
    if not (TEMPLATES / f"{table.kind}.py.j2").is_file():
        yield _diag(sf, "/$schema", f"no renderer for tables of kind {table.kind!r}")
    yield from _unique(sf, sf.data, "")
    data = table.content
    if table.kind == "errors":
        classes = [data["base"], *data["classes"]]
        names = {c["name"] for c in classes}
        for index, cls in enumerate(data["classes"]):
            if cls.get("parent") and cls["parent"] not in names:
                yield _diag(sf, f"/classes/{index}/parent", f"unknown parent class {cls['parent']!r}")
        for index, code in enumerate(data["codes"]):
            if code["class"] not in names:
                yield _diag(sf, f"/codes/{index}/class", f"code {code['code']} names unknown class {code['class']!r}")
        yield from _lint_templates(sf, data["codes"], "/codes", "message")
    elif table.kind == "messages":
        yield from _lint_templates(sf, data["messages"], "/messages", "message")
    elif table.kind == "stop_rules":
        yield from _lint_templates(sf, data["parse_errors"], "/parse_errors", "message")
        metric = [r["code"] for r in data["stop_reasons"] if r["phase"] == "metric"]
        if sorted(data["metric_precedence"]) != sorted(metric):
            yield _diag(sf, "/metric_precedence", f"must list each metric-phase stop reason once: {metric}")
        parsers = {p["name"] for p in data["parsers"]}
        for index, entry in enumerate(data["parse_errors"]):
            for name in entry.get("applies_to", []):
                if name not in parsers:
                    yield _diag(sf, f"/parse_errors/{index}/applies_to", f"unknown parser {name!r}")
    elif table.kind == "autoresearch_config":
        yield from _lint_autoresearch(sf, data, registry)
    elif table.kind == "budgets" and data["default_mode"] not in {m["name"] for m in data["modes"]}:
        yield _diag(sf, "/default_mode", f"default_mode {data['default_mode']!r} is not a listed mode")


def _schema_enum(sf: SourceFile, ref: str, registry: Registry[Any]) -> list[Any] | None:
    """The ``enum`` a ``<file>#<pointer>`` reference (relative to the table) names, or None."""
    file, _, fragment = ref.partition("#")
    try:
        found = registry.resolver().lookup((sf.path.parent / file).as_uri() + "#" + fragment).contents
    except Exception:  # referencing raises several unrelated types for an unresolvable reference
        return None
    return found.get("enum") if isinstance(found, dict) else None


def _lint_autoresearch(sf: SourceFile, data: dict[str, Any], registry: Registry[Any]) -> Iterator[Diagnostic]:
    """Enums agree with the schemas; every rule names known values; every case has a rule."""
    names: dict[str, list[str]] = {}
    for key in ("candidate_statuses", "decisions", "keep_policies", "manifest_statuses"):
        names[key] = [v["name"] for v in data[key]["values"]]
        enum = _schema_enum(sf, data[key]["enum"], registry)
        if enum is None:
            yield _diag(sf, f"/{key}/enum", f"{data[key]['enum']} names no schema enum")
        elif enum != names[key]:
            yield _diag(sf, f"/{key}/values", f"must list the schema enum {enum} in order")
    for key in ("candidate_outcomes", "evaluation_outcomes"):
        names[key] = [o["name"] for o in data[key]]
    if data["defaults"]["keep_policy"] not in names["keep_policies"]:
        yield _diag(sf, "/defaults/keep_policy", f"not a keep policy: {data['defaults']['keep_policy']!r}")
    fields = {"candidate": "candidate_outcomes", "evaluation": "evaluation_outcomes", "policy": "keep_policies",
              "decision": "decisions", "status": "manifest_statuses"}
    rules = data["decision_rules"]
    for index, rule in enumerate(rules):
        for field, key in fields.items():
            if field in rule and rule[field] not in names[key]:
                yield _diag(sf, f"/decision_rules/{index}/{field}", f"unknown {field} {rule[field]!r}")
        if (rule["then"] == "stop") != ("status" in rule):
            yield _diag(sf, f"/decision_rules/{index}", "a rule names a manifest status exactly when then=stop")
    for candidate in names["candidate_outcomes"]:
        for evaluation in names["evaluation_outcomes"]:
            for policy in names["keep_policies"]:
                if not any(
                    r["candidate"] == candidate
                    and r.get("evaluation", evaluation) == evaluation
                    and r.get("policy", policy) == policy
                    for r in rules
                ):
                    yield _diag(sf, "/decision_rules", f"no rule decides {candidate}/{evaluation}/{policy}")


REQUIRED_CODES = ("JSON_SYNTAX", "SCHEMA_VIOLATION", "SCHEMA_MISSING_PROPERTY", "SCHEMA_UNKNOWN_PROPERTY")
NAME = re.compile(r"[a-z][a-z0-9_]*")
RESERVED_DOMAINS = frozenset({"kinds", "tables"})  # generated/kinds.py, schemas/tables/


def _lint_names(domain: Domain) -> Iterator[Diagnostic]:
    """Names become Python modules and kind names: they must be importable and must not collide."""
    first = (domain.schemas or tuple(t.source for t in domain.tables))[0]
    if not NAME.fullmatch(domain.name) or domain.name in RESERVED_DOMAINS:
        yield Diagnostic(
            first.rel,
            1,
            f"domain name {domain.name!r} must match [a-z][a-z0-9_]* and not be one of {sorted(RESERVED_DOMAINS)}",
        )
    for schema in domain.schemas:
        if not NAME.fullmatch(schema.stem):
            yield Diagnostic(schema.rel, 1, f"schema name {schema.stem!r} must match [a-z][a-z0-9_]*")
    for table in domain.tables:
        stem = table.source.stem
        if not NAME.fullmatch(stem) or stem.endswith("_schema"):
            yield Diagnostic(
                table.source.rel,
                1,
                f"table name {stem!r} must match [a-z][a-z0-9_]* and not end in '_schema' (model modules are named so)",
            )


def _lint_domain_errors(domain: Domain) -> Iterator[Diagnostic]:
    """A domain with artifact schemas reports parse and schema failures in its own classes."""
    if not domain.schemas:
        return
    tables = [t for t in domain.tables if t.kind == "errors"]
    if not tables:
        yield Diagnostic(domain.schemas[0].rel, 1, f"domain {domain.name!r} has schemas but no errors.yaml table")
        return
    codes = {c.get("code") for c in tables[0].content.get("codes", []) if isinstance(c, dict)}
    for code in REQUIRED_CODES:
        if code not in codes:
            yield Diagnostic(tables[0].source.rel, 1, f"the errors table must define {code} (used by rcs validate)")


def build_registry(project: Project) -> Registry[Any]:
    """A referencing registry holding every schema under its $id and its file URI."""
    resources: list[tuple[str, Resource[Any]]] = []
    for sf in project.all_schemas:
        if isinstance(sf.data, dict):
            resource = Resource.from_contents(sf.data, default_specification=DRAFT202012)
            resources.append((sf.path.as_uri(), resource))
    return Registry(retrieve=_no_retrieval).with_resources(resources)  # type: ignore[call-arg]


def _no_retrieval(uri: str) -> Resource[Any]:
    # Nothing downloads at run time: an unknown URI is simply unresolvable.
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs-made __init__


def check(project: Project) -> list[Diagnostic]:
    """Every lint diagnostic of the project, sorted by file and line."""
    registry = build_registry(project)
    found: list[Diagnostic] = []
    for domain in project.domains:
        for sf in domain.schemas:
            found.extend(lint_schema(sf, registry, artifact=True))
        for table in domain.tables:
            found.extend(lint_table(table, registry))
        found.extend(_lint_domain_errors(domain))
        found.extend(_lint_names(domain))
    for sf in project.table_schemas:
        found.extend(lint_schema(sf, registry, artifact=False))
    return sorted(set(found))
