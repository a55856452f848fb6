"""R-RS-9: a change to a versioned research table without a new contract version is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rcs_contracts.generated.research.contract import CONTRACT_VERSION, TABLES_SHA256
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
        (
            "injection.yaml",
            "obfuscation: {id: OBFUSCATION, severity: flag}",
            "obfuscation: {id: OBFUSCATION, severity: block}",
        ),
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
        contract = research / "contract.yaml"
        # A new version opens the changelog (SPEC.md 2.7) before it is frozen.
        entry = "changelog:\n  - {version: 18.1.0, changes: [six calls]}\n"
        contract.write_text(contract.read_text().replace("changelog:\n", entry))
        done = run_rcs(["codegen"], project=project)
        found = re.search(r"add \{version: 18\.1\.0, sha256: ([0-9a-f]{64})\}", done.stderr + done.stdout)
        assert done.returncode != 0 and found, done.stderr
        assert found[1] != TABLES_SHA256
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


def test_a_second_table_of_a_versioned_kind_is_refused(project: Path) -> None:
    """Review finding: a copy of policy.yaml under another name made the fingerprint see only one."""
    research = project / "schemas" / "research"
    copy = research / "zpolicy.yaml"
    copy.write_text((research / "policy.yaml").read_text())
    try:
        done = run_rcs(["codegen", "--check"], project=project)
        assert done.returncode != 0
        assert "a second research_policy table (schemas/research/policy.yaml is the one)" in done.stderr + done.stdout
    finally:
        copy.unlink()


def test_a_released_fingerprint_cannot_be_rewritten(project: Path) -> None:
    """Review finding: changing a table and the frozen hash of its version together passed."""
    research = project / "schemas" / "research"
    saved = {p: p.read_text() for p in (research / "policy.yaml", research / "contract.yaml")}
    try:
        policy = research / "policy.yaml"
        policy.write_text(saved[policy].replace("max_tool_calls_total: 5,", "max_tool_calls_total: 6,", 1))
        done = run_rcs(["codegen"], project=project)
        found = re.search(r"now ([0-9a-f]{64})\)", done.stderr + done.stdout)
        assert found, done.stderr
        contract = research / "contract.yaml"
        contract.write_text(saved[contract].replace(TABLES_SHA256, found[1]))
        done = run_rcs(["codegen", "--check"], project=project)
        assert done.returncode != 0
        assert f"contract {CONTRACT_VERSION} was released with sha256 {TABLES_SHA256}" in done.stderr + done.stdout
    finally:
        for path, text in saved.items():
            path.write_text(text)


def test_tuning_an_injection_rule_needs_no_new_version(project: Path) -> None:
    """Decision (SPEC 12.5): the rules' patterns are measured against the corpora, not frozen; what
    the invariant says (invisible characters, how obfuscation and encoding are judged) is."""
    injection = project / "schemas" / "research" / "injection.yaml"
    saved = injection.read_text()
    try:
        injection.write_text(saved.replace("(?:from{W}now{W}on|", "(?:from{W}now{W}onward|from{W}now{W}on|", 1))
        assert injection.read_text() != saved
        done = run_rcs(["codegen"], project=project)
        assert done.returncode == 0, done.stderr
    finally:
        injection.write_text(saved)
        run_rcs(["codegen"], project=project)
