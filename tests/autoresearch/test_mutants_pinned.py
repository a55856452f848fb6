"""Lane and process behaviour that mutants bench/mutation.py found alive in runtime/autoresearch.

Each test calls the module on its own (a real git repository, no supervisor session), so it is
fast, and asserts what the contract and the rulings ask of it (R-AR-2, R-AR-6, R-AR-9).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch.errors import GitError, ResumeError
from rcs_contracts.runtime.autoresearch import git as git_calls
from rcs_contracts.runtime.autoresearch import judge, lane, mission, supervisor
from rcs_contracts.runtime.autoresearch.processes import STOP_REQUESTED, Interrupted, Outcome, Signals, run_group
from tests.autoresearch.conftest import Lab, git, make_repo, pid_alive, score_step
from tests.conftest import ROOT

BRANCH = "autoresearch/mission/20261122-000000-1"
ALLOW_FILE = ("-c", "protocol.file.allow=always")  # the submodule is cloned from a local path


def _lane(tmp_path: Path, repo: Path) -> tuple[Path, str]:
    """A run lane (branch and worktree) at the repository's HEAD, made as launch makes it."""
    kept = git(repo, "rev-parse", "HEAD").strip()
    worktree = tmp_path / "repo.rcs-worktrees" / "autoresearch-mission-20261122-000000-1"
    lane.create(repo, BRANCH, worktree, kept)
    lane.write_excludes(worktree)
    return worktree, kept


def test_reset_removes_what_git_clean_could_not_path_by_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root no permission stops `git clean`, so its failure (an unwritable folder, for others) is
    # simulated: the first clean fails, and reset removes the untracked files and the nested
    # repository git reports itself, then cleans again.
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    (worktree / "junk.txt").write_text("x\n")
    (worktree / "deep/er").mkdir(parents=True)
    (worktree / "deep/er/file.bin").write_bytes(b"\0")
    git(worktree, "init", "-q", "nested")
    (worktree / "nested/inside.txt").write_text("y\n")
    real, failed = git_calls.run, []

    def run(cwd: Path, *args: str, **kwargs: Any) -> str:
        if args[:1] == ("clean",) and not failed:
            failed.append(args)
            raise GitError("GIT_FAILED", "git clean failed (1): warning: could not remove", {}, ())
        return real(cwd, *args, **kwargs)

    monkeypatch.setattr(lane.git, "run", run)
    lane.reset(worktree, BRANCH, kept)
    assert failed and git_calls.dirty_paths(worktree) == []
    assert not (worktree / "junk.txt").exists() and not (worktree / "deep").exists()
    assert not (worktree / "nested").exists()


def test_rmtree_s_error_handler_removes_a_file_a_folder_and_a_link_but_not_its_target(tmp_path: Path) -> None:
    # lane._make_writable is what rmtree calls when it could not remove a path (an unwritable
    # folder, for anyone but root): it makes the way writable and removes the path itself.
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep.txt").write_text("kept\n")
    (tmp_path / "file.txt").write_text("x\n")
    (tmp_path / "folder/inner").mkdir(parents=True)
    (tmp_path / "link").symlink_to(target, target_is_directory=True)
    for name in ("file.txt", "folder", "link"):
        lane._make_writable(os.unlink, str(tmp_path / name), None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["target"]
    assert (target / "keep.txt").read_text() == "kept\n"


def _submodule_lane(tmp_path: Path) -> tuple[Path, Path, str]:
    """A repository with a submodule ``lib``, and a lane in which that submodule is checked out."""
    source = tmp_path / "libsrc"
    git(tmp_path, "init", "-q", "-b", "main", str(source))
    (source / "lib.txt").write_text("library\n")
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "lib")
    repo = make_repo(tmp_path)
    git(repo, *ALLOW_FILE, "submodule", "add", "-q", str(source), "lib")
    git(repo, "commit", "-q", "-m", "submodule")
    worktree, kept = _lane(tmp_path, repo)
    git(worktree, *ALLOW_FILE, "submodule", "update", "--init", "-q")  # as a worker may do
    assert (worktree / "lib/lib.txt").read_text() == "library\n"
    return repo, worktree, kept


def _recorded(worktree: Path, kept: str, path: str) -> str:
    """The commit the kept superproject commit records for a submodule."""
    mode, kind, sha = git(worktree, "ls-tree", kept, "--", path).split("\t")[0].split()
    assert (mode, kind) == ("160000", "commit")
    return sha


def _status(worktree: Path) -> str:
    return git(worktree, "status", "--porcelain", "--untracked-files=all", "--ignore-submodules=none")


# --- reset puts checked-out submodules back too (R-AR-9) --------------------------------------------


def test_reset_moves_a_submodule_the_worker_committed_in_back_to_the_recorded_commit(tmp_path: Path) -> None:
    _, worktree, kept = _submodule_lane(tmp_path)
    recorded = _recorded(worktree, kept, "lib")
    sub = worktree / "lib"
    (sub / "lib.txt").write_text("the worker's library\n")
    git(sub, "commit", "-q", "-am", "worker commit inside the submodule")
    assert git(sub, "rev-parse", "HEAD").strip() != recorded
    assert _status(worktree).strip()  # the superproject sees the moved submodule

    lane.reset(worktree, BRANCH, kept)

    assert git(sub, "rev-parse", "HEAD").strip() == recorded
    assert (sub / "lib.txt").read_text() == "library\n"
    assert _status(worktree) == ""
    assert lane.at_kept(worktree, BRANCH, kept)


def test_reset_removes_untracked_and_ignored_files_inside_a_submodule(tmp_path: Path) -> None:
    _, worktree, kept = _submodule_lane(tmp_path)
    sub = worktree / "lib"
    (sub / "lib.txt").write_text("hacked\n")
    (sub / "scratch.txt").write_text("the worker's untracked file\n")
    (sub / "build").mkdir()
    (sub / "build/out.o").write_text("object\n")
    (sub / ".gitignore").write_text("build/\n")  # untracked itself; build/ is ignored output
    assert _status(worktree).strip()

    lane.reset(worktree, BRANCH, kept)

    assert (sub / "lib.txt").read_text() == "library\n"
    assert sorted(p.name for p in sub.iterdir()) == [".git", "lib.txt"]
    assert _status(worktree) == ""
    assert lane.at_kept(worktree, BRANCH, kept)


# --- a failed launch removes what it created (R-AR-2) -------------------------------------------------


def test_remove_takes_away_a_lane_directory_git_never_registered(tmp_path: Path) -> None:
    # A launch stopped while `git worktree add` ran (git is killed on a signal or its timeout) can
    # leave the lane's directory, with files in it, that git does not know as a worktree; `git
    # worktree remove` then fails, and the directory and the branch must go all the same.
    repo = make_repo(tmp_path)
    worktree = tmp_path / "repo.rcs-worktrees" / "autoresearch-mission-20261122-000000-1"
    worktree.mkdir(parents=True)
    (worktree / "score.txt").write_text("0\n")
    git(repo, "branch", BRANCH)
    assert str(worktree) not in git(repo, "worktree", "list", "--porcelain")

    lane.remove(repo, BRANCH, worktree)

    assert not worktree.exists()
    assert not worktree.parent.exists()  # the lanes directory the launch made, now empty
    assert git(repo, "branch", "--list", BRANCH) == ""
    assert git(repo, "branch", "--list") == "* main\n"
    assert git(repo, "status", "--porcelain") == ""  # the user's checkout is untouched


# --- discarded work is preserved before the reset, whatever its file names (R-AR-9) --------------------


def test_preserve_keeps_an_untracked_file_whose_name_starts_with_a_colon(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    (worktree / ":draft.md").write_text("an idea\n")  # a leading colon is pathspec magic to git
    (worktree / "notes.txt").write_text("notes\n")
    (worktree / "score.txt").write_text("7\n")

    ref = lane.preserve(worktree, kept, "refs/rcs/autoresearch/run/iteration-1", "iteration 1 (discard)")

    assert ref == "refs/rcs/autoresearch/run/iteration-1"
    assert git(repo, "rev-parse", f"{ref}^").strip() == kept
    assert git(repo, "show", f"{ref}:./:draft.md") == "an idea\n"
    assert git(repo, "show", f"{ref}:notes.txt") == "notes\n"
    assert git(repo, "show", f"{ref}:score.txt") == "7\n"
    lane.reset(worktree, BRANCH, kept)
    assert lane.at_kept(worktree, BRANCH, kept)


def test_preserve_keeps_a_same_size_edit_made_in_the_same_second_as_the_index(tmp_path: Path) -> None:
    # CI caught this once by chance. The snapshot hashed with a copy of the worktree's index, and
    # the copy had a fresh mtime, so git's racy-entry check (a file not older than its index is
    # compared by content) was off: a same-size rewrite of score.txt in the second of the checkout,
    # snapshotted a second later, looked unchanged. Made certain here, ten seconds back: the entry,
    # the file and the index share one mtime, and ctime (which cannot be set) is not trusted.
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    git(worktree, "config", "core.trustctime", "false")
    score = worktree / "score.txt"
    then = time.time_ns() - 10_000_000_000
    os.utime(score, ns=(then, then))
    git(worktree, "update-index", "--refresh")  # the entry records the old mtime
    score.write_text("7\n")  # same size as the committed "0\n"
    os.utime(score, ns=(then, then))
    os.utime(git_calls.git_path(worktree, "index"), ns=(then, then))

    ref = lane.preserve(worktree, kept, "refs/rcs/autoresearch/run/iteration-1", "iteration 1 (discard)")

    assert ref is not None
    assert git(repo, "show", f"{ref}:score.txt") == "7\n"


def test_a_snapshot_adds_the_whole_worktree_in_one_git_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The path-by-path adds are only the fallback for what git refuses as a whole; an ordinary
    # snapshot (changes, removals, new files) is one `git add`.
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    (worktree / "score.txt").write_text("7\n")
    (worktree / "user-file.txt").unlink()
    (worktree / "new.txt").write_text("new\n")
    real, adds = git_calls.run, []

    def run(cwd: Path, *args: str, **kwargs: Any) -> str:
        if args[:1] == ("add",):
            adds.append(args)
        return real(cwd, *args, **kwargs)

    monkeypatch.setattr(git_calls, "run", run)
    ref = lane.preserve(worktree, kept, "refs/rcs/autoresearch/run/iteration-1", "iteration 1 (discard)")

    assert adds == [("add", "--all", "--", ".")]
    assert ref is not None
    assert git(repo, "show", f"{ref}:score.txt") == "7\n"
    assert git(repo, "show", f"{ref}:new.txt") == "new\n"
    assert "user-file.txt" not in git(repo, "ls-tree", "--name-only", ref)


def test_the_path_by_path_fallback_keeps_a_file_whose_name_starts_with_a_colon(tmp_path: Path) -> None:
    # An embedded repository with no commit makes `git add --all -- .` fail, so each dirty path is
    # added on its own; ":draft.md" must be read as a file name there too, not as pathspec magic.
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    (worktree / ":draft.md").write_text("an idea\n")
    (worktree / "notes.txt").write_text("notes\n")
    git(worktree, "init", "-q", "nested")

    ref = lane.preserve(worktree, kept, "refs/rcs/autoresearch/run/iteration-1", "iteration 1 (discard)")

    assert ref is not None
    assert git(repo, "show", f"{ref}:./:draft.md") == "an idea\n"
    assert git(repo, "show", f"{ref}:notes.txt") == "notes\n"
    lane.reset(worktree, BRANCH, kept)
    assert not (worktree / ":draft.md").exists()  # gone from the lane, kept under the ref


def test_preserve_keeps_a_tracked_file_that_is_also_ignored_and_signs_as_the_supervisor(tmp_path: Path) -> None:
    # The snapshot starts from the worktree's index: a file the kept commit tracks stays in it even
    # when .gitignore matches it, so the worker's edit to it is preserved too.
    repo = make_repo(tmp_path)
    (repo / "data.log").write_text("kept\n")
    (repo / ".gitignore").write_text("*.log\n")
    git(repo, "add", "-f", "data.log", ".gitignore")
    git(repo, "commit", "-q", "-m", "tracked log")
    worktree, kept = _lane(tmp_path, repo)
    (worktree / "data.log").write_text("changed by the worker\n")

    ref = lane.preserve(worktree, kept, "refs/rcs/autoresearch/run/iteration-1", "iteration 1 (discard)")

    assert ref is not None
    assert git(repo, "show", f"{ref}:data.log") == "changed by the worker\n"
    signed = git(repo, "log", "-1", "--format=%an|%ae|%cn|%ce", ref).strip()
    assert signed == "|".join([C.SNAPSHOT_NAME, C.SNAPSHOT_EMAIL] * 2)


def test_a_second_lane_is_made_beside_the_first(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    first, kept = _lane(tmp_path, repo)
    second = first.parent / "autoresearch-mission-20261122-000000-2"
    lane.create(repo, "autoresearch/second", second, kept)  # the lanes directory exists already
    assert lane.is_worktree(first) and lane.is_worktree(second)


@pytest.mark.parametrize("before", [None, "# mine\n", "# mine\n\n", "# mine"])
def test_excludes_are_appended_after_one_blank_line_to_a_file_made_as_644(tmp_path: Path, before: str | None) -> None:
    repo = make_repo(tmp_path)
    path = git_calls.git_path(repo, "info/exclude")
    path.unlink(missing_ok=True)
    if before is not None:
        path.write_text(before)
    umask = os.umask(0o022)
    try:
        assert lane.write_excludes(repo) == path
    finally:
        os.umask(umask)
    block = "# rcs autoresearch runtime artifacts (R-AR-8)\n" + "".join(p + "\n" for p in lane.exclude_patterns())
    expected = {None: "", "# mine\n": "# mine\n\n", "# mine\n\n": "# mine\n\n", "# mine": "# mine\n"}[before]
    assert path.read_text() == expected + block
    if before is None:
        assert path.stat().st_mode & 0o777 == 0o644
    lane.write_excludes(repo)  # every pattern is there now: nothing is added
    assert path.read_text() == expected + block


def test_the_whole_run_state_folder_is_hidden_from_git_not_only_the_logs(tmp_path: Path) -> None:
    # R-AR-8: the state file (the lock) and the logs share one top folder; excluding only the
    # logs would leave the lock an untracked file in the user's repository, which `git add -A`
    # commits.
    repo = make_repo(tmp_path)
    lane.write_excludes(repo)
    for relative in (C.STATE_FILE, f"{C.LOGS_DIR}/run-1/manifest.json", *C.RUNTIME_ARTIFACTS):
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n")
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


# --- only the first signal interrupts a launch or resume (R-AR-2, R-AR-6) ------------------------------


def test_a_second_signal_during_launch_cleanup_is_recorded_not_raised() -> None:
    signals = Signals(raising=True)
    signals.install()
    try:
        with pytest.raises(Interrupted) as caught:
            signal.raise_signal(signal.SIGTERM)
        assert caught.value.signum == signal.SIGTERM
        # The half-made lane is being removed now: an impatient second Ctrl-C must not cut that short.
        try:
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
        except Interrupted:
            pytest.fail("a later signal interrupted the cleanup of a failed launch")
        assert signals.received == signal.SIGTERM
        assert STOP_REQUESTED.is_set()
    finally:
        signals.restore()
        STOP_REQUESTED.clear()  # git calls of later tests must not give way


# Spawns a grandchild that ignores SIGTERM (the disposition survives exec), prints its pid, exits.
_STUBBORN = """
import signal, subprocess, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(child.pid, flush=True)
"""


def _content(path: Path, timeout: float = 30) -> str:
    """The content of ``path`` once it has some."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"nothing written to {path}"
        time.sleep(0.02)
    return path.read_text()


def test_a_forwarded_signal_the_group_ignores_does_not_hold_the_supervisor(tmp_path: Path) -> None:
    # R-AR-6: a SIGTERM to the supervisor is forwarded to the worker's group and the supervisor
    # waits for it, a grace period at most; then the group is killed, so a process that ignores
    # the signal neither keeps the supervisor (and its lock) forever nor outlives the iteration.
    signals = Signals()
    signals.received = signal.SIGTERM  # arrived before the group existed: forwarded when it starts
    stdout, stderr = tmp_path / "worker.out", tmp_path / "worker.err"
    grandchild: list[int] = []
    done: list[Outcome] = []

    def started(pgid: int) -> None:
        grandchild.append(int(_content(stdout)))  # the signal goes out once it ignores SIGTERM

    def supervise() -> None:
        done.append(
            run_group(
                [sys.executable, "-c", _STUBBORN],
                tmp_path,
                dict(os.environ),
                None,
                stdout,
                stderr,
                timeout=60,
                grace=0.2,
                signals=signals,
                started=started,
            )
        )

    thread = threading.Thread(target=supervise, daemon=True)
    thread.start()
    thread.join(timeout=60)  # a liveness bound (grace is 0.2 s), not a measurement
    try:
        assert not thread.is_alive(), "run_group still waits on a group that ignores the forwarded signal"
    finally:
        if thread.is_alive() and grandchild:
            os.kill(grandchild[0], signal.SIGKILL)  # let the thread end
            thread.join(timeout=60)
    assert done and done[0].exit_code == 0 and not done[0].timed_out  # the leader itself exited
    assert signals.child_group is None
    assert grandchild
    _gone(grandchild[0])  # SIGKILL was sent; its delivery takes a moment


def _gone(pid: int, timeout: float = 30) -> None:
    """Wait until ``pid`` has died (a zombie counts as dead)."""
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        assert time.monotonic() < deadline, f"pid {pid} is still alive: the group was not killed"
        time.sleep(0.02)


# --- how a process ended: killed means no exit status (R-AR-6) ---------------------------------------

# Exits 0 on SIGTERM; says "ready" once the handler is in place.
_TERM_EXITS_ZERO = """
import signal, sys
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
print("ready", flush=True)
while True:
    signal.pause()
"""


def test_a_process_that_timed_out_has_no_exit_status_even_if_it_exits_zero_on_sigterm(tmp_path: Path) -> None:
    # A session cut short by its timeout did not succeed, whatever status it exits with once told
    # to stop: the ledger's worker_exit and the evaluation's exit_code are null for it.
    stdout = tmp_path / "worker.out"

    def started(pgid: int) -> None:
        _content(stdout)  # the timeout runs from here: SIGTERM is handled by now

    outcome = run_group(
        [sys.executable, "-c", _TERM_EXITS_ZERO],
        tmp_path,
        dict(os.environ),
        None,
        stdout,
        tmp_path / "worker.err",
        timeout=0.5,  # it never exits by itself: the timeout expires whatever the machine's load
        grace=30,
        signals=Signals(),
        started=started,
    )
    assert outcome.timed_out
    assert outcome.exit_code is None
    # It obeyed SIGTERM at once, so the 30 s grace before SIGKILL is not waited out: the leader,
    # exited but not yet reaped, is a zombie that must not count as a live member of its group.
    assert outcome.seconds < 30, outcome


def test_an_evaluator_killed_by_a_signal_has_no_exit_status(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    logs = tmp_path / "logs"
    evaluation = judge.evaluate("run", 1, "kill -KILL $$", repo, logs, 60, Signals(), lambda pgid: None)
    assert not evaluation.timed_out
    assert evaluation.exit_code is None
    assert evaluation.error == "evaluator was killed by a signal"
    assert judge.classify(evaluation, None) == C.EvaluationOutcome.ERROR


def test_a_verdict_is_frozen() -> None:
    verdict = judge.Verdict(C.CandidateOutcome.NO_CANDIDATE, "no candidate file")
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.detail = "changed"  # type: ignore[misc]


# Reports, in order, every signal it gets; SIGUSR1 ends it. Signals pending together are delivered
# lowest number first, so a SIGHUP sent before the SIGUSR1 is always reported before "done".
# Each line is one write: under PYTHONUNBUFFERED, print() writes a line's text and its newline
# apart, and a signal handled between the two ran "done" onto the "ready" line.
_SIGNAL_LOG = """
import signal, sys
def line(text):
    sys.stdout.write(text + "\\n")
    sys.stdout.flush()
def note(signum, frame):
    line(f"got {signum}")
def done(signum, frame):
    line("done")
    sys.exit(0)
for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGUSR2, signal.SIGQUIT, signal.SIGALRM):
    signal.signal(signum, note)
signal.signal(signal.SIGUSR1, done)
line("ready")
while True:
    signal.pause()
"""


def _signals_seen_while(tmp_path: Path, probe: Callable[[int], bool], **popen: Any) -> str:
    """Start the signal logger, check ``probe(its pid)`` holds while it runs, end it with SIGUSR1,
    and return everything it logged (a signal the probe sent would show as "got N")."""
    out = tmp_path / "signals.out"
    with out.open("w") as sink:
        child = subprocess.Popen([sys.executable, "-c", _SIGNAL_LOG], stdout=sink, **popen)
    try:
        deadline = time.monotonic() + 30
        while not _content(out).endswith("\n"):  # the whole "ready" line: its handlers are in place
            assert time.monotonic() < deadline, "the signal logger never finished its first line"
            time.sleep(0.02)
        assert probe(child.pid)
        child.send_signal(signal.SIGUSR1)
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert not probe(child.pid)  # reaped: no such process
    return out.read_text()


def test_probing_whether_a_lock_owner_lives_sends_it_no_signal(tmp_path: Path) -> None:
    import socket

    from rcs_contracts.runtime.autoresearch import lock

    assert _signals_seen_while(tmp_path, lambda pid: lock.alive(pid, socket.gethostname())) == "ready\ndone\n"


def test_a_lock_that_keeps_changing_is_read_twice_then_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Released between our link and our read: one more try, not more (lock.acquire).
    from rcs_contracts.generated.autoresearch.errors import LockError
    from rcs_contracts.runtime.autoresearch import lock

    repo = make_repo(tmp_path)
    path = lock.path_of(repo)
    path.parent.mkdir(parents=True)
    path.write_text("{}")  # there, so every link fails; read below says it was released each time
    reads: list[Path] = []
    monkeypatch.setattr(lock, "read", lambda at: reads.append(at))
    with pytest.raises(LockError) as info:
        lock.acquire(repo, "run-1", "manifest.json")
    assert info.value.code == "LOCK_UNREADABLE" and "it keeps changing" in str(info.value)
    assert reads == [repo, repo]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary left


def _run_in(tmp_path: Path, argv: list[str], grace: float) -> Outcome:
    """``argv`` as a group of its own, its output in ``tmp_path``/out and err, no signal forwarded."""
    out, err = tmp_path / "out", tmp_path / "err"
    return run_group(argv, tmp_path, dict(os.environ), None, out, err, timeout=60, grace=grace, signals=Signals())


def test_an_outcome_is_frozen_and_output_files_are_made_as_644(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        outcome = _run_in(tmp_path, [sys.executable, "-c", "print('hi')"], grace=5)
    finally:
        os.umask(umask)
    assert (outcome.exit_code, outcome.timed_out) == (0, False)
    assert (tmp_path / "out").read_text() == "hi\n"
    assert [(tmp_path / n).stat().st_mode & 0o777 for n in ("out", "err")] == [0o644, 0o644]
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.timed_out = True  # type: ignore[misc]


def test_a_leader_that_exits_leaving_a_grandchild_is_not_given_the_grace_and_the_grandchild_dies(
    tmp_path: Path,
) -> None:
    # The grace is for a forwarded signal; without one, what is left of the group is killed at once.
    pid_file = tmp_path / "grandchild.pid"
    outcome = _run_in(tmp_path, ["sh", "-c", f"sleep 300 & echo $! > {pid_file}; exit 0"], grace=30)
    assert (outcome.exit_code, outcome.timed_out) == (0, False)
    assert outcome.seconds < 30, outcome
    _gone(int(pid_file.read_text()))


def test_what_is_left_of_a_group_after_its_leader_exits_gets_no_grace_even_when_it_ignores_sigterm(
    tmp_path: Path,
) -> None:
    # A grandchild deaf to SIGTERM that would write a file half a second later: killed at once
    # (SIGKILL right after SIGTERM), it never writes it. Given a grace, run_group would return only
    # once the group is gone, so after the write: no waiting is needed to see the difference.
    ready, late = tmp_path / "ready", tmp_path / "late"
    # The leader exits only once the grandchild ignores SIGTERM (else the signal could come first).
    script = f"(trap '' TERM; : > {ready}; sleep 0.5; echo survived > {late}) & until [ -e {ready} ]; do :; done"
    outcome = _run_in(tmp_path, ["sh", "-c", script], grace=30)
    assert (outcome.exit_code, outcome.timed_out) == (0, False)
    assert not late.exists()


def test_a_frontmatter_error_without_a_place_ends_with_the_error() -> None:
    from rcs_contracts.generated.autoresearch.errors import MissionError

    with pytest.raises(MissionError) as info:
        mission.frontmatter("---\n- a\n---\n", Path("s.md"))
    assert str(info.value) == 's.md: invalid sandbox frontmatter: ["a"] is not of type "object"'


@pytest.mark.parametrize("depth", [400, 5000, 100_000])
def test_deeply_nested_frontmatter_is_refused_by_the_yaml_reader_with_its_line(depth: int) -> None:
    from rcs_contracts.generated.autoresearch.errors import MissionError

    text = "---\nevaluator: " + "[" * depth + "]" * depth + "\n---\n"
    with pytest.raises(MissionError) as info:
        mission.frontmatter(text, Path("s.md"))
    assert str(info.value) == "s.md: invalid sandbox frontmatter: line 2: nested deeper than 64 levels"


def test_a_mission_at_the_repository_root_is_the_directory_dot(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    for name in (C.MISSION_FILE, C.SANDBOX_FILE):
        shutil.copy(repo / "mission" / name, repo / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a mission at the root")
    assert mission.load(str(repo)).relative_dir == "."
    assert mission.load(str(repo / "mission")).relative_dir == "mission"


def test_git_runs_without_prompts_optional_locks_or_a_translated_locale(tmp_path: Path) -> None:
    # A git alias starting with "!" runs a shell command: here `env`, so we see what git was given.
    shown = git_calls.run(tmp_path, "-c", "alias.showenv=!env", "showenv").splitlines()
    wanted = {"GIT_TERMINAL_PROMPT", "LC_ALL", "GIT_OPTIONAL_LOCKS"}
    assert sorted(line for line in shown if line.split("=", 1)[0] in wanted) == [
        "GIT_OPTIONAL_LOCKS=0",
        "GIT_TERMINAL_PROMPT=0",
        "LC_ALL=C",
    ]


def test_run_files_are_written_as_utf_8_text_not_escaped() -> None:
    from rcs_contracts.generated.autoresearch.candidate_schema import Candidate
    from rcs_contracts.runtime.autoresearch import files

    fields = {"status": "noop", "candidate_commit": None, "base_commit": "a" * 40, "description": "café ✓"}
    candidate = files.build(Candidate, {**fields, "notes": [], "created_at": "2026-11-22T00:00:00Z"})
    assert '  "description": "café ✓",\n' in files.dumps(candidate)


# --- what the judge tells the operator ------------------------------------------------------------------


@pytest.mark.parametrize(("stdout", "kind"), [(b"[true]", "list"), (b'"pass"', "str"), (b"1.5", "float")])
def test_evaluator_stdout_that_is_json_but_not_an_object_is_named_for_what_it_is(stdout: bytes, kind: str) -> None:
    result, error = judge.parse_stdout(stdout)
    assert result is None
    assert error == f"stdout is JSON but not an object ({kind})"


@pytest.mark.parametrize(
    ("stdout", "why"),
    [
        (b"nope", "JsonTextError: expected ident at line 1 column 2"),
        (b'{"pass": true} {}', "JsonTextError: trailing characters at line 1 column 16"),
        (b"\xff", "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"),
    ],
)
def test_evaluator_stdout_that_is_not_one_json_object_names_the_error_and_where(stdout: bytes, why: str) -> None:
    assert judge.parse_stdout(stdout) == (None, f"stdout is not exactly one JSON object ({why})")


def _candidate_file(tmp_path: Path, status: str, commit: str | None, base: str) -> Path:
    """A candidate.json as a worker writes it."""
    path = tmp_path / "candidate.json"
    fields = {
        "status": status,
        "candidate_commit": commit,
        "base_commit": base,
        "description": "a session",
        "notes": [],
        "created_at": "2026-11-22T00:00:00Z",
    }
    path.write_text(json.dumps(fields))
    return path


def _interrupted_with(tmp_path: Path, names: list[str]) -> judge.Verdict:
    """The verdict on a session that wrote status=interrupted and left untracked files ``names``."""
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    for name in names:
        (worktree / name).write_text("left behind\n")
    candidate = _candidate_file(tmp_path, "interrupted", None, kept)
    return judge.inspect(Outcome(0, False, 0.1), candidate, worktree, BRANCH, kept, "mission")


def test_a_dirty_interrupted_session_names_at_most_five_paths_and_marks_the_rest(tmp_path: Path) -> None:
    names = [f"scratch-{i}.txt" for i in range(7)]
    verdict = _interrupted_with(tmp_path, names)
    assert verdict.outcome == C.CandidateOutcome.INTERRUPTED_DIRTY
    assert verdict.detail == "uncommitted: " + ", ".join(names[:5]) + ", ..."


def test_a_dirty_interrupted_session_with_five_paths_names_them_all(tmp_path: Path) -> None:
    names = [f"scratch-{i}.txt" for i in range(5)]
    verdict = _interrupted_with(tmp_path, names)
    assert verdict.outcome == C.CandidateOutcome.INTERRUPTED_DIRTY
    assert verdict.detail == "uncommitted: " + ", ".join(names)


# --- resume (verification target 5) ---------------------------------------------------------------------


def _paused_run(lab: Lab) -> str:
    """A run paused by --max-iterations after one kept iteration; returns its run id."""
    lab.set_plan({"1": score_step(2)})
    done = lab.rcs("--max-iterations", "1", "mission")
    assert done.returncode == 0, done.stderr
    manifest = lab.manifest()
    assert manifest["status"] == "paused" and manifest["iterations_done"] == 1
    return str(manifest["run_id"])


def test_a_run_id_written_as_a_path_is_no_run_id_not_a_tampered_manifest(lab: Lab) -> None:
    # A run id is a name under the logs directory. `./<id>` or `../autoresearch/<id>` reaches a real
    # manifest, but resume must say there is no such run (and where the runs are listed), not that
    # the run's manifest was changed after launch, which tells the operator to abandon the run.
    run_id = _paused_run(lab)
    for spelled in (f"./{run_id}", f"../autoresearch/{run_id}"):
        with pytest.raises(ResumeError) as caught:
            supervisor.load(lab.repo, spelled)
        assert caught.value.code == "MANIFEST_MISSING", str(caught.value)
        assert f"ls {lab.repo / '.rcs/logs/autoresearch'}" in str(caught.value)
    manifest, entries = supervisor.load(lab.repo, run_id)  # the run itself is fine
    assert manifest.run_id == run_id and [e.decision for e in entries] == ["baseline", "keep"]


def test_a_manifest_field_changed_after_launch_is_named_with_both_values(lab: Lab) -> None:
    run_id = _paused_run(lab)
    path = lab.only_run() / "manifest.json"
    manifest = json.loads(path.read_text())
    launched = manifest["branch"]
    manifest["branch"] = "elsewhere"
    path.write_text(json.dumps(manifest))
    with pytest.raises(ResumeError) as caught:
        supervisor.load(lab.repo, run_id)
    assert caught.value.code == "MANIFEST_TAMPERED"
    assert f"(branch is 'elsewhere', not {launched!r})" in str(caught.value)


def test_resume_after_the_operator_pruned_the_iteration_logs(lab: Lab) -> None:
    # The per-iteration logs are logs: an operator who deletes them to reclaim space can still
    # resume, and the next iteration's logs are written afresh.
    run_id = _paused_run(lab)
    run_dir = lab.only_run()
    shutil.rmtree(run_dir / "iterations")
    lab.set_plan({"2": score_step(3)})
    done = lab.rcs("--max-iterations", "1", "--resume", run_id)
    assert done.returncode == 0, done.stderr
    assert lab.decisions() == ["baseline", "keep", "keep"]
    assert sorted(p.name for p in (run_dir / "iterations").iterdir()) == ["0002"]
    assert (run_dir / "iterations/0002/instructions.md").read_text()


def test_a_resumed_run_points_the_lock_at_its_manifest(lab: Lab) -> None:
    # The repo-root state file is the active-run pointer: its `manifest` is the run's manifest,
    # relative to the repository root (state.schema.json), after a resume as after a launch.
    run_id = _paused_run(lab)
    run = supervisor.resume(lab.repo, run_id, [], lambda line: None)
    try:
        pointer = json.loads(lab.lock().read_text())
        assert pointer["run_id"] == run_id and pointer["pid"] == os.getpid()
        assert pointer["manifest"] == f".rcs/logs/autoresearch/{run_id}/manifest.json"
        assert json.loads((lab.repo / pointer["manifest"]).read_text())["run_id"] == run_id
    finally:
        run.held.release()
    assert not lab.lock().exists()


def _replace_with_link(folder: Path) -> Path:
    """Move ``folder`` aside and put a symbolic link to it in its place; returns the link."""
    moved = folder.with_name(folder.name + ".elsewhere")
    folder.rename(moved)
    folder.symlink_to(moved, target_is_directory=True)
    return folder


@pytest.mark.parametrize("which", ["run", "logs"])
def test_resume_refuses_a_run_directory_reached_through_a_link(lab: Lab, which: str) -> None:
    # SPEC 11.1: a run folder (or a folder above it) swapped for a link would send the resumed
    # run's reads and writes elsewhere, though the manifest it reaches is intact.
    run_id = _paused_run(lab)
    run_dir = lab.only_run()
    link = _replace_with_link(run_dir if which == "run" else run_dir.parent)
    with pytest.raises(ResumeError) as caught:
        supervisor.load(lab.repo, run_id)
    assert caught.value.code == "RUN_DIR_REPLACED"
    assert str(caught.value) == (
        f"the run directory {run_dir} is no longer the one rcs made: {link} is a symbolic link; "
        "rcs reads and writes nothing through it"
    )


def test_a_run_directory_swapped_for_a_link_mid_run_is_refused_at_the_next_use(lab: Lab) -> None:
    run_id = _paused_run(lab)
    run = supervisor.resume(lab.repo, run_id, [], lambda line: None)
    try:
        run_dir = run.run_dir
        _replace_with_link(run_dir)
        with pytest.raises(ResumeError) as caught:
            run.candidate_path  # noqa: B018 (the property is the check)
        assert caught.value.code == "RUN_DIR_REPLACED" and caught.value.params["link"] == str(run_dir)
    finally:
        run.held.release()


# --- the user's checkout is read, never written (SPEC 9.3) ------------------------------------------------


def test_reading_the_mission_never_writes_the_users_index(tmp_path: Path) -> None:
    # `git status` refreshes and rewrites the index when a file's stat data changed (taking
    # index.lock while it does, which would fail a git the user runs at that moment); the
    # supervisor's reads of the user's checkout must leave it alone.
    repo = make_repo(tmp_path)
    touched = repo / "mission/sandbox.md"
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**12))  # same content, other stat data
    index = repo / ".git/index"
    before = index.read_bytes()

    loaded = mission.load(str(repo / "mission"))

    assert loaded.checkout == repo.resolve()
    assert index.read_bytes() == before
    assert not (repo / ".git/index.lock").exists()
    git(repo, "status", "--porcelain")  # a plain git status does rewrite it: the reads above were the test
    assert index.read_bytes() != before


# --- git failures are errors, and say which command failed ----------------------------------------------


def test_a_failing_git_call_raises_and_names_the_command(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(GitError) as caught:
        git_calls.run(repo, "rev-parse", "--verify", "no-such-rev")
    assert caught.value.code == "GIT_FAILED"
    # LC_ALL=C: git's own words, in English whatever the user's locale.
    assert str(caught.value) == "git rev-parse --verify no-such-rev failed (128): fatal: Needed a single revision"


def test_a_lane_git_cannot_make_is_an_error_not_a_missing_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    worktree = tmp_path / "repo.rcs-worktrees" / "autoresearch-mission-20261122-000000-1"
    with pytest.raises(GitError) as caught:
        lane.create(repo, "main", worktree, "HEAD")  # the branch exists: `git worktree add -b` refuses
    assert "worktree add" in str(caught.value) and "already exists" in str(caught.value)
    assert not worktree.exists()
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_candidate_commit_named_by_a_tag_that_starts_with_a_dash_resolves(tmp_path: Path) -> None:
    # candidate_commit is any name that resolves in git (autoresearch.md): what the worker writes is
    # always read as a revision, never as an option of the git command that resolves it.
    repo = make_repo(tmp_path)
    worktree, kept = _lane(tmp_path, repo)
    (worktree / "score.txt").write_text("4\n")
    git(worktree, "commit", "-q", "-am", "score 4")
    head = git(worktree, "rev-parse", "HEAD").strip()
    git(worktree, "update-ref", "refs/tags/-try-4", head)
    assert git_calls.commit_of(worktree, "-try-4") == head
    candidate = _candidate_file(tmp_path, "candidate", "-try-4", kept)
    verdict = judge.inspect(Outcome(0, False, 0.1), candidate, worktree, BRANCH, kept, "mission")
    assert (verdict.outcome, verdict.detail) == (C.CandidateOutcome.CANDIDATE, "")


# --- the command line: rcs options go before the mission directory (SPEC 9) -------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["mission", "--resume", "run-1"], "--resume"),
        (["mission", "--resume=run-1"], "--resume"),
        (["mission", "-m", "o3", "--max-iterations=3"], "--max-iterations"),
        (["--resume", "run-1", "--", "-m", "o3", "--max-iterations=3"], "--max-iterations"),
    ],
)
def test_rcs_options_after_the_mission_directory_are_refused_not_passed_to_codex(
    tmp_path: Path, args: list[str], option: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", "autoresearch", *args],
        cwd=tmp_path,  # no mission here: a refusal that came too late would name the missing directory
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"{option} goes before the mission directory (or --resume RUN_ID)" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_asking_whether_a_group_is_left_sends_it_no_signal(tmp_path: Path) -> None:
    from rcs_contracts.runtime.autoresearch import processes

    # a new session: its pid is its group's id
    seen = _signals_seen_while(tmp_path, processes.group_alive, start_new_session=True)
    assert seen == "ready\ndone\n"


def test_signals_made_without_arguments_record_a_signal_and_raise_nothing() -> None:
    # Only a launch or resume in progress asks for the raising mode; the default just records.
    signals = Signals()
    signals.install()
    try:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs before kill returns (same thread)
        assert signals.received == signal.SIGTERM and STOP_REQUESTED.is_set()
    finally:
        signals.restore()
        STOP_REQUESTED.clear()
