"""Research rules a JSON Schema cannot express (``rcs validate --kind research/...``).

* response (R-RS-6, R-RS-8): each action carries exactly its table sentence (ANSWER: the heading
  with the count of its sources); only ANSWER has bullets and sources; every citation resolves
  among the response's sources, and every listed source is cited.
* telemetry (R-RS-1, R-RS-6, R-RS-9): the contract version is this one; every code is a stop
  reason; the stop reason is the first condition in priority order (success when none); the action
  is the one the stop reason gives (NO_SOURCE: ASK_CLARIFY or UNKNOWN); research is granted
  exactly when no router refusal is a condition, NO_SOURCE only when it was; INJECTION_DETECTED is
  a condition exactly when a block-severity hit is recorded; the budget used is what the calls
  cost; kept sources need a call. The schema already keeps raw text out: only codes, counts,
  hashes, rule ids and offsets fit it.
* source_bundle (R-RS-7): each source id is the hash of its (tool, locator, content), ids are
  distinct, and the order is (tool order, locator, id).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import MappingProxyType

from pydantic import BaseModel

from rcs_contracts.engine.validation import Check, Context
from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.research import errors as ERRORS
from rcs_contracts.generated.research.contract import CONTRACT_VERSION
from rcs_contracts.generated.research.policy import BUNDLE_SOURCES, TOOLS
from rcs_contracts.generated.research.response_schema import ResearchResponse
from rcs_contracts.generated.research.responses import ANSWER_HEADING, MAX_BULLET_CHARS, MAX_BULLETS
from rcs_contracts.generated.research.source_bundle_schema import SourceBundle
from rcs_contracts.generated.research.stop_reasons import ACTION, StopReason
from rcs_contracts.generated.research.telemetry_schema import ResearchTelemetry
from rcs_contracts.runtime.research.adapter import source_id
from rcs_contracts.runtime.research.answer import SENTENCE_FOR
from rcs_contracts.runtime.research.injection import BLOCK
from rcs_contracts.runtime.research.policy import ROUTER_REFUSALS
from rcs_contracts.runtime.research.stop import action_of, in_priority_order, resolve_stop_reason

_ANSWER = ACTION[StopReason.SUCCESS_COMPLETED]
_NO_SOURCE_ACTIONS = (action_of(StopReason.NO_SOURCE, False), action_of(StopReason.NO_SOURCE, True))


def check_response(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """The action, its sentence and its citations agree."""
    assert isinstance(model, ResearchResponse)
    action = model.action
    expected = ANSWER_HEADING.format(count=len(model.sources)) if action == _ANSWER else SENTENCE_FOR[action]
    if model.text != expected:
        yield ERRORS.response_text_mismatch(action=action, location=("text",))
    if action != _ANSWER:
        if model.bullets or model.sources:
            yield ERRORS.response_not_empty(action=action, location=())
        return
    if not model.bullets:
        yield ERRORS.response_no_bullets(location=("bullets",))
    if len(model.bullets) > MAX_BULLETS:
        yield ERRORS.response_too_many_bullets(limit=MAX_BULLETS, count=len(model.bullets), location=("bullets",))
    for index, bullet in enumerate(model.bullets):
        if len(bullet.text) > MAX_BULLET_CHARS:
            yield ERRORS.response_bullet_too_long(
                index=index, length=len(bullet.text), limit=MAX_BULLET_CHARS, location=("bullets", index, "text")
            )
    ids = [s.source_id for s in model.sources]
    for index, sid in enumerate(ids):
        if sid in ids[:index]:
            yield ERRORS.response_source_twice(source_id=sid, location=("sources", index, "source_id"))
    listed = {s.source_id for s in model.sources}
    cited: set[str] = set()
    for index, bullet in enumerate(model.bullets):
        for position, sid in enumerate(bullet.source_ids):
            cited.add(sid)
            if sid not in listed:
                yield ERRORS.citation_unresolved(
                    index=index, source_id=sid, location=("bullets", index, "source_ids", position)
                )
    for index, source in enumerate(model.sources):
        if source.source_id not in cited:
            yield ERRORS.source_not_cited(source_id=source.source_id, location=("sources", index, "source_id"))


def check_telemetry(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """The stop reason follows from the conditions, and the action from the stop reason."""
    assert isinstance(model, ResearchTelemetry)
    if model.contract_version != CONTRACT_VERSION:
        yield ERRORS.contract_version_mismatch(
            found=model.contract_version, expected=CONTRACT_VERSION, location=("contract_version",)
        )
    known = set(StopReason)
    conditions = []
    for index, code in enumerate(model.conditions):
        if code in known:
            conditions.append(StopReason(code))
        else:
            yield ERRORS.unknown_stop_reason(code=code, version=CONTRACT_VERSION, location=("conditions", index))
    if model.stop_reason not in known:
        yield ERRORS.unknown_stop_reason(code=model.stop_reason, version=CONTRACT_VERSION, location=("stop_reason",))
        return
    reason = StopReason(model.stop_reason)
    first = resolve_stop_reason(conditions)
    if reason is not first:
        yield ERRORS.stop_reason_not_first(stop_reason=reason.value, first=first.value, location=("stop_reason",))
    yield from _telemetry_consistency(model, reason, conditions)
    if reason is StopReason.NO_SOURCE:
        if model.action not in _NO_SOURCE_ACTIONS:
            yield ERRORS.no_source_action(action=model.action, location=("action",))
    elif model.action != ACTION[reason]:
        yield ERRORS.action_mismatch(
            stop_reason=reason.value, expected=ACTION[reason], action=model.action, location=("action",)
        )
    yield from _telemetry_accounts(model, set(conditions))


def _telemetry_consistency(
    model: ResearchTelemetry, reason: StopReason, conditions: list[StopReason]
) -> Iterator[RcsError]:
    """What the fields say about each other (the stop reason, sources, calls, hits)."""
    if conditions != in_priority_order(conditions) or StopReason.SUCCESS_COMPLETED in conditions:
        yield ERRORS.telemetry_conditions_order(location=("conditions",))
    if reason is StopReason.SUCCESS_COMPLETED and (conditions or model.sources_kept == 0 or not model.granted):
        yield ERRORS.telemetry_success_without_sources(location=("stop_reason",))
    if reason is StopReason.NO_SOURCE and model.sources_kept:
        yield ERRORS.telemetry_no_source_with_sources(count=model.sources_kept, location=("sources_kept",))
    if not model.granted and model.calls:
        yield ERRORS.telemetry_calls_not_granted(count=len(model.calls), location=("calls",))
    if reason is StopReason.SUCCESS_COMPLETED:
        for index, hit in enumerate(model.injection_hits):
            if hit.severity == BLOCK:
                yield ERRORS.telemetry_blocked_success(rule=hit.rule, location=("injection_hits", index))


def _telemetry_accounts(model: ResearchTelemetry, conditions: set[StopReason]) -> Iterator[RcsError]:
    """What the record's conditions, calls, hits and counts say about each other (a review found
    records the schema and the priority accept that no session can write)."""
    refused = bool(conditions & ROUTER_REFUSALS)
    if model.granted == refused:
        say = "name" if refused else "do not name"
        yield ERRORS.telemetry_grant_mismatch(granted=json.dumps(model.granted), say=say, location=("granted",))
    if StopReason.NO_SOURCE in conditions and not model.granted:
        yield ERRORS.telemetry_no_source_not_granted(location=("conditions",))
    blocks = sum(hit.severity == BLOCK for hit in model.injection_hits)
    if (StopReason.INJECTION_DETECTED in conditions) != (blocks > 0):
        where = "in" if StopReason.INJECTION_DETECTED in conditions else "not in"
        yield ERRORS.telemetry_injection_mismatch(condition=where, hits=blocks, location=("injection_hits",))
    cost = sum(call.cost for call in model.calls)
    if model.budget_units_used != cost:
        yield ERRORS.telemetry_budget_mismatch(used=model.budget_units_used, cost=cost, location=("budget_units_used",))
    if model.sources_kept and not model.calls:
        yield ERRORS.telemetry_sources_without_calls(count=model.sources_kept, location=("sources_kept",))


def check_source_bundle(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Ids are content hashes, distinct, in the bundle order of R-RS-7."""
    assert isinstance(model, SourceBundle)
    if model.contract_version != CONTRACT_VERSION:
        yield ERRORS.contract_version_mismatch(
            found=model.contract_version, expected=CONTRACT_VERSION, location=("contract_version",)
        )
    if len(model.sources) > BUNDLE_SOURCES:
        yield ERRORS.bundle_too_large(count=len(model.sources), limit=BUNDLE_SOURCES, location=("sources",))
    for index, source in enumerate(model.sources):
        if source.tool not in TOOLS:
            yield ERRORS.bundle_unknown_tool(tool=source.tool, location=("sources", index, "tool"))
        if source.injection_risk_flag != bool(source.flags):
            yield ERRORS.bundle_flag_mismatch(location=("sources", index, "injection_risk_flag"))
    order = {tool: i for i, tool in enumerate(TOOLS)}
    previous: tuple[int, str, str] | None = None
    for index, source in enumerate(model.sources):
        if source.source_id != source_id(source.tool, source.locator, source.content):
            yield ERRORS.source_id_mismatch(location=("sources", index, "source_id"))
        key = (order.get(source.tool, len(order)), source.locator, source.source_id)
        if previous is not None and key <= previous:
            yield ERRORS.bundle_order(index=index, location=("sources", index))
        previous = key


CHECKS: MappingProxyType[str, Check] = MappingProxyType(
    {"response": check_response, "telemetry": check_telemetry, "source_bundle": check_source_bundle}
)
