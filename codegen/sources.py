"""Load: find the compiler's inputs under a project root and read them with line numbers.

Layout (R-GEN-1, R-GEN-2)::

    schemas/<domain>/*.schema.json   artifact schemas; one kind each (R-GEN-7)
    schemas/<domain>/*.yaml          rule tables of that domain
    schemas/tables/*.schema.json     the schema of each kind of rule table
    (``schemas/`` is ``[tool.rcs] schemas`` when the project names another folder)
    claim_policy.yaml                the claim policy, a rule table kept at the project root
    pyproject.toml [tool.rcs]        settings (codegen/config.py), e.g. resources: URI prefix -> directory

Every rule table names its own schema in a top-level ``$schema`` key, relative to the table.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from rcs_contracts.base.sources import SOURCE_MAX_BYTES
from rcs_contracts.codegen import config
from rcs_contracts.codegen.diagnostics import CompileError, Diagnostic
from rcs_contracts.codegen.engine import uri_of
from rcs_contracts.codegen.positions import first_problem, json_line_map, line_map
from rcs_contracts.safeio import files, yaml_data

SCHEMA_SUFFIX = ".schema.json"
TABLE_SCHEMA_DIR = "tables"
ROOT_TABLES = config.ROOT_FILES


@dataclass(frozen=True)
class SourceFile:
    """One input file: its bytes, parsed value and the line of every JSON pointer in it."""

    path: Path
    rel: str
    raw: bytes
    data: Any

    @cached_property
    def lines(self) -> dict[str, int]:
        """JSON pointer -> 1-based line; composed only when a diagnostic needs a line."""
        text = self.raw.decode("utf-8")
        if self.path.suffix == ".yaml":
            try:
                return line_map(yaml.compose(text, Loader=yaml.SafeLoader))
            except yaml.YAMLError:
                return {}
        return json_line_map(text)

    @property
    def uri(self) -> str:
        """The URI the engine knows this file by (``rcs:///<path from the root>``)."""
        return uri_of(self.rel)

    @property
    def stem(self) -> str:
        """The file name without ``.schema.json`` or ``.yaml``."""
        name = self.path.name
        for suffix in (SCHEMA_SUFFIX, ".yaml"):
            if name.endswith(suffix):
                return name[: -len(suffix)]
        return name


@dataclass(frozen=True)
class Table:
    """A rule table and the table schema it names."""

    source: SourceFile
    schema: SourceFile

    @property
    def kind(self) -> str:
        """The kind of table: the stem of its schema (errors, budgets, claim_policy, ...)."""
        return self.schema.stem

    @property
    def content(self) -> dict[str, Any]:
        """The table's data without its ``$schema`` key."""
        data = self.source.data
        return {k: v for k, v in data.items() if k != "$schema"} if isinstance(data, dict) else {}


@dataclass(frozen=True)
class Domain:
    """Everything one domain feeds the compiler."""

    name: str
    schemas: tuple[SourceFile, ...]
    tables: tuple[Table, ...]

    @property
    def inputs(self) -> tuple[SourceFile, ...]:
        """Every file whose bytes decide this domain's outputs, sorted by path."""
        files = {f.rel: f for f in self.schemas}
        for table in self.tables:
            files[table.source.rel] = table.source
            files[table.schema.rel] = table.schema
        return tuple(files[k] for k in sorted(files))


@dataclass(frozen=True)
class Resource:
    """A document schemas may ``$ref`` (``[tool.rcs.resources]``): not a kind, served under ``uri``."""

    source: SourceFile
    uri: str


@dataclass(frozen=True)
class Project:
    """All inputs of one project root."""

    root: Path
    domains: tuple[Domain, ...]
    table_schemas: tuple[SourceFile, ...]
    settings: config.Settings = field(default_factory=config.Settings)
    resources: tuple[Resource, ...] = ()
    # Folders of the schemas folder whose name starts with "_" and that hold schemas or tables:
    # not domains (a place for drafts), and said so by ``rcs codegen``, never skipped silently.
    skipped: tuple[str, ...] = ()

    @property
    def all_schemas(self) -> tuple[SourceFile, ...]:
        """Artifact schemas of every domain, then the table schemas."""
        return tuple(s for d in self.domains for s in d.schemas) + self.table_schemas


def _rel(root: Path, path: Path) -> str:
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link or a loop: name the path as found
        resolved = Path(os.path.abspath(path))
    try:
        return resolved.relative_to(root).as_posix()
    except ValueError:
        raise CompileError([Diagnostic(str(path), 0, f"inputs must lie inside the project root {root}")]) from None


def _read_bytes(rel: str, path: Path) -> bytes:
    try:
        return files.read_bytes(path, SOURCE_MAX_BYTES, "a schema or rule table")
    except OSError as exc:
        raise CompileError([Diagnostic(rel, 0, f"cannot read: {exc.strerror or exc}")]) from None


def read_json(root: Path, path: Path) -> SourceFile:
    """Read a JSON file; a syntax error becomes a CompileError with its line."""
    rel = _rel(root, path)
    raw = _read_bytes(rel, path)
    try:
        text = files.without_bom(raw).decode("utf-8")
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise CompileError([Diagnostic(rel, 1, f"not UTF-8: {exc.reason}")]) from None
    except json.JSONDecodeError as exc:
        raise CompileError([Diagnostic(rel, exc.lineno, f"invalid JSON: {exc.msg}")]) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise CompileError([Diagnostic(rel, 1, f"invalid JSON: {exc}")]) from None
    except RecursionError:
        raise CompileError([Diagnostic(rel, 1, "invalid JSON: nested too deeply")]) from None
    if _depth(data) > MAX_DEPTH:
        # The compiler's walks (and the metaschema check) recurse: refuse what no schema needs.
        raise CompileError([Diagnostic(rel, 1, f"invalid JSON: nested deeper than {MAX_DEPTH} levels")])
    found = first_problem(data, _lone_surrogate)
    if found is not None:
        # I-JSON (RFC 7493 2.1), as for artifacts (SPEC 3.1): such a string is not text.
        line = json_line_map(text).get(found[0], 1)
        raise CompileError([Diagnostic(rel, line, "invalid JSON: a lone surrogate escape is not text (I-JSON)")])
    return SourceFile(path, rel, raw, data)


MAX_DEPTH = 64


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (0 for a scalar), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(current, dict):
            stack.extend((v, level + 1) for v in current.values())
        elif isinstance(current, list):
            stack.extend((v, level + 1) for v in current)
    return deepest


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(item: Any) -> str | None:
    return "a lone surrogate" if isinstance(item, str) and _SURROGATE.search(item) else None


# Parsed tables by their bytes: `rcs schema diff` loads two versions of a project in one process,
# and most tables are the same in both (the pure-Python YAML reader is the slow part of a load).
_PARSED: dict[bytes, Any] = {}
_PARSED_MAX = 512


def _parse_yaml(raw: bytes) -> Any:
    if raw not in _PARSED:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[raw] = yaml_data.load(files.without_bom(raw).decode("utf-8"))
    return copy.deepcopy(_PARSED[raw])  # each load owns its data


def read_yaml(root: Path, path: Path) -> SourceFile:
    """Read a YAML rule table; syntax errors and duplicate keys become CompileErrors."""
    rel = _rel(root, path)
    raw = _read_bytes(rel, path)
    try:
        data = _parse_yaml(raw)
    except UnicodeDecodeError as exc:
        raise CompileError([Diagnostic(rel, 1, f"not UTF-8: {exc.reason}")]) from None
    except yaml_data.YamlError as exc:
        raise CompileError([Diagnostic(rel, exc.line, f"invalid YAML: {exc.problem}")]) from None
    return SourceFile(path, rel, raw, data)


def _table(root: Path, path: Path, cache: dict[Path, SourceFile]) -> Table:
    source = read_yaml(root, path)
    if not isinstance(source.data, dict) or not isinstance(source.data.get("$schema"), str):
        raise CompileError(
            [Diagnostic(source.rel, 1, "a rule table must name its schema in a top-level '$schema' key")]
        )
    schema_path = (path.parent / source.data["$schema"]).resolve()
    if not schema_path.is_file():
        line = source.lines.get("/$schema", 1)
        raise CompileError([Diagnostic(source.rel, line, f"table schema not found: {source.data['$schema']}")])
    if schema_path not in cache:
        cache[schema_path] = read_json(root, schema_path)
    return Table(source, cache[schema_path])


def _described(path: Path, kind: str) -> str:
    if kind == "loop":
        return str(files.SymlinkLoop(str(path)))
    if kind == "dangling":
        return str(files.DanglingLink(str(path)))
    return "permission denied"


def _domain_of(folder: str, table: Table) -> str | None:
    """The domain whose folder holds the table's schema (``<schemas>/<domain>/x.schema.json``)."""
    base = Path(folder).parts
    parts = Path(table.schema.rel).parts
    if len(parts) == len(base) + 2 and parts[: len(base)] == base and parts[-2] != TABLE_SCHEMA_DIR:
        return parts[-2]
    return None


def _files(paths: Iterable[Path]) -> list[Path]:
    """Every input found, sorted; a directory named x.schema.json is not one. Anything else that is
    not a regular file (a FIFO, a dangling link) stays, so that reading it reports it: never skipped."""
    return sorted(p for p in paths if files.kind_of(p) != "dir")


def _resources(root: Path, settings: config.Settings, problems: list[Diagnostic]) -> list[Resource]:
    found: list[Resource] = []
    for prefix, directory in settings.resources:
        base = root / directory
        for path in _files(base.rglob("*.json")):
            try:
                found.append(Resource(read_json(root, path), prefix + path.relative_to(base).as_posix()))
            except CompileError as exc:
                problems.extend(exc.diagnostics)
    return sorted(found, key=lambda r: r.uri)


def _unlistable(folder: Path) -> str | None:
    """Why the folder's entries cannot be listed, or None."""
    try:
        next(iter(folder.iterdir()), None)
    except OSError as exc:
        return files.reason(exc)
    return None


def _holds_inputs(folder: Path) -> bool:
    """Whether ``folder`` holds a schema or a rule table, as a domain folder would (one it cannot
    list may: it is named too)."""
    try:
        return any(p.name.endswith((SCHEMA_SUFFIX, ".yaml")) and p.is_file() for p in folder.iterdir())
    except OSError:
        return True


def load(root: Path, writing: bool = True) -> Project:
    """Read every input under ``root``; raise CompileError with all load problems found.
    ``writing``: see ``config.load``."""
    root = root.resolve()
    settings = config.load(root, writing)
    folder = settings.schemas
    schemas_dir = root / folder
    if not schemas_dir.is_dir():
        raise CompileError([Diagnostic(folder, 0, f"no {folder}/ directory under {root}")])
    unlisted = _unlistable(schemas_dir)
    if unlisted is not None:
        raise CompileError([Diagnostic(folder, 0, f"cannot read: {unlisted}")])
    problems: list[Diagnostic] = []
    resources = _resources(root, settings, problems)
    cache: dict[Path, SourceFile] = {}
    table_schemas: list[SourceFile] = []
    for path in _files((schemas_dir / TABLE_SCHEMA_DIR).glob("*" + SCHEMA_SUFFIX)):
        try:
            cache[path.resolve()] = read_json(root, path)
            table_schemas.append(cache[path.resolve()])
        except CompileError as exc:
            problems.extend(exc.diagnostics)
    domains: dict[str, tuple[list[SourceFile], list[Table]]] = {}
    for odd in sorted(schemas_dir.iterdir()):
        kind = files.kind_of(odd)
        if kind in ("loop", "dangling", "unreadable"):  # it may have been a domain: never skip it silently
            problems.append(Diagnostic(f"{folder}/{odd.name}", 0, f"cannot read: {_described(odd, kind)}"))
    skipped: list[str] = []
    for domain_dir in sorted(p for p in schemas_dir.iterdir() if p.is_dir()):
        if domain_dir.name.startswith("_") and _holds_inputs(domain_dir):
            skipped.append(f"{folder}/{domain_dir.name}")
        if domain_dir.name == TABLE_SCHEMA_DIR or domain_dir.name.startswith((".", "_")):
            continue
        unlisted = _unlistable(domain_dir)
        if unlisted is not None:  # globbing would find nothing and drop the domain without a word
            problems.append(Diagnostic(f"{folder}/{domain_dir.name}", 0, f"cannot read: {unlisted}"))
            continue
        schemas, _ = domains.setdefault(domain_dir.name, ([], []))
        for path in _files(domain_dir.glob("*" + SCHEMA_SUFFIX)):
            try:
                sf = read_json(root, path)
                cache[path.resolve()] = sf
                schemas.append(sf)
            except CompileError as exc:
                problems.extend(exc.diagnostics)
    for domain_dir in sorted(p for p in schemas_dir.iterdir() if p.is_dir()):
        if domain_dir.name not in domains:
            continue
        for path in _files(domain_dir.glob("*.yaml")):
            try:
                domains[domain_dir.name][1].append(_table(root, path, cache))
            except CompileError as exc:
                problems.extend(exc.diagnostics)
    for name in ROOT_TABLES:
        path = root / name
        if files.kind_of(path) == "missing":  # optional; anything else that is there is read (or refused)
            continue
        try:
            table = _table(root, path, cache)
        except CompileError as exc:
            problems.extend(exc.diagnostics)
            continue
        owner = _domain_of(folder, table)
        if owner is None or owner not in domains:
            message = f"a root table's $schema must point into {folder}/<domain>/"
            problems.append(Diagnostic(table.source.rel, 1, message))
            continue
        domains[owner][1].append(table)
    if problems:
        raise CompileError(sorted(problems))
    return Project(
        root=root,
        domains=tuple(
            Domain(name, tuple(schemas), tuple(sorted(tables, key=lambda t: t.source.rel)))
            for name, (schemas, tables) in sorted(domains.items())
            if schemas or tables  # a directory with no inputs is not a domain
        ),
        table_schemas=tuple(table_schemas),
        settings=settings,
        resources=tuple(resources),
        skipped=tuple(skipped),
    )
