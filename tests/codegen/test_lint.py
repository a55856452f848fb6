"""Every lint rule fails the build with ``file:line: message`` (R-GEN-2 and the house rules)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rcs_contracts.codegen.cli import run


def compile_errors(root: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    status = run(root, check=True, quiet=True)
    err = capsys.readouterr().err
    assert status == 1, err
    assert err.strip().endswith("problem(s); nothing written")
    return err.strip().splitlines()[:-1]


def edit_json(path: Path, change: object) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(needle)


def test_clean_tree_has_no_problems(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(project, check=True) == 0
    assert "up to date" in capsys.readouterr().out


def test_object_without_additional_properties_false(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = project / "schemas/evidence/literature_map.schema.json"
    edit_json(schema, lambda d: d["$defs"]["MapEdge"].pop("additionalProperties"))
    line = line_of(schema, '"MapEdge"')
    assert compile_errors(project, capsys) == [
        f"schemas/evidence/literature_map.schema.json:{line}: object schema with properties must say "
        "'additionalProperties: false' [house style]"
    ]


def test_map_must_state_additional_properties(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = project / "schemas/evidence/literature_map.schema.json"
    edit_json(schema, lambda d: d["$defs"]["MapNode"]["properties"]["metadata"].pop("additionalProperties"))
    errors = compile_errors(project, capsys)
    assert len(errors) == 1 and "map schema must say 'additionalProperties'" in errors[0]
    line = line_of(schema, '"metadata": {')
    assert errors[0].startswith(f"schemas/evidence/literature_map.schema.json:{line}:")


@pytest.mark.parametrize("shorthand", ["\\d", "\\w", "\\s", "\\S"])
def test_pattern_shorthands_are_rejected(project: Path, capsys: pytest.CaptureFixture[str], shorthand: str) -> None:
    schema = project / "schemas/evidence/evidence_bundle.schema.json"
    edit_json(
        schema, lambda d: d["$defs"]["EvidenceSnapshot"]["properties"]["content_hash"].update(pattern=f"^{shorthand}+$")
    )
    errors = compile_errors(project, capsys)
    line = line_of(schema, '"pattern"')
    assert errors == [
        f"schemas/evidence/evidence_bundle.schema.json:{line}: pattern uses {shorthand}, "
        "which differs across regex dialects; spell the class out [house style]"
    ]


def test_shorthand_scanner() -> None:
    from rcs_contracts.codegen.lint import shorthand_escapes

    assert shorthand_escapes(r"^\d+\\w[\s]\.$") == [r"\d", r"\s"]
    assert shorthand_escapes(r"^[0-9]+\\d$") == []


def test_escaped_backslash_is_not_a_shorthand(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = project / "schemas/evidence/evidence_bundle.schema.json"
    edit_json(
        schema, lambda d: d["$defs"]["EvidenceSnapshot"]["properties"]["content_hash"].update(pattern="^[a-f]\\\\d$")
    )
    # Lint passes; --check then only reports the outputs the edit made stale.
    assert run(project, check=True, quiet=True) == 1
    err = capsys.readouterr().err
    assert "pattern uses" not in err and "problem(s)" not in err
    assert "file(s) stale" in err


def test_metaschema_and_ref_and_id(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = project / "schemas/evidence/experiment_plan.schema.json"

    def change(d: dict) -> None:  # type: ignore[type-arg]
        d.pop("$id")
        d["properties"]["hypothesis"] = {"$ref": "structured_report.schema.json#/$defs/Nope"}
        d["$defs"]["TextList"]["minItems"] = "one"

    edit_json(schema, change)
    errors = compile_errors(project, capsys)
    text = "\n".join(errors)
    assert "every schema file needs an '$id'" in text
    assert "$ref does not resolve: structured_report.schema.json#/$defs/Nope" in text
    assert "not a valid 2020-12 schema: 'one' is not of type 'integer'" in text
    assert all(e.startswith("schemas/evidence/experiment_plan.schema.json:") for e in errors)


def test_artifact_schema_needs_title_and_optional_schema_property(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = project / "schemas/evidence/literature_map.schema.json"

    def change(d: dict) -> None:  # type: ignore[type-arg]
        d.pop("title")
        d["required"].append("$schema")

    edit_json(schema, change)
    text = "\n".join(compile_errors(project, capsys))
    assert "needs a 'title'" in text and "'$schema' must be optional (R-GEN-4)" in text


def test_invalid_json_schema_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "schemas/evidence/literature_map.schema.json").write_text('{\n  "a": 1,\n  oops\n}\n')
    assert compile_errors(project, capsys) == [
        "schemas/evidence/literature_map.schema.json:3: invalid JSON: Expecting property name enclosed in double quotes"
    ]


def test_table_is_validated_against_its_schema(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = project / "schemas/evidence/budgets.yaml"
    text = table.read_text().replace("measure: clock", "measure: sundial")
    table.write_text(text)
    errors = compile_errors(project, capsys)
    assert errors == [
        f'schemas/evidence/budgets.yaml:{line_of(table, "sundial")}: "sundial" is not one of "charge", "clock" or '
        '"per_stage" (table schema schemas/tables/budgets.schema.json)'
    ]


def test_duplicate_code_in_table(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = project / "schemas/evidence/report.yaml"
    table.write_text(table.read_text() + "  - intro\n")
    errors = compile_errors(project, capsys)
    assert errors == [
        f"schemas/evidence/report.yaml:{len(table.read_text().splitlines())}: 'intro' is listed twice (first as item 0)"
    ]


def test_duplicate_error_code_and_severity(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    errors_yaml = project / "schemas/evidence/errors.yaml"
    errors_yaml.write_text(
        errors_yaml.read_text() + ("  - code: URL_ONLY_REF\n    class: EvidenceValidationError\n    message: again\n")
    )
    policy = project / "claim_policy.yaml"
    policy.write_text(policy.read_text() + "  - name: trivial\n    citation_required: true\n")
    text = "\n".join(compile_errors(project, capsys))
    assert re.search(r"claim_policy.yaml:\d+: name 'trivial' is listed twice", text)
    assert re.search(r"schemas/evidence/errors.yaml:\d+: code 'URL_ONLY_REF' is listed twice", text)


def test_placeholder_must_be_a_field(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = project / "schemas/evidence/errors.yaml"
    text = table.read_text().replace(
        'message: "Unknown snippet_id in EvidenceStore: snippet_id={snippet_id}"',
        'message: "Unknown snippet_id in EvidenceStore: snippet_id={snippet}"',
    )
    table.write_text(text)
    line = line_of(table, "snippet_id={snippet}")
    assert compile_errors(project, capsys) == [
        f"schemas/evidence/errors.yaml:{line}: template placeholder {{snippet}} is not a field the error carries"
    ]


def test_code_needs_a_message_and_known_class(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = project / "schemas/evidence/errors.yaml"
    table.write_text(table.read_text() + "  - code: NEW_ONE\n    class: MadeUpError\n")
    text = "\n".join(compile_errors(project, capsys))
    assert '"message" is a required property' in text


def test_unknown_class(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = project / "schemas/evidence/errors.yaml"
    table.write_text(table.read_text() + "  - code: NEW_ONE\n    class: MadeUpError\n    message: hi\n")
    text = "\n".join(compile_errors(project, capsys))
    assert re.search(r"errors.yaml:\d+: code NEW_ONE names unknown class 'MadeUpError'", text)


def test_yaml_duplicate_key_and_syntax(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = project / "schemas/evidence/report.yaml"
    report.write_text(report.read_text() + "section_order: []\n")
    budgets = project / "schemas/evidence/budgets.yaml"
    budgets.write_text("$schema: ../tables/budgets.schema.json\nbudgets: [\n")
    errors = compile_errors(project, capsys)
    assert errors[0].startswith("schemas/evidence/budgets.yaml:3: invalid YAML")
    assert errors[1] == (
        f"schemas/evidence/report.yaml:{len(report.read_text().splitlines())}: invalid YAML: "
        "duplicate key 'section_order' (first at line 3)"
    )


def test_table_must_name_its_schema(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "schemas/evidence/extra.yaml").write_text("a: 1\n")
    assert compile_errors(project, capsys) == [
        "schemas/evidence/extra.yaml:1: a rule table must name its schema in a top-level '$schema' key"
    ]


def test_domain_errors_table_needs_schema_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = project / "schemas/evidence/errors.yaml"
    table.write_text(table.read_text().replace("code: JSON_SYNTAX", "code: JSON_BROKEN"))
    assert compile_errors(project, capsys) == [
        "schemas/evidence/errors.yaml:1: the errors table must define JSON_SYNTAX (used by rcs validate)"
    ]


def test_id_must_be_the_file_name(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = project / "schemas/evidence/partial_result.schema.json"
    edit_json(schema, lambda d: d.update({"$id": "https://example.org/partial_result.schema.json"}))
    # The new base URI also sends the relative $ref to a document nobody provides (correctness).
    assert compile_errors(project, capsys) == [
        f"schemas/evidence/partial_result.schema.json:{line_of(schema, '$id')}: "
        "'$id' must be the file's own name, 'partial_result.schema.json' [house style]",
        f"schemas/evidence/partial_result.schema.json:{line_of(schema, 'SchemaPointer')}: "
        "$ref does not resolve: evidence_bundle.schema.json#/$defs/SchemaPointer",
    ]


@pytest.mark.parametrize(
    ("union", "fix"),
    [
        (["integer", "number"], "'number'"),
        (["string", "integer"], "anyOf with one type in each branch"),
        (["string", "number", "null"], "anyOf with one type in each branch"),
    ],
)
def test_a_type_union_ajv_strict_refuses_is_house_style(
    project: Path, capsys: pytest.CaptureFixture[str], union: list[str], fix: str
) -> None:
    schema = project / "schemas/evidence/partial_result.schema.json"
    edit_json(schema, lambda d: d["properties"]["limit"].update({"type": union}))
    line = line_of(schema, '"type": [')
    assert compile_errors(project, capsys) == [
        f"schemas/evidence/partial_result.schema.json:{line}: type union {union} is refused "
        f"by Ajv's strict mode; write {fix} [house style]"
    ]


def test_a_nullable_type_is_portable(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = project / "schemas/evidence/partial_result.schema.json"
    edit_json(schema, lambda d: d["properties"]["limit"].update({"type": ["number", "null"]}))
    assert run(project, check=False, quiet=True) == 0, capsys.readouterr().err


def test_an_id_is_unique_across_domains(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A second paper.schema.json, in another domain: both files answer to their own URI (the engine is
    # fine), but a registry keyed by $id (Ajv, the exported bundle) would hold one of them.
    copy = project / "schemas/odr/paper.schema.json"
    copy.write_text((project / "schemas/phase1/paper.schema.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert compile_errors(project, capsys) == [
        f"schemas/phase1/paper.schema.json:{line_of(copy, '$id')}: '$id' 'paper.schema.json' is also "
        "schemas/odr/paper.schema.json's: every $id must be unique across all domains [house style]"
    ]


def test_standard_validator_resolves_cross_file_refs_offline() -> None:
    """Other tools see the same rules: check-jsonschema, anchored at the schema file, follows the $refs.

    (check-jsonschema resolves a relative $id against the working directory rather than the file,
    so it is given the file's URI as --base-uri; spec-following tools need nothing.)
    """
    import subprocess
    import sys

    from tests.conftest import ROOT

    cj = Path(sys.executable).with_name("check-jsonschema")
    schema = ROOT / "schemas/evidence/structured_report.schema.json"
    ok = subprocess.run(
        [
            str(cj),
            "--schemafile",
            str(schema),
            "--base-uri",
            schema.as_uri(),
            str(ROOT / "examples/evidence/valid/structured_report.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = ROOT / "examples/evidence/rejected/map_url_only_ref.json"
    schema = ROOT / "schemas/evidence/literature_map.schema.json"
    failed = subprocess.run(
        [str(cj), "--schemafile", str(schema), "--base-uri", schema.as_uri(), str(bad)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode == 1 and "snippet_id" in failed.stdout


@pytest.mark.parametrize(
    "make,message",
    [
        (
            lambda p: (
                (p / "schemas/kinds").mkdir()
                or (p / "schemas/kinds/report.yaml").write_text(
                    "$schema: ../tables/report.schema.json\nsection_order: [a]\n"
                )
            ),
            "domain name 'kinds' must match",
        ),
        (
            lambda p: (
                (p / "schemas/my-dom").mkdir()
                or (p / "schemas/my-dom/report.yaml").write_text(
                    "$schema: ../tables/report.schema.json\nsection_order: [a]\n"
                )
            ),
            "domain name 'my-dom' must match",
        ),
        (
            lambda p: (p / "schemas/evidence/literature_map_schema.yaml").write_text(
                "$schema: ../tables/report.schema.json\nsection_order: [a]\n"
            ),
            "table name 'literature_map_schema' must match",
        ),
    ],
    ids=["reserved-domain", "dash-domain", "shadowing-table"],
)
def test_names_that_would_collide_or_not_import(
    project: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    make(project)  # type: ignore[operator]
    assert any(message in line for line in compile_errors(project, capsys))


def test_inputs_outside_the_root_and_odd_files(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere.schema.json"
    outside.write_text((project / "schemas/tables/report.schema.json").read_text())
    table = project / "schemas/evidence/report.yaml"
    table.write_text(table.read_text().replace("../tables/report.schema.json", str(outside)))
    (project / "schemas/evidence/odd.schema.json").mkdir()
    errors = compile_errors(project, capsys)
    assert errors == [f"{outside}:0: inputs must lie inside the project root {project.resolve()}"]


@pytest.mark.parametrize(
    "line,message",
    [
        ("1: one\n", "invalid YAML: a key must be a string, not 1 (quote it)"),
        ("x: &a 1\n", "invalid YAML: anchors (&a) are not supported: write the value out"),
        ("limit: .inf\n", "invalid YAML: .inf is not a JSON number"),
    ],
    ids=["int-key", "anchor", "infinity"],
)
def test_a_table_holds_json_data_only(
    project: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    table = project / "schemas/evidence/report.yaml"
    table.write_text(table.read_text() + line)
    [error] = compile_errors(project, capsys)
    assert error.startswith("schemas/evidence/report.yaml:") and message in error, error
