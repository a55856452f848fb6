"""Phase 18 research (phase18-research.md): bounded, non-agentic retrieval under policy caps.

    run_research(request, tools, clock=..., enabled=True) -> ResearchResult(response, telemetry, bundle)

The router grants research by tier and environment (``caps_for``), the adapter is the only caller
of a ``Tool``, every source is scanned (``scan_injection``), and every ending goes through
``resolve_stop_reason`` to exactly one ``StopReason``. The response never shows the stop reason;
the telemetry record holds it, with codes, counts, hashes and offsets only.

Errors (``generated.research.errors``; every one is a ValueError)::

    ResearchError (ValueError)
    ├── SchemaViolationError     a request or artifact file the JSON Schema rejects
    ├── InvalidInputError        a docs folder that is not one, a web endpoint that is not http(s)
    ├── SandboxViolationError    a tool tried another host, a path outside its folder, too many bytes
    ├── ToolResultError          a tool got an answer it cannot read
    └── InvariantViolationError  a response or telemetry record breaks a rule (rcs validate)
"""

from rcs_contracts.generated.research.errors import (
    InvalidInputError,
    InvariantViolationError,
    ResearchError,
    SandboxViolationError,
    SchemaViolationError,
    ToolResultError,
)
from rcs_contracts.generated.research.policy import PolicyCaps
from rcs_contracts.generated.research.request_schema import ResearchRequest
from rcs_contracts.generated.research.response_schema import ResearchResponse
from rcs_contracts.generated.research.source_bundle_schema import Source, SourceBundle
from rcs_contracts.generated.research.stop_reasons import StopReason
from rcs_contracts.generated.research.telemetry_schema import ResearchTelemetry
from rcs_contracts.runtime.research.adapter import Clock, SystemClock, Tool, make_tools, source_id
from rcs_contracts.runtime.research.evidence import to_evidence
from rcs_contracts.runtime.research.injection import Scan, scan_injection
from rcs_contracts.runtime.research.policy import caps_for
from rcs_contracts.runtime.research.session import ResearchResult, run_research
from rcs_contracts.runtime.research.stop import resolve_stop_reason

__all__ = [
    "Clock",
    "InvalidInputError",
    "InvariantViolationError",
    "PolicyCaps",
    "ResearchError",
    "ResearchRequest",
    "ResearchResponse",
    "ResearchResult",
    "ResearchTelemetry",
    "SandboxViolationError",
    "Scan",
    "SchemaViolationError",
    "Source",
    "SourceBundle",
    "StopReason",
    "SystemClock",
    "Tool",
    "ToolResultError",
    "caps_for",
    "make_tools",
    "resolve_stop_reason",
    "run_research",
    "scan_injection",
    "source_id",
    "to_evidence",
]
