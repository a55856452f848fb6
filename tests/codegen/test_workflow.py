"""The user's workflow end to end: edit a schema or a rule table, run `rcs codegen`, see new behaviour.

R-GEN-1: every rule table is the single source of its behaviour; changing the table and
regenerating changes what the runtime does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import copy_project, run_python, run_rcs
from tests.evidence import helpers as h


def compile_project(project: Path) -> None:
    result = run_rcs(["codegen"], project=project)
    assert result.returncode == 0, result.stdout + result.stderr
    check = run_rcs(["codegen", "--check"], project=project)
    assert check.returncode == 0, check.stdout + check.stderr


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_adding_a_required_field_is_enforced_by_model_and_cli(project: Path) -> None:
    schema_path = project / "schemas/evidence/literature_map.schema.json"
    schema = json.loads(schema_path.read_text())
    node = schema["$defs"]["MapNode"]
    node["required"].append("license")
    node["properties"]["license"] = {"type": "string", "minLength": 1}
    schema_path.write_text(json.dumps(schema, indent=2))
    compile_project(project)

    probe = run_python(
        "from rcs_contracts.generated.evidence.literature_map_schema import MapNode\n"
        "print(MapNode.model_fields['license'].is_required())",
        project,
    )
    assert probe.stdout.strip() == "True", probe.stderr

    bundle = write(project / "bundle.json", h.bundle())
    old = write(project / "old.json", h.literature_map())
    rejected = run_rcs(["validate", "--kind", "literature_map", "--evidence", str(bundle), str(old)], project=project)
    assert rejected.returncode == 1
    assert "SchemaViolationError: Required property 'license' is missing (at $.nodes[0].license)" in rejected.stdout

    fixed = h.literature_map()
    for n in fixed["nodes"]:
        n["license"] = "CC-BY-4.0"
    new = write(project / "new.json", fixed)
    accepted = run_rcs(["validate", "--kind", "literature_map", "--evidence", str(bundle), str(new)], project=project)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose every rule table was changed, then recompiled once."""
    project = copy_project(tmp_path_factory.mktemp("tables") / "project")
    report = project / "schemas/evidence/report.yaml"
    report.write_text(report.read_text().replace("  - intro\n  - background\n", "  - background\n  - intro\n"))
    policy = project / "claim_policy.yaml"
    policy.write_text(
        policy.read_text()
        .replace("name: trivial\n    citation_required: false", "name: trivial\n    citation_required: true")
        .replace("name: non_trivial", "name: major")
    )
    budgets = project / "schemas/evidence/budgets.yaml"
    text = budgets.read_text()
    time_entry = text[text.index("  - name: max_time_seconds") : text.index("  - name: max_tokens")]
    tokens_entry = text[text.index("  - name: max_tokens") : text.index("  - name: max_retries_per_stage")]
    budgets.write_text(text.replace(time_entry + tokens_entry, tokens_entry + time_entry))
    errors = project / "schemas/evidence/errors.yaml"
    errors.write_text(
        errors.read_text().replace(
            '"Unknown snippet_id in EvidenceStore: snippet_id={snippet_id}"', '"No such snippet: {snippet_id}"'
        )
    )
    messages = project / "schemas/cli/messages.yaml"
    messages.write_text(messages.read_text().replace('"{files} file(s) checked:', '"checked {files} file(s):'))
    compile_project(project)
    return project


def run_probe(project: Path, code: str) -> str:
    prelude = (
        "import json\n"
        "from tests.evidence import helpers as h\n"
        "from rcs_contracts.runtime.evidence import *\n"
        "def outcome(kind, data):\n"
        "    try:\n"
        "        h.check(kind, data)\n"
        "        return 'valid'\n"
        "    except ContractViolationError as e:\n"
        "        return f'{type(e).__name__}: {e}'\n"
    )
    (project / "tests").mkdir(exist_ok=True)
    for name in ("__init__.py",):
        (project / "tests" / name).touch()
    (project / "tests" / "evidence").mkdir(exist_ok=True)
    (project / "tests" / "evidence" / "__init__.py").touch()
    (project / "tests" / "evidence" / "helpers.py").write_text(Path(h.__file__).read_text())
    result = run_python(prelude + code, project)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_section_order_comes_from_report_yaml(edited: Path) -> None:
    out = run_probe(
        edited,
        (
            "data = h.report()\n"
            "print(outcome('structured_report', data).split(':')[0])\n"
            "data['sections'][0], data['sections'][1] = data['sections'][1], data['sections'][0]\n"
            "print(outcome('structured_report', data))\n"
        ),
    )
    assert out.splitlines()[0] == "ArtifactIntegrityError"
    # Swapped order now passes the order check; the first problem is the (also edited) claim policy.
    assert out.splitlines()[1] == (
        "ClaimPolicyViolationError: Non-trivial claim requires at least one citation_key: claim_id=c1a"
    )


def test_severities_come_from_claim_policy_yaml(edited: Path) -> None:
    out = run_probe(
        edited,
        (
            "data = h.report()\n"
            "data['sections'][0], data['sections'][1] = data['sections'][1], data['sections'][0]\n"
            "for s in data['sections']:\n"
            "    s['claims'][1]['severity'] = 'major'\n"
            "print(outcome('structured_report', data))\n"
        ),
    )
    assert out == "ClaimPolicyViolationError: Non-trivial claim requires at least one citation_key: claim_id=c1a"


def test_budget_precedence_comes_from_budgets_yaml(edited: Path) -> None:
    out = run_probe(
        edited,
        (
            "t = [0.0]\n"
            "tracker = BudgetTracker(BudgetPolicy(max_connector_calls=5, max_time_seconds=1, max_tokens=0,\n"
            "    max_retries_per_stage=1, max_evidence_items_ingested=1), clock=lambda: t[0])\n"
            "t[0] = 5.0\n"
            "try:\n"
            "    tracker.charge('max_tokens', 1)\n"
            "except BudgetExceededError as e:\n"
            "    print(e)\n"
        ),
    )
    assert out == "Budget exceeded: max_tokens limit=0 used=1"


def test_messages_come_from_errors_yaml(edited: Path) -> None:
    out = run_probe(
        edited,
        (
            "data = h.literature_map()\n"
            "data['nodes'][0]['evidence_refs'][0]['snippet_id'] = 'gone'\n"
            "print(outcome('literature_map', data))\n"
        ),
    )
    assert out == "EvidenceValidationError: No such snippet: gone"


def test_cli_messages_come_from_messages_yaml(edited: Path) -> None:
    path = write(edited / "empty_map.json", {"nodes": [], "edges": []})
    result = run_rcs(["validate", "--kind", "literature_map", str(path)], project=edited)
    assert result.returncode == 0
    assert result.stdout.strip() == "checked 1 file(s): 1 valid, 0 invalid, 0 violation(s)"


def test_rcs_codegen_repairs_a_generated_module_that_no_longer_imports(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    broken = project / "generated/autoresearch/config.py"
    original = broken.read_text()
    broken.write_text(original + "raise ImportError('hand-broken')\n")
    assert run_rcs(["validate", "--help"], project=project).returncode != 0  # the rest of rcs cannot start
    check = run_rcs(["codegen", "--check"], project=project)
    assert check.returncode == 1 and "stale" in check.stdout + check.stderr
    assert run_rcs(["codegen"], project=project).returncode == 0
    assert broken.read_text() == original
