"""``validate_artifact``: the Python face of ``rcs validate`` for one artifact."""

from __future__ import annotations

import os
from collections.abc import Iterator

from pydantic import BaseModel

from rcs_contracts.engine import inputs, kinds, validation
from rcs_contracts.generated._support import Kind, RcsError
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.generated.evidence import errors as E
from rcs_contracts.generated.evidence.claim_policy_schema import ClaimPolicy
from rcs_contracts.runtime.evidence.store import EvidenceStore

Source = str | bytes | os.PathLike[str]


def _kind(name: str) -> Kind:
    """The kind, or the evidence domain's ArtifactKindError (a contract error, not a KindError)."""
    try:
        return kinds.resolve(name)
    except kinds.KindError as exc:
        if exc.problem == "ambiguous":
            raise E.ambiguous_kind(kind=name, candidates=", ".join(exc.candidates)) from None
        raise E.unknown_kind(kind=name, known=", ".join(exc.candidates)) from None


def _text(source: Source) -> str | bytes:
    if isinstance(source, os.PathLike):
        return inputs.read_bytes(source, Input.ARTIFACT)
    return source


def validate_artifact(
    kind: str,
    source: Source,
    *,
    evidence: EvidenceStore | None = None,
    claim_policy: ClaimPolicy | None = None,
) -> BaseModel:
    """Validate JSON text (or a file, given as a Path) as an artifact of ``kind``.

    Returns the strict model; raises the first violation (a ContractViolationError subclass).
    ``kind`` is ``<domain>/<name>`` or a bare unambiguous ``<name>`` (R-GEN-7).
    """
    context = validation.Context(evidence=evidence, claim_policy=claim_policy)
    model: BaseModel = validation.validate(_kind(kind), _text(source), context)
    return model


def iter_violations(
    kind: str,
    source: Source,
    *,
    evidence: EvidenceStore | None = None,
    claim_policy: ClaimPolicy | None = None,
) -> Iterator[RcsError]:
    """Every violation of the artifact, in document order (empty when it is valid)."""
    context = validation.Context(evidence=evidence, claim_policy=claim_policy)
    return validation.violations(_kind(kind), _text(source), context)
