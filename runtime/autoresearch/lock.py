"""The repository's active-run lock: ``.rcs/state/autoresearch-state.json`` (R-AR-2).

The pointer is written complete to a temp file and hard-linked into place: ``link`` fails when the
name exists, so exactly one of two racing launches wins, and the file is never seen half-written.
It is taken before any branch or worktree exists. A lock whose process is gone from this host is
stale; the error says so and names the ``--resume`` command.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch import errors as E
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.generated.autoresearch.state_schema import KIND as STATE_KIND
from rcs_contracts.generated.autoresearch.state_schema import ActiveRunPointer
from rcs_contracts.runtime.autoresearch import files


def path_of(repo: Path) -> Path:
    """Where the lock of a repository lives."""
    return repo / C.STATE_FILE


def alive(pid: int, host: str) -> bool:
    """Whether the lock's owner may still run: a live pid on this host, or any pid on another host."""
    if host != socket.gethostname():
        return True  # not provably dead: we cannot see another machine's processes
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read(repo: Path) -> ActiveRunPointer | None:
    """The current pointer, or None when there is no lock; raises LockError when it is unreadable."""
    path = path_of(repo)
    try:
        return files.read_model(path, STATE_KIND, ActiveRunPointer)
    except FileNotFoundError:
        return None
    except (OSError, RcsError) as exc:
        raise E.lock_unreadable(path=str(path), detail=str(exc)) from None


def refuse(repo: Path, pointer: ActiveRunPointer) -> RcsError:
    """The error for a lock held by ``pointer``: held, or stale when its owner is provably dead."""
    if alive(pointer.pid, pointer.host):
        return E.lock_held(run_id=pointer.run_id, pid=pointer.pid, host=pointer.host, started_at=pointer.started_at)
    return E.lock_stale(path=str(path_of(repo)), run_id=pointer.run_id, pid=pointer.pid, host=pointer.host)


@dataclass(frozen=True)
class Lock:
    """A lock this process holds."""

    repo: Path
    pointer: ActiveRunPointer

    def release(self) -> None:
        """Remove the lock if it is still ours (never someone else's)."""
        try:
            current = read(self.repo)
        except RcsError:
            return
        if current is not None and current.pid == self.pointer.pid and current.run_id == self.pointer.run_id:
            path_of(self.repo).unlink(missing_ok=True)


def _pointer(run_id: str, manifest: str) -> ActiveRunPointer:
    return files.build(
        ActiveRunPointer,
        {
            "run_id": run_id,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started_at": dt.datetime.now(dt.UTC),
            "manifest": manifest,
        },
    )


def acquire(repo: Path, run_id: str, manifest: str, take_over: bool = False) -> Lock:
    """Take the lock for ``run_id``; raises LockError when another live run holds it.

    ``take_over`` (resume) replaces a stale lock of the same run; a fresh launch never does.
    """
    path = path_of(repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    pointer = _pointer(run_id, manifest)
    # mutation: equivalent: the temporary's name is never seen: linked or moved onto the lock, then removed
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    files.write_text(temp, files.dumps(pointer))
    try:
        for _ in range(2):
            try:
                os.link(temp, path)
                return Lock(repo, pointer)
            except FileExistsError:
                current = read(repo)
                if current is None:
                    continue  # released between our link and our read: try once more
                if take_over and current.run_id == run_id and not alive(current.pid, current.host):
                    os.replace(temp, path)  # R-AR-2: the owner is provably dead; resume takes its place
                    return Lock(repo, pointer)
                raise refuse(repo, current) from None
        raise E.lock_unreadable(path=str(path), detail=M.lock_keeps_changing())
    finally:
        temp.unlink(missing_ok=True)
