"""Review scenarios: crash-safety and correctness cases a demanding user hits.

Each test drives the real CLI against real git repositories (see conftest.py). A worker that does
more than the fake codex's plan can (nested repositories, odd file names, branch surgery, ...) is a
small shell wrapper around fake_codex.py that runs ``post/<iteration>.py`` in the worktree after it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.runtime.autoresearch import lock
from tests.autoresearch.conftest import FAKE, IDENTITY, Lab, at_kept_and_clean, git, make_repo, score_step

NOOP_CANDIDATE = {"candidate": {"status": "noop", "candidate_commit": None}}

# An evaluator that prints out.json (committed by the worker) or runs out.py, else a passing score 0.
EMIT = '''\
import os, runpy, sys, time
from pathlib import Path
ready = os.environ.get("EVAL_READY")
if ready and not Path(ready).exists():
    Path(ready).write_text(str(os.getpid()))
    time.sleep(60)
if Path("out.py").exists():
    runpy.run_path("out.py")
elif Path("out.json").exists():
    sys.stdout.write(Path("out.json").read_text())
else:
    print('{"pass": true, "score": 0}')
'''


def _call(lab: Lab, *args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`rcs autoresearch ARGS` run from ``cwd``."""
    return subprocess.run(lab.argv(*args), cwd=cwd, env=lab.environment(), capture_output=True, text=True,
                          timeout=timeout)


def _no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert "internal error" not in done.stderr.lower(), done.stderr


def _posts(lab: Lab, posts: dict[int, str]) -> None:
    """Install a worker that runs fake_codex.py, then ``posts[iteration]`` (Python) in the worktree."""
    post_dir = lab.root / "post"
    post_dir.mkdir(exist_ok=True)
    for iteration, code in posts.items():
        (post_dir / f"{iteration}.py").write_text(code)
    wrapper = lab.root / "codex-wrapper.sh"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'"{sys.executable}" "{FAKE}" "$@" || exit $?\n'
        f'post="{post_dir}/$RCS_AUTORESEARCH_ITERATION.py"\n'
        f'if [ -f "$post" ]; then "{sys.executable}" "$post" || exit 99; fi\n'
        "exit 0\n"
    )
    wrapper.chmod(0o755)
    lab.env["RCS_CODEX_BIN"] = str(wrapper)


def _emit_lab(tmp_path: Path, **kwargs: Any) -> Lab:
    """A lab whose evaluator is mission/emit.py (prints what the worker committed in out.json/out.py)."""
    repo = make_repo(tmp_path, command="python3 mission/emit.py", **kwargs)
    (repo / "mission/emit.py").write_text(EMIT)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "emit")
    lab = Lab(tmp_path, repo)
    lab.set_plan({})
    return lab


def _emit_step(**files: str) -> dict[str, Any]:
    return {"write": files, "commit": "evaluator output"}


def _branches(repo: Path) -> list[str]:
    return git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/autoresearch/").split()


# --- where the mission and the repository are -------------------------------------------------------


def test_mission_dir_at_repo_root(lab: Lab) -> None:
    shutil.copy(lab.repo / "mission/mission.md", lab.repo / "mission.md")
    shutil.copy(lab.repo / "mission/sandbox.md", lab.repo / "sandbox.md")
    git(lab.repo, "add", "-A")
    git(lab.repo, "commit", "-q", "-m", "root mission")
    lab.set_plan({"1": score_step(3), "2": score_step(1)})
    done = lab.rcs("--max-iterations", "2", ".")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "discard"]
    manifest = lab.manifest()
    assert manifest["mission_dir"] == "." and manifest["mission_slug"] == "repo"
    at_kept_and_clean(lab)
    assert git(lab.repo, "status", "--porcelain", "--untracked-files=all").strip() == ""
    resumed = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert resumed.returncode == 0, resumed.stderr


@pytest.mark.parametrize("name", ["my missión ü", "exp[1]", "実験"])
def test_mission_dir_names_with_spaces_and_unicode(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path, command=f'python3 "{name}/evaluator.py"')
    git(repo, "mv", "mission", name)
    git(repo, "commit", "-q", "-m", "rename")
    lab = Lab(tmp_path, repo)
    cheat = "---\nevaluator:\n  command: echo '{\"pass\": true, \"score\": 1000}'\n  format: json\n---\n"
    lab.set_plan({"1": score_step(3), "2": {"write": {f"{name}/sandbox.md": cheat, "score.txt": "9\n"},
                                             "commit": "cheat"}})
    done = lab.rcs("--max-iterations", "2", name)
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "error"]
    assert "edits the mission directory" in lab.ledger()[2]["reason"]
    manifest = lab.manifest()
    assert manifest["mission_dir"] == name
    assert all(ch.isascii() for ch in manifest["branch"]) and " " not in manifest["branch"]
    at_kept_and_clean(lab)


def test_repo_path_with_spaces_and_unicode(tmp_path: Path) -> None:
    made = make_repo(tmp_path)
    repo = made.parent / "my repo ü"
    made.rename(repo)
    lab = Lab(tmp_path, repo)
    lab.set_plan({"1": score_step(3), "2": score_step(1), "3": score_step(4)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    manifest = lab.manifest()
    assert manifest["worktree"].startswith(str(tmp_path / "my repo ü.rcs-worktrees"))
    resumed = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert resumed.returncode == 0, resumed.stderr
    assert lab.decisions() == ["baseline", "keep", "discard", "keep"]
    at_kept_and_clean(lab)


def test_launch_and_resume_from_a_subdirectory(lab: Lab) -> None:
    sub = lab.repo / "src" / "deep"
    sub.mkdir(parents=True)
    lab.set_plan({"1": score_step(3), "2": score_step(4)})
    done = _call(lab, "--max-iterations", "1", "../../mission", cwd=sub)
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    run_id = lab.manifest()["run_id"]
    resumed = _call(lab, "--max-iterations", "1", "--resume", run_id, cwd=sub)
    assert resumed.returncode == 0, resumed.stderr
    assert lab.decisions() == ["baseline", "keep", "keep"]
    assert not (sub / ".rcs").exists()


def test_resume_from_inside_the_worktree(lab: Lab) -> None:
    lab.set_plan({"1": score_step(3), "2": score_step(4)})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    manifest = lab.manifest()
    resumed = _call(lab, "--max-iterations", "1", "--resume", manifest["run_id"], cwd=Path(manifest["worktree"]))
    _no_traceback(resumed)
    assert resumed.returncode == 0, resumed.stderr
    assert lab.decisions() == ["baseline", "keep", "keep"]
    assert not (Path(manifest["worktree"]) / ".rcs").exists()
    at_kept_and_clean(lab)


def test_launch_and_resume_from_a_linked_worktree_of_the_users_repo(lab: Lab) -> None:
    """The user works in a linked worktree (`git worktree add`); launch and resume from there."""
    user_wt = lab.root / "feature-wt"
    git(lab.repo, "worktree", "add", "-q", "-b", "feature", str(user_wt))
    lab.set_plan({"1": score_step(3), "2": score_step(4)})
    done = _call(lab, "--max-iterations", "1", "mission", cwd=user_wt)
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    run_id = done.stdout.split("run ", 1)[1].split(":", 1)[0].split()[0]
    resumed = _call(lab, "--max-iterations", "1", "--resume", run_id, cwd=user_wt)
    _no_traceback(resumed)
    assert resumed.returncode == 0, resumed.stderr  # resume must find the run launch created


def test_uncommitted_mission_dir_is_refused(lab: Lab) -> None:
    """A mission directory the user has not committed yet would be absent from the run's worktree."""
    fresh = lab.repo / "fresh"
    fresh.mkdir()
    (fresh / "mission.md").write_text("# Mission\n")
    (fresh / "sandbox.md").write_text(
        "---\nevaluator:\n  command: python3 fresh/evaluator.py\n  format: json\n---\n"
    )
    shutil.copy(lab.repo / "mission/evaluator.py", fresh / "evaluator.py")
    lab.set_plan({"1": score_step(3)})
    done = lab.rcs("--max-iterations", "1", "fresh")
    _no_traceback(done)
    assert done.returncode == 2
    assert "fresh: the mission directory has uncommitted changes (fresh/evaluator.py, fresh/mission.md, " \
        "fresh/sandbox.md); a run starts from the last commit, so commit them first (`git add fresh && git commit`)" \
        in done.stderr, done.stderr
    assert lab.run_dirs() == [] and not lab.lock().exists()
    git(lab.repo, "add", "fresh")
    git(lab.repo, "commit", "-q", "-m", "fresh mission")
    assert lab.rcs("--max-iterations", "1", "fresh").returncode == 0  # the fix the message names works
    assert lab.ledger()[0]["passed"] is True


# --- resume ----------------------------------------------------------------------------------------


def test_resume_twice_in_a_row(lab: Lab) -> None:
    lab.set_plan({"1": score_step(2), "2": score_step(1), "3": score_step(3)})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    run_id = lab.manifest()["run_id"]
    for _ in range(2):
        done = lab.rcs("--max-iterations", "1", "--resume", run_id)
        assert done.returncode == 0, done.stderr
        assert not lab.lock().exists()
    assert [e["iteration"] for e in lab.ledger()] == [0, 1, 2, 3]
    assert lab.decisions() == ["baseline", "keep", "discard", "keep"]
    assert len((lab.worktree() / "results.tsv").read_text().splitlines()) == 5
    at_kept_and_clean(lab)


def test_resume_refused_while_another_live_run_holds_the_lock(lab: Lab) -> None:
    lab.set_plan({"1": score_step(2)})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    before = lab.manifest()
    other = lock.acquire(lab.repo, "other-run", ".rcs/logs/autoresearch/other-run/manifest.json")
    try:
        done = lab.rcs("--resume", before["run_id"])
        _no_traceback(done)
        assert done.returncode == 2
        assert "another run is active in this repository: other-run" in done.stderr
        assert json.loads(lab.lock().read_text())["run_id"] == "other-run"  # not taken over
        after = lab.manifest()
        assert after["status"] == "paused" and after["iterations_done"] == before["iterations_done"]
    finally:
        other.release()
    assert lab.rcs("--max-iterations", "1", "--resume", before["run_id"]).returncode == 0


def test_resume_of_a_run_that_is_still_running_is_refused(lab: Lab) -> None:
    ready = lab.root / "ready"
    lab.set_plan({"1": {**score_step(2), "ready": str(ready), "sleep": 2}})
    process = lab.start("--max-iterations", "1", "mission")
    lab.wait_for(ready)
    run_id = lab.manifest()["run_id"]
    done = lab.rcs("--resume", run_id)
    _no_traceback(done)
    assert done.returncode == 2 and "another run is active" in done.stderr
    process.communicate(timeout=60)
    assert process.returncode == 0
    assert lab.decisions() == ["baseline", "keep"] and lab.manifest()["status"] == "paused"
    assert not lab.lock().exists()


def test_evaluator_droppings_after_a_keep_do_not_block_resume(lab: Lab) -> None:
    # The evaluator leaves untracked files (think __pycache__/, build output) on a candidate that is kept.
    lab.set_plan({"1": score_step(4, "droppings"), "2": score_step(5)})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    manifest = lab.manifest()
    assert manifest["status"] == "paused" and lab.decisions() == ["baseline", "keep"]
    done = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    _no_traceback(done)
    assert done.returncode == 0, done.stderr  # the supervisor's own evaluator left them: resume must cope
    assert lab.decisions() == ["baseline", "keep", "keep"]


def test_evaluator_that_moves_head_on_a_kept_candidate_does_not_block_resume(tmp_path: Path) -> None:
    lab = _emit_lab(tmp_path)
    moving = ("import subprocess\nsubprocess.run(['git', 'checkout', '-q', '--detach'], check=True)\n"
              "print('{\"pass\": true, \"score\": 2}')\n")
    better = "print('{\"pass\": true, \"score\": 3}')\n"
    lab.set_plan({"1": _emit_step(**{"out.py": moving}), "2": _emit_step(**{"out.py": better})})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    manifest = lab.manifest()
    assert manifest["status"] == "paused" and lab.decisions() == ["baseline", "keep"]
    done = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "keep"]


# --- workers that misbehave -------------------------------------------------------------------------


def test_worker_deletes_the_run_branch(lab: Lab) -> None:
    _posts(lab, {1: (
        "import subprocess\n"
        "refs = subprocess.run(['git', 'for-each-ref', '--format=%(refname:short)', 'refs/heads/autoresearch/'],"
        " capture_output=True, text=True, check=True).stdout.split()\n"
        "for ref in refs:\n"
        "    subprocess.run(['git', 'branch', '-D', ref], check=True, capture_output=True)\n"
        "subprocess.run(['git', 'branch', 'worker-side-branch'], check=True)\n"
    )})
    lab.set_plan({"1": {**score_step(5), "detach": True}, "2": score_step(6)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "error", "keep"]
    at_kept_and_clean(lab)
    assert git(lab.repo, "rev-parse", lab.ledger()[1]["discard_ref"]).strip() == lab.ledger()[1]["candidate_commit"]


@pytest.mark.parametrize("form", ["short", "tag", "branch"])
def test_candidate_commit_as_short_sha_tag_or_branch_is_recorded_in_full(lab: Lab, form: str) -> None:
    rewrite = {
        "short": "subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True)"
                 ".stdout.strip()",
        "tag": "(subprocess.run(['git', 'tag', 'best'], check=True), 'best')[1]",
        "branch": "subprocess.run(['git', 'symbolic-ref', '--short', 'HEAD'], capture_output=True, text=True)"
                  ".stdout.strip()",
    }[form]
    _posts(lab, {1: (
        "import json, os, subprocess\n"
        "path = os.environ['RCS_AUTORESEARCH_CANDIDATE_FILE']\n"
        "data = json.load(open(path))\n"
        f"data['candidate_commit'] = {rewrite}\n"
        "json.dump(data, open(path, 'w'))\n"
    )})
    lab.set_plan({"1": score_step(5), "2": score_step(3)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "discard"]
    full = lab.ledger()[1]["candidate_commit"]
    assert len(full) == 40 and lab.manifest()["last_kept_commit"] == full  # R-AR-7: full SHAs
    rows = (lab.worktree() / "results.tsv").read_text().splitlines()
    assert rows[2].split("\t")[1] == full
    at_kept_and_clean(lab)


def test_worker_wipes_the_exclude_file(lab: Lab) -> None:
    _posts(lab, {1: (
        "import subprocess\n"
        "path = subprocess.run(['git', 'rev-parse', '--path-format=absolute', '--git-path', 'info/exclude'],"
        " capture_output=True, text=True, check=True).stdout.strip()\n"
        "open(path, 'w').close()\n"
    )})
    lab.set_plan({"1": NOOP_CANDIDATE, "2": score_step(5)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "noop", "keep"]
    kept = lab.manifest()["last_kept_commit"]
    assert git(lab.repo, "ls-tree", "--name-only", kept).split().count("results.tsv") == 0
    at_kept_and_clean(lab)  # runtime artifacts hidden again (R-AR-8)
    # The run's state under .rcs/ must not show up in the user's checkout either.
    assert git(lab.repo, "status", "--porcelain", "--untracked-files=all").strip() == ""


def test_worker_scribbles_on_results_tsv(lab: Lab) -> None:
    _posts(lab, {1: "open('results.tsv', 'w').write('garbage\\tgarbage\\n')\n"})
    lab.set_plan({"1": score_step(5), "2": score_step(6)})
    done = lab.rcs("--max-iterations", "2", "mission")
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "keep"]
    rows = (lab.worktree() / "results.tsv").read_text().splitlines()
    assert rows[0].startswith("iteration\t") and [r.split("\t")[2] for r in rows[1:]] == lab.decisions()


def test_worker_leaves_a_nested_git_repository(lab: Lab) -> None:
    _posts(lab, {1: (
        "import subprocess\nfrom pathlib import Path\n"
        "subprocess.run(['git', 'init', '-q', 'nested'], check=True)\n"
        "Path('nested/notes.txt').write_text('scratch\\n')\n"
    )})
    lab.set_plan({"1": NOOP_CANDIDATE, "2": score_step(5)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "noop", "keep"]
    assert not (lab.worktree() / "nested").exists()
    at_kept_and_clean(lab)


def test_worker_leaves_a_file_whose_name_is_not_utf8(lab: Lab) -> None:
    _posts(lab, {1: "open(b'bad-\\xff-name.txt', 'w').write('x')\n"})
    lab.set_plan({"1": NOOP_CANDIDATE, "2": score_step(5)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "noop", "keep"]
    at_kept_and_clean(lab)


def test_worker_turns_candidate_json_into_a_directory(lab: Lab) -> None:
    _posts(lab, {1: (
        "import os\np = os.environ['RCS_AUTORESEARCH_CANDIDATE_FILE']\n"
        "if os.path.exists(p):\n    os.unlink(p)\nos.mkdir(p)\n"
    )})
    lab.set_plan({"1": score_step(5), "2": score_step(6)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "error", "keep"]


def test_ignored_build_output_of_a_discarded_candidate_does_not_leak_into_the_next_session(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (repo / ".gitignore").write_text("build/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ignore build")
    lab = Lab(tmp_path, repo)
    step = score_step(1, "fail")
    step["write"]["build/model.bin"] = "weights of a discarded candidate\n"
    lab.set_plan({"1": step})
    assert lab.rcs("--max-iterations", "1", "mission").returncode == 0
    assert lab.decisions() == ["baseline", "discard"]
    at_kept_and_clean(lab)
    # R-AR-9: after a non-keep decision the worktree is at last_kept_commit; build output of the
    # discarded commit would otherwise be evaluated together with the next candidate.
    assert not (lab.worktree() / "build/model.bin").exists()


# --- evaluators that misbehave ----------------------------------------------------------------------


def test_non_finite_and_boolean_scores_are_evaluator_errors(tmp_path: Path) -> None:
    lab = _emit_lab(tmp_path)
    outputs = ['{"pass": true, "score": NaN}', '{"pass": true, "score": Infinity}',
               '{"pass": true, "score": 1e400}', '{"pass": true, "score": true}',
               '{"pass": true, "score": -Infinity}']
    plan = {str(i + 1): _emit_step(**{"out.json": text}) for i, text in enumerate(outputs)}
    plan[str(len(outputs) + 1)] = _emit_step(**{"out.json": '{"pass": true, "score": 1}'})
    lab.set_plan(plan)
    done = lab.rcs("--max-iterations", str(len(outputs) + 1), "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline"] + ["error"] * len(outputs) + ["keep"]
    assert lab.manifest()["last_kept_score"] == 1.0


def test_evaluator_with_huge_output(tmp_path: Path) -> None:
    lab = _emit_lab(tmp_path)
    junk = ("import sys\nfor i in range(400000):\n"
            "    sys.stdout.write('progress line %d of a chatty evaluator\\n' % i)\n")
    big_json = "import json\nprint(json.dumps({'pass': True, 'score': 2, 'details': {'log': 'x' * 5_000_000}}))\n"
    lab.set_plan({"1": _emit_step(**{"out.py": junk}), "2": _emit_step(**{"out.py": big_json})})
    done = lab.rcs("--max-iterations", "2", "mission", timeout=60)
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "error", "keep"]
    assert len(lab.ledger()[1]["reason"]) < 1000


def test_evaluator_printing_deeply_nested_json(tmp_path: Path) -> None:
    lab = _emit_lab(tmp_path)
    deep = "print('{\"pass\": true, \"score\": 3, \"details\": {\"x\": ' + '[' * 100000 + ']' * 100000 + '}}')\n"
    lab.set_plan({"1": _emit_step(**{"out.py": deep}),
                  "2": _emit_step(**{"out.json": '{"pass": true, "score": 1}'})})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions()[1] in ("error", "keep") and len(lab.decisions()) == 3
    assert lab.manifest()["status"] == "paused"


# --- git set-ups ------------------------------------------------------------------------------------


def test_users_checkout_with_uncommitted_work_is_untouched(lab: Lab) -> None:
    repo = lab.repo
    (repo / "user-file.txt").write_text("edited, not staged\n")
    (repo / "staged.txt").write_text("staged, not committed\n")
    git(repo, "add", "staged.txt")
    (repo / "scratch.txt").write_text("untracked\n")
    (repo / "score.txt").write_text("42\n")  # the user's own edit to a file the worker also changes
    before = {
        "status": git(repo, "status", "--porcelain=v1", "--untracked-files=all"),
        "diff": git(repo, "diff"),
        "cached": git(repo, "diff", "--cached"),
        "head": git(repo, "rev-parse", "HEAD"),
        "branch": git(repo, "symbolic-ref", "HEAD"),
        "files": {p: (repo / p).read_text() for p in ["user-file.txt", "staged.txt", "scratch.txt", "score.txt"]},
    }
    lab.set_plan({"1": score_step(5), "2": score_step(1), "3": {**score_step(9), "detach": True}})
    done = lab.rcs("--max-iterations", "3", "mission")
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "discard", "error"]
    after = {
        "status": git(repo, "status", "--porcelain=v1", "--untracked-files=all"),
        "diff": git(repo, "diff"),
        "cached": git(repo, "diff", "--cached"),
        "head": git(repo, "rev-parse", "HEAD"),
        "branch": git(repo, "symbolic-ref", "HEAD"),
        "files": {p: (repo / p).read_text() for p in ["user-file.txt", "staged.txt", "scratch.txt", "score.txt"]},
    }
    assert after == before
    assert lab.manifest()["baseline_commit"] == before["head"].strip()


def test_user_branch_that_blocks_the_run_branch_name(lab: Lab) -> None:
    git(lab.repo, "branch", "autoresearch/mission")  # refs/heads/autoresearch/mission/<tag> cannot exist now
    done = lab.rcs("mission")
    _no_traceback(done)
    assert done.returncode == 2
    assert "rcs autoresearch:" in done.stderr
    assert _branches(lab.repo) == ["autoresearch/mission"]
    assert lab.run_dirs() == [] and not lab.lock().exists()


def _submodule_repo(tmp_path: Path) -> Lab:
    source = tmp_path / "libsrc"
    source.mkdir()
    git(tmp_path, "init", "-q", "-b", "main", str(source))
    (source / "lib.txt").write_text("library\n")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "lib")
    repo = make_repo(tmp_path)
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), "lib")
    git(repo, "commit", "-q", "-m", "submodule")
    lab = Lab(tmp_path, repo)
    lab.set_plan({})
    return lab


def test_repo_with_a_submodule(tmp_path: Path) -> None:
    lab = _submodule_repo(tmp_path)
    lab.set_plan({"1": score_step(5), "2": score_step(2)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "discard"]
    at_kept_and_clean(lab)


def test_worker_edits_inside_a_submodule(tmp_path: Path) -> None:
    lab = _submodule_repo(tmp_path)
    _posts(lab, {1: (
        "import subprocess\n"
        "subprocess.run(['git', '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '-q'],"
        " check=True)\n"
        "open('lib/lib.txt', 'a').write('hacked\\n')\n"
    )})
    lab.set_plan({"1": NOOP_CANDIDATE, "2": score_step(5)})
    done = lab.rcs("--max-iterations", "2", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    # R-AR-9: iteration 2 starts clean, so its candidate is judged on its own merits.
    assert lab.decisions() == ["baseline", "noop", "keep"], lab.ledger()[-1]["reason"]
    at_kept_and_clean(lab)


def test_no_git_identity_for_the_supervisor_snapshot(tmp_path: Path) -> None:
    class NoIdentityLab(Lab):
        def environment(self) -> dict[str, str]:
            env = super().environment()
            for key in IDENTITY:
                env.pop(key, None)
            for key in ("EMAIL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
                env.pop(key, None)
            home = self.root / "home"
            home.mkdir(exist_ok=True)
            env.update(HOME=str(home), GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
                       XDG_CONFIG_HOME=str(home / ".config"))
            return env

    repo = make_repo(tmp_path)
    lab = NoIdentityLab(tmp_path, repo)
    # The worker leaves uncommitted work: the supervisor must snapshot it under its own identity.
    lab.set_plan({"1": {"dirty": {"notes.txt": "idea\n"}, "candidate": {"status": "candidate"}}})
    done = lab.rcs("--max-iterations", "1", "mission")
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    entry = lab.ledger()[1]
    assert entry["decision"] == "error" and entry["discard_ref"]
    assert git(lab.repo, "show", f"{entry['discard_ref']}:notes.txt") == "idea\n"
    at_kept_and_clean(lab)


# --- command line ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_bad_max_iterations(lab: Lab, value: str) -> None:
    done = lab.rcs("--max-iterations", value, "mission")
    _no_traceback(done)
    assert done.returncode == 2
    assert "--max-iterations" in done.stderr
    assert lab.run_dirs() == [] and not lab.lock().exists() and _branches(lab.repo) == []


# --- signals ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_repeated_signals_while_stopping(lab: Lab, signum: int) -> None:
    """An impatient operator (or a service manager) signals again and again until the supervisor exits."""
    ready = lab.root / "ready.pid"
    lab.set_plan({"1": {**score_step(5), "ready": str(ready), "sleep": 60}})
    process = lab.start("mission")
    lab.wait_for(ready)
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        process.send_signal(signum)
        time.sleep(0.005)
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    # R-AR-6: never exit holding the lock, and the manifest stays resumable.
    assert not lab.lock().exists(), (process.returncode, lab.lock().read_text())
    manifest = lab.manifest()
    assert manifest["status"] == "interrupted" and manifest["in_progress"] is None
    assert lab.decisions() == ["baseline", "interrupted"]
    at_kept_and_clean(lab)
    assert process.returncode == 128 + signum, (process.returncode, err)
    lab.set_plan({"2": score_step(4)})
    done = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "interrupted", "keep"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_the_baseline(tmp_path: Path, signum: int) -> None:
    lab = _emit_lab(tmp_path)
    ready = lab.root / "eval-ready"
    lab.env["EVAL_READY"] = str(ready)
    process = lab.start("mission")
    lab.wait_for(ready)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signum, err
    assert "Traceback" not in err
    manifest = lab.manifest()
    assert manifest["status"] == "interrupted" and manifest["in_progress"] is None
    assert lab.ledger() == [] and manifest["iterations_done"] == -1
    assert not lab.lock().exists()
    # The ready file now exists, so the evaluator no longer hangs: the resume evaluates the baseline.
    lab.set_plan({"1": _emit_step(**{"out.json": '{"pass": true, "score": 2}'})})
    done = lab.rcs("--max-iterations", "1", "--resume", manifest["run_id"])
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_during_launch_leaves_no_lock_and_no_lane(lab: Lab, signum: int) -> None:
    """SIGINT/SIGTERM while the lane is being created (a slow `git worktree add` keeps git busy).

    (Repository hooks never run inside rcs's git calls, so the slowness comes from a git wrapper.)
    """
    real_git = shutil.which("git")
    assert real_git is not None
    wrapper = lab.root / "bin/git"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\n{real_git} "$@"\nstatus=$?\ncase " $* " in *" worktree add "*)\n'
                       '  if [ ! -e "$HOOK_READY" ]; then echo > "$HOOK_READY"; sleep 2; fi;;\nesac\n'
                       'exit $status\n')
    wrapper.chmod(0o755)
    ready = lab.root / "hook-ready"
    lab.env["HOOK_READY"] = str(ready)
    lab.env["PATH"] = f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"
    process = lab.start("--max-iterations", "1", "mission")
    lab.wait_for(ready)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    time.sleep(3)  # let the hook (and the git that ran it) finish
    assert "Traceback" not in err
    # R-AR-6: never exit holding the lock; R-AR-2: a failed launch removes what it created.
    assert not lab.lock().exists(), (process.returncode, lab.lock().read_text())
    assert lab.run_dirs() == []
    assert _branches(lab.repo) == []
    assert process.returncode in (128 + signum, 2), (process.returncode, err)
    again = lab.rcs("--max-iterations", "1", "mission")
    assert again.returncode == 0, again.stderr
