"""Every lint refusal pinned to its exact ``file:line: message``, and its near misses accepted.

SPEC 2.1 (the lint), 12.5 (the research contract version) and the rules of the rule tables: each
test builds a small project tree, runs the lint (``codegen.lint.check`` on ``codegen.sources.load``,
what ``rcs codegen`` runs before it renders) and compares the whole list of diagnostics, so that a
rule that stops firing, fires on a schema it must accept, names the wrong line or words its message
differently fails here. Written where mutation testing (bench/mutation.py) found survivors in
codegen/schema_lint.py, codegen/lint.py and codegen/research_tables.py.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from rcs_contracts.codegen import engine, lint, research_tables, sources
from rcs_contracts.codegen.lint import shorthand_escapes
from tests.conftest import ROOT

SCHEMA = "https://json-schema.org/draft/2020-12/schema"
HOUSE_OFF = "house-style = false\n"
SHOP = "schemas/shop"
RELEASED_SHA = "274dab8fb5e1a8253098b5be97067edb747a0a9df66c4e113e67c45af7260d64"


# --- helpers ---------------------------------------------------------------------------------------


def make_project(
    root: Path,
    schemas: dict[str, object],
    settings: str | None = HOUSE_OFF,
    files: dict[str, str] | None = None,
    domain: str = "shop",
) -> Path:
    """A project with one domain holding ``schemas`` (file stem -> schema, or the file's text)."""
    (root / "schemas" / domain).mkdir(parents=True, exist_ok=True)
    for stem, schema in schemas.items():
        text = schema if isinstance(schema, str) else json.dumps(schema, indent=2) + "\n"
        (root / "schemas" / domain / f"{stem}.schema.json").write_text(text, encoding="utf-8")
    if settings is not None:
        (root / "pyproject.toml").write_text("[tool.rcs]\n" + settings, encoding="utf-8")
    for rel, text in (files or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def lint_of(root: Path) -> list[str]:
    """The lint's diagnostics of the project at ``root``, as ``rcs codegen`` prints them."""
    return [str(d) for d in lint.check(sources.load(root))]


def at(path: Path, needle: str, nth: int = 1) -> int:
    """The 1-based number of the ``nth`` line of ``path`` that contains ``needle``."""
    seen = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == nth:
                return number
    raise AssertionError(f"{needle!r} (#{nth}) not in {path}")


def replace(path: Path, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def copy_tables(root: Path, *names: str) -> None:
    """Copy the project's table schemas ``names`` (all of them when none is named) into ``root``."""
    target = root / "schemas" / "tables"
    target.mkdir(parents=True, exist_ok=True)
    chosen = [f"{n}.schema.json" for n in names] or [p.name for p in (ROOT / "schemas/tables").glob("*.schema.json")]
    for name in chosen:
        shutil.copy(ROOT / "schemas/tables" / name, target / name)


def quoted(path: Path, text: str, nth: int = 1) -> int:
    """The line of the ``nth`` occurrence of ``text`` in double quotes (a JSON string)."""
    return at(path, '"' + text + '"', nth)


def top_key(path: Path, key: str) -> int:
    """The line of a top-level key of a YAML file."""
    return next(
        n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith(key + ":")
    )


def at_key(path: Path, key: str) -> int:
    """The line of a key in a ``json.dumps(indent=2)`` file (``"key":`` opens it)."""
    return at(path, f'"{key}":')


# --- correctness: bounds, enum, required ------------------------------------------------------------


def test_bounds_no_value_can_meet_are_refused_for_every_pair(tmp_path: Path) -> None:
    """SPEC 2.1: a lower bound above its upper bound, or equal to it when either is exclusive."""
    pairs = [
        ("minimum", 5, "maximum", 4),
        ("exclusiveMinimum", 4, "maximum", 4),
        ("minimum", 4, "exclusiveMaximum", 4),
        ("exclusiveMinimum", 4, "exclusiveMaximum", 4),
        ("minLength", 5, "maxLength", 4),
        ("minItems", 5, "maxItems", 4),
        ("minProperties", 5, "maxProperties", 4),
        ("minContains", 5, "maxContains", 4),
    ]
    properties = {f"p{i}": {lower: low, upper: high} for i, (lower, low, upper, high) in enumerate(pairs)}
    properties["p7"]["contains"] = {}
    root = make_project(tmp_path, {"item": {"properties": properties}})
    path = root / SHOP / "item.schema.json"
    assert lint_of(root) == [
        f"{SHOP}/item.schema.json:{at_key(path, f'p{i}') + 1}: {lower} {low} is above {upper} {high}: "
        "no value can satisfy both"
        for i, (lower, low, upper, high) in enumerate(pairs)
    ]


def test_bounds_some_value_meets_are_accepted(tmp_path: Path) -> None:
    """Equal inclusive bounds admit exactly one value; a gap admits values between exclusive ones;
    one bound alone is no pair."""
    properties = {
        "q1": {"minimum": 4, "maximum": 4},
        "q2": {"minLength": 4, "maxLength": 4},
        "q3": {"minItems": 4, "maxItems": 4},
        "q4": {"minProperties": 4, "maxProperties": 4},
        "q5": {"contains": {}, "minContains": 4, "maxContains": 4},
        "q6": {"exclusiveMinimum": 3, "maximum": 4},
        "q7": {"minimum": 3, "exclusiveMaximum": 4},
        "q8": {"exclusiveMinimum": 3, "exclusiveMaximum": 4},
        "q9": {"minimum": 1},
        "q10": {"maxLength": 0},
        "q11": {"minimum": 2.5, "maximum": 2.5},
    }
    root = make_project(tmp_path, {"item": {"properties": properties}})
    assert lint_of(root) == []


def test_numeric_bounds_beyond_2_63_are_refused(tmp_path: Path) -> None:
    """SPEC 2.1: bounds lie within +-2**63 (the engine compares beyond it inexactly); 2**63 - 1 is in."""
    big = 2**63
    properties = {
        "a": {"minimum": big},
        "b": {"maximum": -big},
        "c": {"exclusiveMinimum": big},
        "d": {"exclusiveMaximum": -big},
        "e": {"minimum": -(big - 1), "maximum": big - 1},
    }
    root = make_project(tmp_path, {"item": {"properties": properties}})
    path = root / SHOP / "item.schema.json"
    expected = [("a", "minimum", big), ("b", "maximum", -big), ("c", "exclusiveMinimum", big)]
    expected.append(("d", "exclusiveMaximum", -big))
    assert lint_of(root) == [
        f"{SHOP}/item.schema.json:{at_key(path, name) + 1}: {key} {value} is beyond +-2**63, where rcs's JSON "
        "Schema engine compares numbers inexactly; use a bound within that range"
        for name, key, value in expected
    ]


def test_empty_enum_is_refused_and_a_listed_value_is_not(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"item": {"properties": {"none": {"enum": []}, "one": {"enum": [1]}}}})
    path = root / SHOP / "item.schema.json"
    assert lint_of(root) == [
        f"{SHOP}/item.schema.json:{at_key(path, 'enum')}: 'enum: []' allows no value at all; "
        "use 'false' if nothing is meant"
    ]


def test_required_names_that_can_never_be_present_are_refused(tmp_path: Path) -> None:
    """A required name that ``properties`` sets to false, or that a closed object admits nowhere."""
    schema = {
        "type": "object",
        "properties": {"open": True, "shut": False, "known": {}},
        "patternProperties": {"^x-": {}},
        "required": ["open", "shut", "known", "x-extra", "missing"],
        "additionalProperties": False,
    }
    root = make_project(tmp_path, {"item": schema})
    path = root / SHOP / "item.schema.json"
    item = f"{SHOP}/item.schema.json"
    assert lint_of(root) == [
        f"{item}:{quoted(path, 'shut', 2)}: required property 'shut' can never be present: properties says false",
        f"{item}:{quoted(path, 'missing')}: required property 'missing' can never be present: additionalProperties "
        "is false and no property or patternProperties admits it (add it to 'properties')",
    ]


def test_required_names_an_object_admits_are_accepted(tmp_path: Path) -> None:
    """Open objects admit any name; a property set to true is admitted even when the rest is closed."""
    schemas = {
        "open": {"type": "object", "properties": {"a": {}}, "required": ["a", "b"]},
        "loose": {"type": "object", "required": ["b"], "additionalProperties": True},
        "valued": {"type": "object", "required": ["b"], "additionalProperties": {"type": "string"}},
        "closed": {
            "type": "object",
            "properties": {"a": True},
            "patternProperties": {"^x-": {}},
            "required": ["a", "x-b"],
            "additionalProperties": False,
        },
    }
    root = make_project(tmp_path, schemas)
    assert lint_of(root) == []


def test_a_pattern_that_does_not_compile_admits_no_required_name(tmp_path: Path) -> None:
    schema = {"patternProperties": {"(": {}}, "required": ["a"], "additionalProperties": False}
    root = make_project(tmp_path, {"item": schema})
    path = root / SHOP / "item.schema.json"
    item = f"{SHOP}/item.schema.json"
    assert lint_of(root) == [
        f"{item}:{quoted(path, '(')}: pattern '(' does not compile: unclosed group",
        f"{item}:{quoted(path, 'a')}: required property 'a' can never be present: additionalProperties is false and "
        "no property or patternProperties admits it (add it to 'properties')",
    ]


# --- correctness: keywords, formats, dialects -------------------------------------------------------


def test_unknown_and_replaced_keywords_are_refused_and_declared_annotations_accepted(tmp_path: Path) -> None:
    schema = {
        "x-owner": "team-a",
        "requred": ["a"],
        "definitions": {},
        "properties": {"a": {"x-owner": "team-b", "additionalItems": False, "type": "array"}},
    }
    root = make_project(tmp_path, {"item": schema}, HOUSE_OFF + 'annotations = ["x-owner"]\n')
    path = root / SHOP / "item.schema.json"
    item = f"{SHOP}/item.schema.json"
    assert lint_of(root) == [
        f"{item}:{at_key(path, 'requred')}: unknown keyword 'requred' would be ignored (a typo?); declare it in "
        "[tool.rcs] annotations if meant",
        f"{item}:{at_key(path, 'definitions')}: draft 2020-12 ignores 'definitions'; use $defs",
        f"{item}:{at_key(path, 'additionalItems')}: draft 2020-12 ignores 'additionalItems'; use items (with "
        "prefixItems)",
    ]


def test_a_format_rcs_does_not_assert_is_refused_with_the_list_it_does(tmp_path: Path) -> None:
    schema = {"properties": {"bad": {"format": "emial"}, "good": {"format": "email"}}}
    root = make_project(tmp_path, {"item": schema})
    path = root / SHOP / "item.schema.json"
    asserted = ", ".join(sorted(engine.ASSERTED_FORMATS))
    assert "email" in engine.ASSERTED_FORMATS
    assert lint_of(root) == [
        f"{SHOP}/item.schema.json:{at(path, 'emial')}: format 'emial' is not one rcs asserts, so it would check "
        f"nothing (asserted: {asserted})"
    ]


def test_other_drafts_are_refused_and_judged_by_the_2020_12_metaschema(tmp_path: Path) -> None:
    """A draft-07 schema is refused by name, and its draft-07 ``items`` array is no 2020-12 schema."""
    schemas = {
        "old": {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]},
        "new": {"$schema": SCHEMA, "type": "string"},
    }
    root = make_project(tmp_path, schemas)
    path = root / SHOP / "old.schema.json"
    old = f"{SHOP}/old.schema.json"
    assert lint_of(root) == [
        f"{old}:{at_key(path, '$schema')}: '$schema' must be draft 2020-12 ({SCHEMA}) or a 2020-12 dialect",
        f"{old}:{at_key(path, 'items')}: not a valid 2020-12 schema: [{{'type': 'string'}}] is not of type "
        "'object', 'boolean'",
    ]


def test_a_project_metaschema_is_a_dialect_only_with_a_vocabulary_over_2020_12(tmp_path: Path) -> None:
    """SPEC 2.1: ``$schema`` may name a metaschema of the project that is a 2020-12 dialect
    (``$schema`` 2020-12 and a ``$vocabulary``); one without a vocabulary, or over draft-07, is not."""
    vocabulary = {f"https://json-schema.org/draft/2020-12/vocab/{v}": True for v in ("core", "applicator")}
    dialect = {"$schema": SCHEMA, "$vocabulary": vocabulary, "$dynamicAnchor": "meta", "allOf": [{"$ref": SCHEMA}]}
    plain = {k: v for k, v in dialect.items() if k != "$vocabulary"}
    old = {**dialect, "$schema": "http://json-schema.org/draft-07/schema#"}
    files = {f"vendor/{name}.json": json.dumps(doc) for name, doc in (("meta", dialect), ("plain", plain))}
    files["vendor/old.json"] = json.dumps(old)
    settings = HOUSE_OFF + '\n[tool.rcs.resources]\n"https://example.com/" = "vendor"\n'
    schemas = {stem: {"$schema": f"https://example.com/{stem}.json", "type": "string"} for stem in ("meta", "plain")}
    schemas["old"] = {"$schema": "https://example.com/old.json", "type": "string"}
    root = make_project(tmp_path, schemas, settings, files)
    message = f"'$schema' must be draft 2020-12 ({SCHEMA}) or a 2020-12 dialect"
    assert lint_of(root) == [f"{SHOP}/old.schema.json:2: {message}", f"{SHOP}/plain.schema.json:2: {message}"]


# --- correctness: references and the engine --------------------------------------------------------


def test_every_reference_resolves_from_where_it_stands(tmp_path: Path) -> None:
    schema = {
        "properties": {
            "local": {"$ref": "#/$defs/nowhere"},
            "remote": {"$ref": "https://example.com/elsewhere.json"},
            "deep": {"$ref": "https://example.com/elsewhere.json#/$defs/x"},
            "dynamic": {"$dynamicRef": "#nowhere"},
            "cross": {"$ref": "other.schema.json#/$defs/x"},
            "nested": {"$id": "inner.json", "$defs": {"y": {"type": "integer"}}, "$ref": "#/$defs/y"},
        }
    }
    root = make_project(tmp_path, {"item": schema, "other": {"$defs": {"x": {"type": "string"}}}})
    path = root / SHOP / "item.schema.json"
    item = f"{SHOP}/item.schema.json"
    remote = quoted(path, "https://example.com/elsewhere.json")
    assert lint_of(root) == [
        f"{item}:{at(path, '/nowhere')}: $ref does not resolve: #/$defs/nowhere",
        f"{item}:{remote}: $ref does not resolve: https://example.com/elsewhere.json "
        "(no such document; nothing is downloaded)",
        f"{item}:{at(path, 'elsewhere.json#')}: $ref does not resolve: https://example.com/elsewhere.json#/$defs/x",
        f"{item}:{at(path, '$dynamicRef')}: $dynamicRef does not resolve: #nowhere",
    ]


def test_an_id_that_names_no_resource_is_refused(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"item": {"$defs": {"d": {"$id": "#foo", "type": "string"}}}})
    line = at(root / SHOP / "item.schema.json", '"$id"')
    assert lint_of(root) == [
        f"{SHOP}/item.schema.json:{line}: $id does not resolve: Anchor 'foo' does not exist",
        f"{SHOP}/item.schema.json:{line}: not a valid 2020-12 schema: '#foo' does not match '^[^#]*#?$'",
    ]


def test_patterns_the_linear_time_engine_cannot_run_are_refused_by_name(tmp_path: Path) -> None:
    """SPEC 2.1: look-around and backreferences need backtracking and are named; other refusals say
    the pattern does not compile (with the engine's reason, or that the regex engine refuses it)."""
    schema = {
        "properties": {
            "ahead": {"pattern": "(?=a)b"},
            "back": {"pattern": "(a)\\1"},
            "open": {"pattern": "("},
            "minus": {"pattern": "[a--b]"},
            "fine": {"pattern": "^[a-z]+$"},
        },
        "patternProperties": {"(?<!x)y": {}},
    }
    root = make_project(tmp_path, {"item": schema})
    path = root / SHOP / "item.schema.json"
    item = f"{SHOP}/item.schema.json"
    linear = "cannot run on rcs's linear-time regex engine"
    assert lint_of(root) == [
        f"{item}:{at(path, '(?=a)b')}: pattern '(?=a)b' {linear}: look-around, including look-ahead and "
        "look-behind, is not supported",
        f"{item}:{at(path, '(a)')}: pattern '(a)\\\\1' {linear}: backreferences are not supported",
        f"{item}:{quoted(path, '(')}: pattern '(' does not compile: unclosed group",
        f"{item}:{at(path, '[a--b]')}: pattern '[a--b]' does not compile: the regex engine refuses it",
        f"{item}:{at(path, '(?<!x)y')}: pattern '(?<!x)y' {linear}: look-around, including look-ahead and "
        "look-behind, is not supported",
    ]


def test_what_only_the_engine_refuses_is_refused_with_its_words(tmp_path: Path) -> None:
    """The engine compiles every schema the rules above pass (SPEC 2.1): a $ref to a JSON value that is
    no schema, and a resource whose own $ref leads nowhere, are refused at the schema that uses them."""
    settings = HOUSE_OFF + '\n[tool.rcs.resources]\n"https://vendor.example/" = "vendor"\n'
    schemas = {
        "item": {"properties": {"x": {"$ref": "#/required"}}, "required": []},
        "order": {"properties": {"total": {"$ref": "https://vendor.example/money.json"}}},
    }
    root = make_project(tmp_path, schemas, settings, {"vendor/money.json": '{"$ref": "#/$defs/nope"}\n'})
    line = at(root / SHOP / "item.schema.json", '"required": []')
    assert lint_of(root) == [
        f'{SHOP}/item.schema.json:{line}: the JSON Schema engine refuses it: [] is not of types "boolean", "object"',
        f"{SHOP}/order.schema.json:1: the JSON Schema engine refuses it: Pointer '/$defs/nope' does not exist",
    ]


def test_a_schema_file_holds_an_object_or_a_boolean(tmp_path: Path) -> None:
    root = make_project(tmp_path, {"list": "[\n  1\n]\n", "yes": "true\n", "no": "false\n"})
    assert lint_of(root) == [f"{SHOP}/list.schema.json:1: a schema file must hold a JSON object (or true/false)"]


def test_two_files_answering_to_one_uri_are_refused(tmp_path: Path) -> None:
    """SPEC 2.1, one URI, one document: a relative or absolute root $id (its fragment aside) that
    another file already answers to. A file whose $id is its own name answers to its own URI."""
    schemas = {
        "a": {"$id": "b.schema.json"},
        "b": {"type": "string"},
        "c": {"$id": "https://example.com/x.json"},
        "d": {"$id": "https://example.com/x.json#"},
        "e": {"$id": "f.schema.json#"},
        "f": {"type": "string"},
        "g": {"$id": "g.schema.json"},
    }
    root = make_project(tmp_path, schemas)
    one = "(one URI, one file)"
    assert lint_of(root) == [
        f"{SHOP}/a.schema.json:2: '$id' makes this file answer to rcs:///{SHOP}/b.schema.json, which "
        f"{SHOP}/b.schema.json already does {one}",
        f"{SHOP}/d.schema.json:2: '$id' makes this file answer to https://example.com/x.json, which "
        f"{SHOP}/c.schema.json already does {one}",
        f"{SHOP}/e.schema.json:2: '$id' makes this file answer to rcs:///{SHOP}/f.schema.json, which "
        f"{SHOP}/f.schema.json already does {one}",
    ]


def test_a_root_id_with_a_fragment_still_answers_to_its_document(tmp_path: Path) -> None:
    """A fragment in a root $id is refused (2020-12 allows none but an empty one), and the document it
    names is still the one whose URI it claims."""
    root = make_project(tmp_path, {"e": {"$id": "f.schema.json#frag"}, "f": {"type": "string"}})
    e = f"{SHOP}/e.schema.json"
    assert lint_of(root) == [
        f"{e}:2: $id does not resolve: Anchor 'frag' does not exist",
        f"{e}:2: '$id' makes this file answer to rcs:///{SHOP}/f.schema.json, which {SHOP}/f.schema.json already "
        "does (one URI, one file)",
        f"{e}:2: not a valid 2020-12 schema: 'f.schema.json#frag' does not match '^[^#]*#?$'",
    ]


def test_schemas_that_cannot_be_registered_are_reported_once(tmp_path: Path) -> None:
    """The engine's registry takes every document at once; a URI it cannot read is reported at the
    first schema file, or at schemas/ when the project has none (only a resource)."""
    root = make_project(tmp_path / "one", {"item": {"$id": "http://a/%zz"}, "other": {"type": "string"}})
    refusal = "the schemas cannot be registered together: Invalid URI reference 'http://a/%zz': invalid "
    assert lint_of(root) == [f"{SHOP}/item.schema.json:1: {refusal}percent-encoded octet at index 9"]
    bare = tmp_path / "bare"
    (bare / "schemas").mkdir(parents=True)
    (bare / "vendor").mkdir()
    (bare / "vendor/bad.json").write_text('{"$id": "http://a/%zz"}\n')
    (bare / "pyproject.toml").write_text('[tool.rcs.resources]\n"https://example.com/" = "vendor"\n')
    assert lint_of(bare) == [f"schemas:1: {refusal}percent-encoded octet at index 9"]


# --- house style -----------------------------------------------------------------------------------

ERRORS_YAML = """\
$schema: ../tables/errors.schema.json
base:
  name: ShopError
  doc: Base of the shop's errors.
classes:
  - name: ShopSchemaError
    parent: ShopError
    doc: The JSON Schema of its kind rejects it.
  - name: ShopOtherError
    doc: Anything else.
codes:
  - code: JSON_SYNTAX
    class: ShopSchemaError
    message: "Invalid JSON: {detail}"
    fields: {detail: str}
  - code: SCHEMA_VIOLATION
    class: ShopSchemaError
    message: "{detail}"
    fields: {detail: str}
  - code: SCHEMA_MISSING_PROPERTY
    class: ShopSchemaError
    message: "Required property '{name}' is missing"
    fields: {name: str}
  - code: SCHEMA_UNKNOWN_PROPERTY
    class: ShopSchemaError
    message: "Unknown property '{name}'"
    fields: {name: str}
"""

CLEAN_ARTIFACT = {
    "$schema": SCHEMA,
    "$id": "item.schema.json",
    "title": "Item",
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "$schema": {"type": "string"},
        "name": {"type": "string", "pattern": "^[a-z]+\\\\d$"},
        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        "meta": {"type": ["object", "null"], "additionalProperties": True},
        "label": {"type": ["string", "null"]},
        "point": {"properties": {"x": {"type": "number"}}, "additionalProperties": False},
    },
}


def house_project(root: Path, schemas: dict[str, object], errors: str | None = ERRORS_YAML) -> Path:
    """A project with house style on: the errors table schema and, unless None, the domain's errors.yaml."""
    copy_tables(root, "errors")
    files = {f"{SHOP}/errors.yaml": errors} if errors is not None else {}
    return make_project(root, schemas, None, files)


def test_a_house_style_schema_passes(tmp_path: Path) -> None:
    """The conventions met: an escaped backslash is no shorthand, maps say what they hold, a table
    schema (not an artifact) needs no title and no "$schema" property."""
    root = house_project(tmp_path, {"item": CLEAN_ARTIFACT})
    notes = {"$schema": SCHEMA, "$id": "notes.schema.json", "type": "object", "additionalProperties": False}
    notes["properties"] = {"text": {"type": "string"}}
    (root / "schemas/tables/notes.schema.json").write_text(json.dumps(notes, indent=2) + "\n")
    assert lint_of(root) == []


def test_house_style_names_each_convention_broken(tmp_path: Path) -> None:
    wrong = {
        "$schema": SCHEMA + "#",
        "$id": "elsewhere.schema.json",
        "title": "Wrong",
        "type": "object",
        "additionalProperties": False,
        "properties": {"name": {"type": "string"}},
    }
    bare = {"type": "object", "additionalProperties": False, "properties": {"$schema": {"type": "string"}}}
    bare["required"] = ["$schema"]
    empty_id = {**CLEAN_ARTIFACT, "$id": "", "properties": {"$schema": {"type": "string"}}}
    empty_id.pop("required")
    shapes = {
        "$schema": SCHEMA,
        "$id": "shapes.schema.json",
        "title": "Shapes",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "$schema": {"type": "string"},
            "open": {"type": "object", "properties": {"a": {}}},
            "loose": {"properties": {"a": {}}, "additionalProperties": True},
            "valued": {"type": "object", "properties": {"a": {}}, "additionalProperties": {}},
            "map": {"type": "object"},
            "maybe_map": {"type": ["null", "object"]},
            "digits": {"type": "string", "pattern": "^\\d+$"},
            "keys": {"type": "object", "additionalProperties": False, "patternProperties": {"^\\w+$": {}}},
        },
    }
    root = house_project(
        tmp_path, {"wrong": wrong, "bare": bare, "empty_id": empty_id, "shapes": shapes, "flag": "true\n"}
    )
    house = " [house style]"
    with_props = "object schema with properties must say 'additionalProperties: false'" + house
    a_map = "map schema must say 'additionalProperties' (a schema for its values, or true)" + house
    s = root / SHOP / "shapes.schema.json"
    w = root / SHOP / "wrong.schema.json"
    words = quoted(s, "^\\\\w+$")
    assert lint_of(root) == [
        f"{SHOP}/bare.schema.json:1: '$schema' must be {SCHEMA!r} (R-GEN-1){house}",
        f"{SHOP}/bare.schema.json:1: a top-level artifact schema needs a 'title' (it names the model class){house}",
        f"{SHOP}/bare.schema.json:1: every schema file needs an '$id'{house}",
        f"{SHOP}/bare.schema.json:{quoted(root / SHOP / 'bare.schema.json', 'required')}: '$schema' must be optional "
        f"(R-GEN-4){house}",
        f"{SHOP}/empty_id.schema.json:1: every schema file needs an '$id'{house}",
        f"{SHOP}/flag.schema.json:1: a schema file holds an object with '$schema', '$id' and a 'title'{house}",
        f"{SHOP}/shapes.schema.json:{at_key(s, 'open')}: {with_props}",
        f"{SHOP}/shapes.schema.json:{at_key(s, 'loose')}: {with_props}",
        f"{SHOP}/shapes.schema.json:{at_key(s, 'valued')}: {with_props}",
        f"{SHOP}/shapes.schema.json:{at_key(s, 'map')}: {a_map}",
        f"{SHOP}/shapes.schema.json:{at_key(s, 'maybe_map')}: {a_map}",
        f"{SHOP}/shapes.schema.json:{at_key(s, 'pattern')}: pattern uses \\d, which differs across regex dialects; "
        f"spell the class out{house}",
        f"{SHOP}/shapes.schema.json:{words}: pattern uses \\w, which differs across regex dialects; "
        f"spell the class out{house}",
        f"{SHOP}/wrong.schema.json:{at_key(w, '$schema')}: '$schema' must be {SCHEMA!r} (R-GEN-1){house}",
        f"{SHOP}/wrong.schema.json:{at_key(w, '$schema')}: '$schema' must be draft 2020-12 ({SCHEMA}) or a 2020-12 "
        "dialect",
        f"{SHOP}/wrong.schema.json:{at_key(w, '$id')}: '$id' must be the file's own name, 'wrong.schema.json'{house}",
        f"{SHOP}/wrong.schema.json:{at_key(w, 'properties')}: a top-level artifact schema must allow an optional "
        f"'$schema' string (R-GEN-4){house}",
    ]


def test_house_style_on_a_file_that_is_no_object_and_an_artifact_without_properties(tmp_path: Path) -> None:
    closed = {"$schema": SCHEMA, "$id": "closed.schema.json", "title": "Closed", "type": "string"}
    root = house_project(tmp_path, {"list": "[]\n", "closed": closed})
    assert lint_of(root) == [
        f"{SHOP}/closed.schema.json:1: a top-level artifact schema must allow an optional '$schema' string "
        "(R-GEN-4) [house style]",
        f"{SHOP}/list.schema.json:1: a schema file holds an object with '$schema', '$id' and a 'title' [house style]",
        f"{SHOP}/list.schema.json:1: a schema file must hold a JSON object (or true/false)",
    ]


def test_a_domain_with_schemas_needs_an_errors_table_only_in_house_style(tmp_path: Path) -> None:
    root = house_project(tmp_path / "on", {"item": CLEAN_ARTIFACT}, errors=None)
    assert lint_of(root) == [
        f"{SHOP}/item.schema.json:1: domain 'shop' has schemas but no errors.yaml table [house style]"
    ]
    off = house_project(tmp_path / "off", {"item": CLEAN_ARTIFACT}, errors=None)
    (off / "pyproject.toml").write_text("[tool.rcs]\n" + HOUSE_OFF)
    assert lint_of(off) == []
    # A domain of tables only needs none.
    tables = tmp_path / "tables"
    copy_tables(tables, "report")
    (tables / "schemas/notes").mkdir(parents=True)
    (tables / "schemas/notes/report.yaml").write_text("$schema: ../tables/report.schema.json\nsection_order: [a]\n")
    assert lint_of(tables) == []


@pytest.mark.parametrize(
    "code", ["JSON_SYNTAX", "SCHEMA_VIOLATION", "SCHEMA_MISSING_PROPERTY", "SCHEMA_UNKNOWN_PROPERTY"]
)
def test_the_errors_table_defines_the_codes_rcs_validate_reports(tmp_path: Path, code: str) -> None:
    root = house_project(tmp_path, {"item": CLEAN_ARTIFACT}, ERRORS_YAML.replace(f"code: {code}\n", "code: OTHER\n"))
    assert lint_of(root) == [f"{SHOP}/errors.yaml:1: the errors table must define {code} (used by rcs validate)"]


def test_shorthand_scanner_finds_each_class_shorthand_and_nothing_else() -> None:
    assert shorthand_escapes("\\d") == ["\\d"]
    assert shorthand_escapes("a\\d\\w") == ["\\d", "\\w"]
    assert shorthand_escapes("\\D\\W\\S\\s") == ["\\D", "\\W", "\\S", "\\s"]
    assert shorthand_escapes("dws\\.\\X\\b\\\\d") == []
    assert shorthand_escapes("a\\") == []  # a trailing backslash (no regex) is no shorthand either


# --- rule tables -------------------------------------------------------------------------------------


def table_project(root: Path, kinds: tuple[str, ...], tables: dict[str, str]) -> Path:
    """A project of rule tables only (house style off): the table schemas ``kinds`` and ``tables``
    (file name -> YAML text) in the domain ``shop``."""
    copy_tables(root, *kinds)
    return make_project(root, {}, HOUSE_OFF, {f"{SHOP}/{name}": text for name, text in tables.items()})


def test_errors_table_rules(tmp_path: Path) -> None:
    """Every class a code or a parent names exists; every code is listed once; every placeholder is a
    plain name of a field the error carries."""
    extra = """\
  - code: LOST
    class: MissingError
    message: "lost {thing}"
    fields: {thing: str}
  - code: REPR
    class: ShopOtherError
    message: "bad {detail!r}"
    fields: {detail: str}
  - code: SPEC
    class: ShopOtherError
    message: "bad {detail:>5}"
    fields: {detail: str}
  - code: NUMBERED
    class: ShopOtherError
    message: "bad {0}"
  - code: UNCARRIED
    class: ShopOtherError
    message: "bad {detail} and {more}"
    fields: {detail: str}
  - code: BARE
    class: ShopOtherError
    message: "bad {detail}"
  - code: JSON_SYNTAX
    class: ShopOtherError
    message: "again"
"""
    text = ERRORS_YAML.replace("    doc: Anything else.\n", "    parent: NoSuchError\n    doc: Anything else.\n")
    root = table_project(tmp_path, ("errors",), {"errors.yaml": text + extra})
    path = root / SHOP / "errors.yaml"
    errors = f"{SHOP}/errors.yaml"
    assert lint_of(root) == [
        f"{errors}:{at(path, 'NoSuchError')}: unknown parent class 'NoSuchError'",
        f"{errors}:{at(path, 'MissingError')}: code LOST names unknown class 'MissingError'",
        f"{errors}:{at(path, '{detail!r}')}: bad message template: placeholder {{detail}} must be a plain field name",
        f"{errors}:{at(path, '{detail:>5}')}: bad message template: placeholder {{detail}} must be a plain field name",
        f"{errors}:{at(path, '{0}')}: bad message template: placeholder {{0}} must be a plain field name",
        f"{errors}:{at(path, '{more}')}: template placeholder {{more}} is not a field the error carries",
        f"{errors}:{at(path, 'code: BARE') + 2}: template placeholder {{detail}} is not a field the error carries",
        f"{errors}:{at(path, 'code: JSON_SYNTAX', 2)}: code 'JSON_SYNTAX' is listed twice (first as item 0)",
    ]


def test_messages_and_stop_rules_tables_rules(tmp_path: Path) -> None:
    messages = """\
$schema: ../tables/messages.schema.json
messages:
  - code: FINE
    message: "{path}: fine"
    fields: {path: str}
  - code: UNCARRIED
    message: "{path}: not carried"
"""
    stop_rules = (ROOT / "schemas/odr/stop_rules.yaml").read_text(encoding="utf-8")
    stop_rules = stop_rules.replace(
        "metric_precedence: [MAX_ROUNDS, DIFF_FLOOR, CIRCULARITY]", "metric_precedence: [MAX_ROUNDS, CIRCULARITY]"
    )
    stop_rules = stop_rules.replace("    applies_to: [architect]", "    applies_to: [architect, reviewer]")
    stop_rules = stop_rules.replace(
        'message: "The {source} output is empty"', 'message: "The {origin} output is empty"'
    )
    stop_rules = stop_rules.replace(
        "      - {name: TEST_GAPS, body: list}\n",
        "      - {name: TEST_GAPS, body: list}\n      - {name: CRITIQUE, body: text}\n",
    )
    root = table_project(
        tmp_path, ("messages", "stop_rules"), {"messages.yaml": messages, "stop_rules.yaml": stop_rules}
    )
    m = root / SHOP / "messages.yaml"
    s = root / SHOP / "stop_rules.yaml"
    assert lint_of(root) == [
        f"{SHOP}/messages.yaml:{at(m, 'not carried')}: template placeholder {{path}} is not a field the error carries",
        f"{SHOP}/stop_rules.yaml:{at(s, 'metric_precedence')}: must list each metric-phase stop reason once: "
        "['MAX_ROUNDS', 'DIFF_FLOOR', 'CIRCULARITY']",
        f"{SHOP}/stop_rules.yaml:{at(s, '{origin}')}: template placeholder {{origin}} is not a field the error carries",
        f"{SHOP}/stop_rules.yaml:{at(s, 'reviewer')}: unknown parser 'reviewer'",
        f"{SHOP}/stop_rules.yaml:{at(s, 'CRITIQUE', 2)}: name 'CRITIQUE' is listed twice (first as item 0)",
    ]


def test_budgets_table_rules_and_lists_of_names(tmp_path: Path) -> None:
    budgets = (ROOT / "schemas/evidence/budgets.yaml").read_text(encoding="utf-8")
    budgets = budgets.replace("default_mode: fail", "default_mode: retry")
    budgets = budgets.replace("  - name: finalize_partial\n", "  - name: fail\n")
    report = "$schema: ../tables/report.schema.json\nsection_order:\n  - intro\n  - body\n  - intro\n"
    root = table_project(tmp_path, ("budgets", "report"), {"budgets.yaml": budgets, "report.yaml": report})
    b = root / SHOP / "budgets.yaml"
    assert lint_of(root) == [
        f"{SHOP}/budgets.yaml:{at(b, '- name: fail', 2)}: name 'fail' is listed twice (first as item 0)",
        f"{SHOP}/budgets.yaml:{at(b, 'default_mode')}: default_mode 'retry' is not a listed mode",
        f"{SHOP}/report.yaml:5: 'intro' is listed twice (first as item 0)",
    ]


def test_a_table_is_judged_by_its_table_schema(tmp_path: Path) -> None:
    budgets = (ROOT / "schemas/evidence/budgets.yaml").read_text(encoding="utf-8")
    root = table_project(
        tmp_path, ("budgets",), {"budgets.yaml": budgets.replace("measure: clock", "measure: sundial")}
    )
    line = at(root / SHOP / "budgets.yaml", "sundial")
    assert lint_of(root) == [
        f'{SHOP}/budgets.yaml:{line}: "sundial" is not one of "charge", "clock" or "per_stage" '
        "(table schema schemas/tables/budgets.schema.json)"
    ]


def test_a_table_kind_without_a_renderer_is_refused(tmp_path: Path) -> None:
    """Any JSON value a table schema allows passes the JSON-data rule (null and fractions too); a kind
    of table the compiler has no template for is refused at the table's "$schema"."""
    notes = {
        "$schema": SCHEMA,
        "$id": "notes.schema.json",
        "type": "object",
        "additionalProperties": False,
        "properties": {"$schema": {"type": "string"}, "values": {"type": "array"}, "flag": {"type": "boolean"}},
    }
    copy_tables(tmp_path, "report")
    (tmp_path / "schemas/tables/notes.schema.json").write_text(json.dumps(notes, indent=2) + "\n")
    text = "values: [1.5, null, 2, text, {a: [b]}]\n$schema: ../tables/notes.schema.json\nflag: true\n"
    root = make_project(tmp_path, {}, HOUSE_OFF, {f"{SHOP}/notes.yaml": text})
    assert lint_of(root) == [f"{SHOP}/notes.yaml:2: no renderer for tables of kind 'notes'"]


def test_a_table_schema_referring_to_a_missing_document_is_reported_once(tmp_path: Path) -> None:
    """The dangling $ref is refused at the table schema; the table is not judged against a stand-in
    for the missing document (which would add refusals that are not the table's fault)."""
    notes = {
        "$schema": SCHEMA,
        "$id": "notes.schema.json",
        "type": "object",
        "additionalProperties": False,
        "properties": {"$schema": {"type": "string"}, "values": {"$ref": "https://example.com/missing.json"}},
    }
    copy_tables(tmp_path, "report")
    (tmp_path / "schemas/tables/notes.schema.json").write_text(json.dumps(notes, indent=2) + "\n")
    text = "$schema: ../tables/notes.schema.json\nvalues: [1]\n"
    root = make_project(tmp_path, {}, HOUSE_OFF, {f"{SHOP}/notes.yaml": text})
    line = at(root / "schemas/tables/notes.schema.json", "missing.json")
    assert lint_of(root) == [
        f"{SHOP}/notes.yaml:1: no renderer for tables of kind 'notes'",
        f"schemas/tables/notes.schema.json:{line}: $ref does not resolve: https://example.com/missing.json "
        "(no such document; nothing is downloaded)",
    ]


def test_names_become_modules_and_kinds(tmp_path: Path) -> None:
    report = "$schema: ../tables/report.schema.json\nsection_order: [a]\n"
    copy_tables(tmp_path, "report")
    make_project(tmp_path, {"item": True}, HOUSE_OFF, {"schemas/Shop/report.yaml": report}, domain="Shop")
    make_project(tmp_path, {}, None, {"schemas/kinds/report.yaml": report})
    make_project(tmp_path, {"my-item": True, "item": True}, None, {f"{SHOP}/my-notes.yaml": report}, domain="shop")
    (tmp_path / SHOP / "notes_schema.yaml").write_text(report)
    reserved = "and not be one of ['kinds', 'tables']"
    table = "must match [a-z][a-z0-9_]* and not end in '_schema' (model modules are named so)"
    assert lint_of(tmp_path) == [
        f"schemas/Shop/item.schema.json:1: domain name 'Shop' must match [a-z][a-z0-9_]* {reserved}",
        f"schemas/kinds/report.yaml:1: domain name 'kinds' must match [a-z][a-z0-9_]* {reserved}",
        f"{SHOP}/my-item.schema.json:1: schema name 'my-item' must match [a-z][a-z0-9_]*",
        f"{SHOP}/my-notes.yaml:1: table name 'my-notes' {table}",
        f"{SHOP}/notes_schema.yaml:1: table name 'notes_schema' {table}",
    ]


# --- the autoresearch rule table -------------------------------------------------------------------


def autoresearch_project(root: Path) -> Path:
    copy_tables(root)
    shutil.copytree(ROOT / "schemas/autoresearch", root / "schemas/autoresearch")
    return root


def test_the_autoresearch_table_passes(tmp_path: Path) -> None:
    assert lint_of(autoresearch_project(tmp_path)) == []


def test_autoresearch_enums_agree_with_the_schemas(tmp_path: Path) -> None:
    root = autoresearch_project(tmp_path)
    config = root / "schemas/autoresearch/config.yaml"
    replace(config, "enum: candidate.schema.json#/$defs/CandidateStatus", "enum: candidate.schema.json#/$defs/Nope")
    replace(config, "enum: ledger.schema.json#/$defs/Decision", "enum: ledger.schema.json#/$defs")
    text = config.read_text()
    pass_only = text[text.index("    - name: pass_only\n") : text.index("manifest_statuses:")]
    replace(config, pass_only + "manifest_statuses:", "manifest_statuses:")
    replace(config, "    - name: score_improvement\n", pass_only + "    - name: score_improvement\n")
    replace(config, "  keep_policy: score_improvement", "  keep_policy: best_score")
    name = "schemas/autoresearch/config.yaml"
    assert lint_of(root) == [
        f"{name}:{at(config, 'keep_policy: best_score')}: not a keep policy: 'best_score'",
        f"{name}:{at(config, '$defs/Nope')}: candidate.schema.json#/$defs/Nope names no schema enum",
        f"{name}:{at(config, 'ledger.schema.json#/$defs')}: ledger.schema.json#/$defs names no schema enum",
        f"{name}:{at(config, 'values:', 3)}: must list the schema enum ['score_improvement', 'pass_only'] in order",
    ]


def test_a_keep_policy_without_its_rule_is_refused(tmp_path: Path) -> None:
    # The rule is what every worker session is told about keeping (runtime/autoresearch/worker.py).
    root = autoresearch_project(tmp_path)
    config = root / "schemas/autoresearch/config.yaml"
    text = config.read_text()
    start = text.index("      rule: ", text.index("    - name: pass_only\n"))
    config.write_text(text[:start] + text[text.index("\n", start) + 1 :])
    name = "schemas/autoresearch/config.yaml"
    assert lint_of(root) == [
        f"{name}:{at(config, '- name: pass_only')}: a keep policy needs its rule (what each session is told)"
    ]


def test_autoresearch_rules_name_known_values(tmp_path: Path) -> None:
    root = autoresearch_project(tmp_path)
    config = root / "schemas/autoresearch/config.yaml"
    rules = [
        "{candidate: ghost, decision: error, reset: true, then: continue, reason: a}",
        "{candidate: candidate, evaluation: ghost, decision: error, reset: true, then: continue, reason: b}",
        "{candidate: candidate, policy: ghost, decision: error, reset: true, then: continue, reason: c}",
        "{candidate: candidate, decision: ghost, reset: true, then: continue, reason: d}",
        "{candidate: candidate, decision: error, reset: true, then: stop, status: ghost, reason: e}",
        "{candidate: candidate, decision: error, reset: true, then: stop, reason: f}",
        "{candidate: candidate, decision: error, reset: true, then: continue, status: paused, reason: g}",
    ]
    block = "  - candidate: candidate\n    decision: error\n    reset: true\n    then: continue\n    reason: h\n"
    block += "    policy: phantom\n"  # a block mapping: the diagnostic stands at the field, not at the rule
    config.write_text(config.read_text() + "".join(f"  - {r}\n" for r in rules) + block)
    name = "schemas/autoresearch/config.yaml"
    exactly = "a rule names a manifest status exactly when then=stop"
    assert lint_of(root) == [
        f"{name}:{at(config, 'reason: a}')}: unknown candidate 'ghost'",
        f"{name}:{at(config, 'reason: b}')}: unknown evaluation 'ghost'",
        f"{name}:{at(config, 'reason: c}')}: unknown policy 'ghost'",
        f"{name}:{at(config, 'reason: d}')}: unknown decision 'ghost'",
        f"{name}:{at(config, 'reason: e}')}: unknown status 'ghost'",
        f"{name}:{at(config, 'reason: f}')}: {exactly}",
        f"{name}:{at(config, 'reason: g}')}: {exactly}",
        f"{name}:{at(config, 'policy: phantom')}: unknown policy 'phantom'",
    ]


BETTER_RULE = (
    "  - {candidate: candidate, evaluation: pass_better, decision: keep, reset: false, then: continue, "
    'reason: "score improved"}\n'
)


def test_autoresearch_a_case_no_rule_decides_is_named(tmp_path: Path) -> None:
    """A rule without ``evaluation`` or ``policy`` decides every one; a rule with one decides only it."""
    root = autoresearch_project(tmp_path)
    config = root / "schemas/autoresearch/config.yaml"
    replace(
        config,
        BETTER_RULE,
        BETTER_RULE.replace("evaluation: pass_better,", "evaluation: pass_better, policy: pass_only,"),
    )
    replace(
        config,
        '  - {candidate: worker_failed, decision: error, reset: true, then: continue, reason: "worker failed"}\n',
        '  - {candidate: worker_failed, evaluation: fail, decision: error, reset: true, then: continue, reason: "w"}\n',
    )
    line = top_key(config, "decision_rules")
    name = "schemas/autoresearch/config.yaml"
    undecided = ["candidate/pass_better/score_improvement"]
    undecided += [
        f"worker_failed/{e}/{p}"
        for e in ("error", "pass_unscored", "pass_bootstrap", "pass_better", "pass_not_better")
        for p in ("score_improvement", "pass_only")
    ]
    assert lint_of(root) == sorted(f"{name}:{line}: no rule decides {case}" for case in undecided)


# --- the research tables ---------------------------------------------------------------------------

RESEARCH = "schemas/research"
CHANGED = re.compile(
    r"schemas/research/contract\.yaml:(\d+): the research tables changed but contract_version is still "
    r"([0-9.]+) \(frozen sha256 ([0-9a-f]{12})\.\.\., now ([0-9a-f]{64})\): bump contract_version and freeze "
    r"the new version \(phase18-research\.md §7\.2, R-RS-9\)"
)


def research_project(root: Path) -> Path:
    copy_tables(root)
    shutil.copytree(ROOT / RESEARCH, root / RESEARCH)
    return root


def split_changed(found: list[str]) -> tuple[list[str], list[re.Match[str]]]:
    """The diagnostics, and apart the fingerprint refusals (their new digest varies with the edit)."""
    changed = [m for m in (CHANGED.fullmatch(d) for d in found) if m]
    return [d for d in found if not CHANGED.fullmatch(d)], changed


def bump(root: Path, version: str) -> None:
    """Give every research table (and contract.yaml) the contract version ``version``, which opens
    the changelog (SPEC 2.7)."""
    for path in sorted((root / RESEARCH).glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "contract_version: 18.0.0\n" in text:
            path.write_text(text.replace("contract_version: 18.0.0\n", f"contract_version: {version}\n"))
    entry = f"changelog:\n  - {{version: {version}, changes: [x]}}\n"
    replace(root / RESEARCH / "contract.yaml", "changelog:\n", entry)


def released(root: Path) -> str:
    """The line of contract.yaml where 18.0.0's fingerprint is frozen (where a changed table is refused)."""
    return str(at(root / RESEARCH / "contract.yaml", RELEASED_SHA))


def test_the_released_research_tables_pass(tmp_path: Path) -> None:
    """Their fingerprint is the one contract 18.0.0 froze, and the compiler pins (SPEC 12.5)."""
    assert lint_of(research_project(tmp_path)) == []


def test_research_stop_reasons_rules(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    table = root / RESEARCH / "stop_reasons.yaml"
    replace(table, "  - code: RATE_LIMITED", "  - code: TIMEOUT")
    replace(table, "    action: NO_SOURCE_RULE", "    action: ANSWER")
    text = table.read_text(encoding="utf-8")
    last = text.rindex("    action: ANSWER")
    table.write_text(text[:last] + "    action: BASELINE" + text[last + len("    action: ANSWER") :])
    found, changed = split_changed(lint_of(root))
    name = f"{RESEARCH}/stop_reasons.yaml"
    second = at(table, "- code: TIMEOUT", 2)
    assert found == [
        f"{name}:{top_key(table, 'reasons')}: the last stop reason must be the success one (action ANSWER): R-RS-1",
        f"{name}:{second}: code 'TIMEOUT' is listed twice (first as item 5)",
        f"{name}:{second}: stop reason TIMEOUT is listed twice",
        f"{name}:{at(table, 'action: ANSWER')}: only the last stop reason may answer",
    ]
    assert [(m[1], m[2], m[3]) for m in changed] == [(released(root), "18.0.0", RELEASED_SHA[:12])]


def test_research_policy_rules(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    table = root / RESEARCH / "policy.yaml"
    replace(table, "  - {name: web, cost: 25}\n", "  - {name: web, cost: 25}\n  - {name: docs, cost: 5}\n")
    replace(table, "  MAX: {research: true, tools: [docs, web]}", "  MAX: {research: true, tools: [docs, web, fax]}")
    text = table.read_text(encoding="utf-8")
    start = text.index("  MAX:\n    dev:")
    staging = text.index("    staging:", start)
    text = text[:staging] + text[text.index("\n", staging) + 1 :]
    caps = (
        "{max_tool_calls_total: 1, max_tool_calls_per_minute: 1, per_call_timeout_ms: 1, "
        "total_research_timeout_ms: 1, budget_units_clamp: 1}"
    )
    text = text.replace("caps:\n  PRO:\n", f"caps:\n  ULTRA:\n    dev: {caps}\n  PRO:\n    qa: {caps}\n")
    table.write_text(text, encoding="utf-8")
    found, changed = split_changed(lint_of(root))
    name = f"{RESEARCH}/policy.yaml"
    assert found == [
        f"{name}:{at(table, 'cost: 5')}: name 'docs' is listed twice (first as item 0)",
        f"{name}:{at(table, 'cost: 5')}: tool docs is listed twice",
        f"{name}:{at(table, 'fax')}: tier MAX may research but has no caps for staging",
        f"{name}:{at(table, 'fax')}: tier MAX names unknown tool 'fax'",
        f"{name}:{at(table, 'ULTRA:')}: caps for unknown tier 'ULTRA'",
        f"{name}:{at(table, 'qa:')}: caps for unknown environment 'qa'",
    ]
    assert len(changed) == 1


def injection_rule(rule_id: str, body: str) -> str:
    return f"  - id: {rule_id}\n    category: test\n    severity: flag\n    description: a test rule\n{body}"


def test_research_injection_rules(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    replace(table, '  leet_to: "oieasgtbgasti"', '  leet_to: "oieasgtbgast"')
    replace(table, 'confusables_to: "aeopcyxisjdqwhl', 'confusables_to: "eopcyxisjdqwhl')
    replace(table, '  hex_pattern: "[0-9a-f]{32,}"', '  hex_pattern: "[0-9a-f"')
    replace(table, '  pattern: "[a-z0-9+/]{24,}={0,2}"', '  pattern: "(?=[a-z])[a-z0-9+/]{24,}={0,2}"')
    replace(table, "macros:\n", 'macros:\n  LOOP: "a{LOOP}"\n')
    rules = [
        injection_rule("ENCODED_INSTRUCTION", '    pattern: "encoded"\n'),
        injection_rule("T_UNKNOWN", '    pattern: "{NOPE}x"\n'),
        injection_rule("T_LOOP", '    pattern: "x{LOOP}"\n'),
        injection_rule("T_PYTHON", '    pattern: "(x"\n'),
        injection_rule("T_RE2", '    pattern: "(?=x)y"\n'),
        injection_rule("T_PREFILTER", '    pattern: "xy"\n    prefilter: "(?<=x)y"\n'),
        injection_rule("T_EMPTY", '    pattern: "x*"\n'),
        injection_rule("T_FINE", '    pattern: "x{W}y"\n    prefilter: "x"\n'),
        injection_rule("T_ONE_CHARACTER", '    pattern: "{NW}"\n'),
        injection_rule("T_PAIR", '    cooccur:\n      first: "(x"\n      then: "{NOPE}"\n      window: 5\n'),
        injection_rule("T_PAIR_FINE", '    cooccur:\n      first: "x{W}"\n      then: "y"\n      window: 5\n'),
    ]
    table.write_text(table.read_text(encoding="utf-8") + "".join(rules), encoding="utf-8")
    name = f"{RESEARCH}/injection.yaml"
    python_open = "missing ), unterminated subpattern at position 0"
    pair_first, pair_then = at(table, 'first: "(x"'), at(table, 'then: "{NOPE}"')
    assert lint_of(root) == [
        f"{name}:{at(table, 'confusables_to:')}: confusables_to must have one character for each of confusables_from",
        f"{name}:{at(table, 'leet_to:')}: leet_to must have one character for each of leet_from",
        f"{name}:{at(table, '(?=[a-z])')}: pattern does not compile on RE2 (the linear-time engine): invalid perl "
        "operator: (?=",
        f"{name}:{at(table, 'hex_pattern:')}: pattern does not compile on Python re: unterminated character set "
        "at position 0",
        f"{name}:{top_key(table, 'rules')}: rule id ENCODED_INSTRUCTION is used twice",
        f"{name}:{at(table, 'NOPE}x')}: rule T_UNKNOWN: unknown macro {{NOPE}}",
        f"{name}:{at(table, 'x{LOOP}')}: rule T_LOOP: macro LOOP refers to itself",
        f"{name}:{at(table, '(x')}: rule T_PYTHON: pattern does not compile on Python re: {python_open}",
        f"{name}:{at(table, '(?=x)y')}: rule T_RE2: pattern does not compile on RE2 (the linear-time engine): "
        "invalid perl operator: (?=",
        # The prefilter is what RE2 refuses; the diagnostic stands at the rule's pattern, the line above.
        f"{name}:{at(table, '(?<=x)y') - 1}: rule T_PREFILTER: pattern does not compile on RE2 (the linear-time "
        "engine): invalid perl operator: (?<=",
        f"{name}:{at(table, 'x*')}: rule T_EMPTY: pattern matches the empty text",
        f"{name}:{pair_first}: rule T_PAIR: pattern does not compile on Python re: {python_open}",
        f"{name}:{pair_then}: rule T_PAIR: unknown macro {{NOPE}}",
    ]


def test_research_injection_engines_spell_the_same_macros(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    replace(table, '  python: {B: "\\\\b",', '  python: {X: "x", B: "\\\\b",')
    table.write_text(table.read_text(encoding="utf-8") + injection_rule("T_UNKNOWN", '    pattern: "{NOPE}"\n'))
    assert lint_of(root) == [
        f"{RESEARCH}/injection.yaml:{top_key(table, 'engines')}: both engines must spell the same macros"
    ]


def test_research_injection_invisible_spans(tmp_path: Path) -> None:
    """A span's first character may equal its last (the released table has such spans), not follow it;
    and the invisible characters are part of the contract, so the fingerprint changes too."""
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    replace(table, "{first: 0x180E, last: 0x180E,", "{first: 0x180F, last: 0x180E,")
    found, changed = split_changed(lint_of(root))
    assert found == [f"{RESEARCH}/injection.yaml:{at(table, '0x180F')}: first must not be after last"]
    assert [(m[1], m[2]) for m in changed] == [(released(root), "18.0.0")]


def test_research_tables_need_the_contract(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    (root / RESEARCH / "contract.yaml").unlink()
    needs = "a research table needs the domain's contract.yaml (R-RS-9)"
    assert lint_of(root) == [
        f"{RESEARCH}/{name}.yaml:{at(root / RESEARCH / f'{name}.yaml', 'contract_version:')}: {needs}"
        for name in ("injection", "policy", "responses", "stop_reasons")
    ]


def test_research_domain_holds_one_table_of_each_kind(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    for name in ("stop_reasons", "contract"):
        text = (root / RESEARCH / f"{name}.yaml").read_text(encoding="utf-8")
        (root / RESEARCH / f"{name}_again.yaml").write_text("# a copy\n" + text, encoding="utf-8")
    assert lint_of(root) == [  # at the copy's "$schema"
        f"{RESEARCH}/contract_again.yaml:2: a second contract table in research ({RESEARCH}/contract.yaml is the one)",
        f"{RESEARCH}/stop_reasons_again.yaml:2: a second research_stop_reasons table ({RESEARCH}/stop_reasons.yaml "
        "is the one): R-RS-9",
    ]


def test_research_versions_agree_and_every_versioned_kind_is_there(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    policy = root / RESEARCH / "policy.yaml"
    replace(policy, "contract_version: 18.0.0", "contract_version: 18.0.1")
    (root / RESEARCH / "responses.yaml").unlink()
    found, changed = split_changed(lint_of(root))
    contract = root / RESEARCH / "contract.yaml"
    assert found == [
        f"{RESEARCH}/contract.yaml:{at(contract, 'contract_version:')}: the research domain has no research_responses "
        "table",
        f"{RESEARCH}/policy.yaml:{at(policy, 'contract_version:')}: contract_version 18.0.1 differs from "
        f"{RESEARCH}/contract.yaml's 18.0.0",
    ]
    assert [(m[1], m[2]) for m in changed] == [(released(root), "18.0.0")]


def test_research_a_new_version_must_be_frozen(tmp_path: Path) -> None:
    root = research_project(tmp_path)
    bump(root, "18.1.0")
    contract = root / RESEARCH / "contract.yaml"
    assert lint_of(root) == [
        f"{RESEARCH}/contract.yaml:{top_key(contract, 'frozen')}: contract 18.1.0 is not frozen: "
        f"add {{version: 18.1.0, sha256: {RELEASED_SHA}}} (R-RS-9)"
    ]


def test_research_a_released_fingerprint_is_never_rewritten(tmp_path: Path) -> None:
    """SPEC 12.5: the hash 18.0.0 froze is pinned in the compiler; rewriting it is refused even when
    the tables moved on to a new, correctly frozen version."""
    root = research_project(tmp_path)
    bump(root, "18.1.0")
    contract = root / RESEARCH / "contract.yaml"
    replace(
        contract,
        f'sha256: "{RELEASED_SHA}"}}',
        f'sha256: "{"0" * 64}"}}\n  - {{version: 18.1.0, sha256: "{RELEASED_SHA}"}}',
    )
    assert lint_of(root) == [
        f"{RESEARCH}/contract.yaml:{at(contract, '0' * 64)}: contract 18.0.0 was released with sha256 {RELEASED_SHA}; "
        "a released version's fingerprint is never rewritten: freeze a new version instead (R-RS-9)"
    ]


def test_research_a_change_is_refused_until_a_new_version_freezes_it(tmp_path: Path) -> None:
    """The workflow of contract.yaml: change a versioned table, take the hash the refusal names, bump
    the version and freeze it; then any further change is refused against that new entry."""
    root = research_project(tmp_path)
    stop_reasons = root / RESEARCH / "stop_reasons.yaml"
    replace(stop_reasons, "description: Rate limit exceeded", "description: Rate limit reached")
    contract = root / RESEARCH / "contract.yaml"
    found, changed = split_changed(lint_of(root))
    assert found == [] and len(changed) == 1
    line, version, frozen, digest = changed[0].groups()
    assert (int(line), version, frozen) == (at(contract, RELEASED_SHA), "18.0.0", RELEASED_SHA[:12])
    assert digest != RELEASED_SHA
    bump(root, "18.1.0")
    contract.write_text(contract.read_text() + f'  - {{version: 18.1.0, sha256: "{digest}"}}\n')
    assert lint_of(root) == []
    replace(stop_reasons, "description: Rate limit reached", "description: Rate limit hit")
    found, changed = split_changed(lint_of(root))
    assert found == [] and len(changed) == 1
    line, version, frozen, again = changed[0].groups()
    assert (int(line), version, frozen) == (at(contract, digest), "18.1.0", digest[:12])
    assert again not in (digest, RELEASED_SHA)


def test_expanded_rules_spell_each_rule_for_both_engines() -> None:
    """What the generated injection table holds: ``pattern`` for Python's re and ``linear`` (the
    prefilter, else the pattern) for RE2; a co-occurrence rule has ``first``/``then`` for both."""
    data = {
        "macros": {"W": "{NW}+"},
        "engines": {"python": {"NW": "[^a-z]"}, "linear": {"NW": "[^a-z0-9]"}},
        "rules": [
            {"id": "A", "pattern": "x{W}y"},
            {"id": "B", "pattern": "x{W}y", "prefilter": "x{W}"},
            {"id": "C", "cooccur": {"first": "a{W}", "then": "b{NW}", "window": 5}},
            {"id": "D", "cooccur": {"first": "a", "then": "b", "window": 7, "either_order": True}, "as_written": True},
        ],
    }
    blank = {"pattern": "", "linear": "", "first": "", "then": "", "first_linear": "", "then_linear": ""}
    blank["as_written"] = False
    assert research_tables.expanded_rules(data) == [
        {**blank, "id": "A", "pattern": "x[^a-z]+y", "linear": "x[^a-z0-9]+y", "window": 0, "either_order": False},
        {
            **blank,
            "id": "B",
            "prefilter": "x{W}",
            "pattern": "x[^a-z]+y",
            "linear": "x[^a-z0-9]+",
            "window": 0,
            "either_order": False,
        },
        {
            **blank,
            "id": "C",
            "cooccur": {"first": "a{W}", "then": "b{NW}", "window": 5},
            "first": "a[^a-z]+",
            "then": "b[^a-z]",
            "first_linear": "a[^a-z0-9]+",
            "then_linear": "b[^a-z0-9]",
            "window": 5,
            "either_order": False,
        },
        {
            **blank,
            "id": "D",
            "cooccur": {"first": "a", "then": "b", "window": 7, "either_order": True},
            "first": "a",
            "then": "b",
            "first_linear": "a",
            "then_linear": "b",
            "window": 7,
            "either_order": True,
            "as_written": True,
        },
    ]


def test_expand_names_unknown_and_self_referring_macros() -> None:
    assert research_tables.expand("{A}-{B}", {"A": "a{B}", "B": "b"}) == "ab-b"
    with pytest.raises(KeyError, match="C"):
        research_tables.expand("{C}", {"A": "a"})
    with pytest.raises(ValueError, match=r"^macro A refers to itself$"):
        research_tables.expand("{A}", {"A": "x{B}", "B": "{A}"})


def test_injection_leet_readings_must_be_ascii(tmp_path: Path) -> None:
    # The runtime translates the text's UTF-8 bytes, which is the same as translating its characters
    # only when every character of the leet table is ASCII.
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    replace(table, '  leet_one_as: "l"', '  leet_one_as: "ł"')
    replace(table, '  leet_from: "013456789@$+!"', '  leet_from: "013456789@$+¡"')
    name = f"{RESEARCH}/injection.yaml"
    assert lint_of(root) == [
        f"{name}:{at(table, 'leet_from:')}: leet_from must be ASCII",
        f"{name}:{at(table, 'leet_one_as:')}: leet_one_as must be ASCII",
    ]


def test_injection_look_alikes_must_lie_in_the_scripts_that_get_the_reading(tmp_path: Path) -> None:
    # The look-alike reading is made only for text holding a character of confusable_scripts: a
    # look-alike outside them (the Cyrillic Supplement's U+051B, a dotless i) would never be read.
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    text = table.read_text(encoding="utf-8")
    start, end = text.index("  confusable_scripts:"), text.index("  letter_separators:")
    narrow = "  confusable_scripts: [[0x0370, 0x03FF], [0x0400, 0x04FF]]\n"
    table.write_text(text[:start] + narrow + text[end:], "utf-8")
    look_alikes = yaml.safe_load(text)["readings"]["confusables_from"]
    outside = [c for c in look_alikes if not 0x0370 <= ord(c) <= 0x04FF]
    assert "\u051b" in outside and "\u0131" in outside
    name = f"{RESEARCH}/injection.yaml"
    assert lint_of(root) == sorted(
        f"{name}:{at(table, 'confusables_from:')}: {c!a} is in no range of confusable_scripts: it would never be read"
        for c in outside
    )


def test_injection_marks_must_be_combining_marks(tmp_path: Path) -> None:
    # The mark reading drops every character of the ranges: a letter among them would vanish.
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    replace(table, "    - [0x0483, 0x0489]  # Cyrillic", "    - [0x0480, 0x0489]  # Cyrillic")
    name = f"{RESEARCH}/injection.yaml"
    assert lint_of(root) == [f"{name}:{at(table, '[0x0480, 0x0489]')}: U+0480 is not a combining mark"]


def test_injection_invisible_characters_must_not_be_ascii(tmp_path: Path) -> None:
    # ASCII text is scanned as it stands (no normalisation pass), which is right only while no ASCII
    # character counts as invisible.
    root = research_project(tmp_path)
    table = root / RESEARCH / "injection.yaml"
    replace(table, "{first: 0x00AD, last: 0x00AD, name: soft", "{first: 0x007F, last: 0x00AD, name: soft")
    # (the contract's version check also speaks: the invisible ranges are part of the contract)
    injection = [line for line in lint_of(root) if line.startswith(f"{RESEARCH}/injection.yaml:")]
    assert injection == [f"{RESEARCH}/injection.yaml:{at(table, '0x007F')}: an invisible character must not be ASCII"]
