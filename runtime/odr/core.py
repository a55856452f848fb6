"""The ODR round runner: an immutable state and ``run_round`` in the contract's locked order.

Locked state machine (odr-v1.md): ingest -> CODE_LEAK -> parse (SHAPE_VIOLATION) -> append Vn ->
MAX_ROUNDS -> DIFF_FLOOR -> CIRCULARITY -> metric-phase precedence (from the stop-rules table) ->
emit one trace record.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from rcs_contracts.generated.odr import errors as E
from rcs_contracts.generated.odr.config_schema import ODRConfig
from rcs_contracts.generated.odr.parse_result_schema import ArchitectParsed, AuditorParsed
from rcs_contracts.generated.odr.stop_rules import HEADERS, METRIC_PRECEDENCE, StopReason
from rcs_contracts.generated.odr.trace_record_schema import CodeLeakMatch, Metrics, SourcedParseError, TraceRecord
from rcs_contracts.runtime.odr.metrics import similarity, threshold
from rcs_contracts.runtime.odr.parsers import parse
from rcs_contracts.runtime.odr.text import normalized
from rcs_contracts.safeio.regex import LinearPattern, PatternError, compile_linear

SIDES = tuple(HEADERS)  # the parsers of the stop-rules table, architect first


@lru_cache(maxsize=64)  # mutation: equivalent: a cache size changes speed, not results
def compiled_patterns(patterns: tuple[str, ...]) -> tuple[LinearPattern, ...]:
    """The code-leak patterns, compiled once; ODRConfigError names the first that does not (R-ODR-8).

    They run on a linear-time engine (safeio.regex), so no pattern can make a round slow: a
    construct that needs backtracking (look-around, backreferences) is refused here, named.
    """
    result = []
    for index, pattern in enumerate(patterns):
        try:
            result.append(compile_linear(pattern))
        except PatternError as exc:
            raise E.pattern_does_not_compile(index=index, detail=exc.detail) from None
    return tuple(result)


@dataclass(frozen=True)
class ODRState:
    """An immutable run: its config, the requirements so far (Vn), the trace, and why it stopped."""

    config: ODRConfig = field(default_factory=ODRConfig)
    history_v: tuple[str, ...] = ()
    trace: tuple[TraceRecord, ...] = ()
    stable_count: int = 0
    stop_reason: str | None = None

    def __post_init__(self) -> None:
        # Pydantic's frozen models still hold mutable lists: the run keeps its own copy of the config.
        object.__setattr__(self, "config", self.config.model_copy(deep=True))
        compiled_patterns(tuple(self.config.code_leak_patterns))


def code_leaks(config: ODRConfig, architect: str, auditor: str) -> list[CodeLeakMatch]:
    """Every (side, pattern) that matched, architect first, patterns in order (R-ODR-7)."""
    found = []
    for side, text in zip(SIDES, (architect, auditor), strict=True):  # mutation: equivalent: two and two
        for pattern in compiled_patterns(tuple(config.code_leak_patterns)):
            if pattern.search(text):
                found.append(CodeLeakMatch(side=side, pattern=pattern.pattern))  # type: ignore[arg-type]
    return found


def run_round(state: ODRState, architect_raw: object, auditor_raw: object) -> ODRState:
    """Run one round; after a stop the very same state is returned and nothing is recorded (R-ODR-8)."""
    if state.stop_reason is not None:
        return state
    config = state.config
    n = len(state.trace) + 1
    architect, auditor = normalized(architect_raw), normalized(auditor_raw)
    record = {
        "round": n,
        "run_config": config.model_copy(deep=True),  # each record keeps the config it ran with
        "architect_raw": architect,
        "auditor_raw": auditor,
    }

    def metrics(
        hit: bool, stable: int, diff: float | None = None, prev: float | None = None, loop: float | None = None
    ) -> Metrics:
        return Metrics(code_leak_hit=hit, n=n, diff_ratio=diff, sim_prev=prev, sim_loop=loop, stable_count=stable)

    def stopped(reason: StopReason, **fields: object) -> ODRState:
        trace = TraceRecord(**record, **fields, stop_reason=reason.value)  # type: ignore[arg-type]
        return replace(state, trace=(*state.trace, trace), stop_reason=reason.value)

    leaks = code_leaks(config, architect, auditor)
    if leaks:
        return stopped(
            StopReason.CODE_LEAK,
            architect_parsed=None,
            auditor_parsed=None,
            parse_errors=[],
            metrics=metrics(True, state.stable_count),
            code_leak_matches=leaks,
        )
    pairs = zip(SIDES, (architect, auditor), strict=True)  # mutation: equivalent: two and two
    parsed = {side: parse(side, text) for side, text in pairs}
    failures = [
        SourcedParseError(source=side, code=result.error.code, message=result.error.message)  # type: ignore[arg-type]
        for side, result in parsed.items()
        if result.error is not None  # a result has an error exactly when it is not ok
    ]
    if failures:
        return stopped(
            StopReason.SHAPE_VIOLATION,
            architect_parsed=None,
            auditor_parsed=None,
            parse_errors=failures,
            metrics=metrics(False, state.stable_count),
            code_leak_matches=[],
        )
    architect_parsed, auditor_parsed = (parsed[side].data for side in SIDES)
    assert isinstance(architect_parsed, ArchitectParsed) and isinstance(auditor_parsed, AuditorParsed)
    history = (*state.history_v, architect_parsed.requirement)
    vn = history[-1]
    fired = {reason: False for reason in METRIC_PRECEDENCE}
    fired[StopReason.MAX_ROUNDS] = n == config.max_rounds
    diff_ratio = sim_prev = sim_loop = None
    stable = state.stable_count
    if len(history) >= 2:
        # Decided in exact arithmetic on the shingle counts; recorded as floats.
        prev = similarity(vn, history[-2], config.shingle_k)
        diff = 1 - prev
        diff_ratio = float(diff)
        stable = stable + 1 if diff < threshold(config.diff_floor_pct) else 0  # strict < (R-ODR-3)
        fired[StopReason.DIFF_FLOOR] = stable >= config.stable_rounds
        if len(history) >= 3:
            loop = similarity(vn, history[-3], config.shingle_k)
            sim_prev, sim_loop = float(prev), float(loop)
            # strict > on the margin, inclusive floor (R-ODR-4)
            fired[StopReason.CIRCULARITY] = loop > prev + threshold(config.margin) and loop >= threshold(
                config.min_loop_sim
            )
    reason = next((r for r in METRIC_PRECEDENCE if fired[r]), None)
    trace = TraceRecord(
        **record,  # type: ignore[arg-type]
        architect_parsed=architect_parsed,
        auditor_parsed=auditor_parsed,
        parse_errors=[],
        metrics=metrics(False, stable, diff_ratio, sim_prev, sim_loop),
        code_leak_matches=[],
        stop_reason=None if reason is None else reason.value,
    )
    return ODRState(
        config=config,
        history_v=history,
        trace=(*state.trace, trace),
        stable_count=stable,
        stop_reason=None if reason is None else reason.value,
    )
