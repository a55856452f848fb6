"""`rcs odr run`: bad input exits 2 with the line and reason; output is one record per line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, run_rcs
from tests.odr.helpers import AUDITOR, A, B, architect


def rounds_file(tmp_path: Path, lines: list[object], name: str = "rounds.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_runs_prints_records_and_summary(tmp_path: Path) -> None:
    path = rounds_file(
        tmp_path,
        [
            {"architect": architect(A), "auditor": AUDITOR},
            "",
            {"architect": architect(A), "auditor": AUDITOR},
            {"architect": architect(A), "auditor": AUDITOR},
            {"architect": architect(B), "auditor": AUDITOR},
        ],
    )
    result = run_rcs(["odr", "run", str(path)])
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["stop_reason"] for r in records] == [None, None, "DIFF_FLOOR"]  # the 4th round is never read
    assert result.stderr.strip() == "rcs odr: 3 round(s) run; stopped: DIFF_FLOOR (stable_count=2)"


def test_bad_lines_exit_2_with_line_number(tmp_path: Path) -> None:
    good = {"architect": architect(A), "auditor": AUDITOR}
    cases = {
        "not json": ("line 2: not JSON: expected ident at line 1 column 2", ["nope"]),
        "array": ('line 2: a round is a JSON object {"architect": string, "auditor": string}, found list', [[1]]),
        "not string": ('line 2: "architect" must be a string', [{"architect": 1, "auditor": ""}]),
        "missing": ('line 2: a round needs "auditor"', [{"architect": ""}]),
        "extra": (
            'line 2: a round has no field "extra" (only architect, auditor)',
            [{"architect": "", "auditor": "", "extra": 2}],
        ),
    }
    for name, (message, bad) in cases.items():
        path = rounds_file(tmp_path, [good, *bad], name=f"{name.replace(' ', '_')}.jsonl")
        result = run_rcs(["odr", "run", str(path)])
        assert result.returncode == 2, name
        assert result.stderr.strip() == f"rcs odr: {path}: {message}", name
        assert len(result.stdout.splitlines()) == 1  # the good round before it was run and printed


def test_bom_and_long_whitespace_lines(tmp_path: Path) -> None:
    path = tmp_path / "rounds.jsonl"
    padded = architect(A).replace("### CHANGELOG", "### CHANGELOG" + " " * 200_000)
    path.write_text("\ufeff" + json.dumps({"architect": padded, "auditor": AUDITOR}) + "\n", encoding="utf-8")
    result = run_rcs(["odr", "run", str(path)])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["architect_parsed"]["requirement"] == A


def test_bad_config_and_files(tmp_path: Path) -> None:
    path = rounds_file(tmp_path, [{"architect": architect(A), "auditor": AUDITOR}])
    for config, fragment in (
        ({"max_rounds": 0}, "invalid ODR config: 0 is less than the minimum of 1 (at $.max_rounds)"),
        ({"code_leak_patterns": ["("]}, "invalid ODR config: code_leak_patterns[0] does not compile"),
        ({"max_round": 3}, "invalid ODR config: Property 'max_round' is not allowed by the schema"),
    ):
        config_path = tmp_path / "config.json"
        config_path.write_text(json.dumps(config))
        result = run_rcs(["odr", "run", str(path), "--config", str(config_path)])
        assert result.returncode == 2 and fragment in result.stderr, result.stderr
    missing = run_rcs(["odr", "run", str(tmp_path / "nope.jsonl")])
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\n")
    result = run_rcs(["odr", "run", str(binary)])
    assert result.returncode == 2 and "not UTF-8" in result.stderr and "Traceback" not in result.stderr


def test_config_schema_pointer_is_not_part_of_the_run(tmp_path: Path) -> None:
    path = rounds_file(tmp_path, [{"architect": architect(A), "auditor": AUDITOR}])
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps({"$schema": "../schemas/odr/config.schema.json", "max_rounds": 1}))
    result = run_rcs(["odr", "run", str(path), "--config", str(config_path)])
    record = json.loads(result.stdout)
    assert "$schema" not in record["run_config"] and record["run_config"]["max_rounds"] == 1
    assert record["stop_reason"] == "MAX_ROUNDS"


def test_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    lines = [{"architect": architect(f"{A} {i} " * 40), "auditor": AUDITOR} for i in range(300)]
    path = rounds_file(tmp_path, lines)
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps({"max_rounds": 300, "diff_floor_pct": 0}))
    script = (
        f"{sys.executable} -m runtime.cli odr run {path} --config {config_path} | head -c 100 >/dev/null; "
        "echo ${PIPESTATUS[0]}"
    )
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "0", result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_validate_reads_trace_files_as_json_lines(tmp_path: Path) -> None:
    path = rounds_file(tmp_path, [{"architect": architect(A), "auditor": AUDITOR}] * 3)
    trace = tmp_path / "trace.jsonl"
    trace.write_text(run_rcs(["odr", "run", str(path)]).stdout)
    ok = run_rcs(["validate", "--kind", "odr/trace_record", str(trace)])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    lines = trace.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["metrics"]["diff_ratio"] = 1.5
    del broken["stop_reason"]
    lines[1] = json.dumps(broken)
    trace.write_text("\n".join(lines) + "\n")
    bad = run_rcs(["validate", "--kind", "odr/trace_record", "--format", "json", str(trace)])
    assert bad.returncode == 1
    [result] = json.loads(bad.stdout)
    assert [(e["error"], e["location"]) for e in result["errors"]] == [
        ("SchemaViolationError", "line 2: $.metrics.diff_ratio"),
        ("SchemaViolationError", "line 2: $.stop_reason"),
    ]


def test_trace_integrity_rules(tmp_path: Path) -> None:
    path = rounds_file(tmp_path, [{"architect": architect(A), "auditor": AUDITOR}] * 2)
    first, second = (json.loads(line) for line in run_rcs(["odr", "run", str(path)]).stdout.splitlines())
    first["stop_reason"] = "BOGUS"
    first["metrics"]["diff_ratio"] = 0.5
    second["metrics"]["n"] = 7
    second["auditor_parsed"] = None
    second["code_leak_matches"] = [{"side": "auditor", "pattern": "x"}]
    trace = tmp_path / "trace.jsonl"
    trace.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    result = run_rcs(["validate", "--kind", "odr/trace_record", str(trace)])
    assert result.returncode == 1
    lines = result.stdout.splitlines()[:-1]
    assert lines == [
        f"{trace}: TraceIntegrityError: Unknown stop_reason: BOGUS (known: CODE_LEAK, SHAPE_VIOLATION, MAX_ROUNDS, "
        "DIFF_FLOOR, CIRCULARITY) (at line 1: $.stop_reason)",
        f"{trace}: TraceIntegrityError: metrics.diff_ratio must be null on this record (round 1, stop_reason BOGUS) "
        "(at line 1: $.metrics.diff_ratio)",
        f"{trace}: TraceIntegrityError: metrics.n (7) must equal round (2) (at line 2: $.metrics.n)",
        f"{trace}: TraceIntegrityError: code_leak_hit, code_leak_matches and stop_reason CODE_LEAK must agree "
        "(at line 2: $.code_leak_matches)",
        f"{trace}: TraceIntegrityError: auditor_parsed must not be null when both outputs parsed "
        "(at line 2: $.auditor_parsed)",
    ]


def test_a_trace_saved_under_any_name_is_read_as_json_lines(tmp_path: Path) -> None:
    path = rounds_file(tmp_path, [{"architect": architect(A), "auditor": AUDITOR}] * 2)
    trace = tmp_path / "trace.json"
    trace.write_text(run_rcs(["odr", "run", str(path)]).stdout)
    result = run_rcs(["validate", "--kind", "odr/trace_record", str(trace)])
    assert result.returncode == 0, result.stdout
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps({"nodes": [], "edges": []}, indent=2))
    assert run_rcs(["validate", "--kind", "literature_map", str(pretty)]).returncode == 0
