"""The adapter: the only code that calls a research tool (phase18-research.md §3.1; R-RS-4).

Tools are made here (``make_tools``) and called here (``Adapter.call``); nothing else in rcs
imports ``runtime.research.tools`` or calls ``search`` (a test reads every module to prove it).
Each call runs on the session's worker thread under a real deadline: a tool still running at the per-call
timeout is abandoned, its late result discarded, and the call is a TIMEOUT (R-RS-3). What comes
back is validated against the ToolResult schema and the policy table's size limits, given its
source id (R-RS-7) and scanned for injection (R-RS-5). An error never becomes an empty list: the
sandbox's own error is SANDBOX_VIOLATION, an unreadable answer VALIDATION_FAIL, anything else
INTERNAL_INCONSISTENCY.

The errors a tool may raise are drawn in ``runtime.research``'s docstring.
"""

from __future__ import annotations

import hashlib
import queue
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Protocol

from pydantic import ValidationError

from rcs_contracts.generated.research.errors import SandboxViolationError, ToolResultError
from rcs_contracts.generated.research.policy import (
    CONTENT_CHARS,
    ITEMS_PER_CALL,
    METADATA_KEYS,
    METADATA_VALUE_CHARS,
    TITLE_CHARS,
)
from rcs_contracts.generated.research.stop_reasons import StopReason
from rcs_contracts.generated.research.tool_result_schema import ToolResult
from rcs_contracts.runtime.research.injection import Hit, scan_many


class Tool(Protocol):
    """What a research tool implements: a name from the policy table and one search call."""

    name: str

    def search(self, query: str, limit: int) -> Sequence[Any]:
        """At most ``limit`` items ``{locator, content, title?, metadata?}`` for ``query``."""
        ...


class Clock(Protocol):
    """The one monotonic clock of a session (R-RS-3): readings in seconds, and a wait on an event."""

    def now(self) -> float:
        """Seconds on a monotonic scale."""
        ...

    def wait(self, done: threading.Event, seconds: float) -> bool:
        """Wait until ``done`` is set or ``seconds`` pass; whether it was set."""
        ...


class SystemClock:
    """``time.monotonic`` and a real wait."""

    def now(self) -> float:
        """Seconds since an arbitrary point, never going back."""
        return time.monotonic()

    def wait(self, done: threading.Event, seconds: float) -> bool:
        """Block until ``done`` or the timeout."""
        return done.wait(max(seconds, 0.0))


def source_id(tool: str, locator: str, content: str) -> str:
    """SHA-256 of the canonical JSON of [tool, locator, content] (R-RS-7): the compact array of the
    three JSON strings, non-ASCII written as itself, in UTF-8."""
    # Three strings joined by hand with json's own string encoder: the array encoder around them
    # cost twice as much, for every item of every call.
    text = f"[{encode_basestring(tool)},{encode_basestring(locator)},{encode_basestring(content)}]"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def query_digest(query: str) -> str:
    """SHA-256 of a query's UTF-8: what telemetry records instead of the query."""
    return hashlib.sha256(query.encode("utf-8")).hexdigest()  # a validated request holds no lone surrogate


@dataclass
class CallOutcome:
    """What one call came to: its outcome code, the condition it raised (if any), its sources and hits."""

    outcome: str  # ok | timeout | sandbox_violation | error | invalid | injection
    conditions: set[StopReason] = field(default_factory=set)  # more than one: the resolver picks (R-RS-1)
    items: int = 0
    sources: list[dict[str, Any]] = field(default_factory=list)  # the Source schema's fields
    hits: list[tuple[int, Hit]] = field(default_factory=list)  # (item index, hit)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scanned(result: ToolResult, limit: int) -> list[str] | None:
    """The text the injection filter reads for each item (title, locator, content and metadata as
    "key value" sorted by key, one per line; a hit's offsets are into it), or None when the result
    breaks the policy table's size limits (R-RS-4): more items than asked for or allowed, a content
    or title too long, too many metadata keys, a metadata key or value (as text) too long, or text
    with a lone surrogate. One pass over the items does both."""
    if len(result.items) > min(limit, ITEMS_PER_CALL):
        return None
    texts = []
    for item in result.items:
        title = item.title if isinstance(item.title, str) else ""
        metadata = item.metadata if isinstance(item.metadata, dict) else {}
        if len(item.content) > CONTENT_CHARS or len(title) > TITLE_CHARS or len(metadata) > METADATA_KEYS:
            return None
        if not metadata:
            texts.append(f"{title}\n{item.locator}\n{item.content}")
            continue
        lines = [title, item.locator, item.content]
        for key, value in sorted(metadata.items()):
            try:
                shown = str(value)
            except ValueError:  # an integer with more digits than Python will write out
                return None
            if len(shown) > METADATA_VALUE_CHARS or len(key) > METADATA_VALUE_CHARS:
                return None
            lines.append(f"{key} {shown}")
        texts.append("\n".join(lines))
    # A Python tool can hand over half a character; ASCII text (most of it) cannot hold one.
    joined = "".join(texts)
    if not joined.isascii() and _SURROGATE.search(joined):
        return None
    return texts


_NOT_SPACE = re.compile(r"\S")


def _visible_text(content: str) -> bool:
    """Whether ``content`` has a character to read: not only spaces, line breaks and invisible
    format characters (a zero-width space is not a sentence)."""
    # The first character that is not a space settles almost every text, found in C.
    return any(match[0].isprintable() for match in _NOT_SPACE.finditer(content))


def _strings(raw: Any) -> list[tuple[int, str]]:
    """The strings of a result the schema or the size limits refused, each with the index of the
    item it is in (0 for a result that is not a list): keys and values, depth first, at most as
    many characters as a valid result could hold."""
    budget = ITEMS_PER_CALL * (CONTENT_CHARS + TITLE_CHARS + METADATA_KEYS * 2 * METADATA_VALUE_CHARS)
    items = list(enumerate(raw)) if isinstance(raw, list | tuple) else [(0, raw)]
    found: list[tuple[int, str]] = []
    for index, item in items:
        stack = [item]
        while stack and budget > 0:
            value = stack.pop()
            if isinstance(value, str):
                found.append((index, value[:budget]))
                budget -= len(value)
            elif isinstance(value, dict):
                stack.extend(reversed([part for pair in value.items() for part in pair]))
            elif isinstance(value, list | tuple):
                stack.extend(reversed(value))
    return found


def _invalid(raw: Any, items: int | None) -> CallOutcome:
    """A result the schema or the size limits refused (VALIDATION_FAIL). Its strings are scanned
    all the same, so that an injection beside a malformed field is still INJECTION_DETECTED, which
    comes first (§3.4, §5; R-RS-1); offsets are into each string."""
    outcome = CallOutcome("invalid", {StopReason.VALIDATION_FAIL}, items=items or 0)
    found = _strings(raw)
    for (index, _), scan in zip(found, scan_many([text for _, text in found]), strict=True):
        outcome.hits.extend((index, hit) for hit in scan.hits)
        if scan.blocked:
            outcome.outcome = "injection"
            outcome.conditions.add(StopReason.INJECTION_DETECTED)
    return outcome


class _Job:
    """One tool call: run on a worker thread, watched by the adapter through ``done``."""

    def __init__(self, tool: Tool, query: str, limit: int) -> None:
        self.tool, self.query, self.limit = tool, query, limit
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.tool.search(self.query, self.limit)
        except BaseException as exc:  # reported to the adapter, which maps it (R-RS-4)
            self.error = exc
        finally:
            self.done.set()


class _Worker(threading.Thread):
    """A daemon thread that runs tool calls one after another, so that a deadline can abandon a
    call. Reused while calls finish in time, within a session and across sessions (starting a
    thread cost about half a millisecond); after a timeout it is abandoned: it ends once the late
    call returns, and its result is never read."""

    def __init__(self) -> None:
        super().__init__(name="rcs-research-tool", daemon=True)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.start()

    def submit(self, job: _Job) -> None:
        """Queue ``job``; it runs after any job before it."""
        self._jobs.put(job)

    def retire(self) -> None:
        """Let the thread end after whatever it is running."""
        self._jobs.put(None)

    def run(self) -> None:
        while (job := self._jobs.get()) is not None:
            job.run()


# Idle workers of ended sessions, each with nothing queued. A few are kept for the next sessions;
# more retire (sessions run at once each take their own).
_IDLE_KEPT = 4
_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _hire() -> _Worker:
    with _idle_lock:
        if _idle:
            return _idle.pop()
    return _Worker()


def _release(worker: _Worker) -> None:
    with _idle_lock:
        if len(_idle) < _IDLE_KEPT:
            _idle.append(worker)
            return
    worker.retire()


class Adapter:
    """Calls tools for one session: deadlines, validation, source ids, the injection scan."""

    def __init__(self, tools: Sequence[Tool], clock: Clock) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.clock = clock
        self._worker: _Worker | None = None

    def close(self) -> None:
        """Hand the worker thread (idle: every call it ran has returned) to the next session."""
        if self._worker is not None:
            _release(self._worker)
            self._worker = None

    def call(self, name: str, query: str, limit: int, timeout_s: float) -> CallOutcome:
        """Call tool ``name`` once under a ``timeout_s`` deadline and judge what it returned."""
        if self._worker is None:
            self._worker = _hire()
        job = _Job(self.tools[name], query, limit)
        self._worker.submit(job)
        if not self.clock.wait(job.done, timeout_s):
            # Abandoned: the late result is never read, the thread never reused.
            self._worker.retire()
            self._worker = None
            return CallOutcome("timeout", {StopReason.TIMEOUT})
        if isinstance(job.error, SandboxViolationError):
            return CallOutcome("sandbox_violation", {StopReason.SANDBOX_VIOLATION})
        if isinstance(job.error, ToolResultError):
            return CallOutcome("invalid", {StopReason.VALIDATION_FAIL})
        if job.error is not None:
            return CallOutcome("error", {StopReason.INTERNAL_INCONSISTENCY})
        raw = job.result
        try:
            result = ToolResult.model_validate({"items": list(raw)} if isinstance(raw, list | tuple) else raw)
        except (ValidationError, TypeError, ValueError):
            return _invalid(raw, None)
        texts = _scanned(result, limit)
        if texts is None:
            return _invalid(raw, len(result.items))
        return self._accept(name, result, texts)

    def _accept(self, name: str, result: ToolResult, texts: list[str]) -> CallOutcome:
        outcome = CallOutcome("ok", items=len(result.items))
        # Everything a tool returned is scanned (§3.4): title, locator, text and metadata values.
        scans = scan_many(texts)
        for index, (item, scan) in enumerate(zip(result.items, scans, strict=True)):
            flags: tuple[str, ...] = ()
            if scan.hits:  # most items: none
                outcome.hits.extend((index, hit) for hit in scan.hits)
                flags = scan.flags
                if scan.blocked:
                    outcome.outcome, outcome.conditions = "injection", {StopReason.INJECTION_DETECTED}
            title, metadata, content = item.title, item.metadata, item.content
            if not _visible_text(content):
                continue  # nothing to quote: not a source (§3.2: NO_SOURCE if no item has any)
            # Plain data: only the sources a bundle keeps become models (SourceBundle, once a session).
            outcome.sources.append(
                {
                    "source_id": source_id(name, item.locator, content),
                    "tool": name,
                    "locator": item.locator,
                    "title": title if isinstance(title, str) else "",
                    "content": content,
                    "metadata": dict(metadata) if isinstance(metadata, dict) else {},
                    "injection_risk_flag": bool(flags),
                    "flags": list(flags),
                }
            )
        return outcome


def make_tools(docs: str | None = None, web: str | None = None) -> list[Tool]:
    """The configured tools, in no particular order (the policy table orders them).

    Raises InvalidInputError for a docs folder that is not a directory or a bad web endpoint.
    """
    from rcs_contracts.runtime.research.tools.docs import DocsTool
    from rcs_contracts.runtime.research.tools.web import WebTool

    tools: list[Tool] = []
    if docs is not None:
        tools.append(DocsTool(docs))
    if web is not None:
        tools.append(WebTool(web))
    return tools
