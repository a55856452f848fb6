"""The acceptance checklist of researchops-part1.md, item by item, and its six failure cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from rcs_contracts.runtime.evidence import (
    BudgetExceededError,
    BudgetPolicy,
    BudgetTracker,
    ClaimPolicy,
    ClaimPolicyViolationError,
    EvidenceBundle,
    EvidenceRef,
    EvidenceSnapshot,
    EvidenceSnippet,
    EvidenceValidationError,
    ExperimentPlan,
    LiteratureMap,
    PartialResult,
    SchemaViolationError,
    StructuredReport,
    load_claim_policy,
)
from tests.conftest import ROOT
from tests.evidence import helpers as h

URL_ONLY = "EvidenceRef must include snippet_id (URL-only refs are not allowed)"


def test_spec_md_exists_and_cites_every_evidence_ruling() -> None:
    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    rulings = ROOT.parent / "shared" / "contracts" / "RULINGS.md"
    ids = {f"R-EV-{n}" for n in range(1, 8)} | {f"R-GEN-{n}" for n in range(1, 8)}
    missing = sorted(i for i in ids if i not in spec)
    assert not missing, f"SPEC.md does not cite {missing}"
    # The shared contracts sit beside the project in every checkout and in CI: their absence is a
    # broken checkout, not a reason to skip the check.
    assert rulings.is_file(), f"{rulings} is missing: the shared contracts must sit beside the project"
    unruled = sorted(i for i in ids if i not in rulings.read_text(encoding="utf-8"))
    assert not unruled, f"{rulings} does not define {unruled}"
    for marker in ("evidence-errors", "evidence-budgets", "evidence-report", "claim_policy"):
        assert f"<!-- generated:{marker}" in spec or f"<!-- generated:evidence-{marker}" in spec


def test_claim_policy_yaml_loads_into_strict_model() -> None:
    policy = load_claim_policy(ROOT / "claim_policy.yaml")
    assert isinstance(policy, ClaimPolicy)
    assert {s.name: s.citation_required for s in policy.severities} == {"trivial": False, "non_trivial": True}
    assert policy.model_config.get("strict") is True
    assert policy.severities == load_claim_policy().severities  # the compiled copy agrees with the file


@pytest.mark.parametrize(
    "model",
    [
        LiteratureMap,
        StructuredReport,
        ExperimentPlan,
        EvidenceBundle,
        EvidenceRef,
        EvidenceSnapshot,
        EvidenceSnippet,
        ClaimPolicy,
        PartialResult,
        BudgetPolicy,
    ],
)
def test_all_models_are_strict_and_forbid_unknown_fields(model: type[BaseModel]) -> None:
    config = model.model_config
    assert config.get("strict") is True
    assert config.get("extra") == "forbid"


def test_unknown_field_is_rejected_everywhere() -> None:
    data = h.report()
    data["sections"][0]["claims"][0]["confidence"] = 0.9
    with pytest.raises(SchemaViolationError) as info:
        h.check("structured_report", data)
    assert str(info.value) == "Property 'confidence' is not allowed by the schema"
    assert info.value.location == ("sections", 0, "claims", 0, "confidence")


def test_strict_types_do_not_coerce() -> None:
    data = h.literature_map()
    data["nodes"][0]["score"] = "0.9"
    with pytest.raises(SchemaViolationError):
        h.check("literature_map", data)


def test_section_order_is_enforced_and_deterministic() -> None:
    data = h.report()
    data["sections"][1], data["sections"][2] = data["sections"][2], data["sections"][1]
    messages = set()
    for _ in range(3):
        with pytest.raises(Exception) as info:
            h.check("structured_report", data)
        messages.add((type(info.value).__name__, str(info.value)))
    assert messages == {
        (
            "ArtifactIntegrityError",
            "Report sections must be [intro, background, related_work, methods, comparison, gaps, conclusions] "
            "in this order: found [intro, related_work, background, methods, comparison, gaps, conclusions]",
        )
    }


def test_failure_case_1_non_trivial_claim_without_citation_keys() -> None:
    data = h.report()
    claim = data["sections"][3]["claims"][1]
    del claim["citation_keys"]
    data["sections"][3]["citations"] = {}
    with pytest.raises(ClaimPolicyViolationError) as info:
        h.check("structured_report", data)
    assert str(info.value) == "Non-trivial claim requires at least one citation_key: claim_id=c3b"


def test_failure_case_1_empty_citation_keys_list_too() -> None:
    data = h.report()
    data["sections"][0]["claims"][1]["citation_keys"] = []
    data["sections"][0]["citations"] = {}
    with pytest.raises(
        ClaimPolicyViolationError, match=r"^Non-trivial claim requires at least one citation_key: claim_id=c0b$"
    ):
        h.check("structured_report", data)


def test_trivial_claim_needs_no_citation() -> None:
    model = h.check("structured_report", h.report())
    assert isinstance(model, StructuredReport)
    assert "citation_keys" not in model.sections[0].claims[0].model_dump()


def test_failure_case_2_claim_references_missing_citation_key() -> None:
    data = h.report()
    data["sections"][2]["claims"][1]["citation_keys"] = ["k2", "nope"]
    with pytest.raises(ClaimPolicyViolationError) as info:
        h.check("structured_report", data)
    assert type(info.value).__name__ == "ClaimPolicyViolationError"
    assert str(info.value) == "Claim references unknown citation_key: claim_id=c2b citation_key=nope"


def test_failure_case_3_unknown_snippet_id() -> None:
    data = h.literature_map()
    data["nodes"][1]["evidence_refs"][0]["snippet_id"] = "snip-404"
    with pytest.raises(EvidenceValidationError) as info:
        h.check("literature_map", data)
    assert str(info.value) == "Unknown snippet_id in EvidenceStore: snippet_id=snip-404"


@pytest.mark.parametrize(
    "bad_ref",
    [
        {"snapshot_id": "snap-1", "url": "https://example.org/paper"},
        {"snapshot_id": "snap-1"},
        {"snapshot_id": "snap-1", "snippet_id": None},
        "https://example.org/paper",
    ],
    ids=["url-field", "no-snippet", "null-snippet", "bare-url"],
)
def test_failure_case_4_url_only_ref(bad_ref: object) -> None:
    for kind, place in (
        ("literature_map", lambda d: d["nodes"][0]["evidence_refs"]),
        ("experiment_plan", lambda d: d["datasets"][0]["evidence_refs"]),
    ):
        data = h.BUILDERS[kind]()
        place(data)[0] = bad_ref
        with pytest.raises(EvidenceValidationError) as info:
            h.check(kind, data)
        assert str(info.value) == URL_ONLY
    data = h.report()
    data["sections"][0]["citations"]["k0"] = bad_ref
    with pytest.raises(EvidenceValidationError, match="URL-only"):
        h.check("structured_report", data)


def test_url_only_ref_is_one_error_not_schema_noise() -> None:
    from rcs_contracts.runtime.evidence import iter_violations

    data = h.literature_map()
    data["nodes"][0]["evidence_refs"][0] = {"snapshot_id": "snap-1", "url": "https://x"}
    errors = list(iter_violations("literature_map", json.dumps(data), evidence=h.store()))
    assert [(type(e).__name__, str(e)) for e in errors] == [("EvidenceValidationError", URL_ONLY)]
    assert errors[0].location == ("nodes", 0, "evidence_refs", 0)


def _policy(mode: str) -> BudgetPolicy:
    return BudgetPolicy(
        max_connector_calls=2,
        max_time_seconds=60,
        max_tokens=1000,
        max_retries_per_stage=1,
        max_evidence_items_ingested=10,
        mode=mode,
    )  # type: ignore[arg-type]


def test_failure_case_5_budget_fail_mode_raises() -> None:
    tracker = BudgetTracker(_policy("fail"), clock=lambda: 0.0)
    assert tracker.charge("max_connector_calls") is None
    assert tracker.charge("max_connector_calls") is None
    with pytest.raises(BudgetExceededError) as info:
        tracker.charge("max_connector_calls")
    assert str(info.value) == "Budget exceeded: max_connector_calls limit=2 used=3"


def test_failure_case_6_budget_finalize_partial_returns_partial_result() -> None:
    tracker = BudgetTracker(_policy("finalize_partial"), clock=lambda: 0.0)
    tracker.charge("max_connector_calls")
    tracker.charge("max_connector_calls")
    result = tracker.charge("max_connector_calls")
    assert isinstance(result, PartialResult)
    assert result.partial is True
    assert result.reason == "Budget exceeded: max_connector_calls limit=2 used=3"


def test_models_reject_bad_construction_in_python_too() -> None:
    with pytest.raises(ValidationError):
        EvidenceRef(snapshot_id="s")  # type: ignore[call-arg]


def test_examples_directory_exists() -> None:
    assert (ROOT / "examples" / "evidence" / "bundle.json").is_file()
    assert any((ROOT / "examples" / "evidence" / "rejected").glob("*.expected"))
    assert Path(ROOT / "examples" / "evidence" / "valid").is_dir()
