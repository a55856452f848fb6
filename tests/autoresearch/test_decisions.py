"""The candidate handoff drives keep/discard/reset (verification targets 3 and 4), R-AR-3 and R-AR-4."""

from __future__ import annotations

import json
from pathlib import Path

from rcs_contracts.generated.autoresearch import config as C
from tests.autoresearch.conftest import Lab, git, make_repo, score_step
from tests.conftest import run_rcs


def test_keep_discard_reset_and_results(lab: Lab) -> None:
    lab.set_plan({"1": score_step(5), "2": score_step(3), "3": score_step(5), "4": score_step(9)})
    done = lab.rcs("--max-iterations", "4", "mission")
    assert done.returncode == 0, done.stderr
    entries = lab.ledger()
    assert [e["decision"] for e in entries] == ["baseline", "keep", "discard", "discard", "keep"]
    assert [e["kept_score"] for e in entries] == [0.0, 5.0, 5.0, 5.0, 9.0]
    assert entries[3]["reason"].startswith("score did not improve")  # a tie is discarded (R-AR-3)
    manifest = lab.manifest()
    worktree = Path(manifest["worktree"])
    assert manifest["status"] == "paused" and manifest["last_kept_commit"] == entries[4]["candidate_commit"]
    # Target 4: the discarded commit is gone from the branch, kept reachable under the run's ref.
    kept_1 = entries[1]["candidate_commit"]
    assert entries[2]["kept_commit"] == kept_1
    ref = entries[2]["discard_ref"]
    assert ref == f"{manifest['discard_ref_prefix']}iteration-2"
    assert git(lab.repo, "rev-parse", ref).strip() == entries[2]["candidate_commit"]
    assert git(worktree, "rev-parse", "HEAD").strip() == manifest["last_kept_commit"]
    assert git(worktree, "status", "--porcelain").strip() == ""
    branch = git(worktree, "rev-list", manifest["branch"]).split()
    assert entries[2]["candidate_commit"] not in branch and kept_1 in branch
    # results.tsv, ledger and manifest agree.
    rows = [line.split("\t") for line in (worktree / "results.tsv").read_text().splitlines()]
    assert rows[0] == ["iteration", "commit", "decision", "pass", "score", "kept_score", "description"]
    assert [r[2] for r in rows[1:]] == [e["decision"] for e in entries]
    assert all(len(r[1]) == 40 for r in rows[1:])  # full SHAs (R-AR-7)
    latest = (lab.only_run() / "latest-evaluator-result.json").read_text()
    assert '"iteration": 4' in latest and '"score": 9.0' in latest
    assert "iteration 4: keep score=9 kept=9" in done.stdout
    assert "run " in done.stdout and "paused" in done.stdout and "--resume" in done.stdout
    # The state files are artifacts like any other: rcs validate checks them against the same schemas.
    run_dir = lab.only_run()
    for kind, name in [("manifest", "manifest.json"), ("ledger", "iteration-ledger.json"),
                       ("evaluation", "latest-evaluator-result.json")]:
        checked = run_rcs(["validate", "--kind", f"autoresearch/{kind}", str(run_dir / name)])
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_fail_crash_and_unscored_are_discarded(lab: Lab) -> None:
    lab.set_plan({"1": score_step(5, "fail"), "2": score_step(6, "crash"), "3": score_step(7, "noscore")})
    done = lab.rcs("--max-iterations", "3", "mission")
    assert done.returncode == 0, done.stderr
    entries = lab.ledger()
    assert [e["decision"] for e in entries] == ["baseline", "discard", "error", "ambiguous"]
    assert entries[2]["reason"] == "evaluator error: evaluator exited with status 3"
    assert all(e["kept_commit"] == entries[0]["kept_commit"] for e in entries)
    assert all(e["discard_ref"] for e in entries[1:])


def test_pass_only_keeps_any_pass(tmp_path: Path) -> None:
    lab = Lab(tmp_path, make_repo(tmp_path, policy="pass_only"))
    lab.set_plan({"1": score_step(-5, "noscore"), "2": score_step(-9), "3": score_step(1, "fail")})
    ran = lab.rcs("--max-iterations", "3", "mission")
    assert ran.returncode == 0
    assert lab.decisions() == ["baseline", "keep", "keep", "discard"]
    # The closing table: a header, then one line per iteration, each line printed as a line of its own.
    lines = ran.stdout.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("iter  decision"))
    rows = [line.split()[:2] for line in lines[top + 1 : top + 5]]
    assert rows == [["0", "baseline"], ["1", "keep"], ["2", "keep"], ["3", "discard"]]
    assert lab.manifest()["last_kept_score"] == -9.0
    # Each session is told the rule of the run's policy (the keep-policy table), not another's.
    told = (lab.only_run() / "iterations/0001/instructions.md").read_text()
    assert f"## Decision rule\n{C.KEEP_POLICY_RULES['pass_only']}\n" in told
    assert told.endswith("\n") and not told.endswith("\n\n")  # one line break ends the file
    assert C.KEEP_POLICY_RULES["score_improvement"] not in told


def test_failed_baseline_then_bootstrap_keep(tmp_path: Path) -> None:
    lab = Lab(tmp_path, make_repo(tmp_path, mode="fail", score="100"))
    lab.set_plan({"1": score_step(2, "noscore"), "2": score_step(1), "3": score_step(0.5)})
    assert lab.rcs("--max-iterations", "3", "mission").returncode == 0
    entries = lab.ledger()
    assert [e["decision"] for e in entries] == ["baseline", "ambiguous", "keep", "discard"]
    assert entries[0]["passed"] is False and entries[0]["kept_score"] is None  # no kept score from a failure
    assert entries[2]["bootstrap"] is True and entries[2]["reason"].startswith("bootstrap keep")
    assert [e["bootstrap"] for e in entries] == [False, False, True, False]
    assert entries[3]["kept_score"] == 1.0


def test_noop_limit_finishes_the_run(lab: Lab) -> None:
    lab.set_plan({"1": {"candidate": {"status": "noop", "candidate_commit": None}},
                  "2": score_step(1),
                  "default": {"candidate": {"status": "noop", "candidate_commit": None}}})
    done = lab.rcs("mission")
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "noop", "keep", "noop", "noop", "noop"]
    manifest = lab.manifest()
    assert manifest["status"] == "finished" and manifest["stop_reason"] == "3 consecutive noops"
    assert not lab.lock().exists()
    resumed = lab.rcs("--resume", manifest["run_id"])
    assert resumed.returncode == 2 and "has ended (finished: 3 consecutive noops)" in resumed.stderr
    # A hand-edited manifest that lost its reason still names the run's state, with '-' for the reason.
    path = lab.only_run() / "manifest.json"
    path.write_text(json.dumps({**manifest, "stop_reason": None}))
    resumed = lab.rcs("--resume", manifest["run_id"])
    assert resumed.returncode == 2 and f"run {manifest['run_id']} has ended (finished: -); " in resumed.stderr


def test_abort_stops_without_reset(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(4), "candidate": {"status": "abort", "description": "giving up"}}})
    done = lab.rcs("mission")
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "abort"]
    manifest = lab.manifest()
    assert manifest["status"] == "aborted"
    # No reset: the worker's commit is still checked out (contract: abort -> stop run without reset).
    assert git(Path(manifest["worktree"]), "log", "-1", "--format=%s").strip() == "score 4"


def test_interrupted_candidate_clean_continues_dirty_stops(lab: Lab) -> None:
    lab.set_plan({
        "1": {**score_step(4), "candidate": {"status": "interrupted"}},
        "2": {"dirty": {"score.txt": "8\n"}, "candidate": {"status": "interrupted", "candidate_commit": None}},
    })
    done = lab.rcs("--max-iterations", "5", "mission")
    assert done.returncode == 1, done.stderr  # needs an operator
    assert lab.decisions() == ["baseline", "interrupted", "interrupted"]
    manifest = lab.manifest()
    assert manifest["status"] == "needs_operator"
    worktree = Path(manifest["worktree"])
    assert (worktree / "score.txt").read_text() == "8\n"  # left for the operator, not reset
    refused = lab.rcs("--resume", manifest["run_id"])
    assert refused.returncode == 2 and "has changes outside the runtime artifacts: score.txt" in refused.stderr
    git(worktree, "checkout", "--", "score.txt")
    lab.set_plan({"default": score_step(3)})
    resumed = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert resumed.returncode == 0, resumed.stderr
    assert lab.decisions() == ["baseline", "interrupted", "interrupted", "keep"]


def test_description_with_tabs_and_newlines_is_sanitised(lab: Lab) -> None:
    lab.set_plan({"1": {**score_step(2), "candidate": {"description": "a\tb\nc\r\nd", "notes": ["x\ty"]}}})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    lines = (lab.worktree() / "results.tsv").read_text().splitlines()
    assert len(lines) == 3
    assert lines[2].split("\t")[-1] == "a b c d" and all(len(line.split("\t")) == 7 for line in lines)
    assert lab.ledger()[1]["description"] == "a\tb\nc\r\nd"  # the ledger keeps the text as written
