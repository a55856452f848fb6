"""The hostile-input harness: the real CLI in a child process, under a wall-clock guard and a memory cap.

Every case must end within its guard (a subprocess timeout, not a timing assertion), with the
documented exit status, no traceback, and nothing written outside the paths it was given.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

GUARD_SECONDS = 30.0
MEMORY_BYTES = 1 << 30  # address space of the child: /dev/zero read whole would pass it in seconds


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


@dataclass(frozen=True)
class Ran:
    """What a guarded run did."""

    status: int
    stdout: str
    stderr: str


def snapshot(directory: Path) -> dict[str, int]:
    """Every path below ``directory`` with its modification time (links not followed)."""
    found: dict[str, int] = {}
    stack = [directory]
    while stack:  # not os.walk: a test tree may be deeper than Python's stack
        current = stack.pop()
        for entry in os.scandir(current):
            path = Path(entry.path)
            found[str(path.relative_to(directory))] = entry.stat(follow_symlinks=False).st_mtime_ns
            if entry.is_dir(follow_symlinks=False):
                stack.append(path)
    return found


def rcs(
    *args: str,
    cwd: Path,
    guard: float = GUARD_SECONDS,
    env: dict[str, str] | None = None,
    allowed: tuple[str, ...] = (),
) -> Ran:
    """Run ``rcs ARGS`` in ``cwd`` under the guard; asserts no traceback and no stray writes in ``cwd``.

    ``allowed`` names paths (relative to ``cwd``) the command may create or change.
    """
    before = snapshot(cwd)
    done = subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True,
        timeout=guard,
        preexec_fn=_limit_memory,
    )
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    after = snapshot(cwd)
    changed = {p for p in after.keys() | before.keys() if before.get(p) != after.get(p)}
    stray = {p for p in changed if not any(p == a or p.startswith(a + "/") for a in allowed)}
    assert not stray, f"written outside its output paths: {sorted(stray)}"
    return Ran(done.returncode, stdout, stderr)


def rcs_schemas(dest: Path) -> None:
    """rcs's own schemas and pyproject.toml in ``dest``, with the one link that makes its
    ``package = "rcs_contracts.generated"`` the folder ``dest/generated`` (as in the checkout,
    where rcs_contracts/ links to the top-level folders); no code, so rcs runs from the checkout."""
    shutil.copytree(ROOT / "schemas", dest / "schemas")
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    (dest / "rcs_contracts").mkdir()
    (dest / "rcs_contracts" / "generated").symlink_to(Path("..") / "generated")
