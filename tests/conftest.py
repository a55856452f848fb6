"""Shared test helpers: the project root, throwaway project copies, and running the real CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PARTS = (
    "pyproject.toml",
    "claim_policy.yaml",
    "SPEC.md",
    "schemas",
    "base",
    "safeio",
    "codegen",
    "generated",
    "engine",
    "runtime",
    "rcs_contracts",  # links to the folders above (and claim_policy.yaml): the copy imports its own
)


def copy_project(dest: Path) -> Path:
    """Copy what the compiler and runtime need into ``dest`` (no caches)."""
    dest.mkdir(parents=True, exist_ok=True)
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, dest / part, ignore=shutil.ignore_patterns("__pycache__"), symlinks=True)
        else:
            shutil.copy2(source, dest / part)
    return dest


def run_rcs(args: list[str], cwd: Path | None = None, project: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m rcs_contracts.runtime.cli ARGS``; with ``project`` its packages shadow the installed ones."""
    env = dict(os.environ)
    if project is not None:
        env["PYTHONPATH"] = str(project)
    return subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", *args],
        cwd=cwd or project or ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_python(code: str, project: Path) -> subprocess.CompletedProcess[str]:
    """Run a Python snippet with ``project``'s packages first on the path."""
    env = dict(os.environ, PYTHONPATH=str(project))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy of the project that a test may edit and recompile."""
    return copy_project(tmp_path / "project")


@pytest.fixture
def rcs() -> Callable[..., subprocess.CompletedProcess[str]]:
    """The real CLI, run in a subprocess from the project root."""
    return run_rcs
