"""The examples are golden fixtures: valid ones pass, each rejected one fails exactly as its sidecar says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.runtime.evidence import (
    BudgetExceededError,
    BudgetPolicy,
    BudgetTracker,
    EvidenceStore,
    PartialResult,
    iter_violations,
    validate_artifact,
)
from tests.conftest import ROOT, run_rcs

EXAMPLES = ROOT / "examples" / "evidence"
BUNDLE = EXAMPLES / "bundle.json"
VALID = sorted((EXAMPLES / "valid").glob("*.json"))
REJECTED = sorted((EXAMPLES / "rejected").glob("*.json"))


def sidecar(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.with_suffix(".expected").read_text(encoding="utf-8"))
    return data


def kind_of(path: Path) -> str:
    return str(json.loads(path.read_text(encoding="utf-8"))["$schema"]).rsplit("/", 2)[-1].removesuffix(".schema.json")


def test_there_are_fixtures_for_every_contract_failure_case() -> None:
    assert {p.stem for p in VALID} == {"literature_map", "structured_report", "experiment_plan"}
    messages = {sidecar(p)["message"].split(":")[0] for p in REJECTED}
    assert {
        "Non-trivial claim requires at least one citation_key",
        "Claim references unknown citation_key",
        "Unknown snippet_id in EvidenceStore",
        "EvidenceRef must include snippet_id (URL-only refs are not allowed)",
    } <= messages


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_example_passes(path: Path) -> None:
    model = validate_artifact(kind_of(path), path, evidence=EvidenceStore.read(BUNDLE))
    assert model.model_dump(by_alias=True, exclude_none=True)["$schema"].endswith(f"{kind_of(path)}.schema.json")


@pytest.mark.parametrize("path", REJECTED, ids=lambda p: p.stem)
def test_rejected_example_fails_with_its_sidecar_error(path: Path) -> None:
    expected = sidecar(path)
    evidence = None if expected["kind"].endswith("evidence_bundle") else EvidenceStore.read(BUNDLE)
    with pytest.raises(Exception) as info:
        validate_artifact(expected["kind"], path, evidence=evidence)
    assert (type(info.value).__name__, str(info.value)) == (expected["error"], expected["message"])
    assert [str(e) for e in iter_violations(expected["kind"], path, evidence=evidence)] == [expected["message"]]


def test_cli_on_examples() -> None:
    valid = run_rcs(["validate", "--evidence", str(BUNDLE), str(EXAMPLES / "valid")])
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert valid.stdout.strip() == "3 file(s) checked: 3 valid, 0 invalid, 0 violation(s)"
    rejected = run_rcs(["validate", "--evidence", str(BUNDLE), "--format", "json", str(EXAMPLES / "rejected")])
    assert rejected.returncode == 1, rejected.stderr
    results = {Path(r["path"]).name: r for r in json.loads(rejected.stdout)}
    assert len(results) == len(REJECTED)
    for path in REJECTED:
        expected = sidecar(path)
        result = results[path.name]
        assert result["valid"] is False and result["kind"] == expected["kind"]
        assert [(e["error"], e["message"]) for e in result["errors"]] == [(expected["error"], expected["message"])]


def test_budget_scenarios() -> None:
    scenarios = json.loads((EXAMPLES / "budgets.json").read_text(encoding="utf-8"))["scenarios"]
    assert {s["policy"]["mode"] for s in scenarios} == {"fail", "finalize_partial"}
    for scenario in scenarios:
        tracker = BudgetTracker(BudgetPolicy(**scenario["policy"]), clock=lambda: 0.0)
        refused = scenario["refused_charge"]
        for index, charge in enumerate(scenario["charges"]):
            name, amount, *stage = charge
            if index < refused:
                assert tracker.charge(name, amount, *stage) is None
            elif scenario["policy"]["mode"] == "fail":
                with pytest.raises(BudgetExceededError) as info:
                    tracker.charge(name, amount, *stage)
                assert str(info.value) == scenario["expected"]["message"]
                break
            else:
                result = tracker.charge(name, amount, *stage)
                assert isinstance(result, PartialResult)
                assert result.partial is True and result.reason == scenario["expected"]["reason"]
                assert tracker.charge("max_connector_calls", 1) is result


def test_example_generator_is_reproducible() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "make_evidence.py"), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
