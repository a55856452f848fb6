"""``rcs schema diff`` on single edits (SPEC.md 2.7): every keyword rcs supports, each edit with
the class the rules give it, and for each claim whether a witness proves it. Every witness is
checked here again, by jsonschema-rs directly: the old schema accepts it and the new one rejects
it (backward), or the other way round (forward).

The edits live in ``tests/codegen/schema_edits.py`` (shared with ``bench/schema_diff.py``, which
runs jsoncompat on the same pairs); each runs against a fresh git repository holding the base.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from rcs_contracts.codegen.evolution import diff
from tests.codegen.schema_edits import EDITS, Edit, base, write_project


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, timeout=60)


def committed_base(root: Path) -> None:
    """The base project, committed as HEAD."""
    write_project(root, *base())
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "base")


def _accepts(schema: Any, instance: Any) -> bool:
    alone = {k: v for k, v in schema.items() if k != "$id"}
    return bool(jsonschema_rs.validator_for(alone, validate_formats=True).is_valid(instance))


@pytest.mark.parametrize("edit", EDITS, ids=[e.name for e in EDITS])
def test_each_edit_is_classified_and_proved(tmp_path: Path, edit: Edit) -> None:
    committed_base(tmp_path)
    kinds, tables = base()
    edit.change(kinds, tables)
    write_project(tmp_path, kinds, tables)
    result = diff.run(tmp_path, "HEAD", "backward", witnesses=True)
    found = {(e.direction, e.status) for e in result.entries}
    reasons = [(e.direction, e.status, e.summary, e.witness.reason if e.witness else "") for e in result.entries]
    assert found == set(edit.expect), (edit.name, reasons)
    old_kinds, _ = base()
    for entry in result.entries:
        if entry.witness is None or not entry.witness.found:
            continue
        name = entry.witness.kind.split("/")[1] if entry.witness.kind else ""
        before, after = old_kinds.get(name), kinds.get(name)
        verdict = (
            _accepts(before, entry.witness.instance) if before is not None else False,
            _accepts(after, entry.witness.instance) if after is not None else False,
        )
        expected = (True, False) if entry.direction == "backward" else (False, True)
        assert verdict == expected, (edit.name, entry.direction, entry.witness.instance)


def test_there_are_sixty_edits_or_more_across_the_keywords() -> None:
    assert len(EDITS) >= 60
    assert len({e.name for e in EDITS}) == len(EDITS)
