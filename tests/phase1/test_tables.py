"""R-GEN-1 for Phase 1: the config table drives chunk length, the not-stated text and the modes."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import copy_project, run_python, run_rcs


def test_config_table_drives_behaviour(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    table = project / "schemas/phase1/config.yaml"
    text = table.read_text()
    text = text.replace("max_chunk_chars: 800", "max_chunk_chars: 40")
    text = text.replace('not_stated: "Not stated in the paper."', 'not_stated: "The paper does not say."')
    text = text.replace("modes: [summary]", "modes: [summary, digest]")
    table.write_text(text)
    result = run_rcs(["codegen"], project=project)
    assert result.returncode == 0, result.stdout + result.stderr
    probe = run_python(
        "from rcs_contracts.runtime.phase1 import *\n"
        "s = [('A', 'One short sentence here. Another short sentence there. A third one.')]\n"
        "print(len(ingest_document('p', s).chunks))\n"
        "print(run_phase1_pipeline('p', s, 'zebra', top_k=2).summary.bullets[0].text)\n"
        "print(run_phase1_pipeline('p', s, 'third', mode='digest', top_k=1).mode)\n",
        project,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.splitlines() == ["3", "The paper does not say.", "digest"]
