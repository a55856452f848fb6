"""The one stop resolver (phase18-research.md §4, §5; R-RS-1).

Every way a research session ends goes through ``resolve_stop_reason``: the conditions that held are
collected as the session runs, and the first of them in the table's priority order is the reason.
SUCCESS_COMPLETED is chosen only when no other condition holds.
"""

from __future__ import annotations

from collections.abc import Iterable

from rcs_contracts.generated.research.stop_reasons import ACTION, PRIORITY, StopReason

_RANK = {reason: rank for rank, reason in enumerate(PRIORITY)}
SUCCESS = PRIORITY[-1]


def resolve_stop_reason(conditions: Iterable[StopReason]) -> StopReason:
    """The highest-priority condition that held; the success reason when none did.

    A success condition among others is ignored: success is what remains when nothing else holds.
    """
    held = [c for c in conditions if c is not SUCCESS]
    return min(held, key=_RANK.__getitem__) if held else SUCCESS


def in_priority_order(conditions: Iterable[StopReason]) -> list[StopReason]:
    """The distinct conditions, highest priority first (as the telemetry record lists them)."""
    return sorted(set(conditions), key=_RANK.__getitem__)


def action_of(reason: StopReason, already_clarified: bool) -> str:
    """What the user sees for ``reason``: ANSWER, BASELINE, or the no-source rule (R-RS-6)."""
    action = ACTION[reason]
    if action == "NO_SOURCE_RULE":
        return "UNKNOWN" if already_clarified else "ASK_CLARIFY"
    return action
