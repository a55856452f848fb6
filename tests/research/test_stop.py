"""R-RS-1: one resolver, the §5 priority order from the table, success only when nothing else holds."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from rcs_contracts.generated.research.stop_reasons import ACTION, PRIORITY, StopReason
from rcs_contracts.runtime.research.stop import action_of, in_priority_order, resolve_stop_reason

# §5 of the contract, written out here on purpose: the table must say exactly this.
CONTRACT_ORDER = [
    "INTERNAL_INCONSISTENCY",
    "SANDBOX_VIOLATION",
    "INJECTION_DETECTED",
    "ENTITLEMENT_CAP",
    "POLICY_DISABLED",
    "RATE_LIMITED",
    "BUDGET_EXHAUSTED",
    "TIMEOUT",
    "VALIDATION_FAIL",
    "NO_SOURCE",
    "SUCCESS_COMPLETED",
]
FAILURES = [r for r in PRIORITY if r is not StopReason.SUCCESS_COMPLETED]


def test_the_table_is_the_contract_order() -> None:
    assert [r.value for r in PRIORITY] == CONTRACT_ORDER
    assert len(set(StopReason)) == 11


def _expected(held: list[StopReason]) -> StopReason:
    failures = [CONTRACT_ORDER.index(r.value) for r in held if r is not StopReason.SUCCESS_COMPLETED]
    return StopReason(CONTRACT_ORDER[min(failures)]) if failures else StopReason.SUCCESS_COMPLETED


def test_every_one_of_the_2048_condition_sets() -> None:
    """All 2^11 subsets of the eleven codes: the first in §5 order wins; success only alone or empty."""
    seen = 0
    for mask in range(2 ** len(PRIORITY)):
        held = [r for bit, r in enumerate(PRIORITY) if mask >> bit & 1]
        assert resolve_stop_reason(held) is _expected(held), held
        assert resolve_stop_reason(reversed(held)) is _expected(held)
        seen += 1
    assert seen == 2048


@given(st.lists(st.sampled_from(list(StopReason)), max_size=30))
def test_order_and_repetition_do_not_matter(conditions: list[StopReason]) -> None:
    reason = resolve_stop_reason(conditions)
    assert reason is _expected(conditions)
    for permutation in itertools.islice(itertools.permutations(conditions), 5):
        assert resolve_stop_reason(permutation) is reason
    ordered = in_priority_order(conditions)
    assert ordered == sorted(set(conditions), key=PRIORITY.index)
    if any(c is not StopReason.SUCCESS_COMPLETED for c in conditions):
        assert reason is not StopReason.SUCCESS_COMPLETED and reason is ordered[0]


def test_actions() -> None:
    assert action_of(StopReason.SUCCESS_COMPLETED, False) == "ANSWER"
    assert action_of(StopReason.NO_SOURCE, False) == "ASK_CLARIFY"
    assert action_of(StopReason.NO_SOURCE, True) == "UNKNOWN"
    for reason in FAILURES:
        if reason is not StopReason.NO_SOURCE:
            assert action_of(reason, False) == action_of(reason, True) == "BASELINE" == ACTION[reason]
