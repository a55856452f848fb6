"""rcs as an installed tool: its version, its name on PyPI, the message when the compiler is missing."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rcs_contracts.base import about
from rcs_contracts.codegen import cli as codegen_cli
from tests.conftest import ROOT


def test_version_is_the_distributions() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", "--version"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"rcs {about.VERSION} (rcs-contracts on PyPI)\n"
    # The build reads the version from base/about.py: the installed metadata says the same.
    assert importlib.metadata.version(about.DISTRIBUTION) == about.VERSION
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == about.DISTRIBUTION and project["dynamic"] == ["version"]


def test_a_missing_compiler_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jinja2" else real(name, *a))
    assert codegen_cli.run(tmp_path, check=True) == 2
    err = capsys.readouterr().err
    assert err == (
        "rcs codegen: the compiler is not installed (jinja2 is missing); "
        "install it with: pip install 'rcs-contracts[codegen]'\n"
    )


def test_the_compiler_modules_are_the_extras() -> None:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = sorted(r.split("=")[0].split(">")[0].split("<")[0].strip().replace("-", "_") for r in extra["codegen"])
    assert names == sorted((*codegen_cli.COMPILER_MODULES, *codegen_cli.WITNESS_MODULES))
