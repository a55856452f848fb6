"""Phase 1 rules a JSON Schema cannot express (``rcs validate --kind phase1/...``).

A chunk id names one chunk (R-P1-3): an ingested paper lists each id once, and so does a retrieval
result's hits. (``retrieved_chunk_ids`` of a pipeline result says it in its schema: ``uniqueItems``.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from types import MappingProxyType

from pydantic import BaseModel

from rcs_contracts.engine.validation import Check, Context
from rcs_contracts.generated._support import RcsError, format_location
from rcs_contracts.generated.phase1 import errors as ERRORS
from rcs_contracts.generated.phase1.ingested_paper_schema import IngestedPaper
from rcs_contracts.generated.phase1.retrieval_result_schema import RetrievalResult


def _duplicates(ids: Iterable[str], field: str) -> Iterator[RcsError]:
    first: dict[str, int] = {}
    for index, chunk_id in enumerate(ids):
        if chunk_id in first:
            where = format_location((field, first[chunk_id], "chunk_id"))
            yield ERRORS.duplicate_chunk_id(chunk_id=chunk_id, first=where, location=(field, index, "chunk_id"))
        else:
            first[chunk_id] = index


def check_ingested_paper(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Each chunk id once."""
    assert isinstance(model, IngestedPaper)
    yield from _duplicates((c.chunk_id for c in model.chunks), "chunks")


def check_retrieval_result(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Each hit's chunk id once."""
    assert isinstance(model, RetrievalResult)
    yield from _duplicates((h.chunk_id for h in model.hits), "hits")


CHECKS: MappingProxyType[str, Check] = MappingProxyType(
    {"ingested_paper": check_ingested_paper, "retrieval_result": check_retrieval_result}
)
