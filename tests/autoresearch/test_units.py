"""The pieces on their own: the decision table, parsers (hypothesis), reports, state files, the lock, the table."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generated._support import RcsError
from generated.autoresearch import config as C
from generated.autoresearch.errors import AutoresearchError, LockError, MissionError
from generated.autoresearch.ledger_schema import LedgerEntry
from runtime.autoresearch import files, judge, lock, mission, report
from tests.conftest import copy_project, run_python, run_rcs

POLICIES = ["score_improvement", "pass_only"]


def test_every_case_has_a_rule_and_the_contract_policy_holds() -> None:
    for candidate, evaluation, policy in itertools.product(C.CandidateOutcome, C.EvaluationOutcome, POLICIES):
        rule = C.decide(candidate, evaluation if candidate == "candidate" else None, policy)
        assert rule.decision in C.DECISIONS
        # autoresearch.md: discard / ambiguous / error paths reset to the last kept commit.
        if rule.decision in ("discard", "ambiguous", "error"):
            assert rule.reset
        if rule.decision == "keep":
            assert not rule.reset and not rule.stop
    for policy in POLICIES:
        assert C.decide("candidate", "fail", policy).decision == "discard"
        assert C.decide("candidate", "error", policy).decision == "error"
        assert C.decide("abort", None, policy).reset is False  # stop run without reset
        assert C.decide("noop", None, policy).stop is False  # continue by default
        assert C.decide("interrupted_dirty", None, policy).status == "needs_operator"
    assert C.decide("candidate", "pass_unscored", "score_improvement").decision == "ambiguous"
    assert C.decide("candidate", "pass_not_better", "score_improvement").decision == "discard"  # ties lose
    assert C.decide("candidate", "pass_bootstrap", "score_improvement").decision == "keep"  # R-AR-3
    for evaluation in ("pass_unscored", "pass_bootstrap", "pass_better", "pass_not_better"):
        assert C.decide("candidate", evaluation, "pass_only").decision == "keep"


def test_classify_against_the_kept_score() -> None:
    def evaluation(result: dict[str, object] | None) -> judge.Evaluation:
        return files.build(judge.Evaluation, {
            "run_id": "r", "iteration": 1, "commit": "a" * 40, "exit_code": 0, "timed_out": False, "seconds": 0.1,
            "result": result, "error": None if result else "x", "finished_at": "2026-11-22T00:00:00Z"})

    assert judge.classify(evaluation(None), 1.0) == "error"
    assert judge.classify(evaluation({"pass": False, "score": 9}), 1.0) == "fail"
    assert judge.classify(evaluation({"pass": True}), 1.0) == "pass_unscored"
    assert judge.classify(evaluation({"pass": True, "score": 0}), None) == "pass_bootstrap"
    assert judge.classify(evaluation({"pass": True, "score": 1.5}), 1.0) == "pass_better"
    assert judge.classify(evaluation({"pass": True, "score": 1}), 1.0) == "pass_not_better"


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_evaluator_stdout_parser_never_crashes(data: bytes) -> None:
    result, error = judge.parse_stdout(data)
    assert (result is None) != (error is None)


@given(st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8))
@settings(max_examples=300)
def test_evaluator_json_is_accepted_exactly_when_it_matches_the_schema(value: object) -> None:
    result, error = judge.parse_stdout(json.dumps(value).encode())
    ok = (
        isinstance(value, dict)
        and isinstance(value.get("pass"), bool)
        and set(value) <= {"pass", "score", "details"}
        and ("score" not in value or (isinstance(value["score"], int | float) and not isinstance(value["score"], bool)))
        and ("details" not in value or isinstance(value["details"], dict))
    )
    assert (result is not None) == ok, (value, error)


def test_evaluator_stdout_must_be_exactly_one_object() -> None:
    assert judge.parse_stdout(b'  {"pass": true, "score": 2}\n')[0] is not None
    for bad in [b'log\n{"pass": true}', b'{"pass": true}\n{"pass": true}', b"[]", b"", b'{"pass": 1}',
                b'{"pass": true, "score": NaN}', b'{"pass": true, "score": "9"}', b"\xff"]:
        assert judge.parse_stdout(bad)[0] is None, bad


@given(st.text(max_size=200))
@settings(max_examples=300)
def test_frontmatter_parser_gives_a_mission_error_or_a_model(text: str) -> None:
    try:
        parsed = mission.frontmatter(text, Path("sandbox.md"))
    except MissionError as exc:
        assert str(exc).startswith("sandbox.md: invalid sandbox frontmatter: ")
    else:
        assert parsed.evaluator.format == "json"


@given(st.sampled_from(["---\n", "---\nevaluator:\n", "---\nevaluator: {command: x, format: json", ""]).flatmap(
    lambda head: st.text(max_size=80).map(lambda tail: head + tail)))
@settings(max_examples=200)
def test_frontmatter_near_misses_never_crash(text: str) -> None:
    try:
        parsed = mission.frontmatter(text, Path("s.md"))
    except MissionError as exc:
        assert exc.code == "BAD_FRONTMATTER" and str(exc).startswith("s.md: invalid sandbox frontmatter: ")
    else:
        assert parsed.evaluator.command


@given(st.binary(max_size=300) | st.dictionaries(st.sampled_from(
    ["status", "candidate_commit", "base_commit", "description", "notes", "created_at", "extra"]),
    st.none() | st.text(max_size=8) | st.lists(st.text(max_size=3), max_size=2)).map(lambda d: json.dumps(d).encode()))
@settings(max_examples=300)
def test_candidate_reader_never_crashes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("c") / "candidate.json"
    path.write_bytes(data)
    candidate, why = judge.read_candidate(path)
    assert (candidate is None) == bool(why)


@given(st.text(max_size=100))
def test_sanitise_leaves_one_line_without_tabs(text: str) -> None:
    out = report.sanitise(text)
    assert "\t" not in out and "\n" not in out and "\r" not in out and out == out.strip()
    assert all(ch.isprintable() for ch in out)


def _entry(i: int, description: str) -> LedgerEntry:
    return files.build(LedgerEntry, {
        "iteration": i, "decision": "discard", "reason": "pass=false", "candidate_status": "candidate",
        "candidate_commit": "b" * 40, "base_commit": "a" * 40, "kept_commit": "a" * 40, "passed": False,
        "score": 1.0, "kept_score": None, "bootstrap": False, "description": description, "notes": [],
        "discard_ref": None, "worker_exit": 0, "worker_seconds": 0.0, "evaluator_seconds": 0.0,
        "started_at": "2026-11-22T00:00:00Z", "finished_at": "2026-11-22T00:00:01Z"})


@given(st.lists(st.text(max_size=2000), max_size=30))
@settings(max_examples=50)
def test_ledger_summary_is_bounded(descriptions: list[str]) -> None:
    entries = [_entry(i, d) for i, d in enumerate(descriptions)]
    summary = report.summary(entries)
    assert len(summary) <= C.LEDGER_SUMMARY_CHARS
    assert summary.count("\n") < C.LEDGER_SUMMARY_ENTRIES
    lines = report.results_tsv(entries).splitlines()
    assert len(lines) == len(entries) + 1 and all(line.count("\t") == len(C.RESULTS_COLUMNS) - 1 for line in lines)


def test_atomic_writes_leave_nothing_half_done(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    files.write_text(target, "old\n")
    entry = _entry(1, "x")
    files.write_model(target, entry)
    assert json.loads(target.read_text())["iteration"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_lock_is_exclusive_and_released_only_by_its_owner(tmp_path: Path) -> None:
    held = lock.acquire(tmp_path, "run-a", "m.json")
    with pytest.raises(LockError) as caught:
        lock.acquire(tmp_path, "run-b", "m.json")
    assert caught.value.code == "LOCK_HELD" and caught.value.params["run_id"] == "run-a"
    with pytest.raises(LockError):
        lock.acquire(tmp_path, "run-a", "m.json", take_over=True)  # alive: resume does not take over
    stranger = lock.Lock(tmp_path, files.build(lock.ActiveRunPointer, {
        "run_id": "run-a", "pid": os.getpid() + 1, "host": "h", "started_at": "2026-11-22T00:00:00Z",
        "manifest": "m"}))
    stranger.release()
    assert lock.read(tmp_path) is not None
    held.release()
    assert lock.read(tmp_path) is None
    (tmp_path / C.STATE_FILE).write_text("{broken")
    with pytest.raises(LockError, match="cannot be read"):
        lock.acquire(tmp_path, "run-c", "m.json")


def test_errors_are_one_tree() -> None:
    for cls in (LockError, MissionError):
        assert issubclass(cls, AutoresearchError) and issubclass(cls, RcsError)


def test_config_table_drives_behaviour(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    table = project / "schemas/autoresearch/config.yaml"
    text = table.read_text()
    text = text.replace("noop_limit: 3", "noop_limit: 1")
    before = "evaluation: pass_not_better, decision: discard, reset: true,"
    text = text.replace(before, "evaluation: pass_not_better, decision: keep, reset: false,")
    table.write_text(text)
    assert run_rcs(["codegen"], project=project).returncode == 0
    probe = run_python(
        "from generated.autoresearch import config as C\n"
        "print(C.NOOP_LIMIT, C.decide('candidate', 'pass_not_better', 'score_improvement').decision)\n",
        project,
    )
    assert probe.stdout.split() == ["1", "keep"], probe.stderr
    spec = (project / "SPEC.md").read_text()
    assert "| `candidate` | `pass_not_better` | any | **keep** | no |" in spec


def test_lint_proves_the_table_complete_and_in_step_with_the_schemas(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    table = project / "schemas/autoresearch/config.yaml"
    text = table.read_text()
    text = "\n".join(line for line in text.splitlines() if "evaluation: pass_better" not in line) + "\n"
    text = text.replace("    - {name: finished,", "    - {name: done,")
    table.write_text(text)
    done = run_rcs(["codegen"], project=project)
    assert done.returncode != 0
    assert "no rule decides candidate/pass_better/score_improvement" in done.stdout + done.stderr
    assert "must list the schema enum" in done.stdout + done.stderr
