"""Launching: distinct lanes (target 1), the lock (target 2, R-AR-2), missions, the worker's argv and handoff."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from rcs_contracts.runtime.autoresearch import lock, supervisor
from rcs_contracts.runtime.autoresearch import mission as missions
from tests.autoresearch.conftest import FAKE, IDENTITY, Lab, git, make_repo, score_step


def _branches(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/autoresearch/").split()


def _worktrees(repo: Path) -> list[str]:
    return [line for line in git(repo, "worktree", "list", "--porcelain").splitlines() if line.startswith("worktree ")]


def test_fresh_launches_create_distinct_lanes(lab: Lab) -> None:
    lab.set_plan({})
    first, second = lab.rcs("--max-iterations", "1", "mission"), lab.rcs("--max-iterations", "1", "mission")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    runs = lab.run_dirs()
    assert len(runs) == 2
    one, two = (lab.manifest(r) for r in runs)
    assert one["run_id"] != two["run_id"] and one["branch"] != two["branch"] and one["worktree"] != two["worktree"]
    for manifest in (one, two):
        tag = manifest["run_tag"]
        assert manifest["run_id"] == f"mission-{tag}" and manifest["branch"] == f"autoresearch/mission/{tag}"
        assert manifest["worktree"] == str(lab.repo.parent / "repo.rcs-worktrees" / f"autoresearch-mission-{tag}")
    assert sorted(_branches(lab.repo)) == sorted([one["branch"], two["branch"]])


def test_two_launches_in_the_same_second_get_distinct_lanes(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RCS_CODEX_BIN", str(FAKE))
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    moment = dt.datetime(2026, 11, 22, 3, 4, 5, tzinfo=dt.UTC)
    monkeypatch.setattr(supervisor, "now", lambda: moment)
    mission = missions.load(str(lab.repo / "mission"))
    first = supervisor.launch(mission, [], lambda line: None)
    first.held.release()
    # A new run has done no iteration yet (the baseline is iteration 0) and counts no no-op.
    assert (first.manifest.iterations_done, first.manifest.consecutive_noops) == (-1, 0)
    second = supervisor.launch(mission, [], lambda line: None)
    second.held.release()
    assert (first.manifest.run_tag, second.manifest.run_tag) == ("20261122T030405Z", "20261122T030405Z-2")
    assert first.worktree != second.worktree and first.manifest.branch != second.manifest.branch


def test_a_launch_whose_artifacts_git_would_see_is_undone(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    # R-AR-8: launch proves results.tsv and run.log invisible to `git status` before the run
    # exists; with the exclude file left unwritten, it fails and removes the lane it made.
    from rcs_contracts.generated.autoresearch.errors import GitError
    from rcs_contracts.runtime.autoresearch import lane

    monkeypatch.setenv("RCS_CODEX_BIN", str(FAKE))
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(lane, "write_excludes", lambda worktree: worktree)
    mission = missions.load(str(lab.repo / "mission"))
    with pytest.raises(GitError) as info:
        supervisor.launch(mission, [], lambda line: None)
    assert str(info.value) == "git status failed (0): runtime artifacts not excluded: results.tsv"
    assert _branches(lab.repo) == [] and len(_worktrees(lab.repo)) == 1 and not lab.lock().exists()


def test_a_disk_failure_after_a_signal_exits_as_the_signal_and_names_the_resume(lab: Lab) -> None:
    # The supervisor loop failing (git or the disk) while a SIGTERM was being handled: the exit
    # status is the signal's (128 + 15), not a usage error, and the run stays resumable.
    code = (
        "import io, signal, sys\n"
        "from rcs_contracts.runtime.autoresearch import command, supervisor\n"
        "def failing(run, max_iterations):\n"
        "    run.signals.received = signal.SIGTERM\n"
        "    raise OSError('No space left on device')\n"
        "supervisor.supervise = failing\n"
        "err = io.StringIO()\n"
        "status = command.run('mission', None, [], 1, io.StringIO(), err)\n"
        "sys.stderr.write(err.getvalue())\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=lab.repo, env=lab.environment(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 128 + 15, done.stderr
    assert "No space left on device" in done.stderr
    assert f"continue with: rcs autoresearch --resume {lab.manifest()['run_id']}" in done.stderr


def test_live_lock_rejects_a_launch_and_creates_nothing(lab: Lab) -> None:
    lock.acquire(lab.repo, "other-run", ".rcs/logs/autoresearch/other-run/manifest.json")  # held by this pytest
    done = lab.rcs("mission")
    assert done.returncode == 2
    assert f"another run is active in this repository: other-run (pid {os.getpid()} on {socket.gethostname()}" \
        in done.stderr
    assert _branches(lab.repo) == [] and lab.run_dirs() == [] and len(_worktrees(lab.repo)) == 1


def test_racing_launches_exactly_one_wins(lab: Lab) -> None:
    ready = lab.root / "ready"
    lab.set_plan({"1": {**score_step(2), "ready": str(ready), "sleep": 3}})
    racers = [lab.start("--max-iterations", "1", "mission") for _ in range(2)]
    results = [(p.wait(timeout=120), p.communicate()) for p in racers]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    loser = next(err for code, (_, err) in results if code == 2)
    assert "another run is active in this repository" in loser
    assert len(_branches(lab.repo)) == 1 and len(lab.run_dirs()) == 1 and len(_worktrees(lab.repo)) == 2
    assert not lab.lock().exists()


def test_stale_lock_names_resume(lab: Lab) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    pointer = {"run_id": "mission-x", "pid": dead.pid, "host": socket.gethostname(),
               "started_at": "2026-11-22T00:00:00+00:00", "manifest": ".rcs/logs/autoresearch/mission-x/manifest.json"}
    lab.lock().parent.mkdir(parents=True)
    lab.lock().write_text(json.dumps(pointer))
    done = lab.rcs("mission")
    assert done.returncode == 2
    assert f"the lock {lab.lock()} is stale: run mission-x (pid {dead.pid}" in done.stderr
    assert "rcs autoresearch --resume mission-x" in done.stderr and f"delete {lab.lock()}" in done.stderr


def test_a_failed_launch_removes_what_it_created(lab: Lab) -> None:
    (lab.repo.parent / "repo.rcs-worktrees").write_text("a file where the worktrees directory goes\n")
    done = lab.rcs("mission")
    assert done.returncode == 2 and "rcs autoresearch:" in done.stderr
    assert _branches(lab.repo) == [] and lab.run_dirs() == [] and not lab.lock().exists()


@pytest.mark.parametrize(
    ("sandbox", "expected"),
    [
        (None, "sandbox.md: missing; a mission directory needs mission.md and sandbox.md"),
        ("no frontmatter\n", "invalid sandbox frontmatter: the file must start with a '---' line"),
        ("---\nevaluator:\n  command: x\n", "invalid sandbox frontmatter: no closing '---' line"),
        ("---\nevaluator:\n  command: x\n---\n", "invalid sandbox frontmatter: Required property 'format' is missing"),
        ("---\nevaluator: {command: x, format: yaml}\n---\n", "invalid sandbox frontmatter:"),
        ("---\nevaluator: {command: x, format: json}\nevalutor: {}\n---\n",
         "invalid sandbox frontmatter: Property 'evalutor' is not allowed by the schema"),
        ("---\nevaluator: {command: x, format: json, keep_policy: best}\n---\n", "invalid sandbox frontmatter:"),
        ("---\nevaluator: {command: x, format: json}\nevaluator: {}\n---\n", "duplicate key 'evaluator'"),
    ],
)
def test_bad_missions_are_refused(tmp_path: Path, sandbox: str | None, expected: str) -> None:
    lab = Lab(tmp_path, make_repo(tmp_path))
    path = lab.repo / "mission/sandbox.md"
    if sandbox is None:
        path.unlink()
    else:
        path.write_text(sandbox)
    done = lab.rcs("mission")
    assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and lab.run_dirs() == []


def test_mission_outside_git_and_missing_worker(tmp_path: Path, lab: Lab) -> None:
    outside = tmp_path / "outside"
    (outside / "m").mkdir(parents=True)
    done = lab.rcs(str(outside / "m"))
    assert done.returncode == 2 and "must be inside a git repository" in done.stderr
    lab.env["RCS_CODEX_BIN"] = str(tmp_path / "no-such-codex")
    done = lab.rcs("mission")
    assert done.returncode == 2 and "cannot start the worker" in done.stderr and "RCS_CODEX_BIN" in done.stderr
    assert lab.run_dirs() == [] and _branches(lab.repo) == []
    misplaced = lab.rcs("mission", "--max-iterations", "2")
    assert misplaced.returncode == 2 and "--max-iterations goes before the mission directory" in misplaced.stderr


def test_worker_argv_environment_and_instruction_snapshot(lab: Lab) -> None:
    lab.set_plan({"1": score_step(2), "2": score_step(1)})
    assert lab.rcs("--max-iterations", "2", "mission", "-m", "o3").returncode == 0
    manifest = lab.manifest()
    call = json.loads((lab.root / "codex-log/2.json").read_text())
    assert call["argv"] == [str(FAKE), "exec", "--sandbox", "danger-full-access", "-m", "o3", "-"]
    assert manifest["codex_argv"] == call["argv"]
    run_dir = lab.only_run()
    assert call["env"] == {
        "RCS_AUTORESEARCH_RUN_ID": manifest["run_id"],
        "RCS_AUTORESEARCH_ITERATION": "2",
        "RCS_AUTORESEARCH_CANDIDATE_FILE": str(run_dir / "candidate.json"),
        "RCS_AUTORESEARCH_LAST_KEPT_COMMIT": lab.ledger()[1]["candidate_commit"],
    }
    snapshot = call["stdin"]
    for needle in [
        "iteration 2 of run", f"baseline commit: {manifest['baseline_commit']}",
        f"last kept commit: {lab.ledger()[1]['candidate_commit']}", "last kept score: 2.0",
        "keep policy: score_improvement", "previous iteration: keep (score improved)", "- iteration 1: keep",
        str(run_dir / "candidate.json"), "python3 mission/evaluator.py", "Raise score.txt.", "Evaluate with",
        "ties are discarded", "\n- iteration 1: keep (score improved); score 2.0, kept 2.0; iteration 1\n",
    ]:
        assert needle in snapshot, needle
    assert (run_dir / "iterations/0002/instructions.md").read_text() == snapshot


def test_user_sandbox_flags_replace_the_default(lab: Lab) -> None:
    lab.set_plan({})
    assert lab.rcs("--max-iterations", "1", "mission", "--sandbox=workspace-write", "--add-dir", "/x").returncode == 0
    call = json.loads((lab.root / "codex-log/1.json").read_text())
    assert call["argv"] == [str(FAKE), "exec", "--sandbox=workspace-write", "--add-dir", "/x", "-"]


def test_help_describes_the_supervisor() -> None:
    from tests.conftest import run_rcs

    done = run_rcs(["autoresearch", "--help"])
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for needle in ["rcs autoresearch [--max-iterations N] <mission-dir> [codex-args...]", "--resume <run-id>",
                   "codex exec --sandbox danger-full-access <codex-args> -", "--sandbox, -s) replaces it",
                   "candidate.json", "autoresearch/<mission-slug>/<run-tag>",
                   ".rcs/state/autoresearch-state.json", "RCS_CODEX_BIN", "score_improvement | pass_only",
                   "resumable"]:
        assert needle in text, needle


def test_codex_args_after_a_resumed_run_id_may_start_with_a_dash(lab: Lab) -> None:
    # SPEC 9.3: codex args given to --resume replace the recorded ones; argparse alone refused a
    # first one starting with a dash as an unknown rcs option.
    lab.set_plan({})
    assert lab.rcs("--max-iterations", "1", "mission", "-m", "o3").returncode == 0
    run_id = lab.manifest()["run_id"]
    resumed = lab.rcs("--max-iterations", "1", "--resume", run_id, "--sandbox", "workspace-write")
    assert resumed.returncode == 0, resumed.stderr
    call = json.loads((lab.root / "codex-log/2.json").read_text())
    assert call["argv"] == [str(FAKE), "exec", "--sandbox", "workspace-write", "-"]
    assert lab.manifest()["codex_argv"] == call["argv"]
