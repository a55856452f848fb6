"""A worker is untrusted: nothing it leaves behind can hang, flood or mislead the supervisor."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.autoresearch.conftest import Lab, make_repo


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    made = Lab(tmp_path, make_repo(tmp_path))
    made.set_plan({})
    return made


@pytest.mark.parametrize(
    ("hostile", "why"),
    [
        ("fifo", "candidate.json: not a regular file (a FIFO)"),
        ("devzero", "candidate.json: a symbolic link, which rcs does not follow in a file another process writes"),
        ("huge", "candidate.json: larger than 1048576 bytes, the cap for candidate (schemas/cli/limits.yaml)"),
    ],
)
def test_a_hostile_candidate_file_is_no_candidate(lab: Lab, hostile: str, why: str) -> None:
    lab.set_plan({"1": {"hostile": hostile}})
    done = lab.rcs("--max-iterations", "1", "mission", timeout=60)
    assert done.returncode == 0, done.stderr
    entry = lab.ledger()[-1]
    assert entry["iteration"] == 1
    assert why in entry["reason"]
    assert not lab.lock().exists()  # released: the run is resumable


def test_sigterm_while_a_fifo_waits_is_honoured_and_resumable(lab: Lab) -> None:
    """The worker leaves a FIFO and the supervisor is told to stop: it stops, releases the lock."""
    ready = lab.root / "ready"
    lab.set_plan({"1": {"hostile": "fifo", "ready": str(ready), "sleep": 30}})
    process = lab.start("mission")
    lab.wait_for(ready)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert "Traceback" not in err
    assert not lab.lock().exists()
    lab.set_plan({})
    resumed = lab.rcs("--max-iterations", "1", "--resume", lab.manifest()["run_id"], timeout=60)
    assert resumed.returncode == 0, resumed.stderr


def test_a_missing_shebang_interpreter_is_named(lab: Lab, tmp_path: Path) -> None:
    worker = tmp_path / "codex"
    worker.write_text("#!/nonexistent/python9 -u\nprint('hi')\n")
    worker.chmod(0o755)
    lab.env["RCS_CODEX_BIN"] = str(worker)
    done = lab.rcs("mission", timeout=60)
    assert done.returncode == 2
    assert f"cannot start the worker {worker}: its #! interpreter /nonexistent/python9 is not an executable file" in (
        done.stderr
    )


def test_scores_above_2_53_compare_exactly() -> None:
    from rcs_contracts.generated.autoresearch import config as C
    from rcs_contracts.generated.autoresearch.evaluation_schema import Evaluation
    from rcs_contracts.runtime.autoresearch import judge
    from rcs_contracts.runtime.autoresearch.files import build

    def evaluation(score: int) -> Evaluation:
        return build(
            Evaluation,
            {
                "run_id": "r",
                "iteration": 1,
                "commit": "0" * 40,
                "exit_code": 0,
                "timed_out": False,
                "seconds": 0.1,
                "result": {"pass": True, "score": score},
                "error": None,
                "finished_at": "2026-01-01T00:00:00+00:00",
            },
        )

    big = 2**53
    assert float(big + 1) == float(big)  # what float() comparison would lose
    assert judge.classify(evaluation(big + 1), big) == C.EvaluationOutcome.PASS_BETTER
    assert judge.classify(evaluation(big), big) == C.EvaluationOutcome.PASS_NOT_BETTER


def test_the_evaluator_output_is_read_bounded(lab: Lab) -> None:
    """An evaluator printing without end is cut at its cap and recorded as an error, not read whole."""
    from tests.autoresearch.conftest import git

    sandbox = lab.repo / "mission/sandbox.md"
    sandbox.write_text(sandbox.read_text().replace("python3 mission/evaluator.py", "head -c 20000000 /dev/zero"))
    git(lab.repo, "commit", "-qam", "flood")
    done = lab.rcs("--max-iterations", "1", "mission", timeout=120)
    assert done.returncode in (0, 1), done.stderr
    evaluations = sorted(lab.only_run().rglob("latest-evaluator-result.json"))
    assert evaluations, sorted(p.name for p in lab.only_run().rglob("*"))
    error = json.loads(evaluations[-1].read_text())["error"]
    assert error == "stdout: larger than 16777216 bytes, the cap for evaluator_output (schemas/cli/limits.yaml)"


def test_repository_hooks_and_fsmonitor_never_run_in_rcs_git_calls(lab: Lab) -> None:
    """The worker can write the repository's config and hooks; rcs's own git calls must not run them.

    (The worker's own git calls run them, which is its business: those carry its environment.)
    """
    from tests.autoresearch.conftest import git

    marker = lab.root / "ran"
    ours = '[ -z "$RCS_AUTORESEARCH_ITERATION" ]'
    hook = lab.repo / ".git/hooks/post-checkout"
    hook.write_text(f"#!/bin/sh\n{ours} && echo hook >> {marker}\nexit 0\n")
    hook.chmod(0o755)
    git(lab.repo, "config", "core.fsmonitor", f"{ours} && echo fsmonitor >> {marker}; false")
    lab.set_plan({"1": {"write": {"score.txt": "5\n"}, "commit": "c"}, "2": {"write": {"x": "y"}, "commit": "d"}})
    done = lab.rcs("--max-iterations", "2", "mission", timeout=120)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()


def test_a_closed_stdout_does_not_leave_the_lock(lab: Lab) -> None:
    import os
    import subprocess

    line = " ".join(lab.argv("--max-iterations", "1", "mission")) + " | true; echo status ${PIPESTATUS[0]} >&2"
    done = subprocess.run(["bash", "-c", line], cwd=lab.repo, env=lab.environment(), capture_output=True, text=True,
                          timeout=120)
    assert done.stderr.strip().splitlines()[-1] == "status 0", done.stderr
    assert "Traceback" not in done.stderr
    assert not lab.lock().exists()
    assert os.path.exists(lab.only_run() / "manifest.json")


@pytest.mark.parametrize(
    ("field", "value"),
    [("worktree", "REPO"), ("branch", "main"), ("repo_root", "/tmp"), ("run_id", "other-20260101T000000Z")],
)
def test_resume_refuses_a_manifest_changed_after_launch(lab: Lab, field: str, value: str) -> None:
    """A worker can write the run files: a manifest pointing at the user's checkout is refused."""
    from tests.autoresearch.conftest import git

    assert lab.rcs("--max-iterations", "1", "mission", timeout=120).returncode == 0
    run = lab.only_run()
    manifest = lab.manifest(run)
    run_id = manifest["run_id"]
    before = git(lab.repo, "rev-parse", "HEAD")
    manifest[field] = str(lab.repo) if value == "REPO" else value
    (run / "manifest.json").write_text(json.dumps(manifest))
    done = lab.rcs("--max-iterations", "1", "--resume", run_id, timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"the manifest of run {run_id} was changed after launch ({field} is " in done.stderr
    assert git(lab.repo, "rev-parse", "HEAD") == before
    assert not lab.lock().exists()


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        ('  command: "a\\0b"', "evaluator"),
        ("  command: x\n  timeout_seconds: " + "9" * 400, "timeout_seconds"),
    ],
)
def test_absurd_sandbox_values_are_refused_at_launch(lab: Lab, evaluator: str, message: str) -> None:
    from tests.autoresearch.conftest import git

    sandbox = lab.repo / "mission/sandbox.md"
    sandbox.write_text(f"---\nevaluator:\n{evaluator}\n  format: json\n---\n")
    git(lab.repo, "commit", "-qam", "absurd")
    done = lab.rcs("mission", timeout=60)
    assert done.returncode == 2, done.stderr
    assert "invalid sandbox" in done.stderr.lower() or "sandbox.md" in done.stderr, done.stderr
    assert message in done.stderr
    assert lab.run_dirs() == []


def test_a_run_directory_replaced_by_a_link_is_never_used(lab: Lab, tmp_path: Path) -> None:
    assert lab.rcs("--max-iterations", "1", "mission", timeout=120).returncode == 0
    run = lab.only_run()
    run_id = lab.manifest(run)["run_id"]
    elsewhere = tmp_path / "attacker"
    run.rename(elsewhere)
    run.symlink_to(elsewhere)
    before = sorted(p.name for p in elsewhere.iterdir())
    done = lab.rcs("--max-iterations", "1", "--resume", run_id, timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"the run directory {run} is no longer the one rcs made: {run} is a symbolic link" in done.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == before
