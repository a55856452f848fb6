"""--resume (verification target 5), its refusals, and SIGINT/SIGTERM/SIGKILL followed by a resume (R-AR-6)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.autoresearch.conftest import Lab, at_kept_and_clean, git, pid_alive, score_step


def test_resume_continues_from_last_kept_and_history(lab: Lab) -> None:
    lab.set_plan({"1": score_step(2), "2": score_step(1), "3": score_step(3), "4": score_step(2)})
    assert lab.rcs("--max-iterations", "2", "mission").returncode == 0
    first = lab.manifest()
    assert first["status"] == "paused" and first["iterations_done"] == 2
    # A directory for iteration 3 left by a supervisor killed before it recorded the iteration: reused.
    leftover = lab.only_run() / "iterations/0003"
    leftover.mkdir(parents=True)
    (leftover / "instructions.md").write_text("stale\n")
    done = lab.rcs("--max-iterations", "2", "--resume", first["run_id"])
    assert done.returncode == 0, done.stderr
    assert f"run {first['run_id']}: resumed at iteration 3, last kept {first['last_kept_commit']}" in done.stdout
    entries = lab.ledger()
    assert [e["iteration"] for e in entries] == [0, 1, 2, 3, 4]
    assert [e["decision"] for e in entries] == ["baseline", "keep", "discard", "keep", "discard"]
    assert entries[3]["base_commit"] == first["last_kept_commit"]
    rows = (lab.worktree() / "results.tsv").read_text().splitlines()
    assert len(rows) == 6 and lab.manifest()["worktree"] == first["worktree"]
    snapshot = json.loads((lab.root / "codex-log/3.json").read_text())["stdin"]
    assert "iteration 2: discard" in snapshot and "last kept score: 2.0" in snapshot
    assert (leftover / "instructions.md").read_text() == snapshot


def _paused_run(lab: Lab) -> dict[str, object]:
    lab.set_plan({"1": score_step(2)})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    return lab.manifest()


def test_resume_refuses_a_missing_manifest(lab: Lab) -> None:
    done = lab.rcs("--resume", "no-such-run")
    assert done.returncode == 2
    assert "no manifest for run no-such-run:" in done.stderr and "ls " in done.stderr
    assert not lab.lock().exists()


def test_resume_refuses_a_missing_worktree(lab: Lab) -> None:
    manifest = _paused_run(lab)
    shutil.rmtree(str(manifest["worktree"]))
    done = lab.rcs("--resume", str(manifest["run_id"]))
    assert done.returncode == 2
    assert f"the worktree of run {manifest['run_id']} is missing" in done.stderr
    assert f"git worktree prune && git worktree add {manifest['worktree']} {manifest['branch']}" in done.stderr
    assert not lab.lock().exists()
    subprocess.run(f"git worktree prune && git worktree add {manifest['worktree']} {manifest['branch']}",
                   shell=True, cwd=lab.repo, check=True, capture_output=True)
    assert lab.rcs("--max-iterations", "1", "--resume", str(manifest["run_id"])).returncode == 0  # the fix works


def test_resume_refuses_a_dirty_worktree(lab: Lab) -> None:
    manifest = _paused_run(lab)
    Path(str(manifest["worktree"]), "stray.txt").write_text("mine\n")
    Path(str(manifest["worktree"]), "run.log").write_text("allowlisted\n")
    done = lab.rcs("--resume", str(manifest["run_id"]))
    assert done.returncode == 2
    assert "has changes outside the runtime artifacts: stray.txt;" in done.stderr
    assert not lab.lock().exists()


def test_resume_refuses_a_terminal_run(lab: Lab) -> None:
    lab.set_plan({"1": {"candidate": {"status": "abort", "candidate_commit": None}}})
    assert lab.rcs("mission").returncode == 0
    manifest = lab.manifest()
    done = lab.rcs("--resume", manifest["run_id"])
    assert done.returncode == 2
    assert f"run {manifest['run_id']} has ended (aborted: worker aborted the run); start a new run with" in done.stderr


def test_resume_refuses_a_worktree_off_its_branch(lab: Lab) -> None:
    manifest = _paused_run(lab)
    git(Path(str(manifest["worktree"])), "checkout", "-q", "--detach")
    done = lab.rcs("--resume", str(manifest["run_id"]))
    assert done.returncode == 2
    assert f"is not on its branch {manifest['branch']} (HEAD: detached at" in done.stderr
    assert f"checkout {manifest['branch']}" in done.stderr


def _interrupt(lab: Lab, phase: str, signum: int) -> tuple[subprocess.Popen[str], int]:
    ready = lab.root / "ready.pid"
    if phase == "worker":
        lab.set_plan({"1": {**score_step(5), "ready": str(ready), "sleep": 60}})
    else:
        lab.env["EVAL_READY"] = str(ready)
        lab.set_plan({"1": score_step(5, "ready")})
    process = lab.start("mission")
    child = int(lab.wait_for(ready))
    process.send_signal(signum)
    return process, child


@pytest.mark.parametrize("phase", ["worker", "evaluator"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_sigint_sigterm_stop_cleanly_then_resume(lab: Lab, phase: str, signum: int) -> None:
    process, child = _interrupt(lab, phase, signum)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    assert not pid_alive(child)
    manifest = lab.manifest()
    assert manifest["status"] == "interrupted"
    assert manifest["stop_reason"] == f"supervisor interrupted: {signal.Signals(signum).name}"
    assert manifest["in_progress"] is None
    entry = lab.ledger()[-1]
    assert entry["iteration"] == 1 and entry["decision"] == "interrupted"
    assert git(lab.repo, "rev-parse", entry["discard_ref"]).strip() != manifest["last_kept_commit"]
    assert not lab.lock().exists()  # never exit holding the lock
    at_kept_and_clean(lab)
    assert f"rcs autoresearch --resume {manifest['run_id']}" in out
    lab.set_plan({"2": score_step(4)})
    done = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "interrupted", "keep"]


@pytest.mark.parametrize("phase", ["worker", "evaluator"])
def test_sigkill_then_resume_recovers_without_hand_editing(lab: Lab, phase: str) -> None:
    process, child = _interrupt(lab, phase, signal.SIGKILL)
    process.communicate(timeout=60)
    manifest = lab.manifest()
    assert manifest["status"] == "running" and manifest["in_progress"]["phase"] == phase
    assert lab.lock().exists() and pid_alive(child)  # SIGKILL leaves both behind
    fresh = lab.rcs("mission")
    assert fresh.returncode == 2
    assert "is stale" in fresh.stderr and f"rcs autoresearch --resume {manifest['run_id']}" in fresh.stderr
    lab.set_plan({"2": score_step(4)})
    done = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert done.returncode == 0, done.stderr
    assert f"iteration 1 was cut short ({phase}); recorded as interrupted and reset" in done.stdout
    assert not pid_alive(child)
    entries = lab.ledger()
    assert [e["decision"] for e in entries] == ["baseline", "interrupted", "keep"]
    assert entries[1]["reason"] == f"supervisor interrupted: the supervisor died during the {phase}"
    assert entries[2]["base_commit"] == entries[0]["kept_commit"]
    assert len(lab.run_dirs()) == 1 and not lab.lock().exists()
