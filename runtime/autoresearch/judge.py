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
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.generated.autoresearch.candidate_schema import KIND as CANDIDATE_KIND
from rcs_contracts.generated.autoresearch.candidate_schema import Candidate
from rcs_contracts.generated.autoresearch.evaluation_schema import Evaluation
from rcs_contracts.generated.autoresearch.evaluator_result_schema import KIND as RESULT_KIND
from rcs_contracts.generated.autoresearch.evaluator_result_schema import EvaluatorResult
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.runtime.autoresearch import files, git
from rcs_contracts.runtime.autoresearch.processes import Outcome, Signals, run_group
from rcs_contracts.safeio import files as files_io

CO = C.CandidateOutcome
EO = C.EvaluationOutcome


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
        return None, M.candidate_not_written(file=path.name)
    except OSError as exc:
        return None, M.candidate_invalid(file=path.name, problem=files_io.reason(exc))
    except RecursionError:
        return None, M.candidate_invalid(file=path.name, problem=M.nested_too_deeply())
    except RcsError as exc:
        where = f" at {'/'.join(map(str, exc.location))}" if exc.location else ""
        return None, M.candidate_invalid(file=path.name, problem=f"{exc}{where}")


def inspect(worker: Outcome, candidate_path: Path, worktree: Path, branch: str, kept: str, mission_dir: str) -> Verdict:
    """Classify a finished worker session (autoresearch.md, Candidate artifact; R-AR-4)."""
    if worker.timed_out:
        return Verdict(CO.WORKER_FAILED, M.worker_timed_out())
    if worker.exit_code is None:
        return Verdict(CO.WORKER_FAILED, M.worker_killed())
    if worker.exit_code != 0:
        return Verdict(CO.WORKER_FAILED, M.worker_exited(status=worker.exit_code))
    candidate, why = read_candidate(candidate_path)
    if candidate is None:
        return Verdict(CO.NO_CANDIDATE, why)
    if git.commit_of(worktree, candidate.base_commit) != kept:
        return Verdict(
            CO.NO_CANDIDATE, M.stale_candidate(base=candidate.base_commit, kept=kept), candidate
        )
    dirty = git.dirty_paths(worktree)
    if candidate.status == "abort":
        return Verdict(CO.ABORT, "", candidate)
    if candidate.status == "noop":
        return Verdict(CO.NOOP, "", candidate)
    if candidate.status == "interrupted":
        if dirty:
            return Verdict(CO.INTERRUPTED_DIRTY, M.interrupted_uncommitted(paths=_names(dirty)), candidate)
        return Verdict(CO.INTERRUPTED_CLEAN, "", candidate)
    return _integrity(candidate, worktree, branch, kept, mission_dir, dirty)


def _integrity(
    candidate: Candidate, worktree: Path, branch: str, kept: str, mission_dir: str, dirty: list[str]
) -> Verdict:
    def failed(detail: str) -> Verdict:
        return Verdict(CO.INTEGRITY_FAILED, detail, candidate)

    if candidate.candidate_commit is None:
        return failed(M.no_candidate_commit())
    commit = git.commit_of(worktree, candidate.candidate_commit)
    if commit is None:
        return failed(M.commit_unresolved(commit=candidate.candidate_commit))
    head = git.commit_of(worktree, "HEAD")
    if commit != head:
        return failed(M.commit_not_head(commit=commit, head=str(head)))
    if git.branch_of(worktree) != f"refs/heads/{branch}":
        return failed(M.off_run_branch(branch=branch))
    if commit == kept:
        return failed(M.nothing_committed())
    if not git.is_ancestor(worktree, kept, commit):
        return failed(M.not_descendant(commit=commit))
    if dirty:
        return failed(M.uncommitted_edits(paths=_names(dirty)))
    touched = git.changed_paths(worktree, kept, commit, mission_dir) if mission_dir != "." else []
    if touched:
        return failed(M.edits_mission(paths=_names(touched)))
    return Verdict(CO.CANDIDATE, "", candidate)


def _names(paths: list[str]) -> str:
    return ", ".join(git.shown(p) for p in paths[:5]) + (", ..." if len(paths) > 5 else "")


def parse_stdout(data: bytes) -> tuple[EvaluatorResult | None, str | None]:
    """The evaluator's result, or None and the error: stdout must be exactly one JSON object."""
    try:
        text = files_io.without_bom(data).decode("utf-8").strip()
        value = json_text.parse(text)
    except (UnicodeDecodeError, ValueError) as exc:
        return None, M.stdout_not_one_object(error=type(exc).__name__, detail=str(exc))
    if not isinstance(value, dict):
        return None, M.stdout_not_an_object(type=type(value).__name__)
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
        error = M.evaluator_timed_out(seconds=f"{timeout:g}")
    elif outcome.exit_code is None:
        error = M.evaluator_killed()
    elif outcome.exit_code != 0:
        error = M.evaluator_exited(status=outcome.exit_code)
    else:
        try:
            result, error = parse_stdout(inputs.read_bytes(stdout, Input.EVALUATOR_OUTPUT))
        except OSError as exc:
            error = M.stdout_unreadable(reason=files_io.reason(exc))
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
