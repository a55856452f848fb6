"""``rcs autoresearch <mission-dir> [codex-args...]`` and ``rcs autoresearch --resume <run-id> [codex-args...]``.

Collect (launch or resume) -> supervise -> exit status, each in its own place. Exit status: 0 when
the run stopped by its rules (abort, the noop limit, --max-iterations), 1 when it needs an operator,
2 for a refusal (bad mission, lock held, resume refused), 130/143 after SIGINT/SIGTERM.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from rcs_contracts.base.exit_status import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.autoresearch import errors as E
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.safeio.terminal import printable

EXIT_BY_STATUS = {"needs_operator": EXIT_INVALID}
OWN_OPTIONS = frozenset({"--resume", "--max-iterations"})


def status_exit(status: str, received: int | None) -> int:
    """The exit status of a run that stopped with manifest ``status``."""
    if status == "interrupted" and received is not None:
        return 128 + received
    return EXIT_BY_STATUS.get(status, EXIT_OK)


def run(
    mission_dir: str | None,
    resume_id: str | None,
    codex_args: Sequence[str],
    max_iterations: int | None,
    out: TextIO,
    err: TextIO,
) -> int:
    """Launch or resume, then supervise until the run stops."""
    from rcs_contracts.runtime.autoresearch import git, supervisor
    from rcs_contracts.runtime.autoresearch import mission as missions
    from rcs_contracts.runtime.autoresearch.processes import Interrupted, Signals

    def say(line: str) -> None:
        print("\n".join(printable(part) for part in line.split("\n")), file=out, flush=True)

    # Installed for the rest of the process: from here on a signal never kills rcs holding the lock.
    # During launch/resume the first one raises Interrupted, so a half-made lane is removed (R-AR-2).
    signals = Signals(raising=True)
    signals.install()
    active: supervisor.Run | None = None
    try:
        if resume_id is not None:
            repo = git.main_root(Path.cwd())
            if repo is None:
                raise E.not_in_git_repo(path=str(Path.cwd()))
            active = supervisor.resume(repo, resume_id, codex_args, say, signals)
        else:
            assert mission_dir is not None
            active = supervisor.launch(missions.load(mission_dir), codex_args, say, signals)
        signals.raising = False
    except Interrupted as exc:
        signals.raising = False
        if active is not None:  # made, then interrupted before its loop: leave it resumable
            active.interrupted()
            active.held.release()
            print(printable(M.resume_hint(run_id=active.manifest.run_id)), file=err)
        return 128 + exc.signum
    except OSError as exc:
        print(printable(M.prefix(problem=str(E.io_failed(detail=str(exc))))), file=err)
        return EXIT_USAGE
    except RcsError as exc:
        print(printable(M.prefix(problem=str(exc))), file=err)
        return EXIT_USAGE
    try:
        status = supervisor.supervise(active, max_iterations)
    except (RcsError, OSError) as exc:  # git or the disk failed under us: the run stays resumable
        print(printable(M.prefix(problem=str(exc))), file=err)
        print(printable(M.resume_hint(run_id=active.manifest.run_id)), file=err)
        received = active.signals.received
        return 128 + received if received is not None else EXIT_USAGE
    return status_exit(status, active.signals.received)


def main(args: Sequence[str], resume_id: str | None, max_iterations: int | None) -> int:
    """Entry point used by ``runtime.cli``: ``args`` is the mission dir (unless resuming) and the codex args."""
    try:
        return _main(args, resume_id, max_iterations)
    finally:
        # The run is settled and the lock released; Python restores the default handlers while it
        # shuts down, and a signal then would turn our exit status into "killed". Ignore them now.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _main(args: Sequence[str], resume_id: str | None, max_iterations: int | None) -> int:
    rest = list(args)
    if rest and rest[0] == "--":
        rest = rest[1:]
    own = [a for a in rest if a.partition("=")[0] in OWN_OPTIONS]
    if own:  # codex would reject them with a confusing message; ours is clearer
        print(printable(M.prefix(problem=M.misplaced_option(option=own[0].partition("=")[0]))), file=sys.stderr)
        return EXIT_USAGE
    if resume_id is None:
        if not rest:
            print(printable(M.prefix(problem=M.no_mission())), file=sys.stderr)
            return EXIT_USAGE
        return run(rest[0], None, rest[1:], max_iterations, sys.stdout, sys.stderr)
    return run(None, resume_id, rest, max_iterations, sys.stdout, sys.stderr)
