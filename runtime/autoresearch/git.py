"""Thin, typed calls to the git command line; a failing call raises ``GitError`` with its stderr.

Every git runs in its own process group, so a Ctrl-C at the terminal reaches the supervisor
alone and never kills git halfway through writing the index (the supervisor stops at a safe
point instead, R-AR-6).
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from generated.autoresearch import errors as E

_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


def run(
    cwd: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> str:
    """stdout of ``git -C cwd args...``; raises GitError when git fails and ``check`` is set."""
    full_env = {**os.environ, **_ENV, **(env or {})}
    done = subprocess.run(
        ["git", "-C", str(cwd), *args],
        input=stdin,
        capture_output=True,
        encoding="utf-8",
        errors="surrogateescape",
        env=full_env,
        process_group=0,
        check=False,
    )
    if check and done.returncode != 0:
        raise E.git_failed(
            args=" ".join(args), status=done.returncode, detail=done.stderr.strip() or done.stdout.strip()
        )
    return done.stdout


def ok(cwd: Path, *args: str) -> bool:
    """Whether ``git -C cwd args...`` succeeds."""
    return (
        subprocess.run(
            ["git", "-C", str(cwd), *args],
            capture_output=True,
            env={**os.environ, **_ENV},
            process_group=0,
            check=False,
        ).returncode
        == 0
    )


def toplevel(path: Path) -> Path | None:
    """The root of the working tree that contains ``path``, or None outside any repository."""
    done = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
        capture_output=True,
        text=True,
        env={**os.environ, **_ENV},
        process_group=0,
        check=False,
    )
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def commit_of(cwd: Path, rev: str) -> str | None:
    """The full SHA ``rev`` names as a commit, or None when it resolves to nothing."""
    done = run(cwd, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
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
    out = run(cwd, "diff", "--name-only", "-z", base, rev, "--", under)
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
