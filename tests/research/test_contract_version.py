"""R-RS-9: a change to a versioned research table without a new contract version is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generated.research.contract import CONTRACT_VERSION, TABLES_SHA256
from tests.conftest import copy_project, run_rcs


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("contract") / "project")


@pytest.mark.parametrize(
    ("table", "old", "new"),
    [
        ("policy.yaml", "max_tool_calls_total: 5,", "max_tool_calls_total: 6,"),  # a cap
        ("stop_reasons.yaml", "group: resource\n    description: Rate", "group: policy\n    description: Rate"),
        ("responses.yaml", 'unknown: "No sources are available for this request."', 'unknown: "Nothing found."'),
        ("injection.yaml", 'severity: flag\n    description: "text', 'severity: block\n    description: "text'),
    ],
)
def test_a_changed_table_with_the_same_version_is_refused(project: Path, table: str, old: str, new: str) -> None:
    path = project / "schemas" / "research" / table
    original = path.read_text()
    assert old in original
    path.write_text(original.replace(old, new, 1))
    try:
        done = run_rcs(["codegen", "--check"], project=project)
        assert done.returncode != 0
        assert (
            f"the research tables changed but contract_version is still {CONTRACT_VERSION}" in done.stderr + done.stdout
        )
        assert "schemas/research/contract.yaml:" in done.stderr + done.stdout
    finally:
        path.write_text(original)


def test_a_new_version_frozen_with_its_fingerprint_is_accepted(project: Path) -> None:
    research = project / "schemas" / "research"
    saved = {p: p.read_text() for p in research.glob("*.yaml")}
    try:
        policy = research / "policy.yaml"
        policy.write_text(saved[policy].replace("max_tool_calls_total: 5,", "max_tool_calls_total: 6,", 1))
        for path in research.glob("*.yaml"):
            path.write_text(
                path.read_text().replace(f"contract_version: {CONTRACT_VERSION}", "contract_version: 18.1.0")
            )
        done = run_rcs(["codegen"], project=project)
        found = re.search(r"add \{version: 18\.1\.0, sha256: ([0-9a-f]{64})\}", done.stderr + done.stdout)
        assert done.returncode != 0 and found, done.stderr
        assert found[1] != TABLES_SHA256
        contract = research / "contract.yaml"
        contract.write_text(contract.read_text() + f'  - {{version: 18.1.0, sha256: "{found[1]}"}}\n')
        done = run_rcs(["codegen"], project=project)
        assert done.returncode == 0, done.stderr
        assert 'CONTRACT_VERSION: Final[str] = "18.1.0"' in (project / "generated/research/contract.py").read_text()
    finally:
        for path, text in saved.items():
            path.write_text(text)
        run_rcs(["codegen"], project=project)


def test_every_research_table_carries_the_contract_version() -> None:
    from tests.conftest import ROOT

    for path in sorted((ROOT / "schemas" / "research").glob("*.yaml")):
        if path.name == "errors.yaml":
            continue
        assert f"contract_version: {CONTRACT_VERSION}" in path.read_text(), path
