"""The model view: what datamodel-code-generator is shown of a schema, never stricter than the schema.

The verdict on an artifact is the JSON Schema engine's (``runtime/engine.py``); the generated models
give typed access to what the engine accepted. So a model must accept every instance its schema
accepts. Each subschema is rewritten to the part that Pydantic expresses with exactly the schema's
meaning, and everything else is dropped, which can only make the model looser:

* kept: ``type`` (each listed type becomes one branch of a union), ``properties``, ``required``
  (names a property defines), ``additionalProperties: false`` (when no ``patternProperties`` could
  admit more), ``items`` (without ``prefixItems``), string ``enum``/``const`` values, numeric
  bounds, integer ``multipleOf``, length and item-count bounds, patterns in the portable subset
  (same meaning in Rust's regex, which Pydantic uses, and in ECMA-262), ``anyOf``/``oneOf`` as a
  union when nothing sits beside them, ``$ref`` to a top-level ``$defs`` entry of the same or a
  sibling file, ``default`` when it is valid, ``title`` and ``description``;
* dropped (the engine still enforces them): every other keyword, and any ``$ref`` the view cannot
  follow (anchors, ``$dynamicRef``, pointers outside ``$defs``, other base URIs).

A subschema without ``type`` constrains nothing the model could type, so it becomes ``{}`` (Any),
except for string enums and unions. ``integer`` is typed ``JsonInt`` (accepts ``1.0``), ``number``
``JsonNumber`` (an int stays an int), every formatted string a plain ``str``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from rcs_contracts.base.about import GENERATED_PACKAGE
from rcs_contracts.codegen.keywords import objects

JSON_INT = f"{GENERATED_PACKAGE}._support.JsonInt"
JSON_NUMBER = f"{GENERATED_PACKAGE}._support.JsonNumber"
_DEF_REF = re.compile(r"(?P<file>[a-z][a-z0-9_]*\.schema\.json)?#/\$defs/(?P<name>[A-Za-z_][A-Za-z0-9_]*)")
_FILE_REF = re.compile(r"[a-z][a-z0-9_]*\.schema\.json")
_NUMERIC_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_ANNOTATIONS = ("title", "description")
# Escapes that mean the same single character (or the character itself) in Rust's regex and ECMA-262.
_PORTABLE_ESCAPES = frozenset("\\.^$|?*+()[]{}/-tnr")

Valid = Callable[[Any, Any], bool]


def portable_pattern(pattern: str) -> bool:
    """True when ``pattern`` matches exactly the same strings in Rust's regex crate and ECMA-262.

    A conservative subset: literal characters, classes, groups, alternation, anchors and
    quantifiers, with no class shorthands (``\\d`` is Unicode in Rust, ASCII in ECMA-262), no
    ``(?`` constructs, no backreferences or ``\\b``, no POSIX or nested classes and set operations
    (Rust extensions that ECMA reads literally), and every ``{`` a well-formed quantifier (ECMA
    takes a stray brace as a literal, Rust refuses it). ``.`` is allowed: Rust's excludes only
    ``\\n``, ECMA's also ``\\r``, U+2028 and U+2029, so the model can only be looser there.
    """
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if index + 1 >= len(pattern) or pattern[index + 1] not in _PORTABLE_ESCAPES:
                return False
            index += 2
            continue
        if in_class:
            if char == "[" or pattern.startswith(("&&", "--", "~~"), index):
                return False
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            if pattern.startswith("[^]", index) or pattern.startswith("[]", index):
                return False  # "[]" and "[^]" are classes in ECMA, literal brackets in Rust
        elif char == "(" and pattern.startswith("(?", index):
            return False
        elif char == "{":
            quantifier = re.match(r"\{[0-9]+(,[0-9]*)?\}", pattern[index:])
            if quantifier is None or index == 0 or pattern[index - 1] in "(|^{":
                return False
            index += quantifier.end()
            continue
        elif char == "}":
            return False
        index += 1
    return not in_class


class ModelView:
    """Rewrites the schemas of one domain; ``siblings`` are the file names of that domain."""

    def __init__(
        self,
        siblings: frozenset[str],
        is_valid: Valid,
        pattern_ok: Callable[[str], bool],
        references: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self.siblings = siblings
        self.is_valid = is_valid
        self.pattern_ok = pattern_ok
        self.reaches = _closure(references or {})

    def follows(self, source: str, target: str) -> bool:
        """Whether a ref from file ``source`` to sibling ``target`` is kept: not when it closes a cycle
        of files (the generator can only type such a cycle in a module of its own)."""
        return source not in self.reaches.get(target, frozenset())

    def document(self, name: str, schema: Any, class_name: str) -> dict[str, Any]:
        """The view of a whole schema file: its root, its ``$defs``, the model class named ``class_name``."""
        if not isinstance(schema, dict):
            return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": class_name}
        own_id = schema.get("$id")
        # A root $id other than the file's own name moves the base URI: relative refs then point
        # elsewhere than the sibling files, so only same-document refs are followed.
        follow_files = own_id is None or own_id == name
        defs = schema.get("$defs")
        names = {k for k, v in defs.items() if isinstance(v, (dict, bool))} if isinstance(defs, dict) else set()
        scope = _Scope(self, name, follow_files, names)
        view = scope.subschema({k: v for k, v in schema.items() if k not in ("$id", "$defs")})
        view["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        view["title"] = class_name
        if isinstance(defs, dict):
            viewed = {}
            for key in sorted(names):
                sub = defs[key]
                viewed[key] = {} if isinstance(sub, dict) and "$id" in sub else scope.subschema(sub)
            if viewed:
                view["$defs"] = viewed
        return view


class _Scope:
    """One file's rewriting: which refs it can follow."""

    def __init__(self, owner: ModelView, name: str, follow_files: bool, defs: set[str]) -> None:
        self.owner = owner
        self.name = name
        self.follow_files = follow_files
        self.defs = defs

    def ref(self, ref: str) -> dict[str, Any]:
        match = _DEF_REF.fullmatch(ref)
        if match is not None:
            file = match["file"]
            if file is None or file == self.name:
                if match["name"] in self.defs:
                    return {"$ref": f"#/$defs/{match['name']}"}
                return {}
            if self.follow_files and file in self.owner.siblings and self.owner.follows(self.name, file):
                return {"$ref": ref}
            return {}
        if (
            self.follow_files
            and _FILE_REF.fullmatch(ref)
            and ref in self.owner.siblings
            and ref != self.name
            and self.owner.follows(self.name, ref)
        ):
            return {"$ref": ref}
        return {}

    def subschema(self, schema: Any) -> dict[str, Any]:
        """The view of one subschema (booleans and non-objects become ``{}``: anything)."""
        if not isinstance(schema, dict) or "$id" in schema:
            return {}
        notes = {k: schema[k] for k in _ANNOTATIONS if isinstance(schema.get(k), str)}
        if isinstance(schema.get("$ref"), str):
            view = self.ref(schema["$ref"])
            return {**notes, **view} if view else {}
        kinds = schema.get("type")
        if kinds is None:
            view = self.untyped(schema)
        else:
            listed = [kinds] if isinstance(kinds, str) else kinds
            branches = [self.typed(schema, kind) for kind in dict.fromkeys(listed) if isinstance(kind, str)]
            view = branches[0] if len(branches) == 1 else {"anyOf": branches}
        if not view:
            return {}
        if "default" in schema and self.owner.is_valid(schema, schema["default"]):
            view["default"] = schema["default"]
        return {**notes, **view}

    def untyped(self, schema: dict[str, Any]) -> dict[str, Any]:
        values = _allowed_values(schema)
        if values is not None and values and all(isinstance(v, str) for v in values):
            return {"type": "string", "enum": values}
        siblings = set(schema) - {"anyOf", "oneOf", *_ANNOTATIONS, "$comment", "$schema", "$defs", "default"}
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            alone = not siblings and not (set(schema) & {"anyOf", "oneOf"} - {key})
            if isinstance(branches, list) and branches and alone:
                views = [self.subschema(b) for b in branches]
                if all(views):
                    return {"anyOf": views}
        return {}

    def typed(self, schema: dict[str, Any], kind: str) -> dict[str, Any]:
        view: dict[str, Any] = {"type": kind}
        values = _allowed_values(schema)
        if kind == "string":
            if values is not None:
                strings = [v for v in values if isinstance(v, str)]
                if strings:
                    view["enum"] = strings
                # no string is allowed: the engine rejects every string; the model stays a str
            for key in ("minLength", "maxLength"):
                if _count(schema.get(key)):
                    view[key] = schema[key]
            pattern = schema.get("pattern")
            if isinstance(pattern, str) and portable_pattern(pattern) and self.owner.pattern_ok(pattern):
                view["pattern"] = pattern
        elif kind in ("integer", "number"):
            view["customTypePath"] = JSON_INT if kind == "integer" else JSON_NUMBER
            for key in _NUMERIC_BOUNDS:
                if _number(schema.get(key)):
                    view[key] = schema[key]
            step = schema.get("multipleOf")
            if kind == "integer" and isinstance(step, int) and not isinstance(step, bool) and step > 0:
                view["multipleOf"] = step
        elif kind == "array":
            for key in ("minItems", "maxItems"):
                if _count(schema.get(key)):
                    view[key] = schema[key]
            if "prefixItems" not in schema and "items" in schema:
                items = self.subschema(schema["items"])
                if items:
                    view["items"] = items
        elif kind == "object":
            view.update(self.object(schema))
        elif kind == "boolean":
            flags = [v for v in values if isinstance(v, bool)] if values is not None else []
            if len(flags) == 1:
                view["const"] = flags[0]
        elif kind != "null":
            return {}  # not a JSON type: the metaschema refuses it
        return view

    def object(self, schema: dict[str, Any]) -> dict[str, Any]:
        view: dict[str, Any] = {}
        props = schema.get("properties")
        if isinstance(props, dict) and not typable_names(props):
            return {"additionalProperties": True}  # a map of anything: the engine checks its members
        properties = {k: self.subschema(v) for k, v in props.items()} if isinstance(props, dict) else {}
        if properties:
            view["properties"] = properties
        required = schema.get("required")
        if isinstance(required, list):
            names = [r for r in dict.fromkeys(required) if isinstance(r, str) and r in properties]
            if names:
                view["required"] = names
        extra = schema.get("additionalProperties")
        if "patternProperties" in schema:
            view["additionalProperties"] = True
        elif extra is False:
            view["additionalProperties"] = False
        elif isinstance(extra, dict) and not properties:
            values = self.subschema(extra)
            view["additionalProperties"] = values if values else True
        else:
            view["additionalProperties"] = True
        return view


# Names pydantic gives a meaning of its own when they are class attributes.
_RESERVED_FIELDS = frozenset({"Config"})


def typable_names(properties: dict[str, Any]) -> bool:
    """Whether every property can be a field that keeps its JSON name.

    Python NFKC-normalises identifiers (``ℌ`` becomes ``H``, ``ﬁle`` ``file``), so such a name would
    silently read another member; two names the generator turns into the same field name (``a-b``
    and ``a_b``) would share one field; ``Config`` is pydantic's. An object with such names is
    typed as a map instead (the engine still checks every member).
    """
    seen: set[str] = set()
    for name in properties:
        if unicodedata.normalize("NFKC", name) != name or name in _RESERVED_FIELDS:
            return False
        key = re.sub(r"[^0-9a-z]", "", name.lower())
        keys = {key, "field" + key}  # the generator prefixes field_ to names it cannot use as they are
        if keys & seen:
            return False
        seen |= keys
    return True


def file_references(schema: Any) -> frozenset[str]:
    """The sibling files a schema's ``$ref``s name (``other.schema.json`` or ``other.schema.json#...``)."""
    found: set[str] = set()
    for current in objects(schema):
        ref = current.get("$ref")
        if isinstance(ref, str) and _FILE_REF.fullmatch(ref.split("#", 1)[0]):
            found.add(ref.split("#", 1)[0])
    return frozenset(found)


def _closure(edges: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """For each file, every file reachable from it by references (itself only through a cycle)."""
    reach: dict[str, frozenset[str]] = {}
    for start in edges:
        seen: set[str] = set()
        stack = list(edges[start])
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(edges.get(node, ()))
        reach[start] = frozenset(seen)
    return reach


def _allowed_values(schema: dict[str, Any]) -> list[Any] | None:
    """The values ``const``/``enum`` allow (both: those in both), or None when neither is given."""
    found: list[Any] | None = None
    if "enum" in schema and isinstance(schema["enum"], list):
        found = list(schema["enum"])
    if "const" in schema:
        found = [schema["const"]] if found is None else [v for v in found if _same(v, schema["const"])]
    return found


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _count(value: Any) -> bool:
    # pydantic-core keeps lengths and counts in a machine word; a larger bound is the engine's alone.
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
