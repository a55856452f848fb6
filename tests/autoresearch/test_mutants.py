"""The active-run lock (runtime/autoresearch/lock.py) against mutants bench/mutation.py found alive."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch.errors import LockError
from rcs_contracts.generated.autoresearch.state_schema import ActiveRunPointer
from rcs_contracts.runtime.autoresearch import files, lock


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped) on this host."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def plant(repo: Path, run_id: str, pid: int, host: str | None = None) -> Path:
    """A lock file left by ``run_id`` (as an owner that is gone would leave it)."""
    pointer = files.build(
        ActiveRunPointer,
        {
            "run_id": run_id,
            "pid": pid,
            "host": host or socket.gethostname(),
            "started_at": "2026-11-22T00:00:00Z",
            "manifest": f"{run_id}.json",
        },
    )
    path = repo / C.STATE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(files.dumps(pointer))
    return path


def test_resume_takes_over_the_stale_lock_of_its_own_run(tmp_path: Path) -> None:
    path = plant(tmp_path, "run-a", dead_pid())
    held = lock.acquire(tmp_path, "run-a", "new.json", take_over=True)
    assert held.pointer.run_id == "run-a" and held.pointer.pid == os.getpid()
    on_disk = json.loads(path.read_text())
    assert (on_disk["run_id"], on_disk["pid"], on_disk["manifest"]) == ("run-a", os.getpid(), "new.json")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp file left behind
    held.release()
    assert not path.exists()


def test_resume_never_takes_another_runs_stale_lock(tmp_path: Path) -> None:
    pid = dead_pid()
    path = plant(tmp_path, "run-other", pid)
    before = path.read_bytes()
    with pytest.raises(LockError) as caught:
        lock.acquire(tmp_path, "run-mine", "m.json", take_over=True)
    assert caught.value.code == "LOCK_STALE"
    assert str(caught.value) == (
        f"the lock {path} is stale: run run-other (pid {pid} on {socket.gethostname()}) is no longer running; "
        f"continue it with `rcs autoresearch --resume run-other`, or delete {path} to start a new run"
    )
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_a_fresh_launch_never_takes_a_stale_lock(tmp_path: Path) -> None:
    path = plant(tmp_path, "run-a", dead_pid())
    before = path.read_bytes()
    with pytest.raises(LockError) as caught:
        lock.acquire(tmp_path, "run-a", "m.json")
    assert caught.value.code == "LOCK_STALE"
    assert path.read_bytes() == before


def test_a_lock_of_another_host_is_held_not_stale(tmp_path: Path) -> None:
    pid = dead_pid()
    plant(tmp_path, "run-a", pid, host="elsewhere.invalid")
    assert lock.alive(pid, "elsewhere.invalid") is True
    assert lock.alive(pid, socket.gethostname()) is False
    assert lock.alive(os.getpid(), socket.gethostname()) is True
    with pytest.raises(LockError) as caught:
        lock.acquire(tmp_path, "run-a", "m.json", take_over=True)
    assert caught.value.code == "LOCK_HELD"
    assert caught.value.params["host"] == "elsewhere.invalid"


def test_release_leaves_a_lock_of_the_same_pid_but_another_run(tmp_path: Path) -> None:
    held = lock.acquire(tmp_path, "run-a", "m.json")
    path = plant(tmp_path, "run-b", os.getpid())
    held.release()
    assert json.loads(path.read_text())["run_id"] == "run-b"
