"""rcs autoresearch (autoresearch.md): the crash-safe keep/discard/reset supervisor.

Launch, resume and supervise a run from Python as the command line does::

    from rcs_contracts.runtime.autoresearch import launch, load_mission, supervise
    run = launch(load_mission("mission"), codex_args=[], say=print)
    status = supervise(run, max_iterations=5)      # a ManifestStatus value

Errors (``generated.autoresearch.errors``)::

    AutoresearchError
    ├── SchemaViolationError   a state file, candidate, evaluator output or frontmatter breaks its schema
    ├── MissionError           not in a git repository, mission.md/sandbox.md missing, bad frontmatter
    ├── LockError              another run holds the repository's lock, or it is stale (R-AR-2)
    ├── ResumeError            the run cannot be resumed as it stands; the message names the fix
    ├── GitError               a git command failed
    ├── LaneError              the run's lane or files could not be created or written
    └── WorkerError            the worker binary cannot be started
"""

from rcs_contracts.generated.autoresearch.candidate_schema import Candidate
from rcs_contracts.generated.autoresearch.errors import (
    AutoresearchError,
    GitError,
    LaneError,
    LockError,
    MissionError,
    ResumeError,
    SchemaViolationError,
    WorkerError,
)
from rcs_contracts.generated.autoresearch.evaluation_schema import Evaluation
from rcs_contracts.generated.autoresearch.evaluator_result_schema import EvaluatorResult
from rcs_contracts.generated.autoresearch.ledger_schema import IterationLedger, LedgerEntry
from rcs_contracts.generated.autoresearch.manifest_schema import Manifest
from rcs_contracts.runtime.autoresearch.mission import Mission
from rcs_contracts.runtime.autoresearch.mission import load as load_mission
from rcs_contracts.runtime.autoresearch.supervisor import Run, launch, resume, supervise

__all__ = [
    "AutoresearchError",
    "Candidate",
    "Evaluation",
    "EvaluatorResult",
    "GitError",
    "IterationLedger",
    "LaneError",
    "LedgerEntry",
    "LockError",
    "Manifest",
    "Mission",
    "MissionError",
    "ResumeError",
    "Run",
    "SchemaViolationError",
    "WorkerError",
    "launch",
    "load_mission",
    "resume",
    "supervise",
]
