"""The worker session: its argv (R-AR-1), its environment, and the instruction snapshot on its stdin."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch import errors as E
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.generated.autoresearch.ledger_schema import LedgerEntry
from rcs_contracts.generated.autoresearch.manifest_schema import Manifest
from rcs_contracts.runtime.autoresearch import report
from rcs_contracts.safeio import files


def binary() -> str:
    """The worker binary: ``$RCS_CODEX_BIN`` when set, else ``codex`` on PATH, resolved to a path."""
    name = os.environ.get(C.CODEX_BINARY_ENV) or C.CODEX_BINARY
    found = shutil.which(name)
    if found is None:
        raise E.worker_not_found(binary=name, detail=M.not_executable())
    interpreter = missing_interpreter(found)
    if interpreter is not None:
        raise E.worker_interpreter_missing(binary=found, interpreter=interpreter)
    return found


def missing_interpreter(path: str) -> str | None:
    """The interpreter a script's ``#!`` line names when it cannot be run, else None.

    (exec reports a missing interpreter as the script itself being missing: name the right file.)
    """
    try:
        head = files.read_head(path, 256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].split()
    if not words:
        return None
    interpreter = os.fsdecode(words[0])
    return None if os.path.isfile(interpreter) and os.access(interpreter, os.X_OK) else interpreter


def _names_sandbox(args: Sequence[str]) -> bool:
    return any(a.partition("=")[0] in C.CODEX_SANDBOX_FLAGS for a in args)  # "--flag" or "--flag=value"


def argv(codex_args: Sequence[str]) -> list[str]:
    """``codex exec <defaults> <codex-args> -``: the user's sandbox flags replace the defaults."""
    defaults = [] if _names_sandbox(codex_args) else list(C.CODEX_DEFAULT_ARGS)
    return [binary(), *C.CODEX_SUBCOMMAND, *defaults, *codex_args, "-"]


def environment(manifest: Manifest, iteration: int, candidate_path: Path) -> dict[str, str]:
    """The supervisor's environment plus the four variables the worker reads."""
    return {
        **os.environ,
        C.ENV_RUN_ID: manifest.run_id,
        C.ENV_ITERATION: str(iteration),
        C.ENV_CANDIDATE_FILE: str(candidate_path),
        C.ENV_LAST_KEPT_COMMIT: manifest.last_kept_commit,
    }


def snapshot(
    manifest: Manifest, iteration: int, entries: Sequence[LedgerEntry], candidate_path: Path, mission: str, sandbox: str
) -> str:
    """The instruction snapshot of one iteration (autoresearch.md, Iteration handoff context)."""
    previous = f"{entries[-1].decision} ({entries[-1].reason})" if entries else M.no_history()
    return (
        M.snapshot(
            iteration=iteration,
            run_id=manifest.run_id,
            branch=manifest.branch,
            baseline=manifest.baseline_commit,
            kept=manifest.last_kept_commit,
            kept_score=report.number(manifest.last_kept_score),
            keep_policy=manifest.evaluator.keep_policy,
            previous=previous,
            summary=report.summary(entries),
            rule=C.KEEP_POLICY_RULES[manifest.evaluator.keep_policy],
            candidate_path=str(candidate_path),
            mission_dir=manifest.mission_dir,
            command=manifest.evaluator.command,
            timeout=f"{manifest.evaluator.timeout_seconds:g}",
            mission_file=C.MISSION_FILE,
            mission=mission.strip(),
            sandbox_file=C.SANDBOX_FILE,
            sandbox=sandbox.strip(),
        )
        + "\n"
    )
