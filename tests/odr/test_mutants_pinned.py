"""Behaviour bench/mutation.py found unpinned in runtime/odr, each checked against SPEC.md 7 / RULINGS.md.

`rcs odr run` error paths with their exact text (the unreadable-file and not-UTF-8 reasons, a config
error with and without a location, JSON's lack of NaN), the trace written as UTF-8 JSON, the frozen
state, each record's own ``run_config``, a non-text output read as '' (EMPTY_INPUT), and R-ODR-2's
"fewer than k words" rule at exactly k words.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

from rcs_contracts.runtime.cli import main
from rcs_contracts.runtime.odr import ODRConfig, ODRState, run_round
from rcs_contracts.runtime.odr.metrics import jaccard, similarity
from rcs_contracts.safeio import yaml_data
from tests.conftest import ROOT, run_python
from tests.odr.helpers import AUDITOR, A, architect


def rcs(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The real CLI entry in-process: (exit status, stdout, stderr)."""
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rounds_file(tmp_path: Path, *rounds: dict[str, object]) -> Path:
    path = tmp_path / "rounds.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rounds), encoding="utf-8")
    return path


# --- rcs odr run: unreadable inputs (messages.yaml UNREADABLE: "{path}: cannot read: {reason}") ---


def test_a_missing_rounds_file_names_the_os_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.jsonl"
    status, out, err = rcs(capsys, "odr", "run", str(missing))
    assert (status, out) == (2, "")
    assert err == f"rcs odr: {missing}: cannot read: No such file or directory\n"


def test_a_missing_config_file_names_the_config_and_the_os_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rounds = rounds_file(tmp_path, {"architect": architect(A), "auditor": AUDITOR})
    missing = tmp_path / "config.json"
    status, out, err = rcs(capsys, "odr", "run", str(rounds), "--config", str(missing))
    assert (status, out) == (2, "")  # nothing ran
    assert err == f"rcs odr: {missing}: cannot read: No such file or directory\n"


def test_a_rounds_file_that_is_not_utf8_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rounds.jsonl"
    path.write_bytes(b"\xff\xfe\n")
    status, out, err = rcs(capsys, "odr", "run", str(path))
    assert (status, out) == (2, "")
    assert err == f"rcs odr: {path}: cannot read: not UTF-8 (invalid start byte)\n"


def test_a_bad_byte_on_a_late_line_leaves_the_earlier_records_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rounds.jsonl"
    good = json.dumps({"architect": architect(A), "auditor": AUDITOR}).encode()
    path.write_bytes(good + b"\n" + b'{"architect": "\xc3"}\n')
    status, out, err = rcs(capsys, "odr", "run", str(path))
    assert status == 2
    assert [json.loads(line)["round"] for line in out.splitlines()] == [1]
    assert err == f"rcs odr: {path}: cannot read: not UTF-8 (invalid continuation byte)\n"


# --- rcs odr run: an invalid config (ODR_BAD_CONFIG: "{path}: invalid ODR config: {detail}") ---


def test_a_config_violation_names_its_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rounds = rounds_file(tmp_path, {"architect": architect(A), "auditor": AUDITOR})
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"max_rounds": 0}))
    status, out, err = rcs(capsys, "odr", "run", str(rounds), "--config", str(config))
    assert (status, out) == (2, "")
    assert err == f"rcs odr: {config}: invalid ODR config: 0 is less than the minimum of 1 (at $.max_rounds)\n"


def test_a_config_that_is_not_json_has_no_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rounds = rounds_file(tmp_path, {"architect": architect(A), "auditor": AUDITOR})
    config = tmp_path / "config.json"
    config.write_text("{\n")
    status, out, err = rcs(capsys, "odr", "run", str(rounds), "--config", str(config))
    assert (status, out) == (2, "")
    assert (
        err == f"rcs odr: {config}: invalid ODR config: Invalid JSON: EOF while parsing an object at line 2 column 0\n"
    )


# --- rcs odr run: a round line is JSON (RFC 8259 has no NaN or Infinity) ---


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("NaN", "expected value at line 1 column 15"),
        ("Infinity", "expected value at line 1 column 15"),
        ("-Infinity", "invalid number at line 1 column 16"),
    ],
)
def test_nan_and_infinity_are_not_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, detail: str
) -> None:
    path = tmp_path / "rounds.jsonl"
    path.write_text(f'{{"architect": {value}, "auditor": ""}}\n', encoding="utf-8")
    status, out, err = rcs(capsys, "odr", "run", str(path))
    assert (status, out) == (2, "")
    assert err == f"rcs odr: {path}: line 1: not JSON: {detail}\n"


# --- rcs odr run: the trace is UTF-8 JSON, one record per line (SPEC 7.5, 11.6) ---


def test_the_trace_keeps_non_ascii_text_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only control, separator and bidi characters are escaped in JSON output (SPEC 11.6); "é" is a character."""
    requirement = "Le cache expire après dix minutes: naïve café, 検索, Ωmega."
    path = rounds_file(tmp_path, {"architect": architect(requirement), "auditor": AUDITOR})
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"max_rounds": 1}))
    status, out, err = rcs(capsys, "odr", "run", str(path), "--config", str(config))
    assert status == 0, err
    [line] = out.splitlines()
    assert requirement in line and "\\u" not in line
    expected = run_round(ODRState(config=ODRConfig(max_rounds=1)), architect(requirement), AUDITOR).trace[0]
    assert json.loads(line) == expected.model_dump(mode="json", by_alias=True)
    assert json.loads(line)["architect_parsed"]["requirement"] == requirement
    assert err == "rcs odr: 1 round(s) run; stopped: MAX_ROUNDS (stable_count=0)\n"


# --- the state and its records (SPEC 7.1, 7.4; R-ODR-8) ---


FROZEN = """
import dataclasses
from rcs_contracts.runtime.odr import ODRState, run_round
from tests.odr.helpers import AUDITOR, A, architect

state = run_round(ODRState(), architect(A), AUDITOR)
refused = []
for name, value in (("stop_reason", "MAX_ROUNDS"), ("stable_count", 5), ("trace", ()), ("history_v", ())):
    try:
        setattr(state, name, value)
    except dataclasses.FrozenInstanceError:
        refused.append(name)
print(refused, state.stop_reason, state.stable_count, len(state.trace), state.history_v == (A,))
"""


def test_the_state_is_a_frozen_dataclass() -> None:
    """In a fresh interpreter: the class is made at import, so this is checked where it is made."""
    result = run_python(FROZEN, ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "['stop_reason', 'stable_count', 'trace', 'history_v'] None 0 1 True\n"
    state = run_round(ODRState(), architect(A), AUDITOR)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.stop_reason = "MAX_ROUNDS"  # type: ignore[misc]


def test_a_record_keeps_the_config_it_ran_with() -> None:
    """Mutating a config afterwards changes no past record (SPEC 7.4: every record its own run_config)."""
    defaults = list(ODRConfig().code_leak_patterns)
    before = ODRState()
    after = run_round(before, architect(A), AUDITOR)
    record = after.trace[0]
    before.config.code_leak_patterns.append("changed")
    assert record.run_config.code_leak_patterns == defaults
    record.run_config.code_leak_patterns.clear()
    assert after.config.code_leak_patterns == defaults
    assert run_round(after, architect(A), AUDITOR).trace[1].run_config.code_leak_patterns == defaults


def test_the_next_record_has_its_own_run_config_too() -> None:
    state = run_round(run_round(ODRState(), architect(A), AUDITOR), architect(A), AUDITOR)
    first, second = state.trace
    first.run_config.code_leak_patterns.append("only in the first")
    assert "only in the first" not in second.run_config.code_leak_patterns
    assert "only in the first" not in state.config.code_leak_patterns


@pytest.mark.parametrize("raw", [None, 42, 1.5, ["### REQUIREMENT"]])
def test_an_output_that_is_not_text_is_recorded_as_empty(raw: object) -> None:
    """A non-text output is '' in the trace and EMPTY_INPUT for its parser (SPEC 7.2), not a crash."""
    state = run_round(ODRState(), raw, AUDITOR)
    [record] = state.trace
    assert record.architect_raw == "" and record.auditor_raw == AUDITOR
    assert state.stop_reason == "SHAPE_VIOLATION"
    assert [(e.source, e.code, e.message) for e in record.parse_errors] == [
        ("architect", "EMPTY_INPUT", "The architect output is empty")
    ]
    swapped = run_round(ODRState(), architect(A), raw).trace[0]
    assert swapped.auditor_raw == ""
    assert [(e.source, e.code, e.message) for e in swapped.parse_errors] == [
        ("auditor", "EMPTY_INPUT", "The auditor output is empty")
    ]


def test_the_empty_input_message_is_the_stop_rules_tables() -> None:
    table = yaml_data.load((ROOT / "schemas" / "odr" / "stop_rules.yaml").read_text(encoding="utf-8"))
    [empty] = [e for e in table["parse_errors"] if e["code"] == "EMPTY_INPUT"]
    assert [empty["message"].format(source=side) for side in ("architect", "auditor")] == [
        "The architect output is empty",
        "The auditor output is empty",
    ]


# --- R-ODR-2 at exactly k words: not "fewer than k", so shingles decide ---


@pytest.mark.parametrize(
    ("a", "b", "k", "expected"),
    [
        # A has exactly k=3 words: one shingle {x y z}; B's are {x y z, y z w}: J = 1/2.
        ("x y z", "x y z w", 3, Fraction(1, 2)),
        ("x y z w", "x y z", 3, Fraction(1, 2)),
        # k=2: {p q} against {o p, p q, q r}: J = 1/3.
        ("p q", "o p q r", 2, Fraction(1, 3)),
        ("o p q r", "p q", 2, Fraction(1, 3)),
        # both exactly k words: one shingle each.
        ("x y z", "x y z", 3, Fraction(1)),
        ("x y z", "x y w", 3, Fraction(0)),
    ],
)
def test_a_side_with_exactly_k_words_is_compared_by_shingles(a: str, b: str, k: int, expected: Fraction) -> None:
    assert similarity(a, b, k) == expected
    assert jaccard(a, b, k) == float(expected)


@pytest.mark.parametrize(
    ("a", "b", "k", "expected"),
    [
        ("x y", "x y", 3, Fraction(1)),  # both below k, equal word lists
        ("x y", "X, y!", 3, Fraction(1)),  # equal after lowercasing and punctuation removal
        ("x y", "x z", 3, Fraction(0)),
        ("x y", "x y z", 3, Fraction(0)),  # one side below k: the lists differ
        ("x y z", "x y", 3, Fraction(0)),
        ("", "", 1, Fraction(1)),
    ],
)
def test_fewer_than_k_words_is_one_when_the_word_lists_are_equal(a: str, b: str, k: int, expected: Fraction) -> None:
    assert similarity(a, b, k) == expected


def test_with_the_empty_requirement_check_first_a_missing_requirement_is_an_empty_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The check order is the table's (PARSE_CHECK_ORDER): a section that is not there at all is empty.
    from rcs_contracts.runtime.odr import parsers

    no_requirement = "### CHANGELOG\n- x\n### ASSUMPTIONS\n- a\n### OPEN_QUESTIONS\n- q\n"
    missing = parsers.parse_architect(no_requirement).error
    assert missing is not None and missing.code == "MISSING_HEADER"
    monkeypatch.setattr(parsers, "PARSE_CHECK_ORDER", tuple(reversed(parsers.PARSE_CHECK_ORDER)))
    empty = parsers.parse_architect(no_requirement).error
    assert empty is not None
    assert (empty.code, empty.message) == ("EMPTY_REQUIREMENT", "The REQUIREMENT section is empty")


def test_a_header_on_the_second_line_after_a_blank_first_line_parses() -> None:
    from rcs_contracts.runtime.odr import parsers

    parsed = parsers.parse_architect("\n" + architect("Keep logs 30 days."))
    assert parsed.ok and parsed.data is not None and parsed.data.requirement == "Keep logs 30 days."
