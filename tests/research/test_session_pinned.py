"""Exact values of a research session: cap boundaries, clock readings, size limits (R-RS-3, R-RS-4).

In-process tools and a scripted clock only. Each test pins a number or a boundary that an
off-by-one in runtime/research/session.py or adapter.py would change.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rcs_contracts.runtime.research.adapter as adapter_module
from rcs_contracts.generated.research.policy import (
    CAPS,
    CONTENT_CHARS,
    METADATA_KEYS,
    METADATA_VALUE_CHARS,
    TITLE_CHARS,
    TOOL_COST,
)
from rcs_contracts.runtime.research import ResearchRequest, StopReason, run_research, source_id

PRO = CAPS[("PRO", "prod")]


class ScriptedClock:
    """Moves only when a tool moves it; records the deadline of every call and never times out
    (the tools here return at once, so waiting on the event is never a real wait)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.waits: list[float] = []

    def now(self) -> float:
        return self.t

    def wait(self, done: threading.Event, seconds: float) -> bool:
        self.waits.append(seconds)
        return done.wait(30)


class Tool:
    """Returns ``items`` for every query; the n-th call moves the clock by ``advances[n]`` seconds."""

    def __init__(
        self, name: str, items: Sequence[Any], clock: ScriptedClock | None = None, advances: Sequence[float] = ()
    ) -> None:
        self.name, self.items, self.clock, self.advances = name, list(items), clock, list(advances)
        self.queries: list[str] = []

    def search(self, query: str, limit: int) -> Any:
        if self.clock is not None and len(self.queries) < len(self.advances):
            self.clock.t += self.advances[len(self.queries)]
        self.queries.append(query)
        return list(self.items)


def request(query: str = "term frequency", **extra: Any) -> ResearchRequest:
    data = {"query": query, "requested_mode": "research", "tier": "PRO", "env": "prod", "already_clarified": False}
    data.update(extra)
    return ResearchRequest.model_validate(data)


def item(n: int = 1, **extra: Any) -> dict[str, Any]:
    return {"locator": f"doc-{n:03d}", "title": f"Doc {n}", "content": f"Term frequency saturates. Item {n}.", **extra}


# --- budget: a plan costing exactly the clamp runs, one unit less refuses it (R-RS-3) ---------------


def test_a_plan_costing_exactly_the_budget_clamp_runs_every_call() -> None:
    clamp = TOOL_COST["docs"] + TOOL_COST["web"]
    docs, web = Tool("docs", [item(1)]), Tool("web", [item(2)])
    r = run_research(request("a", caps={"budget_units_clamp": clamp}), [docs, web], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert r.telemetry.conditions == []
    assert (docs.queries, web.queries) == (["a"], ["a"])
    assert r.telemetry.budget_units_used == clamp
    assert [c.cost for c in r.telemetry.calls] == [TOOL_COST["docs"], TOOL_COST["web"]]


def test_a_plan_costing_one_unit_more_than_the_clamp_makes_no_call() -> None:
    clamp = TOOL_COST["docs"] + TOOL_COST["web"] - 1
    docs, web = Tool("docs", [item(1)]), Tool("web", [item(2)])
    r = run_research(request("a", caps={"budget_units_clamp": clamp}), [docs, web], clock=ScriptedClock())
    assert r.stop_reason is StopReason.BUDGET_EXHAUSTED
    assert (docs.queries, web.queries) == ([], [])
    assert r.telemetry.calls == [] and r.telemetry.budget_units_used == 0


def test_a_single_call_costing_exactly_the_clamp_is_made() -> None:
    docs = Tool("docs", [item(1)])
    r = run_research(request(caps={"budget_units_clamp": TOOL_COST["docs"]}), [docs], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert r.telemetry.budget_units_used == TOOL_COST["docs"] and len(docs.queries) == 1


# --- milliseconds from the session clock -----------------------------------------------------------


def test_a_clock_that_never_moves_records_zero_milliseconds() -> None:
    r = run_research(request("a; b"), [Tool("docs", [item(1)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert [(c.started_ms, c.elapsed_ms) for c in r.telemetry.calls] == [(0, 0), (0, 0)]
    assert r.telemetry.elapsed_ms == 0


def test_call_and_session_milliseconds_are_the_clock_readings() -> None:
    clock = ScriptedClock()
    docs = Tool("docs", [item(1)], clock, advances=[0.25, 1.5])
    web = Tool("web", [item(2)], clock, advances=[0.125])
    r = run_research(request("a; b"), [docs, web], clock=clock)
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert [(c.tool, c.started_ms, c.elapsed_ms) for c in r.telemetry.calls] == [
        ("docs", 0, 250),
        ("web", 250, 125),
        ("docs", 375, 1500),
        ("web", 1875, 0),
    ]
    assert r.telemetry.elapsed_ms == 1875


# --- deadlines: per call, and what is left of the session (R-RS-3) ---------------------------------


def test_each_call_gets_the_per_call_timeout_or_what_is_left_of_the_session() -> None:
    """15 s session, 5 s per call: the first call may take 5 s; after 12 s, only 3 s are left."""
    clock = ScriptedClock()
    docs = Tool("docs", [item(1)], clock, advances=[12.0])
    r = run_research(request("a; b"), [docs], clock=clock)
    assert (PRO.total_research_timeout_ms, PRO.per_call_timeout_ms) == (15000, 5000)
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert clock.waits == [5.0, 3.0]
    assert [c.started_ms for c in r.telemetry.calls] == [0, 12000]


def test_lowered_timeouts_give_exact_deadlines() -> None:
    clock = ScriptedClock()
    docs = Tool("docs", [item(1)], clock, advances=[0.5])
    caps = {"per_call_timeout_ms": 700, "total_research_timeout_ms": 1000}
    r = run_research(request("a; b", caps=caps), [docs], clock=clock)
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert clock.waits == [0.7, 0.5]


def test_a_session_exactly_at_its_total_timeout_still_makes_the_next_call() -> None:
    """TIMEOUT is elapsed > total (R-RS-3): at exactly the total, the next call is made (with no
    time left for it); a moment later, it is not."""
    clock = ScriptedClock()
    docs = Tool("docs", [item(1)], clock, advances=[PRO.total_research_timeout_ms / 1000])
    r = run_research(request("a; b"), [docs], clock=clock)
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert docs.queries == ["a", "b"]
    assert clock.waits == [5.0, 0.0]
    assert [c.started_ms for c in r.telemetry.calls] == [0, 15000]
    assert r.telemetry.elapsed_ms == 15000

    clock = ScriptedClock()
    docs = Tool("docs", [item(1)], clock, advances=[PRO.total_research_timeout_ms / 1000 + 0.001])
    r = run_research(request("a; b"), [docs], clock=clock)
    assert r.stop_reason is StopReason.TIMEOUT
    assert docs.queries == ["a"]


# --- metadata size limits: the key and the value each count (R-RS-4) -------------------------------


@pytest.mark.parametrize(
    "metadata",
    [
        {"k": "v" * METADATA_VALUE_CHARS},
        {"k" * METADATA_VALUE_CHARS: "v"},
        {"k" * METADATA_VALUE_CHARS: "v" * METADATA_VALUE_CHARS},
    ],
)
def test_metadata_at_the_limit_is_accepted(metadata: dict[str, str]) -> None:
    r = run_research(request(), [Tool("docs", [item(1, metadata=metadata)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert r.bundle.sources[0].metadata == metadata


@pytest.mark.parametrize(
    "metadata",
    [
        {"k": "v" * (METADATA_VALUE_CHARS + 1)},  # only the value is too long
        {"k" * (METADATA_VALUE_CHARS + 1): "v"},  # only the key is too long
        {"n": int("9" * (METADATA_VALUE_CHARS + 1))},  # a number, counted as its digits
    ],
)
def test_metadata_with_only_the_key_or_only_the_value_too_long_is_invalid(metadata: dict[str, Any]) -> None:
    r = run_research(request(), [Tool("docs", [item(1, metadata=metadata)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.VALIDATION_FAIL
    assert r.telemetry.calls[0].outcome == "invalid" and r.telemetry.calls[0].items == 1
    assert r.bundle.sources == []


# --- every item is scanned, or the session fails closed (R-RS-5, R-RS-1) ---------------------------


def test_a_scan_missing_for_an_item_is_an_internal_inconsistency(monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter pairs items with their scans strictly: if the scanner ever returned fewer scans
    than items, the unscanned item must not slip into the bundle; the session fails closed."""
    real = adapter_module.scan_many
    monkeypatch.setattr(adapter_module, "scan_many", lambda texts: real(texts)[:-1])
    r = run_research(request(), [Tool("docs", [item(1), item(2)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.INTERNAL_INCONSISTENCY
    assert r.telemetry.conditions == ["INTERNAL_INCONSISTENCY"]
    assert r.bundle.sources == [] and r.response.action == "BASELINE"
    assert (r.telemetry.sources_kept, r.telemetry.sources_dropped) == (0, 0)


# --- the source id's canonical form (R-RS-7) -------------------------------------------------------


def test_the_source_id_is_the_sha256_of_the_compact_json_array() -> None:
    expected = hashlib.sha256('["docs","doc-001","Caf\u00e9, \\"quoted\\""]'.encode()).hexdigest()
    assert source_id("docs", "doc-001", 'Caf\u00e9, "quoted"') == expected
    r = run_research(request(), [Tool("docs", [item(1)])], clock=ScriptedClock())
    content = r.bundle.sources[0].content
    digest = hashlib.sha256(f'["docs","doc-001","{content}"]'.encode()).hexdigest()
    assert r.bundle.sources[0].source_id == digest


# Any text a validated tool result can hold: no lone surrogate (refused before any id is made).
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@given(_TEXT, _TEXT, _TEXT)
def test_the_source_id_is_json_s_own_compact_array_for_any_text(tool: str, locator: str, content: str) -> None:
    canonical = json.dumps([tool, locator, content], ensure_ascii=False, separators=(",", ":"))
    assert source_id(tool, locator, content) == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --- the rate window: a plan exactly at the per-minute cap runs (R-RS-3) ----------------------------


def test_a_plan_exactly_at_the_per_minute_cap_runs_every_call() -> None:
    docs = Tool("docs", [item(1)])
    r = run_research(request("a; b", caps={"max_tool_calls_per_minute": 2}), [docs], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert docs.queries == ["a", "b"]
    docs = Tool("docs", [item(1)])
    r = run_research(request("a; b", caps={"max_tool_calls_per_minute": 1}), [docs], clock=ScriptedClock())
    assert r.stop_reason is StopReason.RATE_LIMITED
    assert docs.queries == []


# --- metadata key count and half characters (R-RS-4) ------------------------------------------------


def test_metadata_with_exactly_the_key_limit_is_accepted_and_one_more_is_not() -> None:
    full = {f"k{i}": "v" for i in range(METADATA_KEYS)}
    r = run_research(request(), [Tool("docs", [item(1, metadata=full)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    over = {**full, "one-more": "v"}
    r = run_research(request(), [Tool("docs", [item(1, metadata=over)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.VALIDATION_FAIL


def test_a_lone_surrogate_in_non_ascii_text_is_invalid() -> None:
    r = run_research(request(), [Tool("docs", [item(1, content="Term frequency café \ud800.")])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.VALIDATION_FAIL
    assert r.telemetry.calls[0].outcome == "invalid"


def test_tools_run_on_a_named_daemon_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool that never returns must not keep the process alive, and a thread dump names it."""
    monkeypatch.setattr(adapter_module, "_idle", [])  # a new thread, not one an earlier test left idle
    seen: list[threading.Thread] = []

    class Recording(Tool):
        def search(self, query: str, limit: int) -> Any:
            seen.append(threading.current_thread())
            return super().search(query, limit)

    r = run_research(request(), [Recording("docs", [item(1)])], clock=ScriptedClock())
    assert r.stop_reason is StopReason.SUCCESS_COMPLETED
    assert [(t.name, t.daemon) for t in seen] == [("rcs-research-tool", True)]
    for worker in adapter_module._idle:
        worker.retire()


class Recording(Tool):
    """Records the thread each call runs on; ``gate`` (a barrier) holds every call until all arrive."""

    def __init__(self, name: str, items: Sequence[Any], gate: threading.Barrier | None = None) -> None:
        super().__init__(name, items)
        self.gate = gate
        self.threads: list[threading.Thread] = []

    def search(self, query: str, limit: int) -> Any:
        self.threads.append(threading.current_thread())
        if self.gate is not None:
            self.gate.wait(30)
        return super().search(query, limit)


def test_sessions_one_after_another_run_their_tools_on_one_thread() -> None:
    # Starting a thread per session cost more than the rest of a call; an idle one is handed on.
    tools = [Recording("docs", [item(1)]) for _ in range(3)]
    for tool in tools:
        assert run_research(request(), [tool], clock=ScriptedClock()).stop_reason is StopReason.SUCCESS_COMPLETED
    threads = [thread for tool in tools for thread in tool.threads]
    assert len(threads) == 3 and len(set(threads)) == 1


class Impatient(ScriptedClock):
    """Every deadline has passed by the time it is waited on."""

    def wait(self, done: threading.Event, seconds: float) -> bool:
        self.waits.append(seconds)
        return False


def test_the_thread_of_an_abandoned_call_ends_when_it_returns_and_is_never_reused() -> None:
    release, started = threading.Event(), threading.Event()
    seen: list[threading.Thread] = []

    class Stuck(Tool):
        def search(self, query: str, limit: int) -> Any:
            seen.append(threading.current_thread())
            started.set()
            release.wait(30)
            return super().search(query, limit)

    r = run_research(request(), [Stuck("docs", [item(1)])], clock=Impatient())
    assert r.stop_reason is StopReason.TIMEOUT
    # The session gave up at once; under load its thread may only now be starting the call.
    assert started.wait(30)
    after = Recording("docs", [item(1)])
    assert run_research(request(), [after], clock=ScriptedClock()).stop_reason is StopReason.SUCCESS_COMPLETED
    (stuck,) = seen
    assert after.threads[0] is not stuck  # still busy with the late call
    release.set()
    stuck.join(30)
    assert not stuck.is_alive()


def test_sessions_at_once_each_get_a_thread_and_at_most_four_stay_idle() -> None:
    sessions = adapter_module._IDLE_KEPT + 2
    gate = threading.Barrier(sessions)  # every call runs at the same time, so each needs its own thread
    tools = [Recording("docs", [item(1)], gate) for _ in range(sessions)]
    runners = [
        threading.Thread(target=run_research, args=(request(), [t]), kwargs={"clock": ScriptedClock()}) for t in tools
    ]
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join(30)
    threads = {thread for tool in tools for thread in tool.threads}
    assert len(threads) == sessions
    kept = threads & set(adapter_module._idle)
    assert len(kept) <= adapter_module._IDLE_KEPT == 4
    for thread in threads - kept:
        thread.join(30)
        assert not thread.is_alive()
    assert all(thread.is_alive() for thread in kept)


def test_request_sha256_is_the_sha256_of_the_requests_canonical_json() -> None:
    # Canonical JSON (SPEC, research telemetry): the properties the request gives (an absent optional
    # one is left out, not null), keys sorted, no spaces, non-ASCII text as UTF-8, not \u escapes.
    query = "café naïve; ünïcödé"
    r = run_research(request(query, caps={"max_tool_calls_total": 3}), [], clock=ScriptedClock())
    canonical = (
        '{"already_clarified":false,"caps":{"max_tool_calls_total":3},"env":"prod",'
        f'"query":"{query}","requested_mode":"research","tier":"PRO"}}'
    )
    assert r.telemetry.request_sha256 == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_request_sha256_names_schema_by_its_own_name() -> None:
    # "$schema" is a property like any other, hashed under its JSON name (not the model's field name).
    query = "x"
    schema = "https://example.org/request.schema.json"
    r = run_research(request(query, **{"$schema": schema}), [], clock=ScriptedClock())
    canonical = (
        f'{{"$schema":"{schema}","already_clarified":false,"env":"prod",'
        f'"query":"{query}","requested_mode":"research","tier":"PRO"}}'
    )
    assert r.telemetry.request_sha256 == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --- content and title size limits: at the limit is accepted, one more is not (R-RS-4) -------------


@pytest.mark.parametrize(
    ("field", "size", "accepted"),
    [
        ("title", TITLE_CHARS, True),
        ("title", TITLE_CHARS + 1, False),
        ("content", CONTENT_CHARS, True),
        ("content", CONTENT_CHARS + 1, False),
    ],
)
def test_a_title_or_content_exactly_at_its_limit_is_accepted(field: str, size: int, accepted: bool) -> None:
    text = ("Term frequency " * (size // 15 + 1))[:size]
    r = run_research(request(), [Tool("docs", [item(1, **{field: text})])], clock=ScriptedClock())
    assert r.stop_reason is (StopReason.SUCCESS_COMPLETED if accepted else StopReason.VALIDATION_FAIL)
    assert [getattr(s, field) for s in r.bundle.sources] == ([text] if accepted else [])


def test_copies_of_a_source_keep_the_metadata_whose_canonical_json_sorts_first() -> None:
    # Same tool, locator and content: one source. Of the copies, the one kept has the metadata that
    # sorts first as canonical JSON (keys sorted), not as the tool happened to order its keys.
    later = item(1, metadata={"author": "Zed", "year": "2000"})
    first = item(1, metadata={"year": "1999", "author": "Abe"})  # "author" sorts first once keys are sorted
    for items in ([later, first], [first, later]):
        r = run_research(request(), [Tool("docs", items)], clock=ScriptedClock())
        (source,) = r.bundle.sources
        assert source.metadata == {"author": "Abe", "year": "1999"}


def test_a_result_cannot_be_changed_after_the_session() -> None:
    r = run_research(request(), [Tool("docs", [item(1)])], clock=ScriptedClock())
    with pytest.raises(AttributeError):
        r.bundle = r.bundle  # type: ignore[misc]
