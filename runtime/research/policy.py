"""The router's half of the policy (phase18-research.md §3.3; R-RS-2): is research granted, with
which caps and tools. Decided before any tool runs, from the policy table only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import get_args

from rcs_contracts.generated.research.policy import CAPS, ENVIRONMENTS, TIERS, PolicyCaps
from rcs_contracts.generated.research.request_schema import LowerCaps, ResearchRequest
from rcs_contracts.generated.research.stop_reasons import StopReason

# The request schema's modes, research first: the one that asks for research.
# The stop reasons only the router gives: research is granted exactly when none of them holds.
ROUTER_REFUSALS: frozenset[StopReason] = frozenset({StopReason.ENTITLEMENT_CAP, StopReason.POLICY_DISABLED})
RESEARCH_MODE: str = get_args(ResearchRequest.model_fields["requested_mode"].annotation)[0]


def caps_for(tier: str, env: str) -> PolicyCaps | None:
    """The caps of ``tier`` in ``env``, or None when that tier may not research there."""
    return CAPS.get((tier, env))


def lowered(caps: PolicyCaps, requested: Mapping[str, object]) -> PolicyCaps:
    """``caps`` with each cap the request names lowered to it; a request never raises a cap (R-RS-2)."""
    values = caps._asdict()
    for name, value in requested.items():
        if isinstance(value, int) and name in values:
            values[name] = min(values[name], value)
    return PolicyCaps(**values)


@dataclass(frozen=True)
class Grant:
    """The router's decision: the conditions that refuse research, or the caps and tools it may use."""

    refusals: frozenset[StopReason]
    caps: PolicyCaps | None
    tools: tuple[str, ...]

    @property
    def granted(self) -> bool:
        """Research may run."""
        return not self.refusals and self.caps is not None


def route(request: ResearchRequest, enabled: bool = True) -> Grant:
    """Grant or refuse research for ``request`` (R-RS-2). Both refusals are checked, so that the
    priority order, not the order of these checks, decides between them."""
    refusals: set[StopReason] = set()
    tier = TIERS.get(request.tier)
    # ENTITLEMENT_CAP is "tier FREE and research requested" (§4.1): a baseline request is only refused.
    if (tier is None or not tier.research) and request.requested_mode == RESEARCH_MODE:
        refusals.add(StopReason.ENTITLEMENT_CAP)
    if not enabled or request.requested_mode != RESEARCH_MODE or not ENVIRONMENTS.get(request.env, False):
        refusals.add(StopReason.POLICY_DISABLED)
    caps = caps_for(request.tier, request.env)
    if refusals or caps is None or tier is None:
        if not refusals:  # a table lint guarantees caps for every researching tier and environment
            refusals.add(StopReason.INTERNAL_INCONSISTENCY)
        return Grant(frozenset(refusals), None, ())
    lower = request.caps
    requested = lower.model_dump() if isinstance(lower, LowerCaps) else {}
    return Grant(frozenset(), lowered(caps, requested), tier.tools)
