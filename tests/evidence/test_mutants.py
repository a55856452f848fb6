"""Tests that kill mutants bench/mutation.py found alive in runtime/evidence (dropped checks, swapped operators)."""

from __future__ import annotations

import json

import pytest

from generated.evidence.errors import ArtifactIntegrityError
from runtime.evidence import iter_violations
from tests.evidence import helpers as h


def errors(kind: str, data: dict[str, object]) -> list[tuple[str, str, tuple[str | int, ...]]]:
    return [(type(e).__name__, str(e), e.location) for e in iter_violations(kind, json.dumps(data), evidence=h.store())]


def test_duplicate_node_id_is_an_integrity_error() -> None:
    data = h.literature_map()
    data["nodes"][2]["id"] = "p1"
    data["edges"][1]["source"] = "p1"
    with pytest.raises(ArtifactIntegrityError) as info:
        h.check("literature_map", data)
    assert str(info.value) == "Duplicate node: id=p1"
    assert info.value.location == ("nodes", 2, "id")
    assert errors("literature_map", data) == [("ArtifactIntegrityError", "Duplicate node: id=p1", ("nodes", 2, "id"))]


def test_each_later_duplicate_node_is_reported_once() -> None:
    data = h.literature_map()
    data["nodes"][1]["id"] = "p1"
    data["nodes"][2]["id"] = "p1"
    data["edges"] = []
    assert errors("literature_map", data) == [
        ("ArtifactIntegrityError", "Duplicate node: id=p1", ("nodes", 1, "id")),
        ("ArtifactIntegrityError", "Duplicate node: id=p1", ("nodes", 2, "id")),
    ]
