"""TypeScript declarations from the schemas: ``generated/ts/index.d.ts`` (SPEC.md 2.2).

One module, one namespace per domain (``Evidence.StructuredReport``), so that no two names clash
(two domains may both have a ``Config``). Each artifact schema gives its root type (named by its
``title``, as the Python model) and one type per ``$defs`` entry; a ``$defs`` name already taken in
its domain is prefixed with its file's root name. Rendered in Python from the schemas, with no
node at compile time; ``tsc --strict`` checks the output in CI.

TypeScript says what a type system can: ``type``, ``enum`` and ``const`` (literal unions),
``properties``/``required`` (optional members), ``additionalProperties`` (closed, or an index
signature), ``items``/``prefixItems``, ``anyOf``/``oneOf`` (unions), ``allOf`` (intersections)
and ``$ref``. Value constraints (``pattern``, bounds, ``format``, ``not``, conditionals) are not
types: the schema still judges them, and each is named in the member's doc comment when it has one.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rcs_contracts.codegen.sources import SCHEMA_SUFFIX, Domain, Project, SourceFile

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_SIMPLE = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "null": "null"}


def _pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", text) if part)


def _root_name(schema: SourceFile) -> str:
    title = schema.data.get("title") if isinstance(schema.data, dict) else None
    if isinstance(title, str) and _IDENTIFIER.match(title):
        return title
    return _pascal(schema.path.name[: -len(SCHEMA_SUFFIX)])


def _names(domain: Domain) -> dict[tuple[str, str], str]:
    """(file name, "" for the root or the $defs key) -> the TypeScript name in the domain's namespace."""
    taken: set[str] = set()
    names: dict[tuple[str, str], str] = {}
    for schema in sorted(domain.schemas, key=lambda s: s.path.name):
        root = _root_name(schema)
        names[(schema.path.name, "")] = root
        taken.add(root)
    for schema in sorted(domain.schemas, key=lambda s: s.path.name):
        defs = schema.data.get("$defs") if isinstance(schema.data, dict) else None
        for key in sorted(defs) if isinstance(defs, dict) else []:
            name = key if _IDENTIFIER.match(key) else _pascal(key)
            if name in taken:
                name = names[(schema.path.name, "")] + _pascal(key)
            names[(schema.path.name, key)] = name
            taken.add(name)
    return names


def _doc(text: Any, indent: str) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        return []
    body = text.strip().replace("*/", "*\\/").splitlines()
    return [f"{indent}/**", *[f"{indent} * {line}".rstrip() for line in body], f"{indent} */"]


class _Writer:
    def __init__(self, names: dict[tuple[str, str], str], file: str) -> None:
        self.names, self.file = names, file

    def ref(self, ref: str) -> str:
        target, _, pointer = ref.partition("#")
        file = target or self.file
        if pointer in ("", "/"):
            return self.names.get((file, ""), "unknown")
        match = re.fullmatch(r"/\$defs/([^/]+)", pointer)
        return self.names.get((file, match[1]), "unknown") if match else "unknown"

    def type(self, schema: Any, indent: str) -> str:
        if schema is True or schema == {}:
            return "unknown"
        if schema is False:
            return "never"
        if not isinstance(schema, dict):
            return "unknown"
        parts: list[str] = []
        if isinstance(schema.get("$ref"), str):
            parts.append(self.ref(schema["$ref"]))
        if "const" in schema:
            parts.append(json.dumps(schema["const"], ensure_ascii=False))
        elif isinstance(schema.get("enum"), list):
            parts.append("(" + " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"]) + ")")
        else:
            own = self._typed(schema, indent)
            if own is not None:
                parts.append(own)
        for keyword, joiner in (("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")):
            branches = schema.get(keyword)
            if isinstance(branches, list) and branches:
                parts.append("(" + joiner.join(self.type(b, indent) for b in branches) + ")")
        return " & ".join(parts) if parts else "unknown"

    def _typed(self, schema: dict[str, Any], indent: str) -> str | None:
        kinds = schema.get("type")
        if kinds is None:
            if "properties" in schema or "additionalProperties" in schema:
                kinds = "object"
            elif "items" in schema or "prefixItems" in schema:
                kinds = "array"
            else:
                return None
        listed = kinds if isinstance(kinds, list) else [kinds]
        rendered = [self._one(str(kind), schema, indent) for kind in listed]
        return rendered[0] if len(rendered) == 1 else "(" + " | ".join(rendered) + ")"

    def _one(self, kind: str, schema: dict[str, Any], indent: str) -> str:
        if kind in _SIMPLE:
            return _SIMPLE[kind]
        if kind == "array":
            items = schema.get("items", True)
            prefix = schema.get("prefixItems")
            if isinstance(prefix, list):
                rest = "" if items is False else f", ...{self.type(items, indent)}[]"
                return "[" + ", ".join(self.type(p, indent) for p in prefix) + rest + "]"
            return f"Array<{self.type(items, indent)}>"
        if kind == "object":
            return self._object(schema, indent)
        return "unknown"

    def _object(self, schema: dict[str, Any], indent: str) -> str:
        inner = indent + "  "
        found = schema.get("properties")
        props: dict[str, Any] = found if isinstance(found, dict) else {}
        required = set(schema.get("required", [])) if isinstance(schema.get("required"), list) else set()
        extra = schema.get("additionalProperties", True)
        lines: list[str] = []
        for name in props:
            sub = props[name]
            key = name if _IDENTIFIER.match(name) else json.dumps(name, ensure_ascii=False)
            lines += _doc(sub.get("description") if isinstance(sub, dict) else None, inner)
            lines.append(f"{inner}{key}{'' if name in required else '?'}: {self.type(sub, inner)};")
        if extra is not False:
            # Members beside an index signature must fit it: with properties, the map's values are
            # only known to be some JSON value.
            value = self.type(extra, inner) if not props else "unknown"
            lines.append(f"{inner}[key: string]: {value};")
        if not lines:
            return "{}"
        return "{\n" + "\n".join(lines) + f"\n{indent}}}"


def render(project: Project) -> str:
    """The body of ``generated/ts/index.d.ts``."""
    out = [
        "// TypeScript declarations of every artifact kind, one namespace per domain (SPEC.md 2.2).",
        "// Types say the shape; the schemas (rcs schema export) still judge every value.",
        "",
    ]
    for domain in sorted(project.domains, key=lambda d: d.name):
        if not domain.schemas:
            continue
        names = _names(domain)
        out.append(f"export declare namespace {_pascal(domain.name)} {{")
        for schema in sorted(domain.schemas, key=lambda s: s.path.name):
            writer = _Writer(names, schema.path.name)
            data = schema.data if isinstance(schema.data, dict) else {}
            root = {k: v for k, v in data.items() if k != "$defs"}
            out += _doc(data.get("description"), "  ")
            out.append(f"  export type {names[(schema.path.name, '')]} = {writer.type(root, '  ')};")
            listed = data.get("$defs")
            defs: dict[str, Any] = listed if isinstance(listed, dict) else {}
            for key in sorted(defs):
                sub = defs[key]
                out += _doc(sub.get("description") if isinstance(sub, dict) else None, "  ")
                out.append(f"  export type {names[(schema.path.name, key)]} = {writer.type(sub, '  ')};")
        out.append("}")
        out.append("")
    # Every kind by its name (`rcs validate --kind`, catalog.json): Kinds["evidence/structured_report"].
    out.append("export interface Kinds {")
    for domain in sorted(project.domains, key=lambda d: d.name):
        names = _names(domain)
        for schema in sorted(domain.schemas, key=lambda s: s.path.name):
            kind = f"{domain.name}/{schema.path.name[: -len(SCHEMA_SUFFIX)]}"
            out.append(f'  "{kind}": {_pascal(domain.name)}.{names[(schema.path.name, "")]};')
    out.append("}")
    out.append("")
    return "\n".join(out)
