"""Property tests over the official suite's schemas, compiled as a user's project would be.

* fuzz: random JSON (and random bytes) against random suite kinds through ``rcs validate``: exit 0 or
  1 with a report, never an internal error or a traceback;
* generated: instances generated from each suite schema (hypothesis-jsonschema) that the engine
  accepts are accepted by rcs too, so the model generated from the schema's view never rejects them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import suite

WORKER = Path(__file__).with_name("worker.py")


@pytest.fixture(scope="module")
def suite_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("suite")
    suite.build_project(suite.DEFAULT_SUITE, project)
    suite.compile_project(project)
    return project


def run_worker(project: Path, mode: str, number: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=f"{project}{os.pathsep}{Path(__file__).resolve().parents[2]}")
    done = subprocess.run(
        [sys.executable, str(WORKER), mode, str(number)], cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])  # hypothesis may print before it
    return result


def test_validate_never_crashes_on_suite_schemas(suite_project: Path) -> None:
    result = run_worker(suite_project, "fuzz", 400)
    assert result["examples"] >= 400
    assert result["failures"] == []


def test_models_accept_what_the_engine_accepts(suite_project: Path) -> None:
    result = run_worker(suite_project, "generated", 8)
    assert result["failures"] == []
    assert result["checked"] >= 1500, result  # of ~400 schemas, some cannot be generated from (unsatisfiable)
