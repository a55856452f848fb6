"""The supervisor loop: launch or resume a run, then iterate worker -> judge -> decide -> record.

State lives in four files under the run directory (manifest, ledger, latest evaluator result,
candidate handoff) plus ``results.tsv`` in the worktree. After each iteration the ledger and
results are written first and the manifest last, so the manifest never claims an iteration the
ledger lacks; an ``in_progress`` marker in the manifest tells a resume which iteration a dead
supervisor (SIGKILL) left behind, so it can recover it without hand-editing.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rcs_contracts.engine import inputs
from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch import errors as E
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.generated.autoresearch.candidate_schema import Candidate
from rcs_contracts.generated.autoresearch.evaluation_schema import Evaluation
from rcs_contracts.generated.autoresearch.ledger_schema import KIND as LEDGER_KIND
from rcs_contracts.generated.autoresearch.ledger_schema import IterationLedger, LedgerEntry
from rcs_contracts.generated.autoresearch.manifest_schema import KIND as MANIFEST_KIND
from rcs_contracts.generated.autoresearch.manifest_schema import Manifest
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.runtime.autoresearch import files, git, judge, lane, lock, report, worker
from rcs_contracts.runtime.autoresearch.mission import Mission
from rcs_contracts.runtime.autoresearch.processes import Signals, group_alive, kill_group, run_group
from rcs_contracts.safeio.files import link_below

Print = Callable[[str], None]


def now() -> dt.datetime:
    """The current time in UTC."""
    return dt.datetime.now(dt.UTC)


def logs_root(repo: Path) -> Path:
    """The directory of every run's artifacts."""
    return repo / C.LOGS_DIR


@dataclass
class Run:
    """A run this process supervises: its manifest, ledger and the lock it holds."""

    manifest: Manifest
    entries: list[LedgerEntry]
    held: lock.Lock
    say: Print
    signals: Signals = field(default_factory=Signals)
    mission_text: str = ""
    sandbox_text: str = ""

    @property
    def repo(self) -> Path:
        """The main working tree."""
        return Path(self.manifest.repo_root)

    @property
    def worktree(self) -> Path:
        """The run's worktree."""
        return Path(self.manifest.worktree)

    @property
    def run_dir(self) -> Path:
        """The run's artifact directory, checked to be the one rcs made: no link on the way (SPEC 11.1)."""
        path = logs_root(self.repo) / self.manifest.run_id
        link = link_below(self.repo, path)
        if link is not None:
            raise E.run_dir_replaced(path=str(path), link=str(link))
        return path

    @property
    def candidate_path(self) -> Path:
        """Where the worker writes its handoff."""
        return self.run_dir / C.CANDIDATE_FILE

    def iteration_dir(self, iteration: int) -> Path:
        """Logs of one iteration (instructions, worker and evaluator output)."""
        return self.run_dir / C.ITERATION_DIR.format(iteration=iteration)

    # --- state files -----------------------------------------------------------------------------

    def update(self, **changes: Any) -> None:
        """Change the manifest and write it (validated, atomically)."""
        data = self.manifest.model_dump(mode="json", by_alias=True)
        data.update(changes, updated_at=now().isoformat())
        self.manifest = files.build(Manifest, data)
        files.write_model(self.run_dir / C.MANIFEST_FILE, self.manifest)

    def record(self, entry: LedgerEntry) -> None:
        """Append an entry: ledger, then results.tsv, then the manifest (R-AR-7)."""
        self.entries.append(entry)
        entries = [
            # mutation: equivalent: an entry holds JSON types only (its times are strings): both modes agree
            e.model_dump(mode="json", by_alias=True)
            for e in self.entries
        ]
        ledger = files.build(IterationLedger, {"run_id": self.manifest.run_id, "entries": entries})
        files.write_model(self.run_dir / C.LEDGER_FILE, ledger)
        self.write_results()
        noops = self.manifest.consecutive_noops + 1 if entry.decision == "noop" else 0
        self.update(
            last_kept_commit=entry.kept_commit,
            last_kept_score=entry.kept_score,
            last_decision=entry.decision,
            iterations_done=entry.iteration,
            consecutive_noops=noops,
            in_progress=None,
        )

    def write_results(self) -> None:
        """results.tsv in the worktree, rebuilt from the ledger."""
        files.write_text(self.worktree / C.RUNTIME_ARTIFACTS[0], report.results_tsv(self.entries))

    # --- one iteration ---------------------------------------------------------------------------

    def _started(self, iteration: int, phase: str) -> Callable[[int], None]:
        def mark(pgid: int) -> None:
            self.update(
                in_progress={"iteration": iteration, "phase": phase, "pgid": pgid, "started_at": now().isoformat()}
            )

        return mark

    def evaluate(self, iteration: int) -> Evaluation:
        """Run the evaluator on the worktree's HEAD and write latest-evaluator-result.json."""
        evaluation = judge.evaluate(
            self.manifest.run_id,
            iteration,
            self.manifest.evaluator.command,
            self.worktree,
            self.iteration_dir(iteration),
            self.manifest.evaluator.timeout_seconds,
            self.signals,
            self._started(iteration, "evaluator"),
        )
        files.write_model(self.run_dir / C.LATEST_RESULT_FILE, evaluation)
        return evaluation

    def baseline(self) -> bool:
        """Iteration 0: evaluate the starting commit and always record it; False if interrupted."""
        start = time.monotonic()
        began = now().isoformat()
        evaluation = self.evaluate(0)
        if self.signals.received is not None:
            lane.reset(self.worktree, self.manifest.branch, self.manifest.last_kept_commit)
            self.update(in_progress=None)
            return False
        passed = judge.passed(evaluation)
        score = judge.score_of(evaluation) if passed else None  # R-AR-3: a failed baseline leaves no kept score
        entry = self.entry(
            0,
            "baseline",
            evaluation.error or ("pass" if passed else "pass=false"),
            None,
            None,
            self.manifest.last_kept_commit,
            score,
            evaluation,
            began,
            0.0,
            None,
            None,
        )
        lane.reset(self.worktree, self.manifest.branch, self.manifest.last_kept_commit)
        self.record(entry)
        self.say(report.progress(entry, time.monotonic() - start))
        return True

    def entry(
        self,
        iteration: int,
        decision: str,
        reason: str,
        candidate: Candidate | None,
        commit: str | None,
        kept: str,
        kept_score: int | float | None,
        evaluation: Evaluation | None,
        began: str,
        worker_seconds: float,
        worker_exit: int | None,
        discard_ref: str | None,
        bootstrap: bool = False,
    ) -> LedgerEntry:
        """A validated ledger entry."""
        return files.build(
            LedgerEntry,
            {
                "iteration": iteration,
                "decision": decision,
                "reason": reason,
                "candidate_status": candidate.status if candidate else None,
                "candidate_commit": commit,
                "base_commit": self.manifest.last_kept_commit,
                "kept_commit": kept,
                "passed": judge.passed(evaluation) if evaluation else None,
                "score": judge.score_of(evaluation) if evaluation else None,
                "kept_score": kept_score,
                "bootstrap": bootstrap,
                "description": candidate.description if candidate else "",
                "notes": list(candidate.notes) if candidate else [],
                "discard_ref": discard_ref,
                "worker_exit": worker_exit,
                "worker_seconds": round(worker_seconds, 6),
                "evaluator_seconds": round(evaluation.seconds, 6) if evaluation else 0.0,
                "started_at": began,
                "finished_at": now().isoformat(),
            },
        )

    def signal_name(self) -> str:
        """The name of the signal the supervisor got (SIGINT when none is recorded)."""
        return signal.Signals(self.signals.received or signal.SIGINT).name

    def discard_ref(self, iteration: int) -> str:
        """Where the discarded work of an iteration is kept reachable."""
        return f"{self.manifest.discard_ref_prefix}iteration-{iteration}"

    def restore(self, iteration: int, why: str) -> str | None:
        """Preserve what the iteration left, then reset to the last kept commit (R-AR-9)."""
        lane.clear_index_lock(self.worktree)
        ref = lane.preserve(
            self.worktree,
            self.manifest.last_kept_commit,
            self.discard_ref(iteration),
            f"rcs autoresearch {self.manifest.run_id}: iteration {iteration} ({why})",
        )
        lane.reset(self.worktree, self.manifest.branch, self.manifest.last_kept_commit)
        return ref

    def prepare(self) -> None:
        """Before a worker session: at the last kept commit, clean, no leftover candidate (R-AR-4, R-AR-9)."""
        lane.clear_index_lock(self.worktree)
        lane.write_excludes(self.worktree)  # the last session may have rewritten the exclude file
        self.settle()
        if self.candidate_path.is_dir() and not self.candidate_path.is_symlink():
            shutil.rmtree(self.candidate_path)
        else:
            self.candidate_path.unlink(missing_ok=True)

    def settle(self) -> None:
        """Reset to the last kept commit unless the worktree already is there and clean."""
        if not lane.at_kept(self.worktree, self.manifest.branch, self.manifest.last_kept_commit):
            lane.reset(self.worktree, self.manifest.branch, self.manifest.last_kept_commit)

    def iterate(self, iteration: int) -> tuple[C.Rule, str]:
        """One worker session, judged, decided and recorded; returns the rule that decided it."""
        self.prepare()
        began, start = now().isoformat(), time.monotonic()
        logs = self.iteration_dir(iteration)
        logs.mkdir(parents=True, exist_ok=True)
        instructions = worker.snapshot(
            self.manifest, iteration, self.entries, self.candidate_path, self.mission_text, self.sandbox_text
        )
        files.write_text(logs / C.INSTRUCTIONS_FILE, instructions)
        outcome = run_group(
            self.manifest.codex_argv,
            self.worktree,
            worker.environment(self.manifest, iteration, self.candidate_path),
            instructions,
            logs / C.WORKER_STDOUT,
            logs / C.WORKER_STDERR,
            self.manifest.worker_timeout_seconds,
            C.KILL_GRACE_SECONDS,
            self.signals,
            self._started(iteration, "worker"),
        )
        lane.clear_index_lock(self.worktree)  # the worker's group is dead: a lock left now is stale
        lane.write_excludes(self.worktree)  # a rewritten exclude file must not make results.tsv "dirty"
        kept, kept_score = self.manifest.last_kept_commit, self.manifest.last_kept_score
        policy = self.manifest.evaluator.keep_policy
        evaluation: Evaluation | None = None
        if self.signals.received is not None:
            verdict = judge.Verdict(C.CandidateOutcome.SUPERVISOR_INTERRUPTED, self.signal_name())
        else:
            verdict = judge.inspect(
                outcome, self.candidate_path, self.worktree, self.manifest.branch, kept, self.manifest.mission_dir
            )
        evaluation_outcome: str | None = None
        if verdict.outcome == C.CandidateOutcome.CANDIDATE:
            evaluation = self.evaluate(iteration)
            if self.signals.received is not None:
                verdict = judge.Verdict(
                    C.CandidateOutcome.SUPERVISOR_INTERRUPTED,
                    self.signal_name(),
                    verdict.candidate,
                )
            else:
                evaluation_outcome = judge.classify(evaluation, kept_score)
        rule = C.decide(verdict.outcome, evaluation_outcome, policy)
        candidate = verdict.candidate
        commit = (
            git.commit_of(self.worktree, candidate.candidate_commit)
            if candidate and candidate.candidate_commit
            else None
        )
        ref: str | None = None
        if rule.decision == "keep":
            assert evaluation is not None and commit is not None
            kept, kept_score = commit, judge.score_of(evaluation)
        if rule.reset:
            ref = self.restore(iteration, rule.decision)
        elif rule.decision == "keep" and not lane.at_kept(self.worktree, self.manifest.branch, kept):
            # The kept commit as committed: the evaluator's droppings or a HEAD it moved go (R-AR-9),
            # so a pause right here leaves a worktree that resume accepts. Ignored build output of
            # the kept commit stays (a cache the next session may use); a discard removes it.
            lane.reset(self.worktree, self.manifest.branch, kept)
        reason = rule.reason + (f": {verdict.detail}" if verdict.detail else "")
        if evaluation_outcome is not None and evaluation is not None and evaluation.error:
            reason += f": {evaluation.error}"
        entry = self.entry(
            iteration,
            rule.decision,
            reason,
            candidate,
            commit,
            kept,
            kept_score,
            evaluation,
            began,
            outcome.seconds,
            outcome.exit_code,
            ref,
            bootstrap=rule.decision == "keep" and evaluation_outcome == C.EvaluationOutcome.PASS_BOOTSTRAP,
        )
        self.record(entry)
        self.say(report.progress(entry, time.monotonic() - start))
        return rule, entry.reason

    # --- the loop ----------------------------------------------------------------------------------

    def loop(self, max_iterations: int | None) -> str:
        """Iterate until a rule, the noop limit, --max-iterations or a signal stops the run; returns the status."""
        done = 0
        if self.signals.received is not None:
            return self.interrupted()
        if self.manifest.iterations_done < 0 and not self.baseline():
            return self.interrupted()
        while True:
            if self.signals.received is not None:
                return self.interrupted()
            if max_iterations is not None and done >= max_iterations:
                return self.stop("paused", M.stop_max_iterations(count=max_iterations))
            rule, reason = self.iterate(self.manifest.iterations_done + 1)
            done += 1
            if rule.stop:
                assert rule.status is not None
                return self.stop(rule.status, reason)
            if self.manifest.consecutive_noops >= C.NOOP_LIMIT:
                return self.stop("finished", M.stop_noop_limit(count=self.manifest.consecutive_noops))

    def interrupted(self) -> str:
        """Stop between iterations on a signal, with the reason the decision table gives."""
        rule = C.decide(C.CandidateOutcome.SUPERVISOR_INTERRUPTED, None, self.manifest.evaluator.keep_policy)
        assert rule.status is not None
        return self.stop(rule.status, f"{rule.reason}: {self.signal_name()}")

    def stop(self, status: str, reason: str) -> str:
        """Record why the run stopped."""
        self.update(status=status, stop_reason=reason, in_progress=None)
        return status


# --- launch and resume ---------------------------------------------------------------------------


def _tag(moment: dt.datetime, n: int) -> str:
    base = moment.strftime("%Y%m%dT%H%M%SZ")
    return base if n == 1 else f"{base}-{n}"


def _names(mission: Mission, tag: str) -> tuple[str, str, Path]:
    return _names_of(mission.repo, mission.slug, tag)


def _names_of(repo: Path, slug: str, tag: str) -> tuple[str, str, Path]:
    """The run id, branch and worktree of the run of mission ``slug`` tagged ``tag`` in ``repo``."""
    run_id = f"{slug}-{tag}"
    branch = f"{C.BRANCH_PREFIX}{slug}/{tag}"
    worktree = repo.parent / f"{repo.name}{C.WORKTREES_SUFFIX}" / f"{C.WORKTREE_PREFIX}{slug}-{tag}"
    return run_id, branch, worktree


def _taken(repo: Path, run_id: str, branch: str, worktree: Path) -> bool:
    return (
        (logs_root(repo) / run_id).exists()
        or worktree.exists()
        or git.commit_of(repo, f"refs/heads/{branch}") is not None
    )


def launch(mission: Mission, codex_args: Sequence[str], say: Print, signals: Signals | None = None) -> Run:
    """Create a fresh run-tagged lane under the lock; a failure removes everything it created (R-AR-2)."""
    argv = worker.argv(codex_args)  # fail on a missing worker before anything exists
    moment = now()
    n = 1
    while True:
        tag = _tag(moment, n)
        run_id, branch, worktree = _names(mission, tag)
        if _taken(mission.repo, run_id, branch, worktree):
            n += 1
            continue
        manifest_rel = f"{C.LOGS_DIR}/{run_id}/{C.MANIFEST_FILE}"
        held = lock.acquire(mission.repo, run_id, manifest_rel)
        if not _taken(mission.repo, run_id, branch, worktree):
            break
        held.release()  # another launch took this tag between our look and our lock
        n += 1
    run_dir = logs_root(mission.repo) / run_id
    try:
        run_dir.mkdir(parents=True)
        start = git.head(mission.checkout)
        lane.create(mission.repo, branch, worktree, start)
        lane.write_excludes(worktree)
        files.write_text(run_dir / C.MISSION_FILE, mission.mission_text)
        files.write_text(run_dir / C.SANDBOX_FILE, mission.sandbox_text)
        stamp = now().isoformat()
        manifest = files.build(
            Manifest,
            {
                "run_id": run_id,
                "mission_slug": mission.slug,
                "run_tag": tag,
                "repo_root": str(mission.repo),
                "mission_dir": mission.relative_dir,
                "branch": branch,
                "worktree": str(worktree),
                "discard_ref_prefix": f"{C.DISCARD_REF_PREFIX}{run_id}/",
                "status": "running",
                "stop_reason": None,
                "evaluator": mission.evaluator.model_dump(mode="json"),
                "worker_timeout_seconds": mission.worker_timeout_seconds,
                "codex_argv": argv,
                "baseline_commit": start,
                "last_kept_commit": start,
                "last_kept_score": None,
                "last_decision": None,
                "iterations_done": -1,
                "consecutive_noops": 0,
                "in_progress": None,
                "created_at": stamp,
                "updated_at": stamp,
            },
        )
        run = Run(manifest, [], held, say, signals or Signals(), mission.mission_text, mission.sandbox_text)
        files.write_model(run_dir / C.LEDGER_FILE, files.build(IterationLedger, {"run_id": run_id, "entries": []}))
        run.write_results()
        hidden = git.dirty_paths(worktree)
        if hidden:  # R-AR-8: prove the runtime artifacts are invisible to git status
            raise E.git_failed(args="status", status=0, detail=f"runtime artifacts not excluded: {', '.join(hidden)}")
        files.write_model(run_dir / C.MANIFEST_FILE, manifest)
    except BaseException as exc:
        try:
            lane.remove(mission.repo, branch, worktree)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)
            held.release()
        if isinstance(exc, OSError):
            raise E.launch_failed(detail=str(exc)) from None
        raise
    say(M.started(run_id=run_id, branch=branch, worktree=str(worktree)))
    return run


def load(repo: Path, run_id: str) -> tuple[Manifest, list[LedgerEntry]]:
    """A run's manifest and ledger, validated; raises ResumeError when the manifest is missing."""
    run_dir = logs_root(repo) / run_id
    path = run_dir / C.MANIFEST_FILE
    if "/" in run_id or not path.is_file():
        raise E.manifest_missing(run_id=run_id, path=str(path), logs_dir=str(logs_root(repo)))
    link = link_below(repo, run_dir)
    if link is not None:
        raise E.run_dir_replaced(path=str(run_dir), link=str(link))
    manifest = files.read_model(path, MANIFEST_KIND, Manifest)
    _consistent(repo, run_id, manifest)
    ledger_path = run_dir / C.LEDGER_FILE
    entries = list(files.read_model(ledger_path, LEDGER_KIND, IterationLedger).entries) if ledger_path.exists() else []
    return manifest, entries


def _consistent(repo: Path, run_id: str, manifest: Manifest) -> None:
    """The manifest names the run it was written for (SPEC 11.5). Run files sit where a worker may
    write: a manifest pointing rcs at the user's checkout, another branch or another process group
    would make a resume reset, clean or kill them."""
    own_id, branch, worktree = _names_of(repo, manifest.mission_slug, manifest.run_tag)
    expected = {
        "run_id": (manifest.run_id, own_id),
        "run id of its directory": (manifest.run_id, run_id),
        "repo_root": (manifest.repo_root, str(repo)),
        "branch": (manifest.branch, branch),
        "worktree": (manifest.worktree, str(worktree)),
        "discard_ref_prefix": (manifest.discard_ref_prefix, f"{C.DISCARD_REF_PREFIX}{run_id}/"),
    }
    for name, (found, wanted) in expected.items():
        if found != wanted:
            detail = M.manifest_field_differs(name=name, found=repr(found), wanted=repr(wanted))
            raise E.manifest_tampered(run_id=run_id, detail=detail)
    progress = manifest.in_progress
    if progress is not None and progress.pgid is not None and progress.pgid == os.getpgrp():
        raise E.manifest_tampered(run_id=run_id, detail=M.manifest_own_group())


def resume(repo: Path, run_id: str, codex_args: Sequence[str], say: Print, signals: Signals | None = None) -> Run:
    """Reload a run and put its worktree at the last kept commit; refuses with the fix in each bad case."""
    manifest, entries = load(repo, run_id)
    if manifest.status in C.TERMINAL_STATUSES:
        raise E.manifest_terminal(
            run_id=run_id,
            status=manifest.status,
            reason=manifest.stop_reason or "-",
            mission_dir=str(Path(manifest.repo_root) / manifest.mission_dir),
        )
    argv = worker.argv(codex_args) if codex_args else list(manifest.codex_argv)
    held = lock.acquire(repo, run_id, f"{C.LOGS_DIR}/{run_id}/{C.MANIFEST_FILE}", take_over=True)
    try:
        run_dir = logs_root(repo) / run_id
        run = Run(
            manifest,
            entries,
            held,
            say,
            signals or Signals(),
            mission_text=inputs.read_text(run_dir / C.MISSION_FILE, Input.MISSION),
            sandbox_text=inputs.read_text(run_dir / C.SANDBOX_FILE, Input.MISSION),
        )
        worktree = run.worktree
        if not lane.is_worktree(worktree):
            raise E.worktree_missing(run_id=run_id, worktree=str(worktree), branch=manifest.branch)
        if manifest.in_progress is not None:
            _recover(run)
        else:
            on = git.branch_of(worktree)
            if on != f"refs/heads/{manifest.branch}":
                head = on.removeprefix("refs/heads/") if on else f"detached at {git.head(worktree)}"
                raise E.wrong_branch(run_id=run_id, branch=manifest.branch, head=head, worktree=str(worktree))
            dirty = git.dirty_paths(worktree)
            if dirty:
                raise E.worktree_dirty(run_id=run_id, paths=", ".join(dirty[:10]), worktree=str(worktree))
            if git.head(worktree) != manifest.last_kept_commit:
                run.restore(manifest.iterations_done, M.moved_before_resume())
        lane.write_excludes(worktree)
        run.write_results()
        run.update(status="running", stop_reason=None, codex_argv=argv)
    except BaseException:
        held.release()
        raise
    say(M.resumed(run_id=run_id, iteration=run.manifest.iterations_done + 1, kept=run.manifest.last_kept_commit))
    return run


def _recover(run: Run) -> None:
    """Finish the iteration a dead supervisor left (SIGKILL): kill its group, record it, reset."""
    progress = run.manifest.in_progress
    assert progress is not None
    if progress.pgid is not None and group_alive(progress.pgid):
        kill_group(progress.pgid, C.KILL_GRACE_SECONDS)
    lane.clear_index_lock(run.worktree)
    if run.entries and run.entries[-1].iteration == progress.iteration:
        last = run.entries.pop()  # the ledger got it, the manifest did not: finish the bookkeeping
        run.record(last)
        lane.reset(run.worktree, run.manifest.branch, run.manifest.last_kept_commit)
        return
    if progress.iteration == 0:  # the baseline: simply run it again
        lane.reset(run.worktree, run.manifest.branch, run.manifest.last_kept_commit)
        run.update(in_progress=None)
        return
    rule = C.decide(C.CandidateOutcome.SUPERVISOR_INTERRUPTED, None, run.manifest.evaluator.keep_policy)
    ref = run.restore(progress.iteration, rule.decision)
    entry = run.entry(
        progress.iteration,
        rule.decision,
        f"{rule.reason}: the supervisor died during the {progress.phase}",
        None,
        None,
        run.manifest.last_kept_commit,
        run.manifest.last_kept_score,
        None,
        progress.started_at,
        0.0,
        None,
        ref,
    )
    run.record(entry)
    run.say(M.recovered(run_id=run.manifest.run_id, iteration=progress.iteration, phase=progress.phase))


def finish(run: Run, status: str) -> None:
    """Release the lock and print how the run ended, with its table."""
    run.held.release()
    m = run.manifest
    run.say(report.table(run.entries))
    run.say(
        M.ended(
            run_id=m.run_id,
            status=status,
            reason=m.stop_reason or "-",
            iterations=m.iterations_done,
            kept=m.last_kept_commit,
            score=report.number(m.last_kept_score),
        )
    )
    if status not in C.TERMINAL_STATUSES:
        run.say(M.resume_hint(run_id=m.run_id))


def supervise(run: Run, max_iterations: int | None) -> str:
    """Run the loop with signal handling; never exit holding the lock (R-AR-6).

    Handlers installed by the caller stay installed (the command keeps them until the process
    exits, so a late signal can never kill it holding the lock); otherwise they are installed here
    and restored only after the lock is released.
    """
    own = not run.signals.installed
    if own:
        run.signals.install()
    try:
        try:
            status = run.loop(max_iterations)
        except BaseException:
            run.held.release()  # the manifest keeps its in_progress marker: resume recovers the iteration
            raise
        finish(run, status)
    finally:
        if own:
            run.signals.restore()
    return status
