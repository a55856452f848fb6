"""Behaviour pinned where bench/mutation.py found mutants of runtime/evidence alive.

Each test states a documented rule (SPEC.md section 5, schemas/evidence/errors.yaml, the docstrings
of runtime/evidence) and checks it through the public API: the exact error class, code, message
and location.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import pytest

from rcs_contracts.engine import project
from rcs_contracts.runtime.evidence import (
    ArtifactIntegrityError,
    ArtifactKindError,
    BudgetExceededError,
    BudgetPolicy,
    BudgetTracker,
    ClaimPolicy,
    EvidenceRef,
    EvidenceSnapshot,
    EvidenceSnippet,
    EvidenceStore,
    EvidenceValidationError,
    SchemaViolationError,
    iter_violations,
    load_claim_policy,
    validate_artifact,
)
from rcs_contracts.runtime.evidence.policy import citation_required, default_claim_policy
from tests.evidence import helpers as h

Found = tuple[str, str, str, tuple[str | int, ...]]


def found(errors: Any) -> list[Found]:
    """(class, code, message, location) of every violation, in order."""
    return [(type(e).__name__, e.code, str(e), e.location) for e in errors]


def bundle_found(data: dict[str, Any]) -> list[Found]:
    return found(iter_violations("evidence_bundle", json.dumps(data)))


# --- R-EV-2: snippet offsets ---------------------------------------------------------------------


def test_a_snippet_may_start_at_the_first_character() -> None:
    """0 <= start_char: offset 0 is the first code point of raw_text, not out of range."""
    data = h.bundle()
    assert h.RAW.startswith("Dense ")
    data["snippets"].append(
        {"snippet_id": "snip-0", "snapshot_id": "snap-1", "start_char": 0, "end_char": 5, "snippet_text": "Dense"}
    )
    assert bundle_found(data) == []
    store = EvidenceStore.from_bundle(json.dumps(data))
    assert store.snippet("snip-0").snippet_text == "Dense"
    ref = EvidenceRef(snapshot_id="snap-1", snippet_id="snip-0", start_char=0, end_char=5)
    assert store.resolves(ref)
    assert store.resolve(ref) == (store.snippet("snip-0"), store.snapshot("snap-1"))


# --- R-EV-6: a bundle is validated, every violation located in the document ----------------------


def test_bundle_duplicates_are_located_on_the_repeated_id() -> None:
    data = h.bundle()
    data["snapshots"].append(dict(data["snapshots"][0]))
    data["snippets"].append(dict(data["snippets"][0]))
    assert bundle_found(data) == [
        (
            "ArtifactIntegrityError",
            "DUPLICATE_ID",
            "Duplicate snapshot: snapshot_id=snap-1",
            ("snapshots", 1, "snapshot_id"),
        ),
        (
            "ArtifactIntegrityError",
            "DUPLICATE_ID",
            "Duplicate snippet: snippet_id=snip-1",
            ("snippets", 2, "snippet_id"),
        ),
    ]


def test_bundle_snapshot_and_snippet_problems_are_located_in_their_arrays() -> None:
    data = h.bundle()
    data["snapshots"][0]["content_hash"] = "0" * 64
    data["snippets"][0]["snapshot_id"] = "snap-9"
    data["snippets"][1]["snippet_text"] = "Σ scores"
    data["snippets"].append(
        {"snippet_id": "snip-3", "snapshot_id": "snap-1", "start_char": 90, "end_char": 200, "snippet_text": "x"}
    )
    assert bundle_found(data) == [
        (
            "EvidenceValidationError",
            "SNAPSHOT_HASH_MISMATCH",
            f"Snapshot content_hash does not match its raw_text: snapshot_id=snap-1 content_hash={'0' * 64} "
            f"actual={h.sha(h.RAW)}",
            ("snapshots", 0),
        ),
        (
            "EvidenceValidationError",
            "UNKNOWN_SNAPSHOT",
            "Unknown snapshot_id in EvidenceStore: snapshot_id=snap-9",
            ("snippets", 0, "snapshot_id"),
        ),
        (
            "EvidenceValidationError",
            "SNIPPET_TEXT_MISMATCH",
            "Snippet text does not equal raw_text[start_char:end_char]: snippet_id=snip-2",
            ("snippets", 1, "snippet_text"),
        ),
        (
            "EvidenceValidationError",
            "SNIPPET_OFFSETS",
            "Snippet offsets must satisfy 0 <= start_char < end_char <= len(raw_text): "
            f"snippet_id=snip-3 start_char=90 end_char=200 len={len(h.RAW)}",
            ("snippets", 2),
        ),
    ]


# --- R-EV-6: the store checks every addition and never replaces an entry ------------------------


def _other_snapshot(snapshot_id: str = "snap-1") -> EvidenceSnapshot:
    """A valid snapshot (its hash matches) with other text."""
    text = "Another capture of another page."
    return EvidenceSnapshot.model_validate(
        {
            "snapshot_id": snapshot_id,
            "source_meta": "elsewhere",
            "content_hash": h.sha(text),
            "captured_at": "2026-03-15T10:00:00Z",
            "raw_text": text,
        }
    )


def test_the_store_refuses_a_second_snapshot_with_the_same_id() -> None:
    store = h.store()
    first = store.snapshot("snap-1")
    with pytest.raises(ArtifactIntegrityError) as info:
        store.add_snapshot(_other_snapshot())
    assert (info.value.code, str(info.value)) == ("DUPLICATE_ID", "Duplicate snapshot: snapshot_id=snap-1")
    assert store.snapshot("snap-1") is first
    assert store.snapshots == (first,)
    with pytest.raises(ArtifactIntegrityError, match=r"^Duplicate snapshot: snapshot_id=snap-1$"):
        EvidenceStore([first, _other_snapshot()])
    store.add_snapshot(_other_snapshot("snap-2"))  # a new id is taken in
    assert len(store) == 4


def test_the_store_refuses_a_second_snippet_with_the_same_id() -> None:
    store = h.store()
    first = store.snippet("snip-1")
    twin = store.snippet("snip-2").model_copy(update={"snippet_id": "snip-1"})
    with pytest.raises(ArtifactIntegrityError) as info:
        store.add_snippet(twin)
    assert (info.value.code, str(info.value)) == ("DUPLICATE_ID", "Duplicate snippet: snippet_id=snip-1")
    assert store.snippet("snip-1") is first
    assert len(store) == 3


def test_the_store_refuses_a_snippet_of_an_unknown_snapshot() -> None:
    snippet = EvidenceSnippet.model_validate(
        {"snippet_id": "s", "snapshot_id": "snap-9", "start_char": 0, "end_char": 1, "snippet_text": "D"}
    )
    with pytest.raises(EvidenceValidationError) as info:
        h.store().add_snippet(snippet)
    assert (info.value.code, str(info.value)) == (
        "UNKNOWN_SNAPSHOT",
        "Unknown snapshot_id in EvidenceStore: snapshot_id=snap-9",
    )
    assert info.value.location == ("snapshot_id",)


# --- R-EV-2: a ref resolves snippet_id -> snippet -> snapshot; offsets inside the snippet ---------

OUTSIDE = "REF_OFFSETS_OUTSIDE_SNIPPET"
INCOMPLETE = "REF_OFFSETS_INCOMPLETE"

# (start, end) relative to snip-1's own [start_char, end_char); None leaves the offset out.
REF_CASES: list[tuple[str, Any, Any, list[str]]] = [
    ("no-offsets", None, None, []),
    ("whole-snippet", ("s", 0), ("e", 0), []),
    ("first-char", ("s", 0), ("s", 1), []),
    ("last-char", ("e", -1), ("e", 0), []),
    ("empty", ("s", 5), ("s", 5), [OUTSIDE]),
    ("reversed", ("s", 6), ("s", 5), [OUTSIDE]),
    ("starts-before", ("s", -1), ("s", 5), [OUTSIDE]),
    ("ends-after", ("s", 5), ("e", 1), [OUTSIDE]),
    ("start-only", ("s", 5), None, [INCOMPLETE]),
    ("end-only", None, ("e", 0), [INCOMPLETE]),
]


@pytest.mark.parametrize("name,start,end,codes", REF_CASES, ids=[case[0] for case in REF_CASES])
def test_resolves_agrees_with_ref_violations(name: str, start: Any, end: Any, codes: list[str]) -> None:
    """``resolves`` is True exactly when ``ref_violations`` finds nothing (its docstring)."""
    store = h.store()
    snippet = store.snippet("snip-1")
    bounds = {"s": snippet.start_char, "e": snippet.end_char}
    data: dict[str, Any] = {"snapshot_id": "snap-1", "snippet_id": "snip-1"}
    if start is not None:
        data["start_char"] = bounds[start[0]] + start[1]
    if end is not None:
        data["end_char"] = bounds[end[0]] + end[1]
    ref = EvidenceRef.model_validate(data)
    assert [e.code for e in store.ref_violations(ref)] == codes
    assert store.resolves(ref) is (codes == [])
    if codes:
        with pytest.raises(EvidenceValidationError) as info:
            store.resolve(ref)
        assert info.value.code == codes[0]
    else:
        assert store.resolve(ref) == (snippet, store.snapshot("snap-1"))


def test_ref_offset_messages_name_the_snippet_range() -> None:
    store = h.store()
    snippet = store.snippet("snip-1")
    s, e = snippet.start_char, snippet.end_char
    ref = EvidenceRef(snapshot_id="snap-1", snippet_id="snip-1", start_char=s + 5, end_char=s + 5)
    assert found(store.ref_violations(ref, ("x",))) == [
        (
            "EvidenceValidationError",
            OUTSIDE,
            "EvidenceRef offsets must lie inside the snippet: "
            f"snippet_id=snip-1 start_char={s + 5} end_char={s + 5} snippet=[{s},{e})",
            ("x",),
        )
    ]
    ref = EvidenceRef(snapshot_id="snap-1", snippet_id="snip-1", end_char=e)
    assert found(store.ref_violations(ref, ("x",))) == [
        ("EvidenceValidationError", INCOMPLETE, "EvidenceRef offsets must be given together: snippet_id=snip-1", ("x",))
    ]


def test_a_ref_naming_another_snapshot_does_not_resolve() -> None:
    store = h.store()
    ref = EvidenceRef(snapshot_id="snap-2", snippet_id="snip-1")
    assert not store.resolves(ref)
    mismatch = (
        "EvidenceRef names a snapshot its snippet is not from: snippet_id=snip-1 snapshot_id=snap-2 expected=snap-1"
    )
    assert found(store.ref_violations(ref)) == [
        ("EvidenceValidationError", "REF_SNAPSHOT_MISMATCH", mismatch, ("snapshot_id",))
    ]
    data = h.plan()
    data["datasets"][0]["evidence_refs"][0]["snapshot_id"] = "snap-2"
    assert found(iter_violations("experiment_plan", json.dumps(data), evidence=store)) == [
        (
            "EvidenceValidationError",
            "REF_SNAPSHOT_MISMATCH",
            mismatch,
            ("datasets", 0, "evidence_refs", 0, "snapshot_id"),
        )
    ]
    with pytest.raises(EvidenceValidationError, match=r"^EvidenceRef names a snapshot"):
        store.resolve(ref)


def test_a_map_reports_each_edge_s_refs_after_its_own_endpoints_in_document_order() -> None:
    """Violations come in document order (validate.py): an edge's endpoints, then its own refs."""
    data = h.literature_map()
    data["edges"][0]["evidence_refs"] = [h.ref("snip-404")]
    data["edges"][1]["evidence_refs"] = [h.ref("snip-2"), h.ref("snip-405")]
    data["edges"][1]["target"] = "x9"
    unknown = "Unknown snippet_id in EvidenceStore: snippet_id="
    assert found(iter_violations("literature_map", json.dumps(data), evidence=h.store())) == [
        (
            "EvidenceValidationError",
            "UNKNOWN_SNIPPET",
            unknown + "snip-404",
            ("edges", 0, "evidence_refs", 0, "snippet_id"),
        ),
        (
            "ArtifactIntegrityError",
            "UNKNOWN_EDGE_ENDPOINT",
            "Edge references unknown node id: edge=1 target=x9",
            ("edges", 1, "target"),
        ),
        (
            "EvidenceValidationError",
            "UNKNOWN_SNIPPET",
            unknown + "snip-405",
            ("edges", 1, "evidence_refs", 1, "snippet_id"),
        ),
    ]


# --- R-EV-7: budgets -----------------------------------------------------------------------------


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def budgets(mode: str = "fail", **limits: Any) -> BudgetPolicy:
    values: dict[str, Any] = {
        "max_connector_calls": 2,
        "max_time_seconds": 10,
        "max_tokens": 100,
        "max_retries_per_stage": 1,
        "max_evidence_items_ingested": 3,
        "mode": mode,
    }
    values.update(limits)
    return BudgetPolicy(**values)


def test_used_of_the_clock_budget_is_the_elapsed_time() -> None:
    """The clock budget cannot be charged, but its usage can be read: the time since creation."""
    clock = Clock()
    tracker = BudgetTracker(budgets(), clock=clock)
    clock.now += 3.5
    assert tracker.used("max_time_seconds") == 3.5
    assert tracker.used("max_retries_per_stage") == 0
    assert tracker.used("max_retries_per_stage", stage="search") == 0


def test_any_stage_name_counts_separately_the_empty_one_included() -> None:
    """stage= is required for a per-stage budget (None is refused); every name given is its own stage."""
    tracker = BudgetTracker(budgets(max_retries_per_stage=2), clock=Clock())
    assert tracker.charge("max_retries_per_stage", stage="") is None
    assert tracker.used("max_retries_per_stage", stage="") == 1
    assert tracker.charge("max_retries_per_stage", 2, stage="fetch") is None
    assert tracker.used("max_retries_per_stage", stage="fetch") == 2
    assert tracker.used("max_retries_per_stage", stage="") == 1
    assert tracker.charge("max_retries_per_stage", stage="") is None
    with pytest.raises(BudgetExceededError) as info:
        tracker.charge("max_retries_per_stage", stage="")
    assert str(info.value) == "Budget exceeded: max_retries_per_stage limit=2 used=3"
    assert tracker.used("max_retries_per_stage", stage="") == 2


def test_a_huge_whole_amount_is_refused_as_exceeding_not_a_crash() -> None:
    """A whole non-negative amount is a valid amount however large (it is not converted to float):
    past the limit it is BUDGET_EXCEEDED, not an OverflowError, and it is not counted."""
    tracker = BudgetTracker(budgets(), clock=Clock())
    huge = 10**400
    with pytest.raises(BudgetExceededError) as info:
        tracker.charge("max_tokens", huge)
    assert (info.value.code, str(info.value)) == (
        "BUDGET_EXCEEDED",
        f"Budget exceeded: max_tokens limit=100 used={huge}",
    )
    assert tracker.used("max_tokens") == 0
    assert tracker.charge("max_tokens", 100) is None


def test_check_time_refuses_only_past_the_time_limit() -> None:
    clock = Clock()
    tracker = BudgetTracker(budgets(), clock=clock)
    clock.now += 10
    assert tracker.check_time() is None  # exactly at the limit is not past it
    clock.now += 2.5
    with pytest.raises(BudgetExceededError) as info:
        tracker.check_time()
    assert (info.value.code, str(info.value)) == (
        "BUDGET_EXCEEDED",
        "Budget exceeded: max_time_seconds limit=10 used=12.5",
    )
    clock.now = 1005.0  # fail mode is not sticky
    assert tracker.check_time() is None


def test_check_time_ignores_the_charged_budgets() -> None:
    """check_time checks elapsed time alone: other budgets' limits are not compared with the time."""
    clock = Clock()
    tracker = BudgetTracker(
        budgets(max_connector_calls=0, max_tokens=0, max_retries_per_stage=0, max_evidence_items_ingested=0),
        clock=clock,
    )
    clock.now += 5
    assert tracker.check_time() is None
    assert tracker.exhausted is None


def test_check_time_in_finalize_partial_mode_returns_the_sticky_partial_result() -> None:
    clock = Clock()
    tracker = BudgetTracker(budgets("finalize_partial", max_time_seconds=2.5), clock=clock)
    clock.now += 4
    result = tracker.check_time()
    assert result is not None
    assert result.model_dump() == {
        "partial": True,
        "reason": "Budget exceeded: max_time_seconds limit=2.5 used=4",
        "budget_name": "max_time_seconds",
        "limit": 2.5,
        "used": 4,
    }
    assert tracker.exhausted is result
    clock.now = 1000.0
    assert tracker.check_time() is result
    assert tracker.charge("max_tokens") is result


# --- R-EV-5: the claim policy ---------------------------------------------------------------------


def test_citation_required_reads_the_policy() -> None:
    policy = default_claim_policy()
    assert citation_required(policy, "trivial") is False
    assert citation_required(policy, "non_trivial") is True
    assert citation_required(policy, "critical") is None


def test_citation_required_takes_the_first_entry_of_a_severity() -> None:
    """A severity listed twice is reported apart (DUPLICATE_ID); its first entry decides."""
    policy = ClaimPolicy.model_validate(
        {
            "severities": [
                {"name": "minor", "citation_required": False},
                {"name": "major", "citation_required": True},
                {"name": "minor", "citation_required": True},
            ]
        }
    )
    assert citation_required(policy, "minor") is False
    assert citation_required(policy, "major") is True


@pytest.mark.parametrize(
    "body,message",
    [
        (b"\xff\xfe: x\n", "Invalid YAML: not UTF-8 (invalid start byte at byte 0)"),
        (b"severities:\n  - name: caf\xe9\n", "Invalid YAML: not UTF-8 (invalid continuation byte at byte 25)"),
    ],
    ids=["start", "inside"],
)
def test_a_policy_file_that_is_not_utf8_is_a_yaml_syntax_error(tmp_path: Any, body: bytes, message: str) -> None:
    path = tmp_path / "policy.yaml"
    path.write_bytes(body)
    with pytest.raises(SchemaViolationError) as info:
        load_claim_policy(path)
    assert (info.value.code, str(info.value)) == ("YAML_SYNTAX", message)


# --- R-GEN-7: an ambiguous bare kind is a contract error -----------------------------------------


def test_a_bare_kind_two_domains_share_is_ambiguous(monkeypatch: pytest.MonkeyPatch) -> None:
    """No two generated domains share a name today; a second domain with ``claim_policy`` must make
    the bare name ambiguous (AMBIGUOUS_KIND), while the full names keep working."""
    known = project.kinds()
    twin = known["evidence/claim_policy"]._replace(kind="research/claim_policy", domain="research")
    monkeypatch.setattr(project, "kinds", lambda: MappingProxyType({**known, twin.kind: twin}))
    text = json.dumps({"severities": [{"name": "a", "citation_required": True}]})
    expected = "Ambiguous artifact kind: claim_policy (use one of: evidence/claim_policy, research/claim_policy)"
    with pytest.raises(ArtifactKindError) as info:
        validate_artifact("claim_policy", text)
    assert (info.value.code, str(info.value)) == ("AMBIGUOUS_KIND", expected)
    with pytest.raises(ArtifactKindError, match=r"^Ambiguous artifact kind: claim_policy \(use one of: "):
        iter_violations("claim_policy", text)
    assert isinstance(validate_artifact("evidence/claim_policy", text), ClaimPolicy)
