"""Tests that kill mutants bench/mutation.py found alive in runtime/evidence (dropped checks, swapped operators)."""

from __future__ import annotations

import json

import pytest
import yaml

from rcs_contracts.generated.evidence.errors import ArtifactIntegrityError
from rcs_contracts.runtime.evidence import iter_violations
from tests.conftest import ROOT
from tests.evidence import helpers as h


def errors(kind: str, data: dict[str, object]) -> list[tuple[str, str, tuple[str | int, ...]]]:
    return [(type(e).__name__, str(e), e.location) for e in iter_violations(kind, json.dumps(data), evidence=h.store())]


def test_duplicate_node_id_is_an_integrity_error() -> None:
    data = h.literature_map()
    data["nodes"][2]["id"] = "p1"
    data["edges"][1]["source"] = "p1"
    with pytest.raises(ArtifactIntegrityError) as info:
        h.check("literature_map", data)
    assert str(info.value) == "Duplicate node: id=p1"
    assert info.value.location == ("nodes", 2, "id")
    assert errors("literature_map", data) == [("ArtifactIntegrityError", "Duplicate node: id=p1", ("nodes", 2, "id"))]


def test_each_later_duplicate_node_is_reported_once() -> None:
    data = h.literature_map()
    data["nodes"][1]["id"] = "p1"
    data["nodes"][2]["id"] = "p1"
    data["edges"] = []
    assert errors("literature_map", data) == [
        ("ArtifactIntegrityError", "Duplicate node: id=p1", ("nodes", 1, "id")),
        ("ArtifactIntegrityError", "Duplicate node: id=p1", ("nodes", 2, "id")),
    ]


NOPE = {"snapshot_id": "snap-1", "snippet_id": "nope"}
UNKNOWN = "Unknown snippet_id in EvidenceStore: snippet_id=nope"


def test_map_violations_name_their_node_and_edge_in_document_order() -> None:
    data = h.literature_map()
    data["nodes"][1]["evidence_refs"].append(NOPE)
    data["edges"][1]["evidence_refs"].append(NOPE)
    data["edges"][0]["target"] = "zz"
    assert errors("literature_map", data) == [
        ("EvidenceValidationError", UNKNOWN, ("nodes", 1, "evidence_refs", 1, "snippet_id")),
        ("ArtifactIntegrityError", "Edge references unknown node id: edge=0 target=zz", ("edges", 0, "target")),
        ("EvidenceValidationError", UNKNOWN, ("edges", 1, "evidence_refs", 1, "snippet_id")),
    ]


def test_section_order_is_reported_on_the_sections() -> None:
    data = h.report()
    data["sections"][0], data["sections"][1] = data["sections"][1], data["sections"][0]
    assert errors("structured_report", data) == [
        (
            "ArtifactIntegrityError",
            "Report sections must be [intro, background, related_work, methods, comparison, gaps, conclusions] "
            "in this order: found [background, intro, related_work, methods, comparison, gaps, conclusions]",
            ("sections",),
        )
    ]


def test_plan_refs_are_located_in_their_group() -> None:
    data = h.plan()
    data["baseline_models"][0]["evidence_refs"][0]["snippet_id"] = "nope"
    assert errors("experiment_plan", data) == [
        ("EvidenceValidationError", UNKNOWN, ("baseline_models", 0, "evidence_refs", 0, "snippet_id"))
    ]
    data = h.plan()
    data["datasets"][0]["evidence_refs"][0]["snippet_id"] = "nope"
    assert errors("experiment_plan", data) == [
        ("EvidenceValidationError", UNKNOWN, ("datasets", 0, "evidence_refs", 0, "snippet_id"))
    ]


def test_a_null_snippet_id_is_a_url_only_ref() -> None:
    data = h.plan()
    data["datasets"][0]["evidence_refs"][0]["snippet_id"] = None
    assert errors("experiment_plan", data) == [
        (
            "EvidenceValidationError",
            "EvidenceRef must include snippet_id (URL-only refs are not allowed)",
            ("datasets", 0, "evidence_refs", 0),
        )
    ]


def test_claim_violations_are_located_on_their_field() -> None:
    data = h.report()
    data["sections"][6]["claims"][0]["claim_id"] = "c0a"
    data["sections"][2]["claims"][0]["severity"] = "critical"
    assert errors("structured_report", data) == [
        (
            "ClaimPolicyViolationError",
            "Claim severity is not in the claim policy: claim_id=c2a severity=critical allowed=[trivial, non_trivial]",
            ("sections", 2, "claims", 0, "severity"),
        ),
        ("ArtifactIntegrityError", "Duplicate claim: claim_id=c0a", ("sections", 6, "claims", 0, "claim_id")),
    ]


def test_a_claim_policy_artifact_is_checked_for_duplicate_severities() -> None:
    policy = yaml.safe_load((ROOT / "claim_policy.yaml").read_text())
    assert errors("claim_policy", policy) == []
    policy["severities"].append(dict(policy["severities"][0]))
    assert errors("claim_policy", policy) == [
        ("ArtifactIntegrityError", "Duplicate severity: name=trivial", ("severities", 2, "name"))
    ]
