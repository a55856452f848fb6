"""The claim policy (claim_policy.yaml): which severities exist and which must cite (R-EV-5)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import cache

from rcs_contracts.engine import inputs
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.generated.evidence import errors as E
from rcs_contracts.generated.evidence.claim_policy import CLAIM_POLICY_JSON
from rcs_contracts.generated.evidence.claim_policy_schema import KIND as POLICY_KIND
from rcs_contracts.generated.evidence.claim_policy_schema import ClaimPolicy
from rcs_contracts.safeio import yaml_data


@cache
def default_claim_policy() -> ClaimPolicy:
    """The policy compiled from the project's claim_policy.yaml."""
    return load_claim_policy_text(CLAIM_POLICY_JSON)


def load_claim_policy_text(text: str | bytes) -> ClaimPolicy:
    """A policy from JSON text; raises the first violation."""
    from rcs_contracts.runtime.evidence.validate import validate_artifact

    policy = validate_artifact(POLICY_KIND, text)
    assert isinstance(policy, ClaimPolicy)
    return policy


def load_claim_policy(path: str | os.PathLike[str] | None = None) -> ClaimPolicy:
    """Load a claim_policy.yaml (or the compiled one when ``path`` is None) into the strict model.

    The YAML is converted to JSON text and validated from that text (R-GEN-3).
    """
    if path is None:
        return default_claim_policy()
    try:
        text = inputs.read_text(path, Input.CLAIM_POLICY)
        data = yaml_data.load(text)
        as_json = json.dumps(data)  # YAML read as JSON data only: nothing to coerce
    except UnicodeDecodeError as exc:
        raise E.yaml_syntax(detail=f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except yaml_data.YamlError as exc:
        # Nesting json.dumps cannot write never gets here: the reader refuses it first (two stack
        # frames per level against the encoder's one), with its own "nested too deeply".
        raise E.yaml_syntax(detail=str(exc)) from None
    return load_claim_policy_text(as_json)


def citation_required(policy: ClaimPolicy, severity: str) -> bool | None:
    """Whether claims of ``severity`` must cite; None when the policy does not list it."""
    for entry in policy.severities:
        if entry.name == severity:
            return entry.citation_required
    return None


def policy_violations(policy: ClaimPolicy) -> Iterator[E.ContractViolationError]:
    """A severity listed twice is ambiguous."""
    seen: set[str] = set()
    for index, entry in enumerate(policy.severities):
        if entry.name in seen:
            yield E.duplicate_id(
                what="severity", field="name", value=entry.name, location=("severities", index, "name")
            )
        seen.add(entry.name)
