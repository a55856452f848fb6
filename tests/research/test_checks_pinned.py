"""runtime/research/checks.py, pinned: every finding with its class, code, exact message and location.

Each case validates a whole document in process (schema, then the domain's check) and compares the
complete list of findings, in order, so that a finding that moves, changes its text, disappears or
appears where it should not is noticed. Found by mutation testing: the CLI tests in test_checks.py
check the messages, not always where they point.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rcs_contracts.engine.kinds import model_of, resolve
from rcs_contracts.engine.validation import Context, violations
from rcs_contracts.generated.research.contract import CONTRACT_VERSION
from rcs_contracts.generated.research.policy import BUNDLE_SOURCES, TOOLS
from rcs_contracts.generated.research.responses import (
    ANSWER_HEADING,
    BASELINE,
    CLARIFY,
    MAX_BULLET_CHARS,
    MAX_BULLETS,
    UNKNOWN,
)
from rcs_contracts.runtime.research.adapter import source_id
from rcs_contracts.runtime.research.checks import CHECKS, check_response, check_source_bundle, check_telemetry

Finding = tuple[str, str, str, tuple[str | int, ...]]

A = "a" * 64
B = "b" * 64
C = "c" * 64
INVARIANT = "InvariantViolationError"


def found(kind: str, document: dict[str, Any]) -> list[Finding]:
    """Every finding of ``document`` as a ``research/<kind>``: (class, code, message, location)."""
    text = json.dumps(document)
    return [
        (type(e).__name__, e.code, str(e), e.location) for e in violations(resolve(f"research/{kind}"), text, Context())
    ]


def checked(kind: str, document: dict[str, Any]) -> list[Finding]:
    """The same, calling the domain's check function directly on the model the schema accepted."""
    model = model_of(resolve(f"research/{kind}")).model_validate_json(json.dumps(document))
    check = {"response": check_response, "telemetry": check_telemetry, "source_bundle": check_source_bundle}[kind]
    return [(type(e).__name__, e.code, str(e), e.location) for e in check(model, Context())]


def both(kind: str, document: dict[str, Any]) -> list[Finding]:
    """The findings, the same whether through ``violations`` or the check function itself."""
    through_pipeline = found(kind, document)
    assert checked(kind, document) == through_pipeline
    return through_pipeline


def test_the_checks_table() -> None:
    assert dict(CHECKS) == {
        "response": check_response,
        "telemetry": check_telemetry,
        "source_bundle": check_source_bundle,
    }


# --- response ---------------------------------------------------------------------------------


def bullet(text: str = "A quoted sentence.", *ids: str) -> dict[str, Any]:
    return {"text": text, "source_ids": list(ids) or [A]}


def cited(sid: str, locator: str = "doc#1") -> dict[str, Any]:
    return {"source_id": sid, "locator": locator, "title": "Doc"}


def answer(bullets: list[dict[str, Any]] | None = None, sources: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    sources = [cited(A)] if sources is None else sources
    return {
        "action": "ANSWER",
        "text": ANSWER_HEADING.format(count=len(sources)),
        "bullets": [bullet()] if bullets is None else bullets,
        "sources": sources,
    }


@pytest.mark.parametrize(
    "document",
    [
        answer(),
        answer([bullet("one", A, B), bullet("two", B)], [cited(A), cited(B, "doc#2")]),
        answer([bullet("x" * MAX_BULLET_CHARS)]),
        answer([bullet(f"bullet {i}") for i in range(MAX_BULLETS)]),
        {"action": "ASK_CLARIFY", "text": CLARIFY, "bullets": [], "sources": []},
        {"action": "UNKNOWN", "text": UNKNOWN, "bullets": [], "sources": []},
        {"action": "BASELINE", "text": BASELINE, "bullets": [], "sources": []},
    ],
)
def test_valid_responses(document: dict[str, Any]) -> None:
    assert both("response", document) == []


def test_response_text_mismatch() -> None:
    document = {"action": "UNKNOWN", "text": CLARIFY, "bullets": [], "sources": []}
    assert both("response", document) == [
        (
            INVARIANT,
            "RESPONSE_TEXT_MISMATCH",
            "a response with action UNKNOWN must say exactly the table's sentence for it",
            ("text",),
        )
    ]


def test_answer_text_counts_its_sources() -> None:
    document = {**answer(), "text": ANSWER_HEADING.format(count=2)}
    assert both("response", document) == [
        (
            INVARIANT,
            "RESPONSE_TEXT_MISMATCH",
            "a response with action ANSWER must say exactly the table's sentence for it",
            ("text",),
        )
    ]


@pytest.mark.parametrize(
    ("bullets", "sources"),
    [
        ([bullet()], [cited(A)]),
        ([bullet()], []),
        ([], [cited(A)]),
    ],
)
def test_response_not_empty(bullets: list[dict[str, Any]], sources: list[dict[str, Any]]) -> None:
    document = {"action": "BASELINE", "text": BASELINE, "bullets": bullets, "sources": sources}
    assert both("response", document) == [
        (INVARIANT, "RESPONSE_NOT_EMPTY", "a response with action BASELINE carries no bullets and no sources", ())
    ]


def test_response_not_empty_stops_there() -> None:
    """A non-answer with the wrong text and content: two findings, and no answer rule runs."""
    document = {"action": "ASK_CLARIFY", "text": UNKNOWN, "bullets": [bullet("x", B)], "sources": []}
    assert both("response", document) == [
        (
            INVARIANT,
            "RESPONSE_TEXT_MISMATCH",
            "a response with action ASK_CLARIFY must say exactly the table's sentence for it",
            ("text",),
        ),
        (INVARIANT, "RESPONSE_NOT_EMPTY", "a response with action ASK_CLARIFY carries no bullets and no sources", ()),
    ]


def test_response_no_bullets() -> None:
    assert both("response", answer([], [])) == [
        (INVARIANT, "RESPONSE_NO_BULLETS", "an ANSWER response has at least one bullet", ("bullets",))
    ]


def test_response_too_many_bullets() -> None:
    document = answer([bullet(f"bullet {i}") for i in range(MAX_BULLETS + 1)])
    assert both("response", document) == [
        (
            INVARIANT,
            "RESPONSE_TOO_MANY_BULLETS",
            f"an ANSWER response has at most {MAX_BULLETS} bullets, not {MAX_BULLETS + 1}",
            ("bullets",),
        )
    ]


def test_response_bullet_too_long() -> None:
    document = answer([bullet("short"), bullet("x" * (MAX_BULLET_CHARS + 1)), bullet("x" * MAX_BULLET_CHARS)])
    assert both("response", document) == [
        (
            INVARIANT,
            "RESPONSE_BULLET_TOO_LONG",
            f"bullet 1 quotes {MAX_BULLET_CHARS + 1} characters, more than {MAX_BULLET_CHARS}",
            ("bullets", 1, "text"),
        )
    ]


def test_response_source_twice() -> None:
    document = answer([bullet("one", A, B)], [cited(A), cited(B, "doc#2"), cited(A, "doc#3")])
    assert both("response", document) == [
        (INVARIANT, "RESPONSE_SOURCE_TWICE", f"source {A} is listed twice", ("sources", 2, "source_id"))
    ]


def test_citation_unresolved() -> None:
    document = answer([bullet("one", A), bullet("two", A, C)])
    assert both("response", document) == [
        (
            INVARIANT,
            "CITATION_UNRESOLVED",
            f"bullet 1 cites {C}, which is not among the response's sources",
            ("bullets", 1, "source_ids", 1),
        )
    ]


def test_source_not_cited() -> None:
    document = answer([bullet("one", A), bullet("two", C)], [cited(A), cited(B, "doc#2"), cited(C, "doc#3")])
    assert both("response", document) == [
        (
            INVARIANT,
            "SOURCE_NOT_CITED",
            f"source {B} is listed but no bullet cites it",
            ("sources", 1, "source_id"),
        )
    ]


def test_response_findings_in_document_order() -> None:
    document = answer(
        [bullet("x" * (MAX_BULLET_CHARS + 1), A, C)],
        [cited(A), cited(A, "doc#2"), cited(B, "doc#3")],
    )
    document["text"] = ANSWER_HEADING.format(count=1)
    assert both("response", document) == [
        (
            INVARIANT,
            "RESPONSE_TEXT_MISMATCH",
            "a response with action ANSWER must say exactly the table's sentence for it",
            ("text",),
        ),
        (
            INVARIANT,
            "RESPONSE_BULLET_TOO_LONG",
            f"bullet 0 quotes {MAX_BULLET_CHARS + 1} characters, more than {MAX_BULLET_CHARS}",
            ("bullets", 0, "text"),
        ),
        (INVARIANT, "RESPONSE_SOURCE_TWICE", f"source {A} is listed twice", ("sources", 1, "source_id")),
        (
            INVARIANT,
            "CITATION_UNRESOLVED",
            f"bullet 0 cites {C}, which is not among the response's sources",
            ("bullets", 0, "source_ids", 1),
        ),
        (INVARIANT, "SOURCE_NOT_CITED", f"source {B} is listed but no bullet cites it", ("sources", 2, "source_id")),
    ]


# --- telemetry --------------------------------------------------------------------------------


CALL = {
    "index": 0,
    "tool": "docs",
    "query_sha256": A,
    "outcome": "ok",
    "cost": 10,
    "started_ms": 0,
    "elapsed_ms": 1,
    "items": 0,
}


def telemetry(**extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "contract_version": CONTRACT_VERSION,
        "request_sha256": A,
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


def hit(severity: str, rule: str = "RULE_X") -> dict[str, Any]:
    return {"rule": rule, "severity": severity, "call": 0, "item": 0, "start": 0, "end": 1}


@pytest.mark.parametrize(
    "document",
    [
        telemetry(),
        telemetry(calls=[CALL], injection_hits=[hit("flag")]),
        telemetry(conditions=["NO_SOURCE"], stop_reason="NO_SOURCE", action="ASK_CLARIFY", sources_kept=0),
        telemetry(conditions=["NO_SOURCE"], stop_reason="NO_SOURCE", action="UNKNOWN", sources_kept=0),
        telemetry(conditions=["RATE_LIMITED", "TIMEOUT"], stop_reason="RATE_LIMITED", action="BASELINE"),
        telemetry(
            granted=False,
            conditions=["ENTITLEMENT_CAP"],
            stop_reason="ENTITLEMENT_CAP",
            action="BASELINE",
            sources_kept=0,
        ),
        telemetry(
            conditions=["INJECTION_DETECTED"],
            stop_reason="INJECTION_DETECTED",
            action="BASELINE",
            injection_hits=[hit("block")],
        ),
    ],
)
def test_valid_telemetry(document: dict[str, Any]) -> None:
    assert both("telemetry", document) == []


def test_telemetry_contract_version_mismatch() -> None:
    assert both("telemetry", telemetry(contract_version="18.1.0")) == [
        (
            INVARIANT,
            "CONTRACT_VERSION_MISMATCH",
            f"contract_version 18.1.0 is not this contract's {CONTRACT_VERSION}",
            ("contract_version",),
        )
    ]


def test_unknown_condition() -> None:
    document = telemetry(conditions=["TIMEOUT", "OTHER"], stop_reason="TIMEOUT", action="BASELINE")
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "UNKNOWN_STOP_REASON",
            f"OTHER is not a stop reason of contract {CONTRACT_VERSION}",
            ("conditions", 1),
        )
    ]


def test_unknown_stop_reason_ends_the_check() -> None:
    """An unknown stop reason is the last finding: nothing else can be said about the record."""
    document = telemetry(stop_reason="OTHER", action="BASELINE", sources_kept=0, granted=False, calls=[CALL])
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "UNKNOWN_STOP_REASON",
            f"OTHER is not a stop reason of contract {CONTRACT_VERSION}",
            ("stop_reason",),
        )
    ]


def test_stop_reason_not_first() -> None:
    document = telemetry(conditions=["RATE_LIMITED", "TIMEOUT"], stop_reason="TIMEOUT", action="BASELINE")
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "STOP_REASON_NOT_FIRST",
            "stop reason TIMEOUT is not the first of the conditions that held in priority order (RATE_LIMITED)",
            ("stop_reason",),
        )
    ]


ORDER = (
    INVARIANT,
    "TELEMETRY_CONDITIONS_ORDER",
    "conditions are listed once each, in priority order, without SUCCESS_COMPLETED",
    ("conditions",),
)
SUCCESS_WITHOUT = (
    INVARIANT,
    "TELEMETRY_SUCCESS_WITHOUT_SOURCES",
    "SUCCESS_COMPLETED needs granted research, no condition and at least one kept source",
    ("stop_reason",),
)


def test_conditions_out_of_order() -> None:
    document = telemetry(conditions=["TIMEOUT", "RATE_LIMITED"], stop_reason="RATE_LIMITED", action="BASELINE")
    assert both("telemetry", document) == [ORDER]


def test_conditions_with_success() -> None:
    document = telemetry(conditions=["SUCCESS_COMPLETED"])
    assert both("telemetry", document) == [ORDER, SUCCESS_WITHOUT]


def test_success_without_sources() -> None:
    assert both("telemetry", telemetry(sources_kept=0)) == [SUCCESS_WITHOUT]


def test_success_without_research() -> None:
    # Not granted, so no call could have found the kept source either.
    assert both("telemetry", telemetry(granted=False)) == [
        SUCCESS_WITHOUT,
        (
            INVARIANT,
            "TELEMETRY_GRANT_MISMATCH",
            "granted is false, but the conditions do not name a policy refusal",
            ("granted",),
        ),
        (INVARIANT, "TELEMETRY_SOURCES_WITHOUT_CALLS", "1 sources kept, but no tool was called", ("sources_kept",)),
    ]


def test_no_source_with_sources() -> None:
    document = telemetry(conditions=["NO_SOURCE"], stop_reason="NO_SOURCE", action="ASK_CLARIFY", sources_kept=2)
    assert both("telemetry", document) == [
        (INVARIANT, "TELEMETRY_NO_SOURCE_WITH_SOURCES", "NO_SOURCE with 2 sources kept", ("sources_kept",))
    ]


def test_calls_not_granted() -> None:
    document = telemetry(
        granted=False,
        conditions=["ENTITLEMENT_CAP"],
        stop_reason="ENTITLEMENT_CAP",
        action="BASELINE",
        sources_kept=0,
        calls=[CALL, {**CALL, "index": 1}],
    )
    assert both("telemetry", document) == [
        (INVARIANT, "TELEMETRY_CALLS_NOT_GRANTED", "2 tool calls although research was not granted", ("calls",))
    ]


def test_blocked_success() -> None:
    document = telemetry(injection_hits=[hit("flag", "RULE_A"), hit("block", "RULE_B")])
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "TELEMETRY_BLOCKED_SUCCESS",
            "block-severity injection hit RULE_B in a successful session",
            ("injection_hits", 1),
        ),
        (
            INVARIANT,
            "TELEMETRY_INJECTION_MISMATCH",
            "INJECTION_DETECTED is not in the conditions, but 1 block-severity hits are recorded",
            ("injection_hits",),
        ),
    ]


@pytest.mark.parametrize("action", ["ANSWER", "BASELINE"])
def test_no_source_action(action: str) -> None:
    document = telemetry(conditions=["NO_SOURCE"], stop_reason="NO_SOURCE", action=action, sources_kept=0)
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "NO_SOURCE_ACTION",
            f"stop reason NO_SOURCE needs action ASK_CLARIFY or UNKNOWN, not {action}",
            ("action",),
        )
    ]


@pytest.mark.parametrize(
    ("reason", "action", "expected"),
    [
        ("TIMEOUT", "ANSWER", "BASELINE"),
        ("TIMEOUT", "UNKNOWN", "BASELINE"),
        ("SUCCESS_COMPLETED", "BASELINE", "ANSWER"),
    ],
)
def test_action_mismatch(reason: str, action: str, expected: str) -> None:
    conditions = [] if reason == "SUCCESS_COMPLETED" else [reason]
    document = telemetry(conditions=conditions, stop_reason=reason, action=action)
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "ACTION_MISMATCH",
            f"stop reason {reason} gives action {expected}, not {action}",
            ("action",),
        )
    ]


def test_telemetry_findings_in_document_order() -> None:
    document = telemetry(
        contract_version="17.0.0",
        granted=False,
        conditions=["NO_SOURCE", "BOGUS", "TIMEOUT"],
        stop_reason="NO_SOURCE",
        action="ANSWER",
        calls=[CALL],
        sources_kept=3,
    )
    assert both("telemetry", document) == [
        (
            INVARIANT,
            "CONTRACT_VERSION_MISMATCH",
            f"contract_version 17.0.0 is not this contract's {CONTRACT_VERSION}",
            ("contract_version",),
        ),
        (
            INVARIANT,
            "UNKNOWN_STOP_REASON",
            f"BOGUS is not a stop reason of contract {CONTRACT_VERSION}",
            ("conditions", 1),
        ),
        (
            INVARIANT,
            "STOP_REASON_NOT_FIRST",
            "stop reason NO_SOURCE is not the first of the conditions that held in priority order (TIMEOUT)",
            ("stop_reason",),
        ),
        ORDER,
        (INVARIANT, "TELEMETRY_NO_SOURCE_WITH_SOURCES", "NO_SOURCE with 3 sources kept", ("sources_kept",)),
        (INVARIANT, "TELEMETRY_CALLS_NOT_GRANTED", "1 tool calls although research was not granted", ("calls",)),
        (
            INVARIANT,
            "NO_SOURCE_ACTION",
            "stop reason NO_SOURCE needs action ASK_CLARIFY or UNKNOWN, not ANSWER",
            ("action",),
        ),
        (
            INVARIANT,
            "TELEMETRY_GRANT_MISMATCH",
            "granted is false, but the conditions do not name a policy refusal",
            ("granted",),
        ),
        (
            INVARIANT,
            "TELEMETRY_NO_SOURCE_NOT_GRANTED",
            "NO_SOURCE although research was not granted: no tool was asked",
            ("conditions",),
        ),
    ]


# --- source bundle ----------------------------------------------------------------------------


def src(locator: str, content: str = "x", tool: str = "docs", flags: list[str] | None = None) -> dict[str, Any]:
    return {
        "source_id": source_id(tool, locator, content),
        "tool": tool,
        "locator": locator,
        "title": "",
        "content": content,
        "metadata": {},
        "injection_risk_flag": bool(flags),
        "flags": flags or [],
    }


ORDER_RULE = "a bundle is sorted by (tool order, locator, source_id), each id once"


def bundle(*sources: dict[str, Any], version: str = CONTRACT_VERSION) -> dict[str, Any]:
    return {"contract_version": version, "sources": list(sources)}


def many(count: int) -> list[dict[str, Any]]:
    """``count`` distinct docs sources, in bundle order."""
    return [src(f"loc{i:03d}") for i in range(count)]


@pytest.mark.parametrize(
    "document",
    [
        bundle(),
        bundle(src("a"), src("b", "y"), src("a", "z", "web")),
        bundle(src("a", flags=["FLAG_A"]), src("b")),
        bundle(*many(BUNDLE_SOURCES)),
        bundle(*sorted((src("same", c) for c in ("p", "q", "r")), key=lambda s: s["source_id"])),
    ],
)
def test_valid_bundles(document: dict[str, Any]) -> None:
    assert both("source_bundle", document) == []


def test_bundle_tools_are_the_policy_table() -> None:
    assert TOOLS == ("docs", "web")


def test_bundle_contract_version_mismatch() -> None:
    assert both("source_bundle", bundle(src("a"), version="19.0.0")) == [
        (
            INVARIANT,
            "CONTRACT_VERSION_MISMATCH",
            f"contract_version 19.0.0 is not this contract's {CONTRACT_VERSION}",
            ("contract_version",),
        )
    ]


def test_bundle_too_large() -> None:
    assert both("source_bundle", bundle(*many(BUNDLE_SOURCES + 1))) == [
        (
            INVARIANT,
            "BUNDLE_TOO_LARGE",
            f"{BUNDLE_SOURCES + 1} sources, more than the {BUNDLE_SOURCES} a bundle keeps",
            ("sources",),
        )
    ]


def test_bundle_unknown_tool() -> None:
    """An unknown tool sorts after every known one."""
    document = bundle(src("a"), src("a", tool="web"), src("a", tool="ftp"))
    assert both("source_bundle", document) == [
        (INVARIANT, "BUNDLE_UNKNOWN_TOOL", "tool 'ftp' is not in the policy table", ("sources", 2, "tool"))
    ]


def test_bundle_unknown_tool_out_of_order() -> None:
    document = bundle(src("a", tool="ftp"), src("a"))
    assert both("source_bundle", document) == [
        (INVARIANT, "BUNDLE_UNKNOWN_TOOL", "tool 'ftp' is not in the policy table", ("sources", 0, "tool")),
        (INVARIANT, "BUNDLE_ORDER", f"source 1 is out of order or repeated: {ORDER_RULE}", ("sources", 1)),
    ]


FLAG_MISMATCH = "injection_risk_flag is true exactly when flags is not empty"


@pytest.mark.parametrize(
    ("flag", "flags"),
    [(True, []), (False, ["FLAG_A"])],
)
def test_bundle_flag_mismatch(flag: bool, flags: list[str]) -> None:
    document = bundle(src("a"), {**src("b"), "injection_risk_flag": flag, "flags": flags})
    assert both("source_bundle", document) == [
        (INVARIANT, "BUNDLE_FLAG_MISMATCH", FLAG_MISMATCH, ("sources", 1, "injection_risk_flag"))
    ]


SID_MISMATCH = "source_id is not the SHA-256 of the canonical JSON of [tool, locator, content]"


@pytest.mark.parametrize(
    "forged",
    [
        {**src("b"), "content": "changed"},
        {**src("b"), "locator": "b2"},
        {**src("b"), "tool": "web"},
    ],
)
def test_source_id_mismatch(forged: dict[str, Any]) -> None:
    document = bundle(src("a"), forged)
    assert both("source_bundle", document) == [
        (INVARIANT, "SOURCE_ID_MISMATCH", SID_MISMATCH, ("sources", 1, "source_id"))
    ]


def order_finding(index: int) -> Finding:
    message = f"source {index} is out of order or repeated: {ORDER_RULE}"
    return (INVARIANT, "BUNDLE_ORDER", message, ("sources", index))


@pytest.mark.parametrize(
    "sources",
    [
        [src("b"), src("a")],  # by locator
        [src("a", tool="web"), src("b")],  # tool order first: web after docs, whatever the locator
        [src("a"), src("a")],  # repeated
        sorted((src("same", c) for c in ("p", "q")), key=lambda s: s["source_id"], reverse=True),  # by id
    ],
)
def test_bundle_order(sources: list[dict[str, Any]]) -> None:
    assert both("source_bundle", bundle(src("0"), *sources)) == [order_finding(2)]


def test_bundle_findings_in_document_order() -> None:
    document = bundle(
        *many(BUNDLE_SOURCES - 1),
        {**src("zz"), "injection_risk_flag": True},
        {**src("a", tool="gopher"), "content": "other"},
        version="1.2.3",
    )
    last = BUNDLE_SOURCES
    assert both("source_bundle", document) == [
        (
            INVARIANT,
            "CONTRACT_VERSION_MISMATCH",
            f"contract_version 1.2.3 is not this contract's {CONTRACT_VERSION}",
            ("contract_version",),
        ),
        (
            INVARIANT,
            "BUNDLE_TOO_LARGE",
            f"{BUNDLE_SOURCES + 1} sources, more than the {BUNDLE_SOURCES} a bundle keeps",
            ("sources",),
        ),
        (INVARIANT, "BUNDLE_FLAG_MISMATCH", FLAG_MISMATCH, ("sources", last - 1, "injection_risk_flag")),
        (INVARIANT, "BUNDLE_UNKNOWN_TOOL", "tool 'gopher' is not in the policy table", ("sources", last, "tool")),
        (INVARIANT, "SOURCE_ID_MISMATCH", SID_MISMATCH, ("sources", last, "source_id")),
    ]
