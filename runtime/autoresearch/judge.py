"""Judge an iteration: what the worker's session amounted to, and what the evaluator said.

Both produce an outcome name from the config table; ``generated.autoresearch.config.decide`` maps
the pair (with the keep policy) to a decision.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import MISSING

from rcs_contracts.engine import inputs, json_text
from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch.candidate_schema import Candidate
from rcs_contracts.generated.autoresearch.evaluation_schema import Evaluation
from rcs_contracts.generated.autoresearch.evaluator_result_schema import EvaluatorResult
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.runtime.autoresearch import files, git
from rcs_contracts.runtime.autoresearch.processes import Outcome, Signals, run_group
from rcs_contracts.safeio import files as files_io

CO = C.CandidateOutcome
EO = C.EvaluationOutcome
CANDIDATE_KIND = "autoresearch/candidate"
RESULT_KIND = "autoresearch/evaluator_result"


@dataclass(frozen=True)
class Verdict:
    """What a worker session amounted to, with the candidate when one was read."""

    outcome: C.CandidateOutcome
    detail: str
    candidate: Candidate | None = None


def read_candidate(path: Path) -> tuple[Candidate | None, str]:
    """The validated candidate.json, or None and why not."""
    try:
        return files.read_model(path, CANDIDATE_KIND, Candidate, Input.CANDIDATE), ""
    except FileNotFoundError:
        return None, f"{path.name} was not written"
    except OSError as exc:
        return None, f"{path.name}: {files_io.reason(exc)}"
    except RecursionError:
        return None, f"{path.name}: nested too deeply"
    except RcsError as exc:
        where = f" at {'/'.join(map(str, exc.location))}" if exc.location else ""
        return None, f"{path.name}: {exc}{where}"


def inspect(worker: Outcome, candidate_path: Path, worktree: Path, branch: str, kept: str, mission_dir: str) -> Verdict:
    """Classify a finished worker session (autoresearch.md, Candidate artifact; R-AR-4)."""
    if worker.timed_out:
        return Verdict(CO.WORKER_FAILED, "worker timed out")
    if worker.exit_code != 0:
        return Verdict(CO.WORKER_FAILED, f"worker exited with status {worker.exit_code}")
    candidate, why = read_candidate(candidate_path)
    if candidate is None:
        return Verdict(CO.NO_CANDIDATE, why)
    if git.commit_of(worktree, candidate.base_commit) != kept:
        return Verdict(
            CO.NO_CANDIDATE, f"stale candidate: base_commit {candidate.base_commit} is not {kept}", candidate
        )
    dirty = git.dirty_paths(worktree)
    if candidate.status == "abort":
        return Verdict(CO.ABORT, "", candidate)
    if candidate.status == "noop":
        return Verdict(CO.NOOP, "", candidate)
    if candidate.status == "interrupted":
        if dirty:
            return Verdict(CO.INTERRUPTED_DIRTY, f"uncommitted: {_names(dirty)}", candidate)
        return Verdict(CO.INTERRUPTED_CLEAN, "", candidate)
    return _integrity(candidate, worktree, branch, kept, mission_dir, dirty)


def _integrity(
    candidate: Candidate, worktree: Path, branch: str, kept: str, mission_dir: str, dirty: list[str]
) -> Verdict:
    def failed(detail: str) -> Verdict:
        return Verdict(CO.INTEGRITY_FAILED, detail, candidate)

    if candidate.candidate_commit is None:
        return failed("status=candidate requires a candidate_commit")
    commit = git.commit_of(worktree, candidate.candidate_commit)
    if commit is None:
        return failed(f"candidate_commit {candidate.candidate_commit} does not resolve")
    head = git.commit_of(worktree, "HEAD")
    if commit != head:
        return failed(f"candidate_commit {commit} is not the worktree HEAD {head}")
    if git.branch_of(worktree) != f"refs/heads/{branch}":
        return failed(f"HEAD is not on the run branch {branch}")
    if commit == kept:
        return failed("candidate_commit is the last kept commit: nothing was committed")
    if not git.is_ancestor(worktree, kept, commit):
        return failed(f"candidate_commit {commit} does not descend from the last kept commit")
    if dirty:
        return failed(f"uncommitted edits: {_names(dirty)}")
    touched = git.changed_paths(worktree, kept, commit, mission_dir) if mission_dir != "." else []
    if touched:
        return failed(f"the candidate edits the mission directory: {_names(touched)}")
    return Verdict(CO.CANDIDATE, "", candidate)


def _names(paths: list[str]) -> str:
    return ", ".join(git.shown(p) for p in paths[:5]) + (", ..." if len(paths) > 5 else "")


def parse_stdout(data: bytes) -> tuple[EvaluatorResult | None, str | None]:
    """The evaluator's result, or None and the error: stdout must be exactly one JSON object."""
    try:
        text = files_io.without_bom(data).decode("utf-8").strip()
        value = json_text.parse(text)
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"stdout is not exactly one JSON object ({type(exc).__name__}: {exc})"
    if not isinstance(value, dict):
        return None, f"stdout is JSON but not an object ({type(value).__name__})"
    try:
        return files.parse_model(text, RESULT_KIND, EvaluatorResult), None
    except RcsError as exc:
        where = f" at {'/'.join(map(str, exc.location))}" if exc.location else ""
        return None, f"{exc}{where}"


def evaluate(
    run_id: str,
    iteration: int,
    command: str,
    worktree: Path,
    logs: Path,
    timeout: float,
    signals: Signals,
    started: Callable[[int], None],
) -> Evaluation:
    """Run the evaluator once in the worktree (its own group, its own timeout) and record what it said."""
    commit = git.head(worktree)
    stdout, stderr = logs / C.EVALUATOR_STDOUT, logs / C.EVALUATOR_STDERR
    outcome = run_group(
        [*C.EVALUATOR_SHELL, command],
        worktree,
        dict(os.environ),
        None,
        stdout,
        stderr,
        timeout,
        C.KILL_GRACE_SECONDS,
        signals,
        started,
    )
    result: EvaluatorResult | None = None
    error: str | None = None
    if outcome.timed_out:
        error = f"evaluator timed out after {timeout:g}s"
    elif outcome.exit_code is None:
        error = "evaluator was killed by a signal"
    elif outcome.exit_code != 0:
        error = f"evaluator exited with status {outcome.exit_code}"
    else:
        try:
            result, error = parse_stdout(inputs.read_bytes(stdout, Input.EVALUATOR_OUTPUT))
        except OSError as exc:
            error = f"stdout: {files_io.reason(exc)}"
    return files.build(
        Evaluation,
        {
            "run_id": run_id,
            "iteration": iteration,
            "commit": commit,
            "exit_code": outcome.exit_code,
            "timed_out": outcome.timed_out,
            "seconds": outcome.seconds,
            "result": result.model_dump(mode="json", by_alias=True) if result is not None else None,
            "error": error,
            "finished_at": dt.datetime.now(dt.UTC),
        },
    )


def score_of(evaluation: Evaluation) -> int | float | None:
    """The numeric score as the evaluator wrote it, if it gave one: an integer stays an integer, so
    scores above 2**53 compare exactly (Python compares int and float exactly; float() would round)."""
    result = evaluation.result
    if result is None or result.score is MISSING:
        return None
    return result.score


def passed(evaluation: Evaluation) -> bool | None:
    """The pass flag, or None when the evaluator failed."""
    return None if evaluation.result is None else evaluation.result.pass_


def classify(evaluation: Evaluation, kept_score: int | float | None) -> C.EvaluationOutcome:
    """What an evaluation amounts to against the last kept score (R-AR-3: higher is better, ties lose)."""
    if evaluation.result is None:
        return EO.ERROR
    if not evaluation.result.pass_:
        return EO.FAIL
    score = score_of(evaluation)
    if score is None:
        return EO.PASS_UNSCORED
    if kept_score is None:
        return EO.PASS_BOOTSTRAP
    return EO.PASS_BETTER if score > kept_score else EO.PASS_NOT_BETTER
