"""ODR v1: the contract's six acceptance tests and rulings R-ODR-1..9."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError

import pytest
from pydantic import ValidationError

from rcs_contracts.runtime.odr import (
    ODRConfig,
    ODRConfigError,
    ODRState,
    TraceRecord,
    jaccard,
    parse_architect,
    parse_auditor,
    run_round,
)
from tests.odr.helpers import A2, AUDITOR, A, B, architect, run, words

NULL_METRICS = ("diff_ratio", "sim_prev", "sim_loop")


def dump(state: ODRState) -> list[dict[str, object]]:
    return [r.model_dump(mode="json", by_alias=True) for r in state.trace]


# --- acceptance tests (odr-v1.md) --------------------------------------------------------------


@pytest.mark.parametrize("side", ["architect", "auditor"])
def test_1_code_leak_triggers_and_parsed_fields_are_null(side: str) -> None:
    leak = "```\nprint('x')\n```"
    arch = architect("Keep reports ninety days.") + (leak if side == "architect" else "")
    aud = AUDITOR + (leak if side == "auditor" else "")
    state = run_round(ODRState(), arch, aud)
    [record] = dump(state)
    assert state.stop_reason == record["stop_reason"] == "CODE_LEAK"
    assert record["architect_parsed"] is None and record["auditor_parsed"] is None
    assert record["parse_errors"] == []
    assert record["metrics"]["code_leak_hit"] is True
    assert all(record["metrics"][m] is None for m in NULL_METRICS)
    assert record["code_leak_matches"] == [{"side": side, "pattern": "(?s)```.*?```"}]
    assert state.history_v == ()


def test_2_diff_floor_triggers() -> None:
    state = run([A, A, A])
    assert state.stop_reason == "DIFF_FLOOR"
    assert [r["metrics"]["stable_count"] for r in dump(state)] == [0, 1, 2]
    assert [r["metrics"]["diff_ratio"] for r in dump(state)] == [None, 0.0, 0.0]


def test_3_circularity_triggers() -> None:
    state = run([A, B, A2], shingle_k=1, diff_floor_pct=0.3)
    last = dump(state)[-1]
    assert state.stop_reason == "CIRCULARITY"
    assert last["metrics"]["sim_loop"] == pytest.approx(8 / 12)
    assert last["metrics"]["sim_prev"] == pytest.approx(7 / 13)


@pytest.mark.parametrize(
    "arch,aud,errors",
    [
        (
            architect("x").replace("### CHANGELOG", "### CHANGES"),
            AUDITOR,
            [("architect", "MISSING_HEADER", "Missing required header(s): CHANGELOG")],
        ),
        (
            architect("x"),
            AUDITOR.replace("### PATCHES", "## PATCHES").replace("### TEST_GAPS", "TEST_GAPS"),
            [("auditor", "MISSING_HEADER", "Missing required header(s): PATCHES, TEST_GAPS")],
        ),
        (
            "",
            "  \n\t",
            [
                ("architect", "EMPTY_INPUT", "The architect output is empty"),
                ("auditor", "EMPTY_INPUT", "The auditor output is empty"),
            ],
        ),
    ],
    ids=["architect", "auditor", "both"],
)
def test_4_shape_violation_records_one_error_per_failing_parser(
    arch: str, aud: str, errors: list[tuple[str, ...]]
) -> None:
    state = run_round(ODRState(), arch, aud)
    [record] = dump(state)
    assert state.stop_reason == "SHAPE_VIOLATION"
    assert [(e["source"], e["code"], e["message"]) for e in record["parse_errors"]] == errors
    assert record["architect_parsed"] is None and record["auditor_parsed"] is None
    assert all(record["metrics"][m] is None for m in NULL_METRICS)
    assert record["metrics"]["code_leak_hit"] is False


def test_5_max_rounds_when_n_equals_max_rounds() -> None:
    texts = [" ".join(words(f"r{i}x", 12)) for i in range(3)]
    state = run(texts, max_rounds=3)
    assert [r["stop_reason"] for r in dump(state)] == [None, None, "MAX_ROUNDS"]
    assert len(state.trace) == 3


def test_6_trace_completeness_and_nullability() -> None:
    state = run([A, B, A2, A], shingle_k=1, max_rounds=8, diff_floor_pct=0.0, min_loop_sim=1.0)
    records = dump(state)
    assert len(records) == len(state.history_v) == 4 and state.stop_reason is None
    for n, record in enumerate(records, 1):
        assert record["round"] == record["metrics"]["n"] == n
        assert record["run_config"] == ODRConfig(shingle_k=1, diff_floor_pct=0.0, min_loop_sim=1.0).model_dump(
            mode="json"
        )
        assert record["parse_errors"] == [] and record["code_leak_matches"] == []
        assert record["architect_parsed"]["requirement"] == state.history_v[n - 1]
        assert (record["metrics"]["diff_ratio"] is None) == (n < 2)
        assert (record["metrics"]["sim_prev"] is None) == (record["metrics"]["sim_loop"] is None) == (n < 3)


# --- rulings -----------------------------------------------------------------------------------


def test_r_odr_1_requirement_body_is_kept_verbatim_inside() -> None:
    body = "  Line one  keeps  its spacing.\r\n\r\n- a list marker stays\r\n\tindented line\r\n\n"
    result = parse_architect("### REQUIREMENT\r\n" + body + "### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONS")
    assert result.ok and result.data is not None
    assert result.data.requirement == "Line one  keeps  its spacing.\n\n- a list marker stays\n\tindented line"


@pytest.mark.parametrize(
    "a,b,k,expected",
    [
        ("The Cache, MUST expire!", "the cache must EXPIRE", 3, 1.0),
        ("one two", "one two", 3, 1.0),
        ("one two", "two one", 3, 0.0),
        ("", "", 3, 1.0),
        ("a b c d", "a b c e", 3, 1 / 3),
        ("café naïve 42 ½", "CAFÉ NAÏVE 42", 2, 1.0),  # ½ is not a decimal digit: it becomes a space
        ("x_y", "x y", 1, 1.0),  # the underscore is punctuation
    ],
)
def test_r_odr_2_similarity(a: str, b: str, k: int, expected: float) -> None:
    assert jaccard(a, b, k) == pytest.approx(expected)


def test_r_odr_3_content_blind_length_would_converge_but_words_do_not() -> None:
    yes = "The export job must include archived reports in every nightly run."
    no_ = "The export job must exclude archived reports from any nightly run."
    assert len(yes) == len(no_)
    state = run([yes, no_])
    assert state.stop_reason is None and state.stable_count == 0
    assert dump(state)[-1]["metrics"]["diff_ratio"] > 0.5  # a length ratio would say 0.0


def test_r_odr_3_strict_floor_and_reset() -> None:
    assert run([A, A], diff_floor_pct=0.0).stable_count == 0  # 0.0 < 0.0 is false
    state = run([A, A, B, B], stable_rounds=3)
    assert [r["metrics"]["stable_count"] for r in dump(state)] == [0, 1, 0, 1]


def test_r_odr_4_margin_is_strict_and_floor_inclusive() -> None:
    # k=1: J(C2, C) = 6/8 = 0.75 and J(C2, D) = 4/10 = 0.4, so the exact tie is margin 0.35.
    c, d, c2 = " ".join(words("w", 8)), " ".join(words("w", 4) + words("z", 4)), " ".join(words("w", 6))
    assert run([c, d, c2], shingle_k=1, margin=0.35).stop_reason is None  # 0.75 > 0.4 + 0.35 is false
    assert run([c, d, c2], shingle_k=1, margin=0.34).stop_reason == "CIRCULARITY"
    assert run([c, d, c2], shingle_k=1, min_loop_sim=0.75).stop_reason == "CIRCULARITY"  # 0.75 >= 0.75
    assert run([c, d, c2], shingle_k=1, min_loop_sim=0.76).stop_reason is None


def test_r_odr_3_exact_tie_with_the_floor_is_not_below_it() -> None:
    """J = 9/10 gives diff_ratio 1/10 exactly; 1/10 < 0.1 is false (floats would say 0.0999... < 0.1)."""
    full = " ".join(words("q", 12))
    short = " ".join(words("q", 11))
    tie = run([full, short], diff_floor_pct=0.1, stable_rounds=1)
    assert tie.stop_reason is None and dump(tie)[-1]["metrics"]["diff_ratio"] == 0.1
    assert run([full, short], diff_floor_pct=0.1000001, stable_rounds=1).stop_reason == "DIFF_FLOOR"


def test_r_odr_5_metrics_recorded_when_a_higher_stop_wins() -> None:
    state = run([A, B, A2], shingle_k=1, diff_floor_pct=0.5, stable_rounds=1, max_rounds=3)
    last = dump(state)[-1]
    assert state.stop_reason == "MAX_ROUNDS"
    assert last["metrics"]["diff_ratio"] == pytest.approx(1 - 7 / 13)
    assert last["metrics"]["sim_loop"] == pytest.approx(8 / 12)
    assert last["metrics"]["stable_count"] == 1


@pytest.mark.parametrize(
    "config,winner",
    [
        ({"max_rounds": 3}, "MAX_ROUNDS"),  # all three fire
        ({}, "DIFF_FLOOR"),  # DIFF_FLOOR and CIRCULARITY fire
        ({"diff_floor_pct": 0.3}, "CIRCULARITY"),  # only CIRCULARITY
    ],
)
def test_precedence_when_several_stops_fire(config: dict[str, object], winner: str) -> None:
    base: dict[str, object] = {"shingle_k": 1, "diff_floor_pct": 0.5, "stable_rounds": 1}
    state = run([A, B, A2], **(base | config))
    assert state.stop_reason == winner and len(state.trace) == 3


@pytest.mark.parametrize(
    "text,code",
    [
        ("### requirement\nx\n###\tChangelog\n### assumptions\n### Open_Questions\n", None),
        ("\ufeff### REQUIREMENT\nx\n### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONS\n", None),
        ("   ### REQUIREMENT   \nx\n### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONS\n", None),
        ("### REQUIREMENT\nx\n### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONſ\n", "MISSING_HEADER"),
        ("###REQUIREMENT\nx\n### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONS\n", "MISSING_HEADER"),
        ("preamble\n### REQUIREMENT\nx\n### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONS\n", "HEADER_OUT_OF_ORDER"),
        ("### CHANGELOG\n### REQUIREMENT\nx\n### ASSUMPTIONS\n### OPEN_QUESTIONS\n", "HEADER_OUT_OF_ORDER"),
        ("### REQUIREMENT\n \n### CHANGELOG\n### ASSUMPTIONS\n### OPEN_QUESTIONS\n", "EMPTY_REQUIREMENT"),
        ("### REQUIREMENT\nx\n### REQUIREMENT\ny\n### ASSUMPTIONS\n", "DUPLICATE_HEADER"),  # before MISSING
        ("\ufeff \n\n", "EMPTY_INPUT"),
    ],
)
def test_r_odr_6_headers(text: str, code: str | None) -> None:
    result = parse_architect(text)
    assert result.ok is (code is None)
    assert (result.error.code if result.error else None) == code


def test_r_odr_6_missing_lists_every_header_and_lists_drop_markers() -> None:
    result = parse_auditor("### PATCHES\n")
    assert result.error is not None
    assert result.error.message == "Missing required header(s): CRITIQUE, EDGE_CASES, TEST_GAPS"
    ok = parse_auditor("### CRITIQUE\n- one\n\n  -  two  \nthree\n-four\n### PATCHES\n### EDGE_CASES\n### TEST_GAPS\n")
    assert ok.data is not None and ok.data.model_dump()["critique"] == ["one", "two", "three", "-four"]


def test_r_odr_7_each_pattern_each_side_after_normalisation() -> None:
    config = ODRConfig(code_leak_patterns=["(?m)^SELECT$", "\\bpip\\b"])
    arch = architect("Keep it.") + "SELECT\r\nmore"
    aud = AUDITOR + "use pip here\rSELECT\r"
    [record] = dump(run_round(ODRState(config=config), arch, aud))
    assert record["code_leak_matches"] == [
        {"side": "architect", "pattern": "(?m)^SELECT$"},
        {"side": "auditor", "pattern": "(?m)^SELECT$"},
        {"side": "auditor", "pattern": "\\bpip\\b"},
    ]
    assert "\r" not in record["architect_raw"] + record["auditor_raw"]


def test_r_odr_8_state_is_immutable_and_stops_are_no_ops() -> None:
    start = ODRState()
    after = run_round(start, architect(A), AUDITOR)
    assert start.trace == () and start.history_v == () and after is not start
    with pytest.raises(FrozenInstanceError):
        after.stop_reason = "X"  # type: ignore[misc]
    stopped = run([A, A, A])
    assert run_round(stopped, architect(B), AUDITOR) is stopped
    assert len(stopped.trace) == 3


def test_r_odr_8_mutating_a_config_afterwards_changes_nothing() -> None:
    config = ODRConfig()
    state = run_round(ODRState(config=config), architect(A), AUDITOR)
    config.code_leak_patterns.clear()  # pydantic's frozen models still hold plain lists
    assert state.config.code_leak_patterns == ODRConfig().code_leak_patterns
    assert state.trace[0].run_config.code_leak_patterns == ODRConfig().code_leak_patterns
    leaked = run_round(state, architect(B) + "\ndef f(): pass", AUDITOR)
    assert leaked.stop_reason == "CODE_LEAK"


@pytest.mark.parametrize(
    "field,value",
    [
        ("max_rounds", 0),
        ("shingle_k", 0),
        ("stable_rounds", 0),
        ("diff_floor_pct", -0.1),
        ("min_loop_sim", 1.01),
        ("margin", -0.01),
        ("max_rounds", "3"),
    ],
)
def test_r_odr_8_config_ranges(field: str, value: object) -> None:
    with pytest.raises(ValidationError):
        ODRConfig(**{field: value})


def test_r_odr_8_patterns_must_compile() -> None:
    with pytest.raises(ODRConfigError) as info:
        ODRState(config=ODRConfig(code_leak_patterns=["ok", "(unclosed"]))
    assert str(info.value).startswith("code_leak_patterns[1] does not compile: unclosed group")


def test_r_odr_9_trace_fields_exactly() -> None:
    record = dump(run([A]))[0]
    assert list(record) == [
        "round",
        "run_config",
        "architect_raw",
        "auditor_raw",
        "architect_parsed",
        "auditor_parsed",
        "parse_errors",
        "metrics",
        "code_leak_matches",
        "stop_reason",
    ]
    assert list(record["metrics"]) == ["code_leak_hit", "n", "diff_ratio", "sim_prev", "sim_loop", "stable_count"]
    TraceRecord.model_validate_json(json.dumps(record))


def test_defaults_come_from_the_schema() -> None:
    from tests.conftest import ROOT

    schema = json.loads((ROOT / "schemas/odr/config.schema.json").read_text())
    defaults = {k: v["default"] for k, v in schema["properties"].items() if "default" in v}
    assert ODRConfig().model_dump() == defaults
    assert ODRState().config == ODRConfig()


def test_spec_worked_example() -> None:
    """The worked example of SPEC.md 7.3, number for number."""
    state = run(
        [
            "The cache must expire entries after ten minutes.",
            "The cache must expire entries after five minutes.",
            "The cache must expire entries after ten minutes, not later.",
        ]
    )
    rows = [
        (r["metrics"]["diff_ratio"], r["metrics"]["sim_prev"], r["metrics"]["sim_loop"], r["stop_reason"])
        for r in dump(state)
    ]
    assert rows == [(None, None, None, None), (0.5, None, None, None), (0.6, 0.4, 0.75, "CIRCULARITY")]


def test_spec_cites_every_odr_ruling() -> None:
    from tests.conftest import ROOT

    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    assert all(f"R-ODR-{n}" in spec for n in range(1, 10))
    assert "<!-- generated:odr-stop_rules " in spec
