"""Worker and evaluator processes: each in its own process group, with a timeout (R-AR-6).

Output goes to files, not pipes, so a grandchild that keeps a pipe open cannot hang the
supervisor. When the leader exits, what is left of its group is killed too. SIGINT and SIGTERM
sent to the supervisor are forwarded to the running group (see ``Signals``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO

# Set by the first SIGINT/SIGTERM the supervisor handles: calls that wait on a child (git) give way.
STOP_REQUESTED = threading.Event()


class Interrupted(BaseException):
    """Raised by the first SIGINT/SIGTERM while ``Signals.raising`` is set (launch and resume, R-AR-2)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass
class Signals:
    """Records SIGINT/SIGTERM for the supervisor to act on at a safe point, forwarding them to the child.

    While ``raising`` is set (a launch or resume in progress), the first signal raises ``Interrupted``
    instead, so the half-made lane is removed; every later signal is only recorded, so cleanup and
    shutdown are never cut short by an impatient operator.
    """

    received: int | None = None
    child_group: int | None = None
    raising: bool = False
    _previous: dict[int, object] = field(default_factory=dict)

    @property
    def installed(self) -> bool:
        """Whether the handlers are in place."""
        return bool(self._previous)

    def install(self) -> None:
        """Handle SIGINT and SIGTERM until ``restore``."""
        STOP_REQUESTED.clear()
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._previous[signum] = signal.signal(signum, self._handle)

    def restore(self) -> None:
        """Put the previous handlers back."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]  # whatever signal() returned
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = self.received or signum
        STOP_REQUESTED.set()
        if self.raising:
            self.raising = False
            raise Interrupted(signum)
        if self.child_group is not None:
            _signal_group(self.child_group, signum)


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def group_alive(pgid: int) -> bool:
    """Whether any process of a group is left."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_left(pgid: int, leader: subprocess.Popen[bytes] | None) -> bool:
    """Whether any process of a group is left, reaping its leader first when it is our child: an
    exited but unreaped leader is a zombie, and a zombie still counts as a member of its group."""
    if leader is not None:
        leader.poll()
    return group_alive(pgid)


def kill_group(pgid: int, grace: float, leader: subprocess.Popen[bytes] | None = None) -> None:
    """SIGTERM the group, then SIGKILL whatever is left after ``grace`` seconds.

    ``leader`` is the group's leader when it is our child, so that a group that obeyed SIGTERM is
    seen to be gone at once instead of after the whole grace.
    """
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while _group_left(pgid, leader) and time.monotonic() < deadline:
        time.sleep(0.01)
    _signal_group(pgid, signal.SIGKILL)


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except (BrokenPipeError, OSError):
        pass  # the child did not read its instructions; its exit status tells the rest


@dataclass(frozen=True)
class Outcome:
    """How a process ended."""

    exit_code: int | None  # None when it was killed (timeout, or a signal)
    timed_out: bool
    seconds: float


def _fresh(path: Path) -> IO[bytes]:
    """A new, empty file at ``path`` for a child's output, whatever was there (a FIFO a worker left
    would block a plain open; a symlink would send the output elsewhere)."""
    path.unlink(missing_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), "wb")


def run_group(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    stdin: str | None,
    stdout: Path,
    stderr: Path,
    timeout: float,
    grace: float,
    signals: Signals,
    started: Callable[[int], None] = lambda pgid: None,
) -> Outcome:
    """Run ``argv`` as the leader of a new process group; kill the group on timeout or when it is done."""
    begin = time.monotonic()
    stdout.parent.mkdir(parents=True, exist_ok=True)
    with _fresh(stdout) as out, _fresh(stderr) as err:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            process_group=0,
        )
    pgid = process.pid
    signals.child_group = pgid
    timed_out = False
    try:
        started(pgid)
        if signals.received is not None:  # arrived before the group existed: forward it now
            _signal_group(pgid, signals.received)
        if stdin is not None:
            assert process.stdin is not None  # a pipe, since stdin was given
            # A thread, so that a child that never reads cannot block us past its timeout.
            threading.Thread(target=_feed, args=(process.stdin, stdin.encode("utf-8")), daemon=True).start()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(pgid, grace, process)
            process.wait()
        if signals.received is not None and _group_left(pgid, process):
            deadline = time.monotonic() + grace  # forwarded signal: give the group its grace to finish
            # mutation: equivalent: < or <=: the clock reading the deadline to the nanosecond changes nothing
            while _group_left(pgid, process) and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        if group_alive(pgid):
            kill_group(pgid, 0)  # grandchildren never outlive their iteration
        # A leader that left its group (setsid) is not reached by kill_group; kill() does nothing
        # to one that has ended (Popen checks first), and wait() reaps it either way.
        process.kill()
        process.wait()
        signals.child_group = None
    code = process.returncode
    return Outcome(None if timed_out or code < 0 else code, timed_out, time.monotonic() - begin)
