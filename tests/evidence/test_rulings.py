"""One or more tests per ruling R-EV-1..7 and the R-GEN rulings the runtime implements."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from rcs_contracts.engine import kinds
from rcs_contracts.generated.evidence import errors as E
from rcs_contracts.runtime.evidence import (
    ArtifactIntegrityError,
    BudgetExceededError,
    BudgetPolicy,
    BudgetTracker,
    BudgetUsageError,
    ClaimPolicyViolationError,
    ContractViolationError,
    EvidenceRef,
    EvidenceSnapshot,
    EvidenceSnippet,
    EvidenceStore,
    EvidenceStoreRequiredError,
    EvidenceValidationError,
    PartialResult,
    SchemaViolationError,
    iter_violations,
    validate_artifact,
)
from tests.evidence import helpers as h


def bundle_errors(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [(type(e).__name__, str(e)) for e in iter_violations("evidence_bundle", json.dumps(data))]


# --- R-EV-1: code-point offsets, SHA-256 of UTF-8 ----------------------------------------------


def test_r_ev_1_offsets_are_code_points_not_bytes() -> None:
    data = h.bundle()
    snippet = data["snippets"][0]
    assert h.RAW[: snippet["start_char"]].encode("utf-8") != h.RAW[: snippet["start_char"]]  # non-ASCII before it
    assert len(h.RAW[: snippet["start_char"]].encode("utf-8")) > snippet["start_char"]
    assert bundle_errors(data) == []


def test_r_ev_1_hash_mismatch_is_rejected() -> None:
    data = h.bundle()
    data["snapshots"][0]["raw_text"] += " "
    actual = h.sha(h.RAW + " ")
    assert bundle_errors(data)[0] == (
        "EvidenceValidationError",
        "Snapshot content_hash does not match its raw_text: snapshot_id=snap-1 "
        f"content_hash={h.sha(h.RAW)} actual={actual}",
    )


def test_r_ev_1_hash_must_be_lowercase_hex() -> None:
    data = h.bundle()
    data["snapshots"][0]["content_hash"] = h.sha(h.RAW).upper()
    assert bundle_errors(data)[0][0] == "SchemaViolationError"


# --- R-EV-2: snippets and refs -----------------------------------------------------------------


@pytest.mark.parametrize("start,end", [(5, 5), (6, 5), (0, len(h.RAW) + 1)])
def test_r_ev_2_snippet_offsets(start: int, end: int) -> None:
    data = h.bundle()
    data["snippets"][0].update(start_char=start, end_char=end, snippet_text=h.RAW[start:end])
    errors = bundle_errors(data)
    assert errors == [
        (
            "EvidenceValidationError",
            "Snippet offsets must satisfy 0 <= start_char < end_char <= len(raw_text): "
            f"snippet_id=snip-1 start_char={start} end_char={end} len={len(h.RAW)}",
        )
    ]


def test_r_ev_2_negative_offset_is_a_schema_violation() -> None:
    data = h.bundle()
    data["snippets"][0]["start_char"] = -1
    assert bundle_errors(data)[0][0] == "SchemaViolationError"


def test_r_ev_2_snippet_text_must_equal_the_slice() -> None:
    data = h.bundle()
    data["snippets"][0]["snippet_text"] = data["snippets"][0]["snippet_text"].upper()
    assert bundle_errors(data) == [
        ("EvidenceValidationError", "Snippet text does not equal raw_text[start_char:end_char]: snippet_id=snip-1")
    ]


def test_r_ev_2_snippet_snapshot_must_exist() -> None:
    data = h.bundle()
    data["snippets"][1]["snapshot_id"] = "snap-9"
    assert bundle_errors(data) == [
        ("EvidenceValidationError", "Unknown snapshot_id in EvidenceStore: snapshot_id=snap-9")
    ]


def test_r_ev_2_ref_must_name_its_snippets_snapshot() -> None:
    data = h.literature_map()
    data["nodes"][0]["evidence_refs"][0]["snapshot_id"] = "snap-2"
    with pytest.raises(EvidenceValidationError) as info:
        h.check("literature_map", data)
    assert str(info.value) == (
        "EvidenceRef names a snapshot its snippet is not from: snippet_id=snip-1 snapshot_id=snap-2 expected=snap-1"
    )


def test_r_ev_2_ref_offsets_inside_snippet() -> None:
    snippet = h.bundle()["snippets"][0]
    store = h.store()
    inside = EvidenceRef(
        snapshot_id="snap-1", snippet_id="snip-1", start_char=snippet["start_char"] + 1, end_char=snippet["end_char"]
    )
    assert store.resolve(inside)[0].snippet_id == "snip-1"
    outside = EvidenceRef(
        snapshot_id="snap-1", snippet_id="snip-1", start_char=snippet["start_char"], end_char=snippet["end_char"] + 1
    )
    with pytest.raises(EvidenceValidationError, match="must lie inside the snippet"):
        store.resolve(outside)
    half = EvidenceRef(snapshot_id="snap-1", snippet_id="snip-1", start_char=snippet["start_char"])
    with pytest.raises(EvidenceValidationError, match="must be given together"):
        store.resolve(half)


def test_r_ev_2_resolution_goes_snippet_then_snapshot() -> None:
    snippet, snapshot = h.store().resolve(EvidenceRef(snapshot_id="snap-1", snippet_id="snip-2"))
    assert snapshot.raw_text[snippet.start_char : snippet.end_char] == snippet.snippet_text


# --- R-EV-3: at least one ref ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind,place",
    [
        ("literature_map", lambda d: d["nodes"][0]),
        ("experiment_plan", lambda d: d["datasets"][0]),
        ("experiment_plan", lambda d: d["baseline_models"][0]),
    ],
)
def test_r_ev_3_evidence_refs_must_not_be_empty(kind: str, place: Any) -> None:
    data = h.BUILDERS[kind]()
    place(data)["evidence_refs"] = []
    with pytest.raises(SchemaViolationError, match="has less than 1 item"):
        h.check(kind, data)


def test_r_ev_3_edges_may_omit_refs() -> None:
    data = h.literature_map()
    assert "evidence_refs" not in data["edges"][0]
    h.check("literature_map", data)


# --- R-EV-4: section order, one message --------------------------------------------------------


@pytest.mark.parametrize("change", ["drop", "duplicate", "extra", "rename"])
def test_r_ev_4_one_message_naming_expected_and_found(change: str) -> None:
    data = h.report()
    sections = data["sections"]
    if change == "drop":
        sections.pop(5)
    elif change == "duplicate":
        sections.insert(1, json.loads(json.dumps(sections[0])))
        for claim in sections[1]["claims"]:
            claim["claim_id"] += "x"
    elif change == "extra":
        sections.append({"section": "appendix", "text": "More.", "claims": [], "citations": {}})
    else:
        sections[0]["section"] = "introduction"
    found = ", ".join(s["section"] for s in sections)
    errors = [
        e
        for e in iter_violations("structured_report", json.dumps(data), evidence=h.store())
        if isinstance(e, ArtifactIntegrityError)
    ]
    assert [str(e) for e in errors] == [
        "Report sections must be [intro, background, related_work, methods, comparison, gaps, conclusions] "
        f"in this order: found [{found}]"
    ]


# --- R-EV-5: fail closed on unused keys, duplicate claim ids, unknown severities ---------------


def test_r_ev_5_unused_citation_key() -> None:
    data = h.report()
    data["sections"][4]["citations"]["spare"] = h.ref()
    with pytest.raises(ClaimPolicyViolationError) as info:
        h.check("structured_report", data)
    assert str(info.value) == "Citation is not used by any claim in its section: section=comparison citation_key=spare"
    assert info.value.location == ("sections", 4, "citations", "spare")


def test_r_ev_5_citation_key_of_another_section_is_unknown() -> None:
    data = h.report()
    data["sections"][1]["claims"][1]["citation_keys"] = ["k0"]
    errors = [str(e) for e in iter_violations("structured_report", json.dumps(data), evidence=h.store())]
    assert "Claim references unknown citation_key: claim_id=c1b citation_key=k0" in errors


def test_r_ev_5_duplicate_claim_id() -> None:
    data = h.report()
    data["sections"][6]["claims"][0]["claim_id"] = "c0a"
    with pytest.raises(ArtifactIntegrityError) as info:
        h.check("structured_report", data)
    assert str(info.value) == "Duplicate claim: claim_id=c0a"


def test_r_ev_5_unknown_severity_is_a_policy_violation_not_key_error() -> None:
    data = h.report()
    data["sections"][0]["claims"][0]["severity"] = "critical"
    with pytest.raises(ClaimPolicyViolationError) as info:
        h.check("structured_report", data)
    assert str(info.value) == (
        "Claim severity is not in the claim policy: claim_id=c0a severity=critical allowed=[trivial, non_trivial]"
    )


# --- R-EV-6: bundles and stores ----------------------------------------------------------------


def test_r_ev_6_bundle_duplicates_are_integrity_errors() -> None:
    data = h.bundle()
    data["snapshots"].append(dict(data["snapshots"][0]))
    data["snippets"].append(dict(data["snippets"][0]))
    assert bundle_errors(data) == [
        ("ArtifactIntegrityError", "Duplicate snapshot: snapshot_id=snap-1"),
        ("ArtifactIntegrityError", "Duplicate snippet: snippet_id=snip-1"),
    ]


def test_r_ev_6_store_rejects_invalid_additions_and_keeps_nothing() -> None:
    store = h.store()
    before = len(store)
    bad = EvidenceSnapshot.model_validate_json(
        json.dumps(
            {
                "snapshot_id": "snap-2",
                "source_meta": "m",
                "content_hash": "0" * 64,
                "captured_at": "2026-01-01T00:00:00Z",
                "raw_text": "x",
            }
        )
    )
    with pytest.raises(EvidenceValidationError):
        store.add_snapshot(bad)
    with pytest.raises(ArtifactIntegrityError):
        store.add_snippet(store.snippets[0])
    with pytest.raises(EvidenceValidationError, match="Unknown snapshot_id"):
        store.add_snippet(
            EvidenceSnippet(snippet_id="s9", snapshot_id="snap-2", start_char=0, end_char=1, snippet_text="x")
        )
    assert len(store) == before


def test_r_ev_6_from_bundle_validates() -> None:
    data = h.bundle()
    data["snippets"][0]["snippet_text"] = "wrong"
    with pytest.raises(EvidenceValidationError):
        EvidenceStore.from_bundle(json.dumps(data))


def test_r_ev_6_citing_evidence_without_a_store_fails_closed() -> None:
    with pytest.raises(EvidenceStoreRequiredError) as info:
        validate_artifact("literature_map", json.dumps(h.literature_map()))
    assert info.value.params["count"] == 4


def test_r_ev_6_evidence_free_artifact_needs_no_store() -> None:
    model = validate_artifact("literature_map", json.dumps({"nodes": [], "edges": []}))
    assert model.model_dump(by_alias=True) == {"nodes": [], "edges": []}  # absent stays absent


# --- R-EV-7: budgets ---------------------------------------------------------------------------


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def policy(mode: str = "fail", **limits: Any) -> BudgetPolicy:
    values = dict(
        max_connector_calls=2,
        max_time_seconds=10,
        max_tokens=100,
        max_retries_per_stage=1,
        max_evidence_items_ingested=3,
        mode=mode,
    )
    values.update(limits)
    return BudgetPolicy(**values)


def test_r_ev_7_refused_charge_reports_would_be_usage_and_is_not_counted() -> None:
    tracker = BudgetTracker(policy(), clock=Clock())
    tracker.charge("max_tokens", 60)
    with pytest.raises(BudgetExceededError) as info:
        tracker.charge("max_tokens", 50)
    assert str(info.value) == "Budget exceeded: max_tokens limit=100 used=110"
    assert tracker.used("max_tokens") == 60
    assert tracker.charge("max_tokens", 40) is None


def test_r_ev_7_partial_is_sticky_and_identical() -> None:
    tracker = BudgetTracker(policy("finalize_partial"), clock=Clock())
    for _ in range(3):
        tracker.charge("max_evidence_items_ingested")
    first = tracker.charge("max_evidence_items_ingested")
    assert isinstance(first, PartialResult)
    assert first.reason == "Budget exceeded: max_evidence_items_ingested limit=3 used=4"
    assert tracker.charge("max_tokens", 1) is first
    assert tracker.charge("max_connector_calls") is first
    assert tracker.check_time() is first


def test_r_ev_7_time_from_injected_clock_checked_on_every_charge() -> None:
    clock = Clock()
    tracker = BudgetTracker(policy(), clock=clock)
    clock.now += 10
    assert tracker.charge("max_tokens") is None  # exactly at the limit is not past it
    clock.now += 2.5
    with pytest.raises(BudgetExceededError) as info:
        tracker.charge("max_tokens")
    assert str(info.value) == "Budget exceeded: max_time_seconds limit=10 used=12.5"


def test_r_ev_7_first_budget_in_table_order_wins() -> None:
    clock = Clock()
    tracker = BudgetTracker(policy(max_connector_calls=0, max_tokens=0), clock=clock)
    clock.now += 11
    # connector calls come before time in the table; time comes before tokens.
    with pytest.raises(BudgetExceededError, match=r"^Budget exceeded: max_connector_calls limit=0 used=1$"):
        tracker.charge("max_connector_calls")
    with pytest.raises(BudgetExceededError, match=r"^Budget exceeded: max_time_seconds limit=10 used=11$"):
        tracker.charge("max_tokens")


def test_r_ev_7_retries_are_counted_per_stage() -> None:
    tracker = BudgetTracker(policy(), clock=Clock())
    assert tracker.charge("max_retries_per_stage", stage="search") is None
    assert tracker.charge("max_retries_per_stage", stage="fetch") is None
    with pytest.raises(BudgetExceededError, match="max_retries_per_stage limit=1 used=2"):
        tracker.charge("max_retries_per_stage", stage="search")


@pytest.mark.parametrize(
    "call,message",
    [
        (
            ("max_widgets",),
            "Unknown budget name: max_widgets (known: max_connector_calls, max_time_seconds, "
            "max_tokens, max_retries_per_stage, max_evidence_items_ingested)",
        ),
        (("max_time_seconds",), "Budget max_time_seconds is measured by the clock and cannot be charged"),
        (("max_retries_per_stage",), "Budget max_retries_per_stage is counted per stage: charge it with stage=<name>"),
        (("max_tokens", 1, "s"), "Budget max_tokens is not counted per stage: charge it without a stage (got stage=s)"),
        (("max_tokens", -1), "Budget charge amount must be a non-negative number: budget_name=max_tokens amount=-1"),
        (("max_tokens", 1.5), "Budget charge amount must be a non-negative number: budget_name=max_tokens amount=1.5"),
        (
            ("max_tokens", True),
            "Budget charge amount must be a non-negative number: budget_name=max_tokens amount=True",
        ),
    ],
)
def test_r_ev_7_misuse_is_a_contract_error_not_key_error(call: tuple[Any, ...], message: str) -> None:
    tracker = BudgetTracker(policy(), clock=Clock())
    with pytest.raises(BudgetUsageError) as info:
        tracker.charge(*call)
    assert str(info.value) == message
    assert not isinstance(info.value, KeyError)


# --- R-GEN rulings the runtime carries ---------------------------------------------------------


@pytest.mark.parametrize(
    "stamp", ["2026-03-14T09:30:00", "1700000000", "2026-03-14 09:30:00Z", "2026-03-14T09:30Z", "2026-02-30T09:30:00Z"]
)
def test_r_gen_3_timestamps_are_rfc_3339_with_a_zone(stamp: str) -> None:
    data = h.bundle()
    data["snapshots"][0]["captured_at"] = stamp
    assert bundle_errors(data) == [("SchemaViolationError", f'"{stamp}" is not a "date-time"')]


@pytest.mark.parametrize("stamp", ["2026-03-14T09:30:00+01:00", "2026-03-14t09:30:00.25z", "2026-03-14T09:30:00Z"])
def test_r_gen_3_validated_from_json_text(stamp: str) -> None:
    data = h.bundle()
    data["snapshots"][0]["captured_at"] = stamp
    assert bundle_errors(data) == []
    store = EvidenceStore.from_bundle(json.dumps(data))
    # The model keeps the text as written (a datetime could not hold a leap second; SPEC 3).
    assert store.snapshots[0].captured_at == stamp


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["nodes"][0].update(score=float("nan")),
        lambda d: d["nodes"][0].update(score=float("inf")),
        lambda d: d["edges"][1].update(evidence_refs=None),
        lambda d: d["nodes"][0]["evidence_refs"][0].update(start_char=None, end_char=None),
        lambda d: d.update({"$schema": None}),
        lambda d: d.update(field_schema="x"),
    ],
    ids=["nan", "inf", "null-refs", "null-offsets", "null-schema", "python-field-name"],
)
def test_models_accept_exactly_what_the_schema_accepts(change: Any) -> None:
    data = h.literature_map()
    change(data)
    with pytest.raises(SchemaViolationError):
        h.check("literature_map", data)


@pytest.mark.parametrize(
    "kind", ["literature_map", "structured_report", "experiment_plan", "evidence_bundle", "claim_policy"]
)
def test_r_gen_4_every_artifact_may_name_its_schema(kind: str) -> None:
    data: dict[str, Any] = {
        "evidence_bundle": h.bundle,
        "claim_policy": lambda: {"severities": [{"name": "a", "citation_required": True}]},
        **h.BUILDERS,
    }[kind]()
    data["$schema"] = f"https://example.org/schemas/evidence/{kind}.schema.json"
    model = validate_artifact(kind, json.dumps(data), evidence=h.store())
    assert model.model_dump(by_alias=True)["$schema"] == data["$schema"]
    data["$schema"] = 7
    with pytest.raises(SchemaViolationError):
        validate_artifact(kind, json.dumps(data), evidence=h.store())


def test_r_gen_6_errors_are_small_immutable_data_carriers() -> None:
    error = E.claim_unknown_citation_key(claim_id="c1", citation_key="k9", location=("sections", 0))
    assert isinstance(error, ClaimPolicyViolationError) and isinstance(error, ContractViolationError)
    assert str(error) == error.message == "Claim references unknown citation_key: claim_id=c1 citation_key=k9"
    assert error.code == "CLAIM_UNKNOWN_CITATION_KEY"
    assert dict(error.params) == {"claim_id": "c1", "citation_key": "k9"}
    with pytest.raises(AttributeError):
        error.code = "X"  # type: ignore[misc]
    with pytest.raises(TypeError):
        error.params["claim_id"] = "c2"  # type: ignore[index]
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is type(error) and str(clone) == str(error) and clone.location == error.location


def test_r_gen_7_kind_names() -> None:
    assert kinds.resolve("structured_report").kind == "evidence/structured_report"
    assert kinds.resolve("evidence/structured_report").model == "StructuredReport"
    found = kinds.kind_from_schema_ref("../../schemas/evidence/literature_map.schema.json")
    assert found is not None and found.kind == "evidence/literature_map"
    assert kinds.kind_from_schema_ref("https://x.invalid/evidence/experiment_plan.schema.json#") is not None
    assert kinds.kind_from_schema_ref("literature_map.json") is None
    with pytest.raises(kinds.KindError) as info:
        kinds.resolve("nope")
    assert info.value.problem == "unknown" and "evidence/literature_map" in info.value.candidates


def test_unknown_kind_is_a_contract_error() -> None:
    from rcs_contracts.runtime.evidence import ArtifactKindError

    with pytest.raises(ArtifactKindError) as info:
        validate_artifact("evidence/nope", "{}")
    message = str(info.value)
    assert message.startswith("Unknown artifact kind: evidence/nope (known: ") and message.endswith(")")
    known = message.split("(known: ", 1)[1][:-1].split(", ")
    assert "evidence/claim_policy" in known and known == sorted(known)
    assert isinstance(info.value, ContractViolationError)


def test_partial_result_is_constructible_as_the_contract_shows() -> None:
    result = PartialResult(partial=True, reason="Budget exceeded: max_tokens limit=1 used=2")
    assert result.partial is True and result.reason.endswith("used=2")
    assert result.model_dump() == {"partial": True, "reason": "Budget exceeded: max_tokens limit=1 used=2"}


def test_every_rule_check_is_wired_to_a_real_kind() -> None:
    """A schema renamed without its check would silently lose its rules; this catches it."""
    from rcs_contracts.runtime.evidence.checks import CHECKS

    known = {k.name for k in map(kinds.resolve, kinds.known_kinds()) if k.domain == "evidence"}
    assert set(CHECKS) <= known
    assert {"literature_map", "structured_report", "experiment_plan", "evidence_bundle", "claim_policy"} <= set(CHECKS)
