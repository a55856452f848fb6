"""The pieces on their own: the decision table, parsers (hypothesis), reports, state files, the lock, the table.

The parser properties draw documents valid by construction from the schemas and single known
mutations of them (tests/schema_cases.py), so each asserts the exact verdict both ways, and each
prints and bounds its share of valid examples (tests/valid_share.py; shown with ``pytest -s``).
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch.errors import AutoresearchError, LockError, MissionError
from rcs_contracts.generated.autoresearch.ledger_schema import LedgerEntry
from rcs_contracts.runtime.autoresearch import files, judge, lock, mission, report
from rcs_contracts.safeio import files as files_io
from tests import schema_cases
from tests.conftest import copy_project, run_python, run_rcs
from tests.schema_cases import Case
from tests.valid_share import Share

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
    # A crash fuzz only: random bytes are never a valid result. The success path is covered by
    # test_evaluator_json_is_accepted_exactly_when_it_matches_the_schema.
    result, error = judge.parse_stdout(data)
    assert (result is None) != (error is None)


EVALUATOR_RESULT = schema_cases.load("autoresearch", "evaluator_result")
SANDBOX = schema_cases.load("autoresearch", "sandbox")
CANDIDATE = schema_cases.load("autoresearch", "candidate")
# The same examples on every run, so that the printed valid share is a fixed number.
PROPERTY = settings(max_examples=300, deadline=None, derandomize=True)
NOT_OBJECTS = schema_cases.JSON_VALUES.filter(lambda value: not isinstance(value, dict))
SYNTAX_DAMAGE = ["truncated", "two values", "not an object", "not UTF-8"]


@st.composite
def _one_case(draw: st.DrawFn, schema: schema_cases.Schema, damages: list[str]) -> tuple[Case, str | None]:
    """Half a document valid by construction; a quarter one schema mutation; a quarter a valid document
    whose text the test damages in the named way (the second item)."""
    branch = draw(st.sampled_from(["valid", "mutated", "valid", "damaged"]))
    if branch == "mutated":
        return draw(schema_cases.mutated(schema)), None
    return Case(draw(schema_cases.valid(schema))), draw(st.sampled_from(damages)) if branch == "damaged" else None


def _agrees_with_reference(schema: schema_cases.Schema, case: Case) -> None:
    """The mutation label and python-jsonschema agree on the document (the test's two oracles)."""
    assert schema_cases.reference(schema).is_valid(case.data) is case.valid, case


def _verdict_tail(case: Case) -> str:
    """How the verdict on a single-mutation document ends: the errors table's exact message for a
    dropped or an added key; for every mutation, the location of the mutated value."""
    where = "/".join(map(str, case.path))
    if case.mutation == "drop":
        return f"Required property '{case.path[-1]}' is missing at {where}"
    if case.mutation == "extra":
        return f"Property '{case.path[-1]}' is not allowed by the schema at {where}"
    return f" at {where}"


def _json_file(case: Case, damage: str | None, data: st.DataObject) -> bytes:
    """The document as a JSON file (either escaping, either layout, padding, maybe a BOM), with ``damage``."""
    text = json.dumps(case.data, ensure_ascii=data.draw(st.booleans()), indent=data.draw(st.sampled_from([None, 2])))
    if damage == "truncated":
        text = text[: data.draw(st.integers(0, len(text) - 1))]  # the closing brace always goes
    elif damage == "two values":
        text += data.draw(st.sampled_from(["\n", " ", ""])) + data.draw(st.sampled_from([text, "x", "]", "log"]))
    elif damage == "not an object":
        text = json.dumps(data.draw(NOT_OBJECTS))
    padded = data.draw(st.sampled_from(["", " ", "\n"])) + text + data.draw(st.sampled_from(["", "\n", "\r\n "]))
    raw = data.draw(st.sampled_from([b"", files_io.BOM])) + padded.encode()
    if damage == "not UTF-8":
        cut = data.draw(st.integers(0, len(raw)))
        raw = raw[:cut] + b"\xff" + raw[cut:]  # 0xFF never occurs in UTF-8
    if damage == "random bytes":
        raw = data.draw(st.binary(max_size=300))
    return raw


def test_evaluator_json_is_accepted_exactly_when_it_matches_the_schema() -> None:
    share = Share("evaluator stdout")

    @PROPERTY
    @given(picked=_one_case(EVALUATOR_RESULT, SYNTAX_DAMAGE), data=st.data())
    def check(picked: tuple[Case, str | None], data: st.DataObject) -> None:
        case, damage = picked
        _agrees_with_reference(EVALUATOR_RESULT, case)
        result, error = judge.parse_stdout(_json_file(case, damage, data))
        share.count(result is not None)
        assert (result is None) != (error is None)
        if damage is None and case.valid:
            assert result is not None and result.model_dump(mode="json", by_alias=True) == case.data, error
        elif damage is None:
            assert error is not None and error.endswith(_verdict_tail(case)), (case, error)
        elif damage == "not an object":
            assert error is not None and error.startswith("stdout is JSON but not an object ("), error
        else:
            assert error is not None and error.startswith("stdout is not exactly one JSON object ("), error

    check()
    share.check()


def test_evaluator_stdout_must_be_exactly_one_object() -> None:
    assert judge.parse_stdout(b'  {"pass": true, "score": 2}\n')[0] is not None
    for bad in [b'log\n{"pass": true}', b'{"pass": true}\n{"pass": true}', b"[]", b"", b'{"pass": 1}',
                b'{"pass": true, "score": NaN}', b'{"pass": true, "score": "9"}', b"\xff"]:
        assert judge.parse_stdout(bad)[0] is None, bad


def _sandbox_md(data: Any, block: bool, newline: str, body: str) -> str:
    """A sandbox.md whose frontmatter is ``data`` as YAML (block or flow), its lines ended by ``newline``."""
    return f"---\n{schema_cases.yaml_text(data, block)}---\n".replace("\n", newline) + body


def test_frontmatter_parser_gives_the_model_or_the_mission_error_the_schema_says() -> None:
    share = Share("sandbox frontmatter")
    damages = ["no opening fence", "no closing fence", "broken YAML"]

    @PROPERTY
    @given(
        picked=_one_case(SANDBOX, damages),
        block=st.booleans(),
        newline=st.sampled_from(["\n", "\r\n", "\r"]),
        body=st.text(max_size=40),
    )
    def check(picked: tuple[Case, str | None], block: bool, newline: str, body: str) -> None:
        case, damage = picked
        _agrees_with_reference(SANDBOX, case)
        front = schema_cases.yaml_text(case.data, block)
        text = {
            None: _sandbox_md(case.data, block, newline, body),
            "no opening fence": f"{front}---\n{body}",
            "no closing fence": f"---\n{front}",
            "broken YAML": f"---\n{schema_cases.yaml_scalar(case.data)[:-1]}\n---\n{body}",  # an unclosed mapping
        }[damage]
        try:
            parsed = mission.frontmatter(text, Path("s.md"))
        except MissionError as exc:
            share.count(False)
            assert damage is not None or not case.valid, (case, exc)
            assert exc.code == "BAD_FRONTMATTER", exc.code
            detail = exc.params["detail"]
            assert str(exc) == f"s.md: invalid sandbox frontmatter: {detail}"
            if damage is None:
                assert detail.endswith(_verdict_tail(case)), (case, detail)
            elif damage == "broken YAML":
                assert detail.startswith("line "), detail
            else:
                fences = {"no opening fence": "the file must start with a '---' line",
                          "no closing fence": "no closing '---' line"}  # fmt: skip
                assert detail == fences[damage]
        else:
            share.count(True)
            assert damage is None and case.valid, (case, damage)
            assert parsed.model_dump(mode="json", by_alias=True) == case.data

    check()
    share.check()


NEAR_MISSES = ["---\n", "---\nevaluator:\n", "---\nevaluator: {command: x, format: json", ""]


def test_frontmatter_near_misses_never_crash() -> None:
    share = Share("frontmatter near misses")

    @settings(PROPERTY, max_examples=200)
    @given(complete=st.booleans(), data=st.data(), block=st.booleans(), tail=st.text(max_size=80))
    def check(complete: bool, data: st.DataObject, block: bool, tail: str) -> None:
        # A near-miss head, or a complete valid frontmatter (then the tail is the body, which is never read).
        head = data.draw(schema_cases.valid(SANDBOX) if complete else st.sampled_from(NEAR_MISSES))
        text = _sandbox_md(head, block, "\n", tail) if complete else head + tail
        try:
            parsed = mission.frontmatter(text, Path("s.md"))
        except MissionError as exc:
            share.count(False)
            assert not complete, (head, exc)
            assert exc.code == "BAD_FRONTMATTER" and str(exc).startswith("s.md: invalid sandbox frontmatter: ")
        else:
            share.count(True)
            assert parsed.evaluator.command
            if complete:
                assert parsed.model_dump(mode="json", by_alias=True) == head

    check()
    share.check()


def test_candidate_reader_accepts_exactly_the_schema_valid_files(tmp_path_factory: pytest.TempPathFactory) -> None:
    share = Share("candidate.json")
    path = tmp_path_factory.mktemp("c") / "candidate.json"

    @PROPERTY
    @given(picked=_one_case(CANDIDATE, [*SYNTAX_DAMAGE, "random bytes"]), data=st.data())
    def check(picked: tuple[Case, str | None], data: st.DataObject) -> None:
        case, damage = picked
        _agrees_with_reference(CANDIDATE, case)
        path.write_bytes(_json_file(case, damage, data))
        candidate, why = judge.read_candidate(path)
        share.count(candidate is not None)
        assert (candidate is None) == bool(why)
        if damage == "random bytes":
            return  # a crash fuzz: whatever the bytes, a candidate or the reason there is none
        if damage is None and case.valid:
            assert candidate is not None and candidate.model_dump(mode="json", by_alias=True) == case.data, why
            return
        assert why.startswith("candidate.json: "), why
        if damage is None:
            assert why.endswith(_verdict_tail(case)), (case, why)
        elif damage == "not an object":
            assert why.endswith(' is not of type "object"'), why
        else:
            assert why.startswith("candidate.json: Invalid JSON: "), why

    check()
    share.check()


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


def test_a_model_file_is_two_space_json_with_raw_unicode_in_folders_made_on_the_way(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "run-1" / "iterations" / "ledger.json"  # three folders missing
    files.write_model(target, _entry(3, "café ✓"))
    text = target.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "{" and lines[1].startswith('  "') and not lines[1].startswith("   ")
    assert '"description": "café ✓"' in text and text.endswith("}\n")
    assert json.loads(text) == _entry(3, "café ✓").model_dump(mode="json", by_alias=True)


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
        "from rcs_contracts.generated.autoresearch import config as C\n"
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


def test_ledger_summary_exactly_at_its_bound_keeps_every_line() -> None:
    # Two lines joined by one line break, exactly LEDGER_SUMMARY_CHARS long: both kept; one more
    # character and the oldest goes.
    prefix = [len(report.summary([_entry(i, "d")])) - 1 for i in (1, 2)]  # each line without its description
    first = "a" * 10
    room = C.LEDGER_SUMMARY_CHARS - (prefix[0] + len(first)) - 1 - prefix[1]
    summary = report.summary([_entry(1, first), _entry(2, "b" * room)])
    assert len(summary) == C.LEDGER_SUMMARY_CHARS and summary.count("\n") == 1
    summary = report.summary([_entry(1, first), _entry(2, "b" * (room + 1))])
    assert summary.count("\n") == 0 and summary.startswith("- iteration 2:")


def test_closing_table_is_aligned_under_its_header() -> None:
    one = _entry(1, "first idea")
    two = files.build(LedgerEntry, {**one.model_dump(), "iteration": 12, "decision": "keep", "passed": True,
                                   "score": 2.5, "kept_score": 2.5, "candidate_commit": None, "description": "x"})
    assert report.table([one, two]).splitlines() == [
        "iter  decision  pass   score  kept  commit        description",
        "1     discard   false  1      -     bbbbbbbbbbbb  first idea",
        "12    keep      true   2.5    2.5   aaaaaaaaaaaa  x",
    ]


@pytest.mark.parametrize(
    ("status", "received", "code"),
    [
        ("interrupted", 2, 130),  # 128 + the signal
        ("interrupted", 15, 143),
        ("interrupted", None, 0),  # interrupted with no signal recorded: a plain stop
        ("finished", 15, 0),  # a signal counts only for an interrupted run
        ("needs_operator", None, 1),
        ("needs_operator", 2, 1),
    ],
)
def test_exit_status_of_a_stopped_run(status: str, received: int | None, code: int) -> None:
    from rcs_contracts.base.exit_status import EXIT_INVALID, EXIT_OK
    from rcs_contracts.runtime.autoresearch.command import status_exit

    assert (EXIT_OK, EXIT_INVALID) == (0, 1)
    assert status_exit(status, received) == code


@pytest.mark.parametrize(
    ("name", "slug"),
    [("My  Mission!", "my-mission"), ("--Ünïcode & more--", "n-code-more"), ("a_b.c", "a-b-c"), ("!!!", "mission")],
)
def test_mission_slug(name: str, slug: str) -> None:
    assert mission.slug(name) == slug


def test_removing_a_locked_worktree_takes_git_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # "--force" twice: git removes even a locked worktree, so the folder never needs deleting by hand.
    import subprocess

    from rcs_contracts.runtime.autoresearch import lane

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"], check=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})
    worktree = tmp_path / "wt"
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", "-b", "lane", str(worktree)], check=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "lock", str(worktree)], check=True)
    monkeypatch.setattr(lane, "_rmtree", lambda path: pytest.fail(f"deleted by hand: {path}"))
    lane.remove(repo, "lane", worktree)
    assert not worktree.exists()
    listed = subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True, text=True, check=True)
    assert str(worktree) not in listed.stdout


def test_a_closing_fence_on_the_second_line_ends_an_empty_frontmatter(tmp_path: Path) -> None:
    # The closing '---' is looked for from the line after the opening one: right there, the
    # frontmatter is empty (and refused for what it lacks), not unclosed.
    with pytest.raises(MissionError) as caught:
        mission.frontmatter("---\n---\nbody\n", tmp_path / "sandbox.md")
    assert "no closing" not in str(caught.value)
    with pytest.raises(MissionError) as unclosed:
        mission.frontmatter("---\nevaluator: {}\n", tmp_path / "sandbox.md")
    assert "no closing '---' line" in str(unclosed.value)


def test_an_uncommitted_mission_names_its_first_five_paths(tmp_path: Path) -> None:
    from tests.autoresearch.conftest import make_repo

    repo = make_repo(tmp_path)
    for name in "abcdef":
        (repo / "mission" / f"{name}.txt").write_text(name)
    with pytest.raises(MissionError) as caught:
        mission.load(str(repo / "mission"))
    named = ", ".join(f"mission/{name}.txt" for name in "abcde")
    assert f"has uncommitted changes ({named}); " in str(caught.value)


def test_a_repository_that_tracks_a_runtime_artifact_is_refused(tmp_path: Path) -> None:
    from tests.autoresearch.conftest import git, make_repo

    repo = make_repo(tmp_path)
    (repo / "results.tsv").write_text("mine\n")
    git(repo, "add", "results.tsv")
    git(repo, "commit", "-q", "-m", "track it")
    with pytest.raises(MissionError) as caught:
        mission.load(str(repo / "mission"))
    assert caught.value.code == "RUNTIME_ARTIFACT_TRACKED"
    assert str(caught.value).startswith(f"{repo}: the repository tracks results.tsv, which rcs autoresearch writes")


@pytest.mark.parametrize(
    ("script", "missing"),
    [
        (b"#!/no/such/interpreter -x\nprint(1)\n", "/no/such/interpreter"),
        (b"#!\n/no/such/interpreter\n", None),  # no interpreter named on the first line
        (b"#! /no/such/other\n", "/no/such/other"),
        (b"echo plain\n", None),
    ],
)
def test_the_interpreter_a_script_names_on_its_first_line(tmp_path: Path, script: bytes, missing: str | None) -> None:
    from rcs_contracts.runtime.autoresearch.worker import missing_interpreter

    path = tmp_path / "agent"
    path.write_bytes(script)
    assert missing_interpreter(str(path)) == missing


def test_an_interpreter_that_exists_is_not_missing(tmp_path: Path) -> None:
    import sys

    from rcs_contracts.runtime.autoresearch.worker import missing_interpreter

    path = tmp_path / "agent"
    path.write_bytes(f"#!{sys.executable}\n".encode())
    assert missing_interpreter(str(path)) is None
    assert missing_interpreter(str(tmp_path / "absent")) is None  # unreadable: exec will say so itself


def test_an_interpreter_that_is_not_an_executable_file_is_missing(tmp_path: Path) -> None:
    from rcs_contracts.runtime.autoresearch.worker import missing_interpreter

    plain = tmp_path / "plain"
    plain.write_text("not executable\n")
    plain.chmod(0o644)
    for interpreter in (plain, tmp_path):  # a file without x, a directory (which has x)
        path = tmp_path / "agent"
        path.write_bytes(f"#!{interpreter}\n".encode())
        assert missing_interpreter(str(path)) == str(interpreter)


def test_one_ledger_line_longer_than_the_summary_is_cut_with_an_ellipsis() -> None:
    summary = report.summary([_entry(1, "x" * (2 * C.LEDGER_SUMMARY_CHARS))])
    assert len(summary) == C.LEDGER_SUMMARY_CHARS and summary.endswith("x…")
    assert summary.startswith("- iteration 1: discard (pass=false); score 1.0, kept -; xxx")


def test_an_entry_without_a_description_shows_a_dash_in_the_summary() -> None:
    assert report.summary([_entry(4, "")]).endswith("; -")
    assert report.summary([_entry(4, " \t ")]).endswith("; -")  # nothing left once sanitised


def test_building_a_model_from_a_value_json_cannot_hold_says_which_type() -> None:
    with pytest.raises(TypeError) as info:
        files.build(LedgerEntry, {"iteration": {1, 2}})
    assert str(info.value) == "not JSON: set"


def test_a_worker_binary_that_is_nowhere_is_named_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rcs_contracts.runtime.autoresearch import worker

    missing = str(tmp_path / "no-such-codex")
    monkeypatch.setenv(C.CODEX_BINARY_ENV, missing)
    with pytest.raises(AutoresearchError) as info:
        worker.binary()
    assert str(info.value) == (
        f"cannot start the worker {missing}: not found or not executable "
        "(install Codex, or name the binary in RCS_CODEX_BIN)"
    )
