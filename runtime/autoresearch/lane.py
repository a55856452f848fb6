"""The run's lane: its branch and worktree, how it is made and removed, and how it is put back.

``restore`` is the one way the supervisor moves a worktree back to the last kept commit (R-AR-9):
whatever the worker left (commits, a detached HEAD, uncommitted or untracked edits) is first
preserved as a commit under the run's ref prefix, so nothing is ever lost, and only then is the
worktree reset and cleaned. Build droppings that git cannot remove (read-only directories) are
made writable and removed by hand, so a reset never crashes the supervisor.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from rcs_contracts.engine import inputs
from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.runtime.autoresearch import git


def exclude_patterns() -> list[str]:
    """The exclude-file lines that hide runtime artifacts in the worktree and the run state in the repo."""
    first = C.LOGS_DIR.split("/")[0]
    return [f"/{name}" for name in C.RUNTIME_ARTIFACTS] + [f"/{first}/"]


def write_excludes(worktree: Path) -> Path:
    """Add the patterns to the exclude file git reads for this worktree (R-AR-8); returns that file."""
    path = git.git_path(worktree, "info/exclude")
    try:
        existing = inputs.read_text(path, Input.RUN_STATE).splitlines()
    except FileNotFoundError:
        existing = []
    missing = [p for p in exclude_patterns() if p not in existing]
    if missing:
        path.parent.mkdir(exist_ok=True)  # info/ in a git folder that exists: git just named it
        # Appended without following a link or blocking on a FIFO put there since it was read.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            if existing and existing[-1] != "":
                handle.write("\n")
            handle.write("# rcs autoresearch runtime artifacts (R-AR-8)\n" + "".join(p + "\n" for p in missing))
    return path


def create(repo: Path, branch: str, worktree: Path, start: str) -> None:
    """Make the branch at ``start`` and check it out in a new worktree."""
    worktree.parent.mkdir(exist_ok=True)  # the lanes folder beside the repository, whose parent exists
    git.run(repo, "worktree", "add", "--quiet", "-b", branch, str(worktree), start)


def remove(repo: Path, branch: str, worktree: Path) -> None:
    """Undo ``create`` as far as it got (a failed launch removes what it created, R-AR-2)."""
    if worktree.is_dir():
        git.run(repo, "worktree", "remove", "--force", "--force", str(worktree), check=False)
        if worktree.is_dir():
            _rmtree(worktree)
    git.run(
        repo,
        "worktree",
        "prune",
        # mutation: equivalent: pruning never fails in a repository git has just run in; check=False
        # only keeps an undo going whatever happens
        check=False,
    )
    git.run(repo, "branch", "-D", "--quiet", branch, check=False)
    parent = worktree.parent
    if parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()


def is_worktree(path: Path) -> bool:
    """Whether ``path`` is the top of a git working tree."""
    return path.is_dir() and git.toplevel(path) == path.resolve()


def clear_index_lock(worktree: Path) -> None:
    """Remove a leftover ``index.lock`` of this worktree; call only when no git of ours runs in it."""
    git.git_path(worktree, "index.lock").unlink(missing_ok=True)


def _snapshot(worktree: Path, head: str, message: str) -> str:
    """A commit of everything in the worktree (tracked, modified and untracked), parented on ``head``."""
    index = git.git_path(worktree, "index")
    with tempfile.TemporaryDirectory(
        # mutation: equivalent: a temporary folder's name is never read
        prefix="rcs-autoresearch-",
    ) as temp:
        temp_index = Path(temp) / "index"
        if index.exists():
            # A copy, so only changed files are hashed again; copy2 keeps the index's mtime, which
            # git's racy-entry check compares file times against: a fresh mtime would make a file
            # rewritten in the same second as the checkout, same size, look unchanged.
            shutil.copy2(index, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index)}
        try:
            git.run(worktree, "add", "--all", "--", ".", env=env)
        except RcsError:
            # Something git will not add (an embedded repository with no commit, say): keep what it
            # will, path by path, rather than lose everything. Paths are literal: a file named
            # ":draft.md" is not pathspec magic.
            literal = {**env, "GIT_LITERAL_PATHSPECS": "1"}
            for rel in git.dirty_paths(worktree):
                git.run(worktree, "add", "--all", "--", rel, env=literal, check=False)
        tree = git.run(worktree, "write-tree", env=env).strip()
    identity = {
        "GIT_AUTHOR_NAME": C.SNAPSHOT_NAME,
        "GIT_AUTHOR_EMAIL": C.SNAPSHOT_EMAIL,
        "GIT_COMMITTER_NAME": C.SNAPSHOT_NAME,
        "GIT_COMMITTER_EMAIL": C.SNAPSHOT_EMAIL,
    }
    return git.run(worktree, "commit-tree", tree, "-p", head, "-m", message, env=identity).strip()


def preserve(worktree: Path, kept: str, ref: str, message: str) -> str | None:
    """Keep what differs from ``kept`` reachable under ``ref``; returns the ref, or None if nothing differs."""
    head = git.commit_of(worktree, "HEAD") or kept
    tip = _snapshot(worktree, head, message) if git.dirty_paths(worktree) else head
    if tip == kept:
        return None
    git.run(worktree, "update-ref", ref, tip)
    return ref


def _make_writable(function: object, path: str, exc_info: object) -> None:
    parent = os.path.dirname(path)
    for target in (parent, path):
        with contextlib.suppress(OSError):
            os.chmod(target, os.stat(target).st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _rmtree(path: Path) -> None:
    shutil.rmtree(path, onerror=_make_writable)


def _clean_args() -> list[str]:
    # -x: ignored build output of a discarded candidate must not reach the next one; -e keeps the
    # runtime artifacts, the one allowlist (R-AR-9).
    return ["clean", "-ffdxq", *(arg for p in exclude_patterns() for arg in ("-e", p))]


def reset(worktree: Path, branch: str, kept: str) -> None:
    """Put the worktree on its branch at ``kept``, clean apart from the runtime artifacts (submodules too)."""
    clear_index_lock(worktree)
    git.run(worktree, "checkout", "--quiet", "--force", "-B", branch, kept)
    if (worktree / ".gitmodules").exists():
        # --no-fetch: never reach the network; only submodules that are already checked out.
        git.run(
            worktree,
            "submodule",
            "--quiet",
            "update",
            "--recursive",
            "--force",
            "--checkout",
            "--no-fetch",
            check=False,
        )
        git.run(
            worktree,
            "submodule",
            "--quiet",
            "foreach",
            "--recursive",
            "git reset -q --hard && git clean -ffdxq",
            check=False,
        )
    try:
        git.run(worktree, *_clean_args())
    except RcsError:
        for rel in git.dirty_paths(worktree):
            target = worktree / rel
            parent = target.parent
            while parent != worktree and parent.exists():  # an unwritable directory blocks its entries' removal
                os.chmod(parent, os.stat(parent).st_mode | stat.S_IWUSR | stat.S_IXUSR | stat.S_IRUSR)
                parent = parent.parent
            if target.is_dir() and not target.is_symlink():
                _rmtree(target)
            else:
                # mutation: equivalent: git status just listed the file and, with untracked files
                # listed one by one, no folder removed before it held it: only a race could remove it
                target.unlink(missing_ok=True)
        git.run(worktree, *_clean_args())


def at_kept(worktree: Path, branch: str, kept: str) -> bool:
    """Whether the worktree is on its branch, at ``kept``, and clean (R-AR-9)."""
    return (
        git.branch_of(worktree) == f"refs/heads/{branch}"
        and git.commit_of(worktree, "HEAD") == kept
        and not git.dirty_paths(worktree)
    )
