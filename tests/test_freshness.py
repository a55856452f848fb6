"""``rcs validate`` says when the files its kinds were compiled from changed since (SPEC.md 6)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from rcs_contracts.base.sources import SOURCE_MAX_BYTES
from rcs_contracts.engine import freshness
from rcs_contracts.generated._catalog import FILES
from tests.conftest import ROOT, run_rcs

PLAN = "schemas/evidence/experiment_plan.schema.json"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A copy of every file the compiler read, as it read them."""
    folder = tmp_path / "source"
    for entry in FILES:
        (folder / entry.file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / entry.file, folder / entry.file)
    return folder


def test_the_files_as_compiled_are_not_changed(source: Path) -> None:
    assert freshness.changed(source, FILES) == []
    assert freshness.changed(ROOT, FILES) == []  # this checkout is compiled: CI runs codegen --check


def test_an_edited_or_removed_file_is_named_in_catalog_order(source: Path) -> None:
    (source / PLAN).write_bytes((source / PLAN).read_bytes() + b"\n")
    (source / "claim_policy.yaml").unlink()
    assert freshness.changed(source, FILES) == ["claim_policy.yaml", PLAN]


def test_a_file_the_compiler_could_not_have_read_is_changed_without_being_read(source: Path) -> None:
    huge = source / PLAN
    with huge.open("r+b") as handle:  # sparse: the size is checked before a byte is read
        handle.truncate(SOURCE_MAX_BYTES + 1)
    fifo = source / "schemas/evidence/budgets.yaml"
    fifo.unlink()
    os.mkfifo(fifo)  # nothing writes to it: a read would hang
    assert freshness.changed(source, FILES) == ["schemas/evidence/budgets.yaml", PLAN]


@pytest.mark.parametrize(
    ("count", "expected"),
    [(1, "a"), (3, "a, b, c"), (4, "a, b, c and 1 more"), (6, "a, b, c and 3 more")],
)
def test_the_warning_names_three_files_and_counts_the_rest(count: int, expected: str) -> None:
    assert freshness.named(["a", "b", "c", "d", "e", "f"][:count]) == expected


def test_rcs_own_package_was_compiled_in_this_checkout_and_nothing_changed() -> None:
    assert freshness.changed_in_use() == (ROOT, [])


def test_validate_is_silent_about_freshness_when_nothing_changed(tmp_path: Path) -> None:
    done = run_rcs(["validate", str(ROOT / "examples/evidence/rejected/plan_schema_violation.json")], cwd=tmp_path)
    assert done.returncode == 1 and done.stderr == "", done.stderr
