"""Workers and evaluators that misbehave: every case is an iteration decision, never a crashed supervisor."""

from __future__ import annotations

import os
from pathlib import Path

from tests.autoresearch.conftest import Lab, at_kept_and_clean, git, make_repo, pid_alive, score_step


def _last(lab: Lab) -> dict[str, object]:
    return lab.ledger()[-1]


def test_worker_timeout_kills_its_group(tmp_path: Path) -> None:
    # 5 s, not 1: the timeout holds for the second worker too, which must finish under a loaded CI.
    lab = Lab(tmp_path, make_repo(tmp_path, worker_timeout=5))
    ready = tmp_path / "worker.pid"
    lab.set_plan({"1": {**score_step(3), "ready": str(ready), "sleep": 60}, "2": score_step(4)})
    # The 60 s sleeper must be killed after 5 s: waiting for it would exceed the 30 s timeout.
    done = lab.rcs("--max-iterations", "2", "mission", timeout=30)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "error", "keep"]
    assert _last(lab)["iteration"] == 2 and lab.ledger()[1]["reason"] == "worker failed: worker timed out"
    assert lab.ledger()[1]["discard_ref"] is not None  # the commit it made before hanging is kept reachable
    assert not pid_alive(int(lab.wait_for(ready)))


def test_worker_nonzero_exit(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(3), "exit": 7}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    assert lab.ledger()[1]["decision"] == "error"
    assert lab.ledger()[1]["reason"] == "worker failed: worker exited with status 7"
    assert lab.ledger()[1]["worker_exit"] == 7
    at_kept_and_clean(lab)


def test_worker_killed_by_a_signal(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(3), "die": "SIGKILL"}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    assert lab.ledger()[1]["decision"] == "error"
    assert lab.ledger()[1]["reason"] == "worker failed: worker was killed by a signal"
    assert lab.ledger()[1]["worker_exit"] is None
    at_kept_and_clean(lab)


def test_missing_invalid_and_stale_candidates(lab: Lab) -> None:
    lab.set_plan({
        "1": score_step(3),
        "2": {**score_step(4), "candidate": None},
        "3": {**score_step(4), "raw": "{not json"},
        "4": {**score_step(4), "candidate": {"base_commit": "STALE"}},  # the baseline, no longer the last kept
        "5": {**score_step(4), "candidate": {"status": "maybe"}},
        "6": score_step(4),
    })
    assert lab.rcs("--max-iterations", "6", "mission").returncode == 0
    baseline, *entries = lab.ledger()
    assert [e["decision"] for e in entries] == ["keep", "error", "error", "error", "error", "keep"]
    assert entries[1]["reason"] == "no valid candidate.json: candidate.json was not written"
    assert (entries[1]["description"], entries[1]["notes"]) == ("", [])  # no candidate: nothing it said
    assert entries[2]["reason"].startswith("no valid candidate.json: candidate.json: Invalid JSON")
    base, kept = baseline["kept_commit"], entries[3]["base_commit"]
    stale = f"no valid candidate.json: stale candidate: base_commit {base} is not {kept}"
    assert entries[3]["reason"] == stale and base != kept
    assert entries[4]["reason"].startswith("no valid candidate.json: candidate.json:")
    assert "status" in entries[4]["reason"]


def test_a_candidate_from_an_earlier_iteration_is_not_judged_again(lab: Lab) -> None:
    # Iteration 2 writes nothing: the file of iteration 1 was removed before it started (R-AR-4).
    lab.set_plan({"1": score_step(3), "2": {"candidate": None}})
    assert lab.rcs("--max-iterations", "2", "mission").returncode == 0
    assert lab.decisions() == ["baseline", "keep", "error"]
    assert not (lab.only_run() / "candidate.json").exists()


def test_worker_commits_twice(lab: Lab) -> None:
    lab.set_plan({"1": {"write": {"score.txt": "6\n"}, "commit": ["first", "second"]}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    entry = _last(lab)
    assert entry["decision"] == "keep"
    worktree = lab.worktree()
    assert git(worktree, "log", "-2", "--format=%s").split() == ["second", "first"]
    assert entry["candidate_commit"] == git(worktree, "rev-parse", "HEAD").strip()


def test_worker_detaches_head(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(5), "detach": True}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    entry = _last(lab)
    branch = lab.manifest()["branch"]
    assert entry["decision"] == "error"
    assert entry["reason"] == f"candidate failed integrity checks: HEAD is not on the run branch {branch}"
    at_kept_and_clean(lab)
    assert git(lab.repo, "rev-parse", entry["discard_ref"]).strip() == entry["candidate_commit"]


def test_worker_leaves_uncommitted_edits_which_stay_reachable(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(5), "dirty": {"notes.txt": "half-done idea\n"}}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    entry = _last(lab)
    assert entry["decision"] == "error" and "uncommitted edits: notes.txt" in entry["reason"]
    at_kept_and_clean(lab)
    assert not (lab.worktree() / "notes.txt").exists()
    assert git(lab.repo, "show", f"{entry['discard_ref']}:notes.txt") == "half-done idea\n"
    subject = git(lab.repo, "log", "-1", "--format=%s", entry["discard_ref"]).strip()
    assert subject == f"rcs autoresearch {lab.manifest()['run_id']}: iteration 1 ({entry['decision']})", subject


def test_worker_edits_sandbox_md(lab: Lab) -> None:
    cheat = "---\nevaluator:\n  command: echo '{\"pass\": true, \"score\": 1000}'\n  format: json\n---\n"
    lab.set_plan({"1": {"write": {"mission/sandbox.md": cheat, "score.txt": "1\n"}, "commit": "cheat"}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    entry = _last(lab)
    assert entry["decision"] == "error" and "edits the mission directory: mission/sandbox.md" in entry["reason"]
    manifest = lab.manifest()
    assert manifest["evaluator"]["command"] == "python3 mission/evaluator.py"  # R-AR-5
    assert manifest["last_kept_score"] == 0.0


def test_leftover_index_lock(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(1, "fail"), "index_lock": True}, "2": score_step(2)})
    done = lab.rcs("--max-iterations", "2", "mission")
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "discard", "keep"]
    at_kept_and_clean(lab)


def test_evaluator_logging_on_stdout_is_an_error(lab: Lab) -> None:
    lab.set_plan({"1": score_step(4, "logs")})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    entry = _last(lab)
    assert entry["decision"] == "error" and "stdout is not exactly one JSON object" in entry["reason"]
    iteration = lab.only_run() / "iterations/0001"
    assert (iteration / "evaluator.stdout").read_text().startswith("starting evaluation\n")
    assert "mode=logs" in (iteration / "evaluator.stderr").read_text()


def test_evaluator_hang_times_out(tmp_path: Path) -> None:
    lab = Lab(tmp_path, make_repo(tmp_path, eval_timeout=1))
    lab.set_plan({"1": score_step(4, "hang")})
    assert lab.rcs("--max-iterations", "1", "mission", timeout=30).returncode == 0
    entry = _last(lab)
    assert entry["decision"] == "error" and entry["reason"] == "evaluator error: evaluator timed out after 1s"


def test_evaluator_grandchild_is_killed(lab: Lab) -> None:
    pid_file = lab.root / "grandchild.pid"
    lab.env["EVAL_PID_FILE"] = str(pid_file)
    lab.set_plan({"1": score_step(4, "grandchild")})
    # The sleeping grandchild holds stdout open: reading to its end would exceed the timeout.
    assert lab.rcs("--max-iterations", "1", "mission", timeout=30).returncode == 0
    assert lab.decisions() == ["baseline", "keep"]
    assert not pid_alive(int(lab.wait_for(pid_file)))


def test_evaluator_droppings_removed_from_worktree_only(lab: Lab) -> None:
    (lab.repo / "junk.txt").write_text("the user's untracked file\n")
    lab.set_plan({"1": score_step(4, "droppings"), "2": score_step(1)})
    assert lab.rcs("--max-iterations", "2", "mission").returncode == 0
    assert lab.decisions() == ["baseline", "keep", "discard"]
    worktree = lab.worktree()
    at_kept_and_clean(lab)
    assert not (worktree / "junk.txt").exists() and not (worktree / "build").exists()
    assert (worktree / "run.log").exists()  # an allowlisted runtime artifact survives
    assert (lab.repo / "junk.txt").read_text() == "the user's untracked file\n"


def test_runtime_artifacts_are_hidden_by_the_exclude_file_git_reads(lab: Lab) -> None:
    lab.set_plan({})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    worktree = lab.worktree()
    exclude = Path(git(worktree, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude").strip())
    assert "/results.tsv" in exclude.read_text().splitlines()  # R-AR-8
    (worktree / "run.log").write_text("log\n")
    assert git(worktree, "status", "--porcelain", "--untracked-files=all").strip() == ""
    assert git(lab.repo, "status", "--porcelain", "--untracked-files=all").strip() == ""  # .rcs/ hidden too
    assert os.access(worktree / "results.tsv", os.R_OK)
