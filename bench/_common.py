"""Shared helpers for the benchmark scripts in bench/ (stdlib only; not a test module).

Every script is run from the project root with the venv's interpreter, e.g.
``.venv/bin/python bench/codegen.py``; executables are looked up next to ``sys.executable``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Not resolved: a venv's python is a symlink to the base interpreter, and the venv's bin dir is
# the directory of the link, not of its target.
BIN_DIR = Path(sys.executable).parent


class BenchError(Exception):
    """A benchmark could not run or a command under test failed; the message says why."""


def check_root() -> None:
    """Fail unless the script is run from the project root (the brief's contract)."""
    if Path.cwd().resolve() != ROOT:
        script = Path(sys.argv[0]).name
        raise BenchError(f"run this from the project root: cd {ROOT} && {sys.executable} bench/{script}")
    if not (ROOT / "pyproject.toml").is_file() or not (ROOT / "schemas").is_dir():
        raise BenchError(f"{ROOT} does not look like the rcs project root (no pyproject.toml or schemas/)")


def find_exe(name: str) -> Path:
    """The executable ``name`` in the interpreter's bin directory, or a clear error."""
    for candidate in (BIN_DIR / name, BIN_DIR / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise BenchError(
        f"`{name}` was not found next to the interpreter ({BIN_DIR}).\n"
        f"Run the benchmark with the project's virtualenv, e.g. `.venv/bin/python bench/{Path(sys.argv[0]).name}`, "
        f"and make sure it is installed there (pip install -e '.[test]')."
    )


def environment_note() -> str | None:
    """A line to print when the environment skews Python start-up times, else None."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return (
            "note: PYTHONDONTWRITEBYTECODE is set, so project modules without a cached .pyc are "
            "compiled on every start (adds a few tens of ms per rcs run)"
        )
    return None


def print_header(title: str) -> None:
    """The first lines of every report: what ran, with which interpreter, and any caveat."""
    print(title)
    print(f"python {sys.version.split()[0]} at {BIN_DIR}")
    note = environment_note()
    if note:
        print(note)
    print()


def parser(description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every script shares."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="fewer repetitions (a smoke run, noisier numbers)")
    p.add_argument("--repeat", type=int, metavar="N", help="repetitions per measurement (overrides the default)")
    p.add_argument("--strict", action="store_true", help="exit 1 when a bar is missed (default: report only, exit 0)")
    return p


def repeats(args: argparse.Namespace, full: int, quick: int) -> int:
    """How many times to repeat a measurement."""
    if args.repeat is not None:
        if args.repeat < 1:
            raise BenchError("--repeat must be at least 1")
        return int(args.repeat)
    return quick if args.quick else full


def run(cmd: Sequence[object], cwd: Path, expect: int = 0) -> float:
    """Run ``cmd`` once and return its wall time in seconds; raise BenchError on an unexpected exit."""
    argv = [str(c) for c in cmd]
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    if proc.returncode != expect:
        shown = " ".join(argv[:8]) + (f" ... ({len(argv) - 8} more arguments)" if len(argv) > 8 else "")
        raise BenchError(
            f"command exited {proc.returncode} (expected {expect}) in {cwd}:\n  {shown}\n"
            f"--- stdout (tail) ---\n{_tail(proc.stdout)}\n--- stderr (tail) ---\n{_tail(proc.stderr)}"
        )
    return elapsed


def status(cmd: Sequence[object], cwd: Path) -> int:
    """Run ``cmd`` once, output discarded, and return its exit status."""
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    return int(proc.returncode)


def _tail(data: bytes, lines: int = 20) -> str:
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


@dataclass
class Timing:
    """Repeated wall times of one measurement."""

    label: str
    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table with right-aligned columns except the first."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i]) for i, c in enumerate(cells)
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def timing_table(timings: Sequence[Timing]) -> str:
    """Median / min / max / runs of each timing."""
    return table(
        ["measurement", "median", "min", "max", "runs"],
        [[t.label, f"{t.median:.3f}s", f"{t.low:.3f}s", f"{t.high:.3f}s", str(len(t.samples))] for t in timings],
    )


def bar(name: str, ok: bool, detail: str) -> bool:
    """Print one bar's verdict; returns ok."""
    print(f"  [{'PASS' if ok else 'FAIL'}] {name}: {detail}")
    return ok


def main_wrapper(body: Callable[[], bool]) -> None:
    """Run ``body`` (returns True when every bar is met) and exit: 0, 1 with --strict on a miss, 2 on error."""
    strict = "--strict" in sys.argv[1:]
    try:
        met = body()
    except BenchError as exc:
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(1 if strict and not met else 0)
