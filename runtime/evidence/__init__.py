"""The evidence contracts (researchops-part1.md): artifacts, evidence, claim policy, budgets.

Errors (all from ``generated.evidence.errors``; ``str(error)`` is exactly the message)::

    ContractViolationError
    ├── SchemaViolationError          the JSON Schema of the kind rejects the text
    ├── ArtifactIntegrityError        unknown edge endpoint, duplicate ids, section order
    ├── EvidenceValidationError       refs, snippets and snapshots that do not resolve or agree
    ├── ClaimPolicyViolationError     claims against claim_policy.yaml
    ├── BudgetExceededError           a charge past its limit in fail mode
    ├── BudgetUsageError              unknown budget, bad amount, missing stage
    ├── EvidenceStoreRequiredError    evidence cited, no store given
    └── ArtifactKindError             unknown or ambiguous artifact kind
"""

from rcs_contracts.generated.evidence.budgets import BudgetPolicy
from rcs_contracts.generated.evidence.claim_policy_schema import ClaimPolicy
from rcs_contracts.generated.evidence.errors import (
    ArtifactIntegrityError,
    ArtifactKindError,
    BudgetExceededError,
    BudgetUsageError,
    ClaimPolicyViolationError,
    ContractViolationError,
    EvidenceStoreRequiredError,
    EvidenceValidationError,
    SchemaViolationError,
)
from rcs_contracts.generated.evidence.evidence_bundle_schema import (
    EvidenceBundle,
    EvidenceRef,
    EvidenceSnapshot,
    EvidenceSnippet,
)
from rcs_contracts.generated.evidence.experiment_plan_schema import ExperimentPlan
from rcs_contracts.generated.evidence.literature_map_schema import LiteratureMap
from rcs_contracts.generated.evidence.partial_result_schema import PartialResult
from rcs_contracts.generated.evidence.structured_report_schema import StructuredReport
from rcs_contracts.runtime.evidence.budget import BudgetTracker
from rcs_contracts.runtime.evidence.policy import load_claim_policy
from rcs_contracts.runtime.evidence.store import EvidenceStore, content_hash
from rcs_contracts.runtime.evidence.validate import iter_violations, validate_artifact

__all__ = [
    "ArtifactIntegrityError",
    "ArtifactKindError",
    "BudgetExceededError",
    "BudgetPolicy",
    "BudgetTracker",
    "BudgetUsageError",
    "ClaimPolicy",
    "ClaimPolicyViolationError",
    "ContractViolationError",
    "EvidenceBundle",
    "EvidenceRef",
    "EvidenceSnapshot",
    "EvidenceSnippet",
    "EvidenceStore",
    "EvidenceStoreRequiredError",
    "EvidenceValidationError",
    "ExperimentPlan",
    "LiteratureMap",
    "PartialResult",
    "SchemaViolationError",
    "StructuredReport",
    "content_hash",
    "iter_violations",
    "load_claim_policy",
    "validate_artifact",
]
