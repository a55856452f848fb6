"""One research session, request to response (phase18-research.md §3; R-RS-1..8).

    route (entitlement, flag, environment)  ->  the fixed plan  ->  per step: TIMEOUT, BUDGET
    (total calls), RATE_LIMITED, BUDGET (units) checked before the call  ->  Adapter.call  ->
    dedup, sort, cut  ->  NO_SOURCE  ->  resolve_stop_reason  ->  response, telemetry, bundle

The plan is fixed before the first call: the query's clauses (split at the table's separators)
times the tier's tools in table order; nothing a tool returns adds, removes or reorders a call
(§3.5). Any condition but NO_SOURCE stops the plan at once (§3.6). Whatever happens, including an
exception inside rcs, the session ends through the one resolver with one stop reason (R-RS-1).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rcs_contracts.generated.research.contract import CONTRACT_VERSION
from rcs_contracts.generated.research.policy import (
    BUNDLE_SOURCES,
    CLAUSE_SEPARATORS,
    ENVIRONMENTS,
    MAX_CLAUSES,
    RATE_WINDOW_MS,
    TIERS,
    TOOL_COST,
    TOOLS,
)
from rcs_contracts.generated.research.request_schema import ResearchRequest
from rcs_contracts.generated.research.response_schema import ResearchResponse
from rcs_contracts.generated.research.source_bundle_schema import Source, SourceBundle
from rcs_contracts.generated.research.stop_reasons import StopReason
from rcs_contracts.generated.research.telemetry_schema import ResearchTelemetry
from rcs_contracts.runtime.research import answer as answers
from rcs_contracts.runtime.research.adapter import Adapter, CallOutcome, Clock, SystemClock, Tool, query_digest
from rcs_contracts.runtime.research.policy import route
from rcs_contracts.runtime.research.stop import SUCCESS, action_of, in_priority_order, resolve_stop_reason

UNKNOWN_CODE = "UNKNOWN"  # how telemetry names a tier or environment the table does not know


@dataclass(frozen=True)
class ResearchResult:
    """What a session produced: what the user sees, what is recorded, and what was found."""

    response: ResearchResponse
    telemetry: ResearchTelemetry
    bundle: SourceBundle

    @property
    def stop_reason(self) -> StopReason:
        """The session's one stop reason (kept in telemetry, never in the response)."""
        return StopReason(self.telemetry.stop_reason)


def clauses(query: str) -> list[str]:
    """The query's clauses, in order: split at the table's separators, blank ones dropped, at most
    the table's number (a longer query keeps its first clauses)."""
    parts = [query]
    for separator in CLAUSE_SEPARATORS:
        parts = [piece for part in parts for piece in part.split(separator)]
    return [p.strip() for p in parts if p.strip()][:MAX_CLAUSES]


def _request_digest(request: ResearchRequest) -> str:
    data = request.model_dump(
        # mutation: equivalent: a request holds strings, booleans and integers only: both modes agree
        mode="json",
        by_alias=True,
    )
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()  # a validated request holds no lone surrogate


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


class _Session:
    def __init__(self, request: ResearchRequest, tools: Sequence[Tool], clock: Clock, enabled: bool) -> None:
        self.request, self.clock, self.enabled = request, clock, enabled
        self.adapter = Adapter(tools, clock)
        self.start = clock.now()
        self.conditions: set[StopReason] = set()
        self.calls: list[dict[str, object]] = []
        self.hits: list[dict[str, object]] = []
        self.sources: list[dict[str, Any]] = []
        self.budget_used = 0
        self.granted = False

    def run(self) -> None:
        grant = route(self.request, self.enabled)
        self.conditions |= grant.refusals
        if not grant.granted or grant.caps is None:
            return
        self.granted = True
        caps = grant.caps
        plan = [
            (clause, tool)
            for clause in clauses(self.request.query)
            for tool in TOOLS
            if tool in grant.tools and tool in self.adapter.tools
        ]
        # The plan is known before the first call: one that cannot fit the caps makes none (R-RS-3;
        # calling tools whose results a certain downgrade would discard helps nobody).
        if len(plan) > caps.max_tool_calls_total or sum(TOOL_COST[t] for _, t in plan) > caps.budget_units_clamp:
            self.conditions.add(StopReason.BUDGET_EXHAUSTED)
        if len(plan) > caps.max_tool_calls_per_minute and caps.total_research_timeout_ms <= RATE_WINDOW_MS:
            self.conditions.add(StopReason.RATE_LIMITED)  # every call would start inside one window
        if self.conditions:
            return
        started: list[float] = []
        for clause, tool in plan:
            now = self.clock.now()
            elapsed_ms = (now - self.start) * 1000
            if elapsed_ms > caps.total_research_timeout_ms:
                self.conditions.add(StopReason.TIMEOUT)
            if len(started) >= caps.max_tool_calls_total:
                self.conditions.add(StopReason.BUDGET_EXHAUSTED)
            if sum(1 for t in started if (now - t) * 1000 < RATE_WINDOW_MS) + 1 > caps.max_tool_calls_per_minute:
                self.conditions.add(StopReason.RATE_LIMITED)
            if TOOL_COST[tool] > caps.budget_units_clamp - self.budget_used:
                self.conditions.add(StopReason.BUDGET_EXHAUSTED)
            if self.conditions:
                return  # the call is not made (R-RS-3)
            remaining_s = (caps.total_research_timeout_ms - elapsed_ms) / 1000
            timeout_s = min(caps.per_call_timeout_ms / 1000, remaining_s)
            started.append(now)
            self.budget_used += TOOL_COST[tool]
            outcome = self.adapter.call(tool, clause, self._limit(), timeout_s)
            self._record(tool, clause, now, outcome)
            if outcome.conditions:
                self.conditions |= outcome.conditions
                return  # abort at once (§3.6)
        # Checking what the last call returned (the injection scan) is session time too.
        if (self.clock.now() - self.start) * 1000 > caps.total_research_timeout_ms:
            self.conditions.add(StopReason.TIMEOUT)

    @staticmethod
    def _limit() -> int:
        from rcs_contracts.generated.research.policy import ITEMS_PER_CALL

        return ITEMS_PER_CALL

    def _record(self, tool: str, clause: str, started: float, outcome: CallOutcome) -> None:
        index = len(self.calls)
        self.calls.append(
            {
                "index": index,
                "tool": tool,
                "query_sha256": query_digest(clause),
                "outcome": outcome.outcome,
                "cost": TOOL_COST[tool],
                "started_ms": _ms(started - self.start),
                "elapsed_ms": _ms(self.clock.now() - started),
                "items": outcome.items,
            }
        )
        for item, hit in outcome.hits:
            self.hits.append(
                {
                    "rule": hit.rule,
                    "severity": hit.severity,
                    "call": index,
                    "item": item,
                    "start": hit.start,
                    "end": hit.end,
                }
            )
        if not outcome.conditions:
            self.sources.extend(outcome.sources)


# One encoder for every sort key: json.dumps with options builds a new encoder on every call.
_SORTED_JSON = json.JSONEncoder(sort_keys=True)


def _bundle(sources: Sequence[dict[str, Any]]) -> tuple[list[Source], int]:
    """Deduplicated by id, sorted by (tool order, locator, id), then cut to the caps (R-RS-7).

    Copies of one source (same tool, locator and content) merge whatever order they came in: the
    flags of all of them, and the title and metadata that sort first.
    """
    order = {tool: i for i, tool in enumerate(TOOLS)}
    copies: dict[str, list[dict[str, Any]]] = {}
    for source in sources:
        copies.setdefault(source["source_id"], []).append(source)
    merged: list[dict[str, Any]] = []
    for same in copies.values():
        if len(same) == 1:  # most sources: a tool's flags come sorted and distinct already
            merged.append(same[0])
            continue
        same.sort(key=lambda s: (s["title"], _SORTED_JSON.encode(s["metadata"])))
        flags = sorted({flag for s in same for flag in s["flags"]})
        merged.append({**same[0], "flags": flags, "injection_risk_flag": bool(flags)})
    ranked = sorted(merged, key=lambda s: (order.get(s["tool"], len(order)), s["locator"], s["source_id"]))
    bundle = SourceBundle.model_validate({"contract_version": CONTRACT_VERSION, "sources": ranked[:BUNDLE_SOURCES]})
    return list(bundle.sources), len(sources) - len(bundle.sources)


def run_research(
    request: ResearchRequest, tools: Sequence[Tool], *, clock: Clock | None = None, enabled: bool = True
) -> ResearchResult:
    """Run one bounded research session and return its response, telemetry and source bundle.

    Never raises for anything a tool or the request does: every ending is a stop reason (R-RS-1).
    ``enabled`` is the feature flag (off: POLICY_DISABLED).
    """
    session = _Session(request, tools, clock or SystemClock(), enabled)
    try:
        try:
            session.run()
        finally:
            session.adapter.close()
        kept, dropped = _bundle(session.sources)
        if session.granted and not kept:  # "after all tool calls complete (or are aborted)" (§6.1)
            session.conditions.add(StopReason.NO_SOURCE)
        reason = resolve_stop_reason(session.conditions)
        action = action_of(reason, request.already_clarified)
        response = answers.answer(request.query, kept) if reason is SUCCESS else answers.fixed(action)
        if reason is not SUCCESS:
            kept = []  # a downgrade carries no research content (§3.6), the bundle included
    except Exception:  # a bug in rcs still ends through the resolver, fail closed (§3.6)
        session.conditions.add(StopReason.INTERNAL_INCONSISTENCY)
        reason = resolve_stop_reason(session.conditions)
        action = action_of(reason, request.already_clarified)
        response = answers.fixed(action)
        kept, dropped = [], 0
    telemetry = ResearchTelemetry.model_validate(
        {
            "contract_version": CONTRACT_VERSION,
            "request_sha256": _request_digest(request),
            "tier": request.tier if request.tier in TIERS else UNKNOWN_CODE,
            "env": request.env if request.env in ENVIRONMENTS else UNKNOWN_CODE,
            "granted": session.granted,
            "conditions": [c.value for c in in_priority_order(session.conditions)],
            "stop_reason": reason.value,
            "action": action,
            "calls": session.calls,
            "sources_kept": len(kept),
            "sources_dropped": dropped,
            "injection_hits": session.hits,
            "budget_units_used": session.budget_used,
            "elapsed_ms": _ms(session.clock.now() - session.start),
        }
    )
    bundle = SourceBundle(contract_version=CONTRACT_VERSION, sources=kept)
    return ResearchResult(response, telemetry, bundle)
