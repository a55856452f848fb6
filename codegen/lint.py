"""Lint: everything that must hold before rendering, reported as ``file:line: message``.

* schema files (artifact, table and the project's resources): ``codegen/schema_lint.py``,
  correctness rules always, house-style rules unless ``[tool.rcs] house-style = false``;
* rule tables: valid against their table schema (R-GEN-2), judged by the same JSON Schema engine
  as artifacts (formats asserted); every code/name listed once; every error
  class a code names exists; every template placeholder is a field the error carries;
* names: domains, schemas and tables become Python modules and kind names.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs

from rcs_contracts.codegen import contracts, engine, research_tables, schema_lint
from rcs_contracts.codegen.diagnostics import Diagnostic
from rcs_contracts.codegen.positions import escape, first_problem, line_of, pointer
from rcs_contracts.codegen.schema_lint import shorthand_escapes
from rcs_contracts.codegen.sources import Domain, Project, SourceFile, Table

TEMPLATES = Path(__file__).parent / "templates"

__all__ = ["check", "lint_table", "placeholders", "shorthand_escapes"]


def _diag(sf: SourceFile, ptr: str, message: str) -> Diagnostic:
    return Diagnostic(sf.rel, line_of(sf.lines, ptr), message)


def _not_json(item: Any) -> str | None:
    """What YAML gave that JSON has no word for (a non-string key, a date, an infinity), or None."""
    if isinstance(item, (dict, list, str, bool)) or item is None:
        return None
    if isinstance(item, float) and not math.isfinite(item):
        return f"{item!r} is not a JSON number"
    if isinstance(item, (int, float)):
        return None
    return f"{type(item).__name__} {item!r} is not a JSON value (quote it)"


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


def lint_table(table: Table, known: schema_lint.Engine) -> Iterator[Diagnostic]:
    """Validate one rule table against its schema (the same engine as artifacts) and the table rules."""
    sf = table.source
    if known.registry is None:
        return  # the schemas could not be registered; reported once by check()
    try:
        validator = engine.compile_schema(table.schema.data, table.schema.uri, known.registry)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError):
        return  # the table schema's own lint reports why
    odd = first_problem(sf.data, _not_json)
    if odd is not None:
        yield _diag(sf, odd[0], f"a rule table holds JSON data only: {odd[1]}")
        return
    errors = sorted(validator.iter_errors(sf.data), key=lambda e: [str(p) for p in e.instance_path])
    for error in errors:
        yield _diag(sf, pointer(error.instance_path), f"{error.message} (table schema {table.schema.rel})")
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
        yield from _lint_autoresearch(sf, data, known)
    elif table.kind.startswith("research_"):
        yield from research_tables.lint_table(table)
    elif table.kind == "budgets" and data["default_mode"] not in {m["name"] for m in data["modes"]}:
        yield _diag(sf, "/default_mode", f"default_mode {data['default_mode']!r} is not a listed mode")


def _schema_enum(sf: SourceFile, ref: str, known: schema_lint.Engine) -> list[Any] | None:
    """The ``enum`` a ``<file>#<pointer>`` reference (relative to the table) names, or None."""
    assert known.registry is not None
    try:
        found = known.registry.resolver(sf.uri).lookup(ref).contents
    except (jsonschema_rs.ReferencingError, ValueError):
        return None
    enum = found.get("enum") if isinstance(found, dict) else None
    return enum if isinstance(enum, list) else None


def _lint_autoresearch(sf: SourceFile, data: dict[str, Any], known: schema_lint.Engine) -> Iterator[Diagnostic]:
    """Enums agree with the schemas; every rule names known values; every case has a rule."""
    names: dict[str, list[str]] = {}
    for key in ("candidate_statuses", "decisions", "keep_policies", "manifest_statuses"):
        names[key] = [v["name"] for v in data[key]["values"]]
        enum = _schema_enum(sf, data[key]["enum"], known)
        if enum is None:
            yield _diag(sf, f"/{key}/enum", f"{data[key]['enum']} names no schema enum")
        elif enum != names[key]:
            yield _diag(sf, f"/{key}/values", f"must list the schema enum {enum} in order")
    for key in ("candidate_outcomes", "evaluation_outcomes"):
        names[key] = [o["name"] for o in data[key]]
    for index, value in enumerate(data["keep_policies"]["values"]):
        if "rule" not in value:
            told = "a keep policy needs its rule (what each session is told)"
            yield _diag(sf, f"/keep_policies/values/{index}", told)
    if data["defaults"]["keep_policy"] not in names["keep_policies"]:
        yield _diag(sf, "/defaults/keep_policy", f"not a keep policy: {data['defaults']['keep_policy']!r}")
    fields = {
        "candidate": "candidate_outcomes",
        "evaluation": "evaluation_outcomes",
        "policy": "keep_policies",
        "decision": "decisions",
        "status": "manifest_statuses",
    }
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


def _lint_domain_errors(domain: Domain, house_style: bool) -> Iterator[Diagnostic]:
    """A domain with artifact schemas reports parse and schema failures in its own classes.

    Without an errors table (allowed when house style is off) it reports them in the default
    domain's classes (generated/cli/messages.py names it).
    """
    if not domain.schemas:
        return
    tables = [t for t in domain.tables if t.kind == "errors"]
    if not tables:
        if house_style:
            yield Diagnostic(
                domain.schemas[0].rel,
                1,
                f"domain {domain.name!r} has schemas but no errors.yaml table" + schema_lint.HOUSE,
            )
        return
    codes = {c.get("code") for c in tables[0].content.get("codes", []) if isinstance(c, dict)}
    for code in REQUIRED_CODES:
        if code not in codes:
            yield Diagnostic(tables[0].source.rel, 1, f"the errors table must define {code} (used by rcs validate)")


def _schema_files(project: Project) -> list[tuple[SourceFile, bool]]:
    """(file, is an artifact schema) for every schema file the compiler lints."""
    files = [(sf, True) for domain in project.domains for sf in domain.schemas]
    return files + [(sf, False) for sf in project.table_schemas]


def check(project: Project) -> list[Diagnostic]:
    """Every lint diagnostic of the project, sorted by file and line."""
    files = _schema_files(project)
    documents = [(sf.uri, sf.data) for sf, _ in files] + [(r.uri, r.source.data) for r in project.resources]
    known = schema_lint.build_engine(documents)
    found: list[Diagnostic] = []
    if known.failure is not None:
        first = files[0][0].rel if files else project.settings.schemas
        found.append(Diagnostic(first, 1, f"the schemas cannot be registered together: {known.failure}"))
    settings = project.settings
    found.extend(schema_lint.shared_uris([sf for sf, _ in files]))
    for sf, artifact in files:
        found.extend(schema_lint.correctness(sf, known, settings.annotations))
        if settings.house_style:
            found.extend(schema_lint.house_style(sf, artifact))
    if settings.house_style:
        found.extend(schema_lint.shared_ids([sf for sf, _ in files]))
    for domain in project.domains:
        for table in domain.tables:
            found.extend(lint_table(table, known))
        found.extend(_lint_domain_errors(domain, settings.house_style))
        found.extend(research_tables.lint_domain(domain))
        found.extend(contracts.lint(domain))
        found.extend(_lint_names(domain))
    return sorted(set(found))
