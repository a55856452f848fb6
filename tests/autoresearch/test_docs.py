"""Verification target 6: README, --help and SPEC describe the thin-supervisor loop; the README's demo runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.autoresearch.conftest import IDENTITY
from tests.conftest import ROOT


def test_readme_and_spec_describe_the_loop() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    for needle in [
        "rcs autoresearch [--max-iterations N] <mission-dir> [codex-args...]",
        "rcs autoresearch [--max-iterations N] --resume <run-id> [codex-args...]",
        "`.rcs/state/autoresearch-state.json`", "`autoresearch/<mission-slug>/<run-tag>`",
        "`<repo>.rcs-worktrees/autoresearch-<mission-slug>-<run-tag>`", "`candidate.json`",
        "`manifest.json`", "`iteration-ledger.json`", "`latest-evaluator-result.json`", "`results.tsv`",
        "bash examples/autoresearch/demo.sh",
    ]:
        assert needle in readme, needle
    spec = (ROOT / "SPEC.md").read_text()
    assert "## 9. `rcs autoresearch` (autoresearch.md)" in spec and "codex-cli 0.169.0" in spec
    for ruling in range(1, 10):
        assert f"R-AR-{ruling}" in spec, ruling


def test_the_readme_demo_runs(tmp_path: Path) -> None:
    env = {**os.environ, **IDENTITY, "RCS": str(Path(sys.executable).parent / "rcs"), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        ["bash", str(ROOT / "examples/autoresearch/demo.sh")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[1].split()[0] for line in lines if line.startswith("iteration ")] == [
        "baseline", "keep", "discard", "keep", "noop", "noop", "noop"]
    assert "finished: 3 consecutive noops" in done.stdout
