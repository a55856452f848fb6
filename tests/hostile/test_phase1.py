"""Phase 1 chunk ids: R-P1-3's formula joins with "|", so two chunks can share one id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rcs_contracts.generated.phase1.errors import InvalidInputError
from rcs_contracts.runtime.phase1.chunks import chunk_id
from rcs_contracts.runtime.phase1.pipeline import ingest_document
from tests.hostile.conftest import rcs

SECTIONS = [("A", "B|text"), ("A|B", "text")]


def test_the_collision_is_real() -> None:
    assert chunk_id("m", "A", "B|text") == chunk_id("m", "A|B", "text")


def test_two_chunks_with_one_id_are_an_invalid_input() -> None:
    with pytest.raises(InvalidInputError) as info:
        ingest_document("m", SECTIONS)
    assert isinstance(info.value, ValueError)
    identity = chunk_id("m", "A", "B|text")
    assert str(info.value) == (
        f"Chunk id {identity} would name two different chunks, in section 'A' and in section 'A|B' "
        "(the id joins paper_id, section and text with '|'; rename one of the sections)"
    )


def test_the_cli_refuses_such_a_paper(tmp_path: Path) -> None:
    paper = {"paper_id": "m", "sections": [{"label": a, "text": b} for a, b in SECTIONS]}
    (tmp_path / "paper.json").write_text(json.dumps(paper))
    ran = rcs("phase1", "summarize", "paper.json", "--query", "text", cwd=tmp_path)
    assert ran.status == 2
    assert "would name two different chunks" in ran.stderr


def test_validate_rejects_duplicate_ids(tmp_path: Path) -> None:
    ingested = ingest_document("m", [("S", "one\n\ntwo")])
    data = ingested.model_dump(mode="json")
    data["chunks"][1]["chunk_id"] = data["chunks"][0]["chunk_id"]
    (tmp_path / "ingested.json").write_text(json.dumps(data))
    ran = rcs("validate", "--kind", "phase1/ingested_paper", "ingested.json", cwd=tmp_path)
    assert ran.status == 1
    identity = data["chunks"][0]["chunk_id"]
    assert (
        f"ingested.json: InvariantViolationError: Chunk id {identity} is listed twice (first at "
        "$.chunks[0].chunk_id) (at $.chunks[1].chunk_id)" in ran.stdout
    )


def test_a_pipeline_result_lists_each_retrieved_id_once(tmp_path: Path) -> None:
    from rcs_contracts.runtime.phase1.pipeline import summarise_ingested

    ingested = ingest_document("m", [("S", "alpha beta\n\nalpha gamma")])
    result = summarise_ingested(ingested, "alpha", "summary", 2).model_dump(mode="json")
    (tmp_path / "ok.json").write_text(json.dumps(result))
    assert rcs("validate", "--kind", "phase1/pipeline_result", "ok.json", cwd=tmp_path).status == 0
    result["retrieved_chunk_ids"] = [result["retrieved_chunk_ids"][0]] * 2
    (tmp_path / "twice.json").write_text(json.dumps(result))
    ran = rcs("validate", "--kind", "phase1/pipeline_result", "twice.json", cwd=tmp_path)
    assert ran.status == 1
    assert "(at $.retrieved_chunk_ids)" in ran.stdout
