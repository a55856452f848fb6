"""ODR v1 (odr-v1.md): a deterministic Architect/Auditor round runner with stop logic and a trace.

Errors (``generated.odr.errors``; ``str(error)`` is exactly the message)::

    ODRError
    ├── SchemaViolationError    a config or trace file the JSON Schema rejects
    ├── ODRConfigError          a code-leak pattern that does not compile (R-ODR-8)
    ├── RoundInputError         a line of a rounds file that is not a round
    └── TraceIntegrityError     a trace record the schema accepts but the rules do not
"""

from rcs_contracts.generated.odr.config_schema import ODRConfig
from rcs_contracts.generated.odr.errors import ODRConfigError, ODRError, RoundInputError, TraceIntegrityError
from rcs_contracts.generated.odr.parse_result_schema import ParseResult
from rcs_contracts.generated.odr.trace_record_schema import TraceRecord
from rcs_contracts.runtime.odr.core import ODRState, run_round
from rcs_contracts.runtime.odr.metrics import jaccard
from rcs_contracts.runtime.odr.parsers import parse_architect, parse_auditor

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
