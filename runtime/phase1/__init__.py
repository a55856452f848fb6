"""Phase 1 (phase1.md): ingest one paper, retrieve with BM25, summarise with citations to chunk ids.

Errors (``generated.phase1.errors``; every one is a ValueError, as the contract asks)::

    Phase1Error (ValueError)
    ├── SchemaViolationError      a paper file the JSON Schema rejects
    ├── InvalidInputError         empty paper or query, top_k <= 0, duplicate labels, bad mode
    └── InvariantViolationError   a summary that would break an invariant (fail closed)
"""

from rcs_contracts.generated.phase1.errors import InvalidInputError, InvariantViolationError, Phase1Error
from rcs_contracts.generated.phase1.grounded_summary_schema import Bullet, GroundedSummary
from rcs_contracts.generated.phase1.ingested_paper_schema import Chunk
from rcs_contracts.generated.phase1.pipeline_result_schema import PipelineResult
from rcs_contracts.generated.phase1.retrieval_result_schema import RetrievalResult
from rcs_contracts.runtime.phase1.chunks import chunk_id
from rcs_contracts.runtime.phase1.pipeline import (
    IngestedPaper,
    generate_summary,
    ingest_document,
    retrieve,
    run_phase1_pipeline,
)

__all__ = [
    "Bullet",
    "Chunk",
    "GroundedSummary",
    "IngestedPaper",
    "InvalidInputError",
    "InvariantViolationError",
    "Phase1Error",
    "PipelineResult",
    "RetrievalResult",
    "chunk_id",
    "generate_summary",
    "ingest_document",
    "retrieve",
    "run_phase1_pipeline",
]
