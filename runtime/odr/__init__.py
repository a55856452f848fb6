"""ODR v1 (odr-v1.md): a deterministic Architect/Auditor round runner with stop logic and a trace.

Errors (``generated.odr.errors``; ``str(error)`` is exactly the message)::

    ODRError
    ├── SchemaViolationError    a config or trace file the JSON Schema rejects
    ├── ODRConfigError          a code-leak pattern that does not compile (R-ODR-8)
    ├── RoundInputError         a line of a rounds file that is not a round
    └── TraceIntegrityError     a trace record the schema accepts but the rules do not
"""

from generated.odr.config_schema import ODRConfig
from generated.odr.errors import ODRConfigError, ODRError, RoundInputError, TraceIntegrityError
from generated.odr.parse_result_schema import ParseResult
from generated.odr.trace_record_schema import TraceRecord
from runtime.odr.core import ODRState, run_round
from runtime.odr.metrics import jaccard
from runtime.odr.parsers import parse_architect, parse_auditor

__all__ = [
    "ODRConfig",
    "ODRConfigError",
    "ODRError",
    "ODRState",
    "ParseResult",
    "RoundInputError",
    "TraceIntegrityError",
    "TraceRecord",
    "jaccard",
    "parse_architect",
    "parse_auditor",
    "run_round",
]
