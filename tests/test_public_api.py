"""The public API is pinned: names, the exception tree, and where each error class comes from."""

from __future__ import annotations

import rcs_contracts.runtime.evidence as evidence
from rcs_contracts.generated._support import RcsError


def test_evidence_public_names() -> None:
    assert sorted(evidence.__all__) == [
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
    for name in evidence.__all__:
        # Models, errors and tables come from the compiler's output; behaviour from the runtime.
        module = getattr(evidence, name).__module__
        homes = ("rcs_contracts.generated.evidence.", "rcs_contracts.runtime.evidence.")
        assert module.startswith(homes), (name, module)


def test_exception_tree() -> None:
    base = evidence.ContractViolationError
    assert base.__mro__[1] is RcsError and issubclass(RcsError, Exception)
    leaves = [
        evidence.SchemaViolationError,
        evidence.ArtifactIntegrityError,
        evidence.EvidenceValidationError,
        evidence.ClaimPolicyViolationError,
        evidence.BudgetExceededError,
        evidence.BudgetUsageError,
        evidence.EvidenceStoreRequiredError,
        evidence.ArtifactKindError,
    ]
    for leaf in leaves:
        assert leaf.__bases__ == (base,), leaf
        assert leaf.__module__ == "rcs_contracts.generated.evidence.errors"
    assert not any(issubclass(leaf, (KeyError, ValueError)) for leaf in leaves)


def test_exception_tree_is_drawn_in_the_docstring() -> None:
    from rcs_contracts.generated.evidence import errors

    doc = evidence.__doc__ or ""
    for cls in set(errors.ERROR_CLASSES.values()):
        assert f"── {cls.__name__} " in doc, cls
    for name in (
        "ContractViolationError",
        "SchemaViolationError",
        "ArtifactIntegrityError",
        "EvidenceValidationError",
        "ClaimPolicyViolationError",
        "BudgetExceededError",
        "BudgetUsageError",
        "EvidenceStoreRequiredError",
    ):
        assert name in doc


def test_odr_public_names() -> None:
    import rcs_contracts.runtime.odr as odr

    assert sorted(odr.__all__) == [
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
    from rcs_contracts.generated.odr import errors

    for cls in set(errors.ERROR_CLASSES.values()):
        assert f"── {cls.__name__} " in (odr.__doc__ or ""), cls


def test_phase1_public_names() -> None:
    import rcs_contracts.runtime.phase1 as phase1
    from rcs_contracts.generated.phase1 import errors

    for name in (
        "ingest_document",
        "retrieve",
        "generate_summary",
        "run_phase1_pipeline",
        "IngestedPaper",
        "Chunk",
        "GroundedSummary",
        "Bullet",
        "PipelineResult",
        "RetrievalResult",
        "Phase1Error",
    ):
        assert name in phase1.__all__
    assert issubclass(errors.Phase1Error, ValueError)
    for cls in set(errors.ERROR_CLASSES.values()):
        assert issubclass(cls, ValueError) and f"── {cls.__name__} " in (phase1.__doc__ or ""), cls


def test_autoresearch_public_names_and_exception_tree() -> None:
    import rcs_contracts.runtime.autoresearch as autoresearch

    assert sorted(autoresearch.__all__) == [
        "AutoresearchError", "Candidate", "Evaluation", "EvaluatorResult", "GitError", "IterationLedger",
        "LaneError", "LedgerEntry", "LockError", "Manifest", "Mission", "MissionError", "ResumeError", "Run",
        "SchemaViolationError", "WorkerError", "launch", "load_mission", "resume", "supervise",
    ]
    base = autoresearch.AutoresearchError
    assert base.__mro__[1] is RcsError
    for leaf in (autoresearch.SchemaViolationError, autoresearch.MissionError, autoresearch.LockError,
                 autoresearch.ResumeError, autoresearch.GitError, autoresearch.LaneError, autoresearch.WorkerError):
        assert leaf.__bases__ == (base,) and leaf.__module__ == "rcs_contracts.generated.autoresearch.errors"
        assert leaf.__name__ in (autoresearch.__doc__ or "")


def test_research_public_names_and_exception_tree() -> None:
    import rcs_contracts.runtime.research as research
    from rcs_contracts.generated.research import errors

    for name in (
        "ResearchRequest",
        "PolicyCaps",
        "StopReason",
        "resolve_stop_reason",
        "caps_for",
        "scan_injection",
        "Tool",
        "run_research",
        "ResearchResult",
        "ResearchError",
    ):
        assert name in research.__all__ and hasattr(research, name)
    assert issubclass(errors.ResearchError, ValueError)
    for cls in set(errors.ERROR_CLASSES.values()):
        assert issubclass(cls, errors.ResearchError) and f"── {cls.__name__} " in (research.__doc__ or ""), cls
