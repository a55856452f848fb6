"""Correctness lint (always on) and the switchable house style, on projects a user might write.

Every refusal is ``file:line: message`` and writes nothing; every schema that is refused here
would otherwise have compiled into a check weaker than the schema says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rcs_contracts.codegen.cli import run
from tests.codegen.test_lint import compile_errors, line_of
from tests.conftest import run_python, run_rcs

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def user_project(root: Path, schemas: dict[str, object], settings: str = "house-style = false\n") -> Path:
    """A project of one domain, ``shop``, holding ``schemas`` (file stem -> schema)."""
    (root / "schemas" / "shop").mkdir(parents=True)
    for stem, schema in schemas.items():
        (root / "schemas" / "shop" / f"{stem}.schema.json").write_text(json.dumps(schema, indent=2) + "\n")
    (root / "pyproject.toml").write_text(f"[tool.rcs]\n{settings}")
    return root


def errors_of(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    return compile_errors(root, capsys)


@pytest.mark.parametrize(
    "schema,needle,message",
    [
        (
            {"type": "object", "requred": ["a"]},
            '"requred"',
            "unknown keyword 'requred' would be ignored (a typo?); declare it in [tool.rcs] annotations if meant",
        ),
        (
            {"definitions": {"a": {"type": "string"}}},
            '"definitions"',
            "draft 2020-12 ignores 'definitions'; use $defs",
        ),
        (
            {"dependencies": {"a": ["b"]}},
            '"dependencies"',
            "draft 2020-12 ignores 'dependencies'; use dependentRequired or dependentSchemas",
        ),
        ({"enum": []}, '"enum"', "'enum: []' allows no value at all; use 'false' if nothing is meant"),
        (
            {"minimum": 5, "maximum": 3},
            '"minimum"',
            "minimum 5 is above maximum 3: no value can satisfy both",
        ),
        (
            {"exclusiveMinimum": 3, "maximum": 3},
            '"exclusiveMinimum"',
            "exclusiveMinimum 3 is above maximum 3: no value can satisfy both",
        ),
        (
            {"minLength": 4, "maxLength": 2},
            '"minLength"',
            "minLength 4 is above maxLength 2: no value can satisfy both",
        ),
        (
            {"type": "array", "minItems": 2, "maxItems": 1},
            '"minItems"',
            "minItems 2 is above maxItems 1: no value can satisfy both",
        ),
        (
            {"type": "object", "properties": {"a": {}}, "required": ["b"], "additionalProperties": False},
            '"b"',
            "required property 'b' can never be present: additionalProperties is false and no property or "
            "patternProperties admits it (add it to 'properties')",
        ),
        (
            {"properties": {"a": False}, "required": ["z", "a"]},
            '"z"',
            "required property 'a' can never be present: properties says false",
        ),
        (
            {"type": "string", "format": "emial"},
            '"format"',
            "format 'emial' is not one rcs asserts, so it would check nothing",
        ),
        (
            {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"},
            '"$schema"',
            "'$schema' must be draft 2020-12 (https://json-schema.org/draft/2020-12/schema) or a 2020-12 dialect",
        ),
        ({"type": "strnig"}, '"type"', "not a valid 2020-12 schema:"),
        ({"pattern": "(unclosed"}, '"pattern"', "pattern '(unclosed' does not compile: unclosed group"),
        ({"$ref": "#/$defs/nowhere"}, '"$ref"', "$ref does not resolve: #/$defs/nowhere"),
        (
            {"$ref": "https://example.com/elsewhere.json"},
            '"$ref"',
            "$ref does not resolve: https://example.com/elsewhere.json (no such document; nothing is downloaded)",
        ),
    ],
    ids=[
        "typo",
        "definitions",
        "dependencies",
        "empty-enum",
        "min-max",
        "exclusive",
        "length",
        "items",
        "required-closed",
        "required-false",
        "format",
        "draft-07",
        "metaschema",
        "regex",
        "local-ref",
        "remote-ref",
    ],
)
def test_a_schema_that_cannot_mean_what_it_says_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], schema: dict[str, object], needle: str, message: str
) -> None:
    root = user_project(tmp_path, {"item": schema})
    path = root / "schemas/shop/item.schema.json"
    [error] = errors_of(root, capsys)
    line = line_of(path, needle) + (1 if needle == '"z"' else 0)  # the second item of required
    prefix = f"schemas/shop/item.schema.json:{line}: "
    assert error.startswith(prefix + message), error
    assert not (root / "generated").exists()


def test_format_list_names_every_asserted_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rcs_contracts.codegen.engine import ASSERTED_FORMATS

    root = user_project(tmp_path, {"item": {"format": "colour"}})
    [error] = errors_of(root, capsys)
    assert all(name in error for name in ASSERTED_FORMATS)


def test_what_is_meant_compiles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Near misses of every rule above are legitimate schemas and compile."""
    root = user_project(
        tmp_path,
        {
            "item": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 3, "maximum": 3}, "at": {"format": "date-time"}},
                "patternProperties": {"^x-": {}},
                "required": ["id", "x-extra"],
                "additionalProperties": False,
                "$comment": "x-extra is admitted by the pattern",
            },
            "nothing": False,
            "anything": True,
        },
    )
    assert run(root, check=False, quiet=True) == 0, capsys.readouterr().err
    assert (root / "generated/shop/nothing_schema.py").is_file()


def test_declared_annotations_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = user_project(
        tmp_path, {"item": {"type": "string", "x-owner": "team-a"}}, 'house-style = false\nannotations = ["x-owner"]\n'
    )
    assert run(root, check=False, quiet=True) == 0, capsys.readouterr().err


def test_house_style_is_on_by_default_and_only_house_style_switches_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^\\d+$"}}}
    root = user_project(tmp_path / "on", {"item": schema}, settings="")
    errors = errors_of(root, capsys)
    assert errors and all(e.endswith("[house style]") for e in errors), errors
    assert any("every schema file needs an '$id'" in e for e in errors)
    assert any("additionalProperties: false" in e for e in errors)
    assert any("pattern uses \\d" in e for e in errors)
    off = user_project(tmp_path / "off", {"item": schema})
    assert run(off, check=False, quiet=True) == 0, capsys.readouterr().err
    # Correctness stays on with house style off.
    broken = user_project(tmp_path / "typo", {"item": {**schema, "propertys": {}}})
    assert any("unknown keyword 'propertys'" in e for e in errors_of(broken, capsys))


@pytest.mark.parametrize(
    "settings,message",
    [
        ("house_style = false\n", "pyproject.toml:2: unknown setting tool.rcs.house_style"),
        ('house-style = "no"\n', "pyproject.toml:2: tool.rcs.house-style must be true or false"),
        ("annotations = [1]\n", "pyproject.toml:2: tool.rcs.annotations must be a list of names"),
        ('[tool.rcs.resources]\n"https://x.org/" = "nope"\n', "pyproject.toml:3: resources: 'nope' is not a directory"),
        ("house-style = \n", "pyproject.toml:2: invalid TOML"),
        # An inline table holds the prefix mid-line.
        ('house-style = false\nresources = { "https://x.org/" = "nope" }\n', "pyproject.toml:3: resources: 'nope'"),
    ],
)
def test_bad_settings_are_refused_with_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: str, message: str
) -> None:
    root = user_project(tmp_path, {"item": True}, settings)
    [error] = errors_of(root, capsys)
    assert error.startswith(message), error


def test_a_setting_is_placed_on_its_own_line_not_another_tools_key_of_that_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = user_project(tmp_path, {"item": True})
    text = '[tool.other]\npackage = "fine"\n\n[tool.rcs]\nhouse-style = false\npackage = "not a name"\n'
    (root / "pyproject.toml").write_text(text)
    [error] = errors_of(root, capsys)
    assert error.startswith("pyproject.toml:6: tool.rcs.package must be a dotted import name"), error


def test_resources_serve_referenced_documents_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A vendored schema, named by its URI, is compiled in: the runtime fetches nothing."""
    root = user_project(
        tmp_path,
        {"order": {"type": "object", "properties": {"total": {"$ref": "https://vendor.example/money.json"}}}},
        'house-style = false\n\n[tool.rcs.resources]\n"https://vendor.example/" = "vendor"\n',
    )
    (root / "vendor").mkdir()
    (root / "vendor/money.json").write_text('{"type": "number", "minimum": 0}\n')
    assert run(root, check=False, quiet=True) == 0, capsys.readouterr().err
    documents = (root / "generated/_documents.py").read_text()
    assert '"https://vendor.example/money.json"' in documents
    (root / "vendor/money.json").unlink()
    [error] = errors_of(root, capsys)
    assert "$ref does not resolve: https://vendor.example/money.json" in error


def test_readme_example_required_without_property_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README, "Editing the contracts": the name added to MapNode's required list alone is refused,
    with exactly the output the README shows."""
    from tests.conftest import ROOT

    schema = project / "schemas/evidence/literature_map.schema.json"
    lines = schema.read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if '"required": ["id", "type", "metadata"' in line)
    lines[number] = lines[number].replace('"evidence_refs"]', '"evidence_refs", "license"]')
    schema.write_text("".join(lines))
    readme = (ROOT / "README.md").read_text()
    shown = readme.split("no map could ever carry it:\n\n```\n", 1)[1].split("```", 1)[0].splitlines()
    assert run(project, check=False) == 1
    assert capsys.readouterr().err.splitlines() == shown


def test_user_kinds_of_any_shape_validate(project: Path) -> None:
    """Schemas that are not objects (a boolean file, an integer, a union) become kinds like any other."""
    domain = project / "schemas/shop"
    domain.mkdir()
    (domain / "anything.schema.json").write_text("true\n")
    (domain / "count.schema.json").write_text('{"type": "integer", "minimum": 1}\n')
    (domain / "either.schema.json").write_text('{"anyOf": [{"type": "string"}, {"type": "array", "items": {}}]}\n')
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.rcs]\n", "[tool.rcs]\nhouse-style = false\n"))
    compiled = run_rcs(["codegen"], project=project)
    assert compiled.returncode == 0, compiled.stderr
    samples = {"count": ("2.0", "0"), "either": ('["x"]', "3"), "anything": ("null", None)}
    for kind, (good, bad) in samples.items():
        (project / f"{kind}-good.json").write_text(good)
        ok = run_rcs(["validate", "--kind", f"shop/{kind}", f"{kind}-good.json"], project=project)
        assert ok.returncode == 0, ok.stdout + ok.stderr
        if bad is not None:
            (project / f"{kind}-bad.json").write_text(bad)
            rejected = run_rcs(["validate", "--kind", f"shop/{kind}", f"{kind}-bad.json"], project=project)
            assert rejected.returncode == 1 and "SchemaViolationError" in rejected.stdout, rejected.stdout
    typed = run_python(
        "from rcs_contracts.engine import kinds, validation\n"
        "print(repr(validation.validate(kinds.resolve('shop/count'), b'2.0', validation.Context())))",
        project,
    )
    assert typed.stdout.strip() == "2", typed.stderr  # an integer, given as 2.0 by a JavaScript producer


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[tool.rcs]\ngenerated = "my-contracts"\n\n[tool.hatch.build.targets.wheel]\npackages = ["x"]\n',
            "pyproject.toml:2: tool.rcs.package must be a dotted import name",
        ),
        (
            '[project]\nname = "my-package"\n\n[tool.rcs]\nhouse-style = false\ngenerated = "json"\n',
            "pyproject.toml:6: tool.rcs.package 'json' would shadow Python's own module 'json'",
        ),
    ],
)
def test_a_package_derived_from_the_generated_folder_is_placed_on_that_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    root = user_project(tmp_path, {"item": True})
    (root / "pyproject.toml").write_text(text)
    [error] = errors_of(root, capsys)
    assert error.startswith(message), error
