"""rcs validate --kind research/...: the rules a schema cannot state, with their exact messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.generated.research.responses import ANSWER_HEADING, BASELINE, CLARIFY, UNKNOWN
from rcs_contracts.runtime.research.adapter import source_id

SID = "a" * 64
OTHER = "b" * 64


def answer(**extra: Any) -> dict[str, Any]:
    doc = {
        "action": "ANSWER",
        "text": ANSWER_HEADING.format(count=1),
        "bullets": [{"text": "A quoted sentence.", "source_ids": [SID]}],
        "sources": [{"source_id": SID, "locator": "doc#1", "title": "Doc"}],
    }
    doc.update(extra)
    return doc


CALL = {
    "index": 0,
    "tool": "docs",
    "query_sha256": SID,
    "outcome": "ok",
    "cost": 10,
    "started_ms": 0,
    "elapsed_ms": 1,
    "items": 0,
}


def telemetry(**extra: Any) -> dict[str, Any]:
    doc = {
        "contract_version": "18.0.0",
        "request_sha256": SID,
        "tier": "PRO",
        "env": "prod",
        "granted": True,
        "conditions": [],
        "stop_reason": "SUCCESS_COMPLETED",
        "action": "ANSWER",
        "calls": [CALL],
        "sources_kept": 1,
        "sources_dropped": 0,
        "injection_hits": [],
        "budget_units_used": 10,
        "elapsed_ms": 3,
    }
    doc.update(extra)
    # A record as a session writes it unless a test says otherwise: no call when research was not
    # granted, and the budget the calls cost.
    if "calls" not in extra and not doc["granted"]:
        doc["calls"] = []
    if "budget_units_used" not in extra:
        doc["budget_units_used"] = sum(call["cost"] for call in doc["calls"])
    return doc


def run_validate(tmp_path: Path, kind: str, document: dict[str, Any]) -> tuple[int, str]:
    from tests.conftest import run_rcs

    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    done = run_rcs(["validate", "--kind", kind, str(path)])
    return done.returncode, done.stdout


@pytest.mark.parametrize(
    ("kind", "document", "expected"),
    [
        ("research/response", answer(), None),
        ("research/response", {"action": "ASK_CLARIFY", "text": CLARIFY, "bullets": [], "sources": []}, None),
        ("research/response", {"action": "UNKNOWN", "text": UNKNOWN, "bullets": [], "sources": []}, None),
        ("research/response", {"action": "BASELINE", "text": BASELINE, "bullets": [], "sources": []}, None),
        (
            "research/response",
            {"action": "UNKNOWN", "text": CLARIFY, "bullets": [], "sources": []},
            "a response with action UNKNOWN must say exactly the table's sentence for it (at $.text)",
        ),
        (
            "research/response",
            answer(bullets=[{"text": "x", "source_ids": [OTHER]}]),
            f"bullet 0 cites {OTHER}, which is not among the response's sources (at $.bullets[0].source_ids[0])",
        ),
        (
            "research/response",
            {**answer(), "action": "BASELINE", "text": BASELINE},
            "a response with action BASELINE carries no bullets and no sources",
        ),
        ("research/telemetry", telemetry(), None),
        (
            "research/telemetry",
            telemetry(conditions=["NO_SOURCE"], stop_reason="NO_SOURCE", action="ANSWER"),
            "stop reason NO_SOURCE needs action ASK_CLARIFY or UNKNOWN, not ANSWER (at $.action)",
        ),
        (
            "research/telemetry",
            telemetry(conditions=["TIMEOUT", "RATE_LIMITED"], stop_reason="TIMEOUT", action="BASELINE"),
            "stop reason TIMEOUT is not the first of the conditions that held in priority order (RATE_LIMITED)"
            " (at $.stop_reason)",
        ),
        (
            "research/telemetry",
            telemetry(conditions=["TIMEOUT"], stop_reason="TIMEOUT", action="ANSWER"),
            "stop reason TIMEOUT gives action BASELINE, not ANSWER (at $.action)",
        ),
        (
            "research/telemetry",
            telemetry(contract_version="18.1.0"),
            "contract_version 18.1.0 is not this contract's 18.0.0 (at $.contract_version)",
        ),
        (
            "research/telemetry",
            telemetry(conditions=["OTHER"], stop_reason="OTHER", action="BASELINE"),
            "OTHER is not a stop reason of contract 18.0.0 (at $.conditions[0])",
        ),
    ],
)
def test_research_kinds(tmp_path: Path, kind: str, document: dict[str, Any], expected: str | None) -> None:
    code, out = run_validate(tmp_path, kind, document)
    if expected is None:
        assert code == 0, out
    else:
        # The whole line: the message and where it points (a finding on the root has no "(at ...)").
        assert code == 1 and any(line.endswith(f": {expected}") for line in out.splitlines()), out


def test_telemetry_refuses_raw_text(tmp_path: Path) -> None:
    """The schema has no place for text: a query or a snippet does not fit any field."""
    code, out = run_validate(tmp_path, "research/telemetry", telemetry(tier="what is the capital of France"))
    assert code == 1
    code, out = run_validate(tmp_path, "research/telemetry", telemetry(query="leak"))
    assert code == 1 and "query" in out


def test_bundle_ids_and_order(tmp_path: Path) -> None:
    def src(locator: str, content: str, tool: str = "docs") -> dict[str, Any]:
        return {
            "source_id": source_id(tool, locator, content),
            "tool": tool,
            "locator": locator,
            "title": "",
            "content": content,
            "metadata": {},
            "injection_risk_flag": False,
            "flags": [],
        }

    good = {"contract_version": "18.0.0", "sources": [src("a", "x"), src("b", "y"), src("a", "z", "web")]}
    assert run_validate(tmp_path, "research/source_bundle", good)[0] == 0
    swapped = {**good, "sources": [good["sources"][1], good["sources"][0]]}
    code, out = run_validate(tmp_path, "research/source_bundle", swapped)
    assert code == 1 and "source 1 is out of order or repeated" in out
    forged = {**good, "sources": [{**src("a", "x"), "content": "changed"}]}
    code, out = run_validate(tmp_path, "research/source_bundle", forged)
    assert code == 1 and "source_id is not the SHA-256" in out


@pytest.mark.parametrize(
    ("kind", "document", "expected"),
    [
        (
            "research/telemetry",
            telemetry(sources_kept=0),
            "SUCCESS_COMPLETED needs granted research, no condition and at least one kept source",
        ),
        (
            "research/telemetry",
            telemetry(conditions=["NO_SOURCE"], stop_reason="NO_SOURCE", action="ASK_CLARIFY", sources_kept=2),
            "NO_SOURCE with 2 sources kept",
        ),
        (
            "research/telemetry",
            telemetry(conditions=["TIMEOUT", "RATE_LIMITED"], stop_reason="RATE_LIMITED", action="BASELINE"),
            "conditions are listed once each, in priority order, without SUCCESS_COMPLETED",
        ),
        (
            "research/telemetry",
            telemetry(
                granted=False,
                conditions=["ENTITLEMENT_CAP"],
                stop_reason="ENTITLEMENT_CAP",
                action="BASELINE",
                sources_kept=0,
                calls=[CALL],
            ),
            "1 tool calls although research was not granted",
        ),
        # A review (helper-25) found these accepted: records no session writes.
        ("research/telemetry", telemetry(calls=[], budget_units_used=0), "1 sources kept, but no tool was called"),
        (
            "research/telemetry",
            telemetry(conditions=["ENTITLEMENT_CAP"], stop_reason="ENTITLEMENT_CAP", action="BASELINE", sources_kept=0),
            "granted is true, but the conditions name a policy refusal",
        ),
        (
            "research/telemetry",
            telemetry(granted=False, sources_kept=0, calls=[], budget_units_used=0),
            "granted is false, but the conditions do not name a policy refusal",
        ),
        (
            "research/telemetry",
            telemetry(
                granted=False,
                conditions=["POLICY_DISABLED", "NO_SOURCE"],
                stop_reason="POLICY_DISABLED",
                action="BASELINE",
                sources_kept=0,
                calls=[],
                budget_units_used=0,
            ),
            "NO_SOURCE although research was not granted: no tool was asked",
        ),
        (
            "research/telemetry",
            telemetry(
                conditions=["INJECTION_DETECTED"], stop_reason="INJECTION_DETECTED", action="BASELINE", sources_kept=0
            ),
            "INJECTION_DETECTED is in the conditions, but 0 block-severity hits are recorded",
        ),
        (
            "research/telemetry",
            telemetry(
                conditions=["TIMEOUT"],
                stop_reason="TIMEOUT",
                action="BASELINE",
                sources_kept=0,
                injection_hits=[
                    {"rule": "OVERRIDE_PRIOR", "severity": "block", "call": 0, "item": 0, "start": 0, "end": 5}
                ],
            ),
            "INJECTION_DETECTED is not in the conditions, but 1 block-severity hits are recorded",
        ),
        ("research/telemetry", telemetry(budget_units_used=35), "budget_units_used is 35, but the calls cost 10"),
        (
            "research/response",
            answer(bullets=[{"text": "x" * 401, "source_ids": [SID]}]),
            "bullet 0 quotes 401 characters, more than 400",
        ),
        (
            "research/response",
            answer(
                sources=[
                    {"source_id": SID, "locator": "a", "title": ""},
                    {"source_id": SID, "locator": "a", "title": ""},
                ]
            ),
            f"source {SID} is listed twice",
        ),
    ],
)
def test_what_a_record_says_about_itself(tmp_path: Path, kind: str, document: dict[str, Any], expected: str) -> None:
    """Review findings: records the schema accepts but that contradict themselves."""
    code, out = run_validate(tmp_path, kind, document)
    assert code == 1 and expected in out, out
