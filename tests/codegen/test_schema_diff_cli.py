"""``rcs schema diff`` as a user runs it (SPEC.md 2.7): the Phase 18 gate end to end on rcs's own
project, the exit statuses, the stable JSON report, and REF as a folder or an export."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.codegen.schema_edits import base, write_project
from tests.codegen.test_schema_diff_edits import committed_base
from tests.conftest import copy_project, run_rcs

RESEARCH_TABLES = ("contract", "injection", "policy", "responses", "stop_reasons")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, timeout=60)


def _commit(root: Path) -> None:
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "base")


@pytest.fixture(scope="module")
def rcs_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of rcs's own project, committed: the Phase 18 research domain as released."""
    root = copy_project(tmp_path_factory.mktemp("phase18") / "project")
    _commit(root)
    return root


def _bump_research(root: Path, version: str) -> dict[Path, str]:
    """Give the research tables ``version`` and open its changelog; returns the texts to restore."""
    folder = root / "schemas" / "research"
    saved = {folder / f"{name}.yaml": (folder / f"{name}.yaml").read_text() for name in RESEARCH_TABLES}
    for path, text in saved.items():
        path.write_text(text.replace("contract_version: 18.0.0", f"contract_version: {version}"))
    contract = folder / "contract.yaml"
    entry = f"changelog:\n  - {{version: {version}, changes: [six tool calls]}}\n"
    contract.write_text(contract.read_text().replace("changelog:\n", entry))
    return saved


def test_a_phase18_cap_changed_without_a_bump_fails_and_with_one_passes(rcs_project: Path) -> None:
    policy = rcs_project / "schemas" / "research" / "policy.yaml"
    original = policy.read_text()
    assert "max_tool_calls_total: 5," in original
    policy.write_text(original.replace("max_tool_calls_total: 5,", "max_tool_calls_total: 6,", 1))
    saved: dict[Path, str] = {}
    try:
        done = run_rcs(["schema", "diff", "--against", "HEAD"], project=rcs_project)
        assert done.returncode == 1, done.stderr
        assert "schemas/research/policy.yaml:" in done.stdout
        assert "breaking (backward): " in done.stdout and "max_tool_calls_total" in done.stdout
        advice = "research: the changes need a major bump (at least 19.0.0), but contract_version is 18.0.0"
        assert advice in done.stdout
        saved = _bump_research(rcs_project, "19.0.0")
        done = run_rcs(["schema", "diff", "--against", "HEAD"], project=rcs_project)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "research: contract 18.0.0 -> 19.0.0 covers the changes (major needed)" in done.stdout
    finally:
        for path, text in saved.items():
            path.write_text(text)
        policy.write_text(original)  # last: the saved texts hold the edited policy


def test_a_minor_bump_is_refused_for_a_backward_change(rcs_project: Path) -> None:
    policy = rcs_project / "schemas" / "research" / "policy.yaml"
    original = policy.read_text()
    policy.write_text(original.replace("max_tool_calls_total: 5,", "max_tool_calls_total: 6,", 1))
    saved = _bump_research(rcs_project, "18.1.0")
    try:
        done = run_rcs(["schema", "diff", "--against", "HEAD", "--no-witness"], project=rcs_project)
        assert done.returncode == 1
        assert (
            "research: the changes need a major bump (at least 19.0.0), but contract_version is 18.1.0" in done.stdout
        )
    finally:
        for path, text in saved.items():
            path.write_text(text)
        policy.write_text(original)  # last: the saved texts hold the edited policy


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """The small project of the edit table, committed, then with an enum value removed."""
    committed_base(tmp_path)
    kinds, tables = base()
    kinds["order"]["properties"]["status"]["enum"].remove("shipped")
    write_project(tmp_path, kinds, tables)
    return tmp_path


def test_text_report_reads_like_a_compiler(shop: Path) -> None:
    done = run_rcs(["schema", "diff", "--against", "HEAD", "--root", str(shop)], cwd=shop)
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first.startswith("schemas/shop/order.schema.json:")
    assert 'breaking (backward): enum value "shipped" removed from Order.status; witness (shop/order): ' in first
    witness = json.loads(first.split("witness (shop/order): ", 1)[1])
    assert witness["status"] == "shipped"
    assert "shop: the changes need a major bump (at least 2.0.0), but contract_version is 1.0.0" in done.stdout


def test_json_report_is_stable_and_complete(shop: Path) -> None:
    runs = [run_rcs(["schema", "diff", "--against", "HEAD", "--format", "json"], cwd=shop) for _ in range(2)]
    assert [r.returncode for r in runs] == [1, 1]
    assert runs[0].stdout == runs[1].stdout  # same inputs, same bytes
    report = json.loads(runs[0].stdout)
    [entry] = [e for e in report["changes"] if e["class"] == "backward"]
    assert entry["file"] == "schemas/shop/order.schema.json" and entry["status"] == "breaking"
    assert entry["witness"]["instance"]["status"] == "shipped"
    [domain] = [d for d in report["domains"] if d["domain"] == "shop"]
    assert (domain["old"], domain["new"], domain["needed"], domain["ok"]) == ("1.0.0", "1.0.0", "major", False)


def test_a_long_witness_string_is_shortened_in_text_and_whole_in_json(tmp_path: Path) -> None:
    """A maxLength lowered from 4000 to 2000: the witness holds a string of 2001 or more characters."""
    kinds, tables = base()
    kinds["order"]["properties"]["note"]["maxLength"] = 4000
    write_project(tmp_path, kinds, tables)
    _commit(tmp_path)
    kinds["order"]["properties"]["note"]["maxLength"] = 2000
    write_project(tmp_path, kinds, tables)
    done = run_rcs(["schema", "diff", "--against", "HEAD"], cwd=tmp_path)
    assert done.returncode == 1
    [line] = [x for x in done.stdout.splitlines() if "maxLength lowered" in x]
    assert "breaking (backward)" in line and line.endswith("(long strings shortened; --format json gives them whole)")
    shown = json.loads(line.split("witness (shop/order): ", 1)[1].split(" (long strings", 1)[0])
    assert shown["note"].endswith(" characters]") and len(line) < 400
    report = json.loads(run_rcs(["schema", "diff", "--against", "HEAD", "--format", "json"], cwd=tmp_path).stdout)
    [entry] = [e for e in report["changes"] if "maxLength" in e["summary"]]
    whole = entry["witness"]["instance"]["note"]
    assert 2000 < len(whole) <= 4000 and shown["note"] == f"{whole[:24]}...[{len(whole)} characters]"


def test_no_witness_classifies_only(shop: Path) -> None:
    done = run_rcs(["schema", "diff", "--against", "HEAD", "--no-witness"], cwd=shop)
    assert done.returncode == 1
    assert "(witness not searched)" in done.stdout and "witness (shop/order)" not in done.stdout


def test_a_covered_change_exits_zero(shop: Path) -> None:
    _, tables = base()
    kinds, _ = base()
    kinds["order"]["properties"]["status"]["enum"].remove("shipped")
    tables["contract"] = {
        **tables["contract"],
        "contract_version": "2.0.0",
        "changelog": [{"version": "2.0.0", "changes": ["no more shipped"]}, *tables["contract"]["changelog"]],
    }
    write_project(shop, kinds, tables)
    done = run_rcs(["schema", "diff", "--against", "HEAD"], cwd=shop)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shop: contract 1.0.0 -> 2.0.0 covers the changes (major needed)" in done.stdout


def test_against_a_folder(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    same = run_rcs(["schema", "diff", "--against", str(shop)], cwd=shop)
    assert same.returncode == 0 and "0 change(s)" in same.stdout, same.stdout + same.stderr
    old = tmp_path_factory.mktemp("old")
    write_project(old, *base())
    done = run_rcs(["schema", "diff", "--against", str(old)], cwd=shop)
    assert done.returncode == 1, done.stderr
    assert 'enum value "shipped" removed from Order.status' in done.stdout


def test_against_an_export_of_the_same_schemas(rcs_project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    export = tmp_path_factory.mktemp("export") / "bundle"
    assert run_rcs(["schema", "export", str(export)], project=rcs_project).returncode == 0
    done = run_rcs(["schema", "diff", "--against", str(export), "--no-witness"], project=rcs_project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 change(s)" in done.stdout


@pytest.mark.parametrize("ref", ["no-such-branch", "HEAD~5"])
def test_an_unknown_ref_is_a_usage_error(shop: Path, ref: str) -> None:
    done = run_rcs(["schema", "diff", "--against", ref], cwd=shop)
    assert done.returncode == 2
    assert done.stderr.startswith("rcs schema diff: ") and "Traceback" not in done.stderr


def test_outside_a_git_repository_a_revision_is_a_usage_error(tmp_path: Path) -> None:
    write_project(tmp_path, *base())
    done = run_rcs(["schema", "diff", "--against", "HEAD"], cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rcs schema diff: ") and "Traceback" not in done.stderr
