"""The ODR example scenarios in examples/odr/ replay through the real CLI byte for byte (odr-v1.md).

Every ``examples/odr/<name>.jsonl`` (other than ``*.expected.jsonl``) is run twice with
``rcs odr run`` (plus ``--config <name>.config.json`` when that file exists). Both runs must exit 0,
print exactly ``<name>.expected.jsonl`` and agree with each other; the last record and the stderr
summary must name the stop reason the file is named after (``near_miss``: none). The subprocesses
run concurrently so the whole module stays fast.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.generated.cli import messages as M
from rcs_contracts.generated.odr.stop_rules import StopReason

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "odr"
EXPECTED_SUFFIX = ".expected.jsonl"
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.jsonl") if not p.name.endswith(EXPECTED_SUFFIX))
EXPECTED = sorted(EXAMPLES.glob(f"*{EXPECTED_SUFFIX}"))
CONFIGS = sorted(EXAMPLES.glob("*.config.json"))

# The stop reason each scenario is named after; None: the input ends before any stop.
STOP_REASON: dict[str, str | None] = {
    "code_leak": StopReason.CODE_LEAK.value,
    "shape_violation": StopReason.SHAPE_VIOLATION.value,
    "max_rounds": StopReason.MAX_ROUNDS.value,
    "diff_floor": StopReason.DIFF_FLOOR.value,
    "circularity": StopReason.CIRCULARITY.value,
    "near_miss": None,
}

# The contract's locked fixtures (odr-v1.md, Acceptance Tests 2 and 3): texts and configs never change.
LOCKED_SHA256 = {
    "diff_floor.jsonl": "6f3ff28ace8779a7e74b86961b046fa0a504a95640c1af9964738d4957b3e67e",
    "diff_floor.config.json": "3689e00ccb7a7251e531c97dc9da18127881c3491d3996b2796aaec0dc1fcc66",
    "circularity.jsonl": "058d991ef06da99e23e5ed8efc82f4b418d66113ea15c2f23ef0aab989744cc4",
    "circularity.config.json": "3689e00ccb7a7251e531c97dc9da18127881c3491d3996b2796aaec0dc1fcc66",
}

RUNS = 2
Results = dict[tuple[str, ...], subprocess.CompletedProcess[bytes]]


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def expected_of(scenario: Path) -> Path:
    return scenario.with_name(scenario.stem + EXPECTED_SUFFIX)


def config_of(scenario: Path) -> Path:
    return scenario.with_name(scenario.stem + ".config.json")


def odr_args(scenario: Path) -> list[str]:
    args = ["odr", "run", relative(scenario)]
    if config_of(scenario).exists():
        args += ["--config", relative(config_of(scenario))]
    return args


def rcs(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", *args],
        cwd=ROOT,
        capture_output=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def results() -> Results:
    """Every CLI call this module needs, run once and concurrently."""
    jobs: dict[tuple[str, ...], list[str]] = {}
    for scenario in SCENARIOS:
        for run in range(RUNS):
            jobs[("odr", scenario.name, str(run))] = odr_args(scenario)
    # One validate call for all traces (a process costs more than the check); its JSON report is per file.
    traces = ["validate", "--kind", "odr/trace_record", "--format", "json", *map(relative, EXPECTED)]
    jobs[("validate", "traces")] = traces
    jobs[("validate", "configs")] = ["validate", "--kind", "odr/config", *map(relative, CONFIGS)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = {key: pool.submit(rcs, args) for key, args in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


def records(stdout: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.decode("utf-8").splitlines()]


def test_every_scenario_is_named_and_has_its_expected_trace() -> None:
    assert {p.stem for p in SCENARIOS} == set(STOP_REASON)
    assert {p.name for p in EXPECTED} == {expected_of(p).name for p in SCENARIOS}
    assert {p.name.removesuffix(".config.json") for p in CONFIGS} <= set(STOP_REASON)
    assert {r for r in STOP_REASON.values() if r is not None} == {r.value for r in StopReason}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_replays_its_expected_trace(scenario: Path, results: Results) -> None:
    runs = [results[("odr", scenario.name, str(run))] for run in range(RUNS)]
    first = runs[0]
    for run in runs:
        assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    assert first.stdout == expected_of(scenario).read_bytes()
    for run in runs[1:]:
        assert (run.stdout, run.stderr) == (first.stdout, first.stderr)

    trace = records(first.stdout)
    reason = STOP_REASON[scenario.stem]
    rounds = [line for line in scenario.read_text(encoding="utf-8").splitlines() if line.strip()]
    # The stop (or the end of input) comes at the last round: no round of the scenario goes unused.
    assert [r["round"] for r in trace] == list(range(1, len(rounds) + 1))
    assert [r["stop_reason"] for r in trace] == [None] * (len(trace) - 1) + [reason]

    stable_count = trace[-1]["metrics"]["stable_count"]
    if reason is None:
        summary = M.odr_not_stopped(rounds=len(trace), stable_count=stable_count)
    else:
        summary = M.odr_stopped(rounds=len(trace), reason=reason, stable_count=stable_count)
    stderr = first.stderr.decode("utf-8")
    assert stderr == M.odr_prefix(problem=summary) + "\n"
    assert [r.value for r in StopReason if r.value in stderr] == ([] if reason is None else [reason])


@pytest.mark.parametrize("expected", EXPECTED, ids=lambda p: p.stem)
def test_expected_trace_validates(expected: Path, results: Results) -> None:
    result = results[("validate", "traces")]
    report = {entry["path"]: entry for entry in json.loads(result.stdout)}
    entry = report[relative(expected)]
    assert (entry["kind"], entry["valid"], entry["errors"]) == ("odr/trace_record", True, [])
    assert result.returncode == 0, result.stdout.decode("utf-8", "replace") + result.stderr.decode("utf-8", "replace")


def test_configs_validate(results: Results) -> None:
    result = results[("validate", "configs")]
    assert CONFIGS
    assert result.returncode == 0, result.stdout.decode("utf-8", "replace") + result.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("name", sorted(LOCKED_SHA256))
def test_locked_fixtures_never_change(name: str) -> None:
    assert hashlib.sha256((EXAMPLES / name).read_bytes()).hexdigest() == LOCKED_SHA256[name]


def test_near_miss_comes_close_without_stopping() -> None:
    """Round 3 would loop but for min_loop_sim; round 4 misses the diff floor; round 5 is one stable round short."""
    trace = records(expected_of(EXAMPLES / "near_miss.jsonl").read_bytes())
    config = trace[0]["run_config"]
    loop, drift, last = (trace[n - 1]["metrics"] for n in (3, 4, 5))
    assert loop["sim_loop"] > loop["sim_prev"] + config["margin"]
    assert config["min_loop_sim"] - 0.01 < loop["sim_loop"] < config["min_loop_sim"]
    assert config["diff_floor_pct"] <= drift["diff_ratio"] < config["diff_floor_pct"] + 0.001
    assert drift["stable_count"] == 0
    assert last["diff_ratio"] < config["diff_floor_pct"]
    assert last["stable_count"] == config["stable_rounds"] - 1
