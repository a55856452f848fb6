"""Signals always win: a long command ends within a second of SIGINT or SIGTERM, without a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rcs_contracts.engine.validation import data_path
from tests.conftest import ROOT


def _long_batch(tmp_path: Path) -> Path:
    """A JSON Lines file that takes rcs many seconds to check."""
    line = json.dumps({"max_rounds": 3, "code_leak_patterns": ["a", "b"]}) + "\n"
    path = tmp_path / "many.jsonl"
    path.write_text(line * 250_000)  # under the 16 MiB artifact cap
    return path


# Killed by the signal (the shell's 130/143), or 130/143 returned by a handler: both are documented.
@pytest.mark.parametrize(
    ("signum", "statuses"), [(signal.SIGINT, {130, -signal.SIGINT}), (signal.SIGTERM, {143, -signal.SIGTERM})]
)
def test_a_long_validate_stops_at_once(tmp_path: Path, signum: int, statuses: set[int]) -> None:
    batch = _long_batch(tmp_path)
    # 60 passes over the batch: over a minute of work on any machine, so the 10 s timeout below can
    # only be met by stopping on the signal (no clock is read: an ignored signal times out).
    process = subprocess.Popen(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", "validate", "--kind", "odr/config", *[str(batch)] * 60],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(2.0)  # into the batch (imports take a fraction of that)
    assert process.poll() is None, "the batch finished before the signal: make it longer"
    process.send_signal(signum)
    _, err = process.communicate(timeout=10)
    assert process.returncode in statuses
    assert b"Traceback" not in err


def test_error_locations_drop_pydantic_branch_names() -> None:
    value = {"limit": 5, "items": [{"x": [1, 2]}]}
    assert data_path(value, ("limit", "int")) == ("limit",)
    assert data_path(value, ("items", 0, "x", 1, "function-after[_integral(), int]")) == ("items", 0, "x", 1)
    assert data_path(value, ("items", "dict[str,any]", 0, "x")) == ("items", 0, "x")
    assert data_path(value, ("nope",)) == ()


def test_an_interrupt_inside_a_command_run_in_process_is_status_130(monkeypatch: pytest.MonkeyPatch) -> None:
    from rcs_contracts.runtime import cli

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_validate", interrupted)
    assert cli.main(["validate", "anything.json"]) == 128 + signal.SIGINT


def test_sigterm_ends_a_command_with_status_143() -> None:
    from rcs_contracts.runtime import cli

    with pytest.raises(SystemExit) as info:
        cli._terminate(signal.SIGTERM, None)
    assert info.value.code == 128 + signal.SIGTERM
