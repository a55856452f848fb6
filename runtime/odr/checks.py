"""Trace records: the rules the trace schema cannot express (``rcs validate --kind odr/trace_record``)."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

from pydantic import BaseModel

from rcs_contracts.engine.validation import Check, Context
from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.odr import errors as ERRORS
from rcs_contracts.generated.odr.config_schema import ODRConfig
from rcs_contracts.generated.odr.stop_rules import ParseErrorCode, StopReason
from rcs_contracts.generated.odr.trace_record_schema import TraceRecord
from rcs_contracts.safeio.regex import PatternError, compile_linear

# Records that stop before the metric phase carry no parse results and no similarity metrics.
_EARLY = frozenset({StopReason.CODE_LEAK.value, StopReason.SHAPE_VIOLATION.value})


def check_trace_record(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Known codes, R-ODR-5 nullability, and fields that must agree with each other."""
    assert isinstance(model, TraceRecord)
    yield from pattern_violations(model.run_config.code_leak_patterns, ("run_config", "code_leak_patterns"))
    reason = model.stop_reason
    if reason is not None and reason not in StopReason.__members__:
        yield ERRORS.trace_unknown_code(
            what="stop_reason", value=reason, known=", ".join(StopReason), location=("stop_reason",)
        )
    for index, error in enumerate(model.parse_errors):
        if error.code not in ParseErrorCode.__members__:
            yield ERRORS.trace_unknown_code(
                what="parse error code",
                value=error.code,
                known=", ".join(ParseErrorCode),
                location=("parse_errors", index, "code"),
            )
    metrics = model.metrics
    if metrics.n != model.round:
        yield ERRORS.trace_round_mismatch(n=metrics.n, round=model.round, location=("metrics", "n"))
    leak = reason == StopReason.CODE_LEAK.value
    if not (leak == metrics.code_leak_hit == bool(model.code_leak_matches)):
        yield ERRORS.trace_code_leak_mismatch(location=("code_leak_matches",))
    if (reason == StopReason.SHAPE_VIOLATION.value) != bool(model.parse_errors):
        yield ERRORS.trace_shape_mismatch(location=("parse_errors",))
    early = reason in _EARLY
    for field, first_round in (("diff_ratio", 2), ("sim_prev", 3), ("sim_loop", 3)):
        value = getattr(metrics, field)
        if (early or model.round < first_round) and value is not None:
            yield ERRORS.trace_metric_not_null(
                field=field, round=model.round, reason=str(reason), location=("metrics", field)
            )
        elif not early and model.round >= first_round and value is None:
            yield ERRORS.trace_metric_null(field=field, round=model.round, location=("metrics", field))
    for field in ("architect_parsed", "auditor_parsed"):
        value = getattr(model, field)
        if early and value is not None:
            yield ERRORS.trace_parsed_not_null(field=field, reason=str(reason), location=(field,))
        elif not early and value is None:
            yield ERRORS.trace_parsed_null(field=field, location=(field,))


def pattern_violations(patterns: list[str], where: tuple[str | int, ...]) -> Iterator[RcsError]:
    """Each code-leak pattern the runner's engine refuses (R-ODR-8): ``rcs validate`` and ``rcs odr run``
    accept exactly the same configs."""
    for index, pattern in enumerate(patterns):
        try:
            compile_linear(pattern)
        except PatternError as exc:
            yield ERRORS.pattern_does_not_compile(index=index, detail=exc.detail, location=(*where, index))


def check_config(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """An ODR config: its patterns compile on the runner's engine."""
    assert isinstance(model, ODRConfig)
    yield from pattern_violations(model.code_leak_patterns, ("code_leak_patterns",))


CHECKS: MappingProxyType[str, Check] = MappingProxyType({"config": check_config, "trace_record": check_trace_record})
