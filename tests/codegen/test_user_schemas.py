"""User schemas at the corners of the model generator and the engine (found by an adversarial review).

Each schema must either compile and then give JSON Schema 2020-12's verdict on every instance (exit
0 or 1, never an internal error), or be refused by ``rcs codegen`` with ``file:line: message``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_project, run_python, run_rcs

# name -> (schema, [(instance text, valid)])
CASES: dict[str, tuple[Any, list[tuple[str, bool]]]] = {
    "config_prop": ({"type": "object", "properties": {"Config": {"type": "string"}}}, [("{}", True),
                    ('{"Config": "x"}', True), ('{"Config": 1}', False)]),
    "nfkc": ({"type": "object", "properties": {"ℌ": {"type": "string"}}, "required": ["ℌ"]},
             [('{"ℌ": "x"}', True), ('{"H": "x"}', False)]),
    "nfkc_closed": ({"type": "object", "properties": {"ℌ": {"type": "string"}}, "additionalProperties": False},
                    [('{"ℌ": "x"}', True), ('{"H": "x"}', False)]),
    "same_field": ({"type": "object", "properties": {"a-b": {"type": "string"}, "a_b": {"type": "integer"}},
                    "required": ["a-b", "a_b"]}, [('{"a-b": "x", "a_b": 1}', True), ('{"a-b": 1, "a_b": 1}', False)]),
    "item": ({"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"},
              "n": {"$ref": "#/$defs/Item"}}, "$defs": {"Item": {"type": "object", "required": ["b"],
              "properties": {"b": {"type": "string"}}}}}, [('{"a": 1}', True), ('{"a": 1, "n": {}}', False)]),
    "any": ({"type": "object", "properties": {"u": {}}}, [('{"u": [1]}', True), ("1", False)]),
    "literal": ({"type": "object", "properties": {"e": {"enum": ["x", "y"]}}}, [('{"e": "x"}', True),
                ('{"e": "z"}', False)]),
    "long_text": ({"type": "object", "properties": {"s": {"type": "string", "maxLength": 2**64}}},
                  [('{"s": "x"}', True), ('{"s": 1}', False)]),
    "xa": ({"type": "object", "properties": {"b": {"$ref": "xb.schema.json"}}},
           [('{"b": {"a": {}}}', True), ('{"b": 1}', False)]),
    "xb": ({"type": "object", "properties": {"a": {"$ref": "xa.schema.json"}}}, [('{"a": {"b": {}}}', True)]),
    "date": ({"type": "string", "format": "date"}, [('"2020-01-01"', True), ('"202*-01-01"', False),
             ('"2020-01-0/"', False), ('"-021-02-28"', False)]),
    "time": ({"type": "string", "format": "time"}, [('"12:34:56Z"', True), ('"12:3-:56Z"', False),
             ('"12:00:00+0/:00"', False)]),
    "stamp": ({"type": "string", "format": "date-time"}, [('"1998-12-31T23:59:60Z"', True),
              ('"1,98-12-31T23:59:59Z"', False), ('"2020-01-01T12:3.:56Z"', False)]),
    "dot": ({"type": "string", "pattern": "^a.b$"}, [('"axb"', True), ('"a\\rb"', False), ('"a\\u2028b"', False),
            ('"a\\nb"', False)]),
    "word": ({"type": "string", "pattern": "\\bcafé\\b"}, [('"cafés"', True), ('"café"', False)]),
    "class_dot": ({"type": "string", "pattern": "^[.]\\.$"}, [('".."', True), ('"a."', False)]),
    # KIND ends every model module: a root titled KIND is KINDDocument; a field or a value may be KIND.
    "kind_title": ({"title": "KIND", "type": "string"}, [('"x"', True), ("1", False)]),
    "kind_member": ({"type": "object", "properties": {"KIND": {"enum": ["KIND"]}}, "description": "KIND\nKIND = 1"},
                    [('{"KIND": "KIND"}', True), ('{"KIND": "x"}', False)]),
}  # fmt: skip
REFUSED = {
    "big_min": ({"type": "number", "minimum": 18446744073709551617}, "minimum 18446744073709551617 is beyond +-2**63"),
    "hijack": ({"$id": "date.schema.json", "type": "string"},
               "'$id' makes this file answer to rcs:///schemas/mine/date.schema.json, which "
               "schemas/mine/date.schema.json already does"),
    "surrogate": ({"enum": ["\ud800", "a"]}, "invalid JSON: a lone surrogate escape is not text (I-JSON)"),
    "kind_def": ({"type": "object", "properties": {"a": {"$ref": "#/$defs/KIND"}},
                  "$defs": {"KIND": {"type": "object"}}},
                 "a class or alias named KIND (a $defs entry, a nested title or a property)"),
}  # fmt: skip


def write_domain(project: Path, cases: dict[str, tuple[Any, Any]]) -> None:
    domain = project / "schemas" / "mine"
    domain.mkdir(exist_ok=True)
    for name, (schema, _) in cases.items():
        (domain / f"{name}.schema.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    pyproject = project / "pyproject.toml"
    if "house-style" not in pyproject.read_text():
        pyproject.write_text(pyproject.read_text().replace("[tool.rcs]\n", "[tool.rcs]\nhouse-style = false\n"))


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("user") / "project")
    write_domain(project, CASES)
    done = run_rcs(["codegen"], project=project)
    assert done.returncode == 0, done.stderr
    return project


def test_every_verdict_is_the_schemas(compiled: Path) -> None:
    jobs = [(name, text, valid) for name, (_, instances) in CASES.items() for text, valid in instances]
    script = (
        "import json, sys\n"
        "from rcs_contracts.engine import kinds, validation\n"
        "out = []\n"
        f"for name, text, valid in json.loads({json.dumps(json.dumps(jobs))}):\n"
        "    try:\n"
        "        errors = validation.schema_verdict(kinds.resolve('mine/' + name), text)\n"
        "        out.append([name, text, valid, not errors, [str(e) for e in errors]])\n"
        "    except Exception as exc:\n"
        "        out.append([name, text, valid, 'crash', repr(exc)])\n"
        "print(json.dumps(out))\n"
    )
    done = run_python(script, compiled)
    assert done.returncode == 0, done.stderr
    wrong = [row for row in json.loads(done.stdout) if row[2] != row[3]]
    assert wrong == []


def test_a_pattern_error_shows_the_pattern_as_written(compiled: Path) -> None:
    (compiled / "dot.json").write_text('"a\\rb"')
    done = run_rcs(["validate", "--kind", "mine/dot", "dot.json"], project=compiled)
    assert done.returncode == 1
    assert 'dot.json: SchemaViolationError: "a\\rb" does not match "^a.b$"\n' in done.stdout


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_engine_cannot_judge_exactly_is_refused(tmp_path: Path, name: str) -> None:
    project = copy_project(tmp_path / "project")
    schema, message = REFUSED[name]
    write_domain(project, {name: (schema, None), "date": CASES["date"]})
    done = run_rcs(["codegen"], project=project)
    assert done.returncode == 1
    assert f"schemas/mine/{name}.schema.json:" in done.stderr and message in done.stderr, done.stderr
