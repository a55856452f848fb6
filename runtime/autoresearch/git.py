"""Thin, typed calls to the git command line; a failing call raises ``GitError`` with its stderr.

Every git runs in its own process group, so a Ctrl-C at the terminal reaches the supervisor
alone and never kills git halfway through writing the index (the supervisor stops at a safe
point instead, R-AR-6).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch import errors as E
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.runtime.autoresearch.processes import STOP_REQUESTED

_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
_POLL_SECONDS = 0.1


@dataclass(frozen=True)
class _Done:
    returncode: int
    stdout: str
    stderr: str


def _call(cwd: Path, args: Sequence[str], env: Mapping[str, str] | None = None, stdin: str | None = None) -> _Done:
    """``git -c <overrides> -C cwd args...``, bounded in time and giving way to a signal.

    The repository's config is the worker's to write: the overrides keep its hooks and fsmonitor
    from running inside our calls. A call longer than the git timeout, or still running a moment
    after SIGINT/SIGTERM, has its process group killed and reads as a failure (status -1).
    """
    overrides = [part for setting in C.GIT_OVERRIDES for part in ("-c", setting)]
    process = subprocess.Popen(
        ["git", *overrides, "-C", str(cwd), *args],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        errors="surrogateescape",
        env={**os.environ, **_ENV, **(env or {})},
        process_group=0,
    )
    deadline = time.monotonic() + C.GIT_TIMEOUT_SECONDS
    stopping_at: float | None = None
    pending = stdin
    while True:
        try:
            out, err = process.communicate(pending, timeout=_POLL_SECONDS)
            return _Done(process.returncode, out, err)
        except subprocess.TimeoutExpired:
            pending = None  # communicate keeps feeding what it started
        now = time.monotonic()
        if STOP_REQUESTED.is_set() and stopping_at is None:
            stopping_at = now + C.SIGNAL_GRACE_SECONDS
        if now > deadline or (stopping_at is not None and now > stopping_at):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            seconds = f"{C.GIT_TIMEOUT_SECONDS:g}"
            why = M.git_interrupted() if stopping_at is not None else M.git_timed_out(seconds=seconds)
            return _Done(-1, "", why)


def run(
    cwd: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> str:
    """stdout of ``git -C cwd args...``; raises GitError when git fails and ``check`` is set."""
    done = _call(cwd, args, env, stdin)
    if check and done.returncode != 0:
        raise E.git_failed(
            args=" ".join(args), status=done.returncode, detail=done.stderr.strip() or done.stdout.strip()
        )
    return done.stdout


def ok(cwd: Path, *args: str) -> bool:
    """Whether ``git -C cwd args...`` succeeds."""
    return _call(cwd, args).returncode == 0


def toplevel(path: Path) -> Path | None:
    """The root of the working tree that contains ``path``, or None outside any repository."""
    done = _call(path, ("rev-parse", "--show-toplevel"))
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def commit_of(cwd: Path, rev: str) -> str | None:
    """The full SHA ``rev`` names as a commit, or None when it resolves to nothing."""
    # (git's "Needed a single revision" goes to the captured stderr, which an unchecked run drops)
    done = run(cwd, "rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}", check=False)
    sha = done.strip()
    return sha or None


def head(cwd: Path) -> str:
    """The full SHA of HEAD."""
    return run(cwd, "rev-parse", "HEAD").strip()


def branch_of(cwd: Path) -> str | None:
    """The branch HEAD is on (``refs/heads/...``), or None when HEAD is detached."""
    out = run(cwd, "symbolic-ref", "--quiet", "HEAD", check=False).strip()
    return out or None


def is_ancestor(cwd: Path, ancestor: str, descendant: str) -> bool:
    """Whether ``ancestor`` is reachable from ``descendant`` (or equal to it)."""
    return ok(cwd, "merge-base", "--is-ancestor", ancestor, descendant)


def dirty_paths(cwd: Path, under: str = ".") -> list[str]:
    """Paths ``git status`` reports below ``under`` (untracked included, ignored and excluded files not).

    Names git prints as bytes that are not UTF-8 come back surrogate-escaped, so they still work as
    paths; ``shown`` makes them printable.
    """
    out = run(cwd, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none", "--", under)
    paths: list[str] = []
    fields = out.split("\0")
    index = 0
    while index < len(fields):
        entry = fields[index]
        index += 1
        if not entry:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC":  # a rename carries its source path in the next field
            index += 1
    return paths


def shown(path: str) -> str:
    """A path as it can be printed and stored in JSON (undecodable bytes become U+FFFD)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@functools.lru_cache(maxsize=64)
def git_path(cwd: Path, name: str) -> Path:
    """Where git keeps ``name`` for this working tree (``info/exclude``, ``index.lock``, ...); it never moves."""
    out = run(cwd, "rev-parse", "--path-format=absolute", "--git-path", name).strip()
    return Path(out)


def changed_paths(cwd: Path, base: str, rev: str, under: str) -> list[str]:
    """Paths below ``under`` that differ between two commits."""
    out = run(
        cwd,
        "diff",
        "--name-only",
        # mutation: equivalent: git reads "-zX" as -z and -X (a dirstat), which --name-only overrides
        "-z",
        base,
        rev,
        "--",
        under,
    )
    return [p for p in out.split("\0") if p]


def main_root(path: Path) -> Path | None:
    """The main working tree of the repository containing ``path`` (also from a linked worktree).

    Repository-wide state (the lock, the run logs, the lanes) lives beside it, so every worktree of
    one repository shares one lock.
    """
    top = toplevel(path)
    if top is None:
        return None
    common = Path(run(top, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    return common.parent if common.name == ".git" else top
