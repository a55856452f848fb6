"""Trace-integrity rules (runtime/odr/checks.py), one broken field at a time, with the exact messages.

These kill mutants bench/mutation.py found alive: dropped branches of ``check_trace_record``,
swapped comparisons at the round boundaries, and a changed TRACE_SHAPE_MISMATCH message.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rcs_contracts.engine.kinds import resolve
from rcs_contracts.engine.validation import Context, violations
from rcs_contracts.generated.odr import errors as ERRORS
from rcs_contracts.runtime.odr import ODRState, run_round
from tests.odr.helpers import AUDITOR, A, B, architect

LEAK = "```\nprint('x')\n```"
SHAPE_MESSAGE = "parse_errors must be non-empty exactly on a SHAPE_VIOLATION record"


def records(*outputs: str) -> list[dict[str, Any]]:
    """The trace of one round per architect output (auditor fixed), as JSON values."""
    state = ODRState()
    for output in outputs:
        state = run_round(state, output, AUDITOR)
    return [r.model_dump(mode="json", by_alias=True) for r in state.trace]


def check(record: dict[str, Any]) -> list[tuple[str, str, tuple[str | int, ...]]]:
    """Every violation of one trace record: (error class, message, location)."""
    found = violations(resolve("odr/trace_record"), json.dumps(record), Context())
    return [(type(e).__name__, str(e), e.location) for e in found]


def shape_record() -> dict[str, Any]:
    [record] = records("no headers at all")
    assert record["stop_reason"] == "SHAPE_VIOLATION" and record["parse_errors"]
    return record


def leak_record() -> dict[str, Any]:
    [record] = records(architect(A) + LEAK)
    assert record["stop_reason"] == "CODE_LEAK"
    return record


def third_round() -> dict[str, Any]:
    record = records(architect(A), architect(B), architect(A))[2]
    assert record["round"] == 3 and record["metrics"]["sim_prev"] is not None
    return record


def second_round() -> dict[str, Any]:
    record = records(architect(A), architect(B))[1]
    assert record["round"] == 2 and record["metrics"]["diff_ratio"] is not None
    return record


def test_the_trace_shape_mismatch_message_is_the_contracts() -> None:
    assert ERRORS.MESSAGES[ERRORS.ErrorCode.TRACE_SHAPE_MISMATCH] == SHAPE_MESSAGE
    assert str(ERRORS.trace_shape_mismatch(location=("parse_errors",))) == SHAPE_MESSAGE


def test_records_the_runner_writes_are_valid() -> None:
    for record in (shape_record(), leak_record(), second_round(), third_round()):
        assert check(record) == []


def test_a_shape_violation_without_parse_errors_is_a_mismatch() -> None:
    record = shape_record()
    record["parse_errors"] = []
    assert check(record) == [("TraceIntegrityError", SHAPE_MESSAGE, ("parse_errors",))]


def test_parse_errors_on_a_record_that_parsed_are_a_mismatch() -> None:
    record = second_round()
    record["parse_errors"] = shape_record()["parse_errors"]
    assert check(record) == [("TraceIntegrityError", SHAPE_MESSAGE, ("parse_errors",))]


def test_an_unknown_parse_error_code_is_reported() -> None:
    record = shape_record()
    record["parse_errors"][0]["code"] = "BOGUS"
    assert check(record) == [
        (
            "TraceIntegrityError",
            "Unknown parse error code: BOGUS (known: EMPTY_INPUT, DUPLICATE_HEADER, MISSING_HEADER, "
            "HEADER_OUT_OF_ORDER, EMPTY_REQUIREMENT)",
            ("parse_errors", 0, "code"),
        )
    ]


@pytest.mark.parametrize("field", ["diff_ratio", "sim_prev", "sim_loop"])
def test_an_early_stop_carries_no_metrics(field: str) -> None:
    for record, reason in ((shape_record(), "SHAPE_VIOLATION"), (leak_record(), "CODE_LEAK")):
        record["metrics"][field] = 0.5
        assert check(record) == [
            (
                "TraceIntegrityError",
                f"metrics.{field} must be null on this record (round 1, stop_reason {reason})",
                ("metrics", field),
            )
        ]


def test_similarities_are_null_before_round_three() -> None:
    record = second_round()
    record["metrics"]["sim_prev"] = 0.5
    assert check(record) == [
        (
            "TraceIntegrityError",
            "metrics.sim_prev must be null on this record (round 2, stop_reason None)",
            ("metrics", "sim_prev"),
        )
    ]


def test_the_diff_ratio_is_a_number_from_round_two() -> None:
    record = second_round()
    record["metrics"]["diff_ratio"] = None
    assert check(record) == [
        (
            "TraceIntegrityError",
            "metrics.diff_ratio must be a number on this record (round 2)",
            ("metrics", "diff_ratio"),
        )
    ]


@pytest.mark.parametrize("field", ["sim_prev", "sim_loop"])
def test_similarities_are_numbers_from_round_three(field: str) -> None:
    record = third_round()
    record["metrics"][field] = None
    assert check(record) == [
        ("TraceIntegrityError", f"metrics.{field} must be a number on this record (round 3)", ("metrics", field))
    ]


@pytest.mark.parametrize("field", ["architect_parsed", "auditor_parsed"])
def test_an_early_stop_carries_no_parsed_outputs(field: str) -> None:
    parsed = second_round()[field]
    for record, reason in ((shape_record(), "SHAPE_VIOLATION"), (leak_record(), "CODE_LEAK")):
        record[field] = parsed
        assert check(record) == [("TraceIntegrityError", f"{field} must be null on a {reason} record", (field,))]


@pytest.mark.parametrize("field", ["architect_parsed", "auditor_parsed"])
def test_a_record_that_parsed_carries_both_outputs(field: str) -> None:
    record = second_round()
    record[field] = None
    assert check(record) == [("TraceIntegrityError", f"{field} must not be null when both outputs parsed", (field,))]


def test_code_leak_fields_must_agree() -> None:
    message = "code_leak_hit, code_leak_matches and stop_reason CODE_LEAK must agree"
    record = leak_record()
    record["code_leak_matches"] = []
    assert check(record) == [("TraceIntegrityError", message, ("code_leak_matches",))]
    record = second_round()
    record["metrics"]["code_leak_hit"] = True
    assert check(record) == [("TraceIntegrityError", message, ("code_leak_matches",))]


def test_a_bad_pattern_in_the_run_config_is_reported_where_it_is() -> None:
    record = second_round()
    record["run_config"]["code_leak_patterns"] = ["ok", "(?<=a+)b"]
    [(cls, message, location)] = check(record)
    assert (cls, location) == ("ODRConfigError", ("run_config", "code_leak_patterns", 1))
    assert message.startswith("code_leak_patterns[1] does not compile: ")
