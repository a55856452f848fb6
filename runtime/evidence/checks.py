"""The evidence rules a JSON Schema cannot express, as generators of violations in document order."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel

from rcs_contracts.engine.schema_errors import model_at
from rcs_contracts.engine.validation import Check, Context, Special
from rcs_contracts.engine.verdict import SchemaError
from rcs_contracts.generated._support import Location, RcsError
from rcs_contracts.generated.evidence import errors as ERRORS
from rcs_contracts.generated.evidence.claim_policy_schema import ClaimPolicy
from rcs_contracts.generated.evidence.evidence_bundle_schema import EvidenceBundle, EvidenceRef
from rcs_contracts.generated.evidence.experiment_plan_schema import ExperimentPlan
from rcs_contracts.generated.evidence.literature_map_schema import LiteratureMap
from rcs_contracts.generated.evidence.report import SECTION_ORDER
from rcs_contracts.generated.evidence.structured_report_schema import StructuredReport
from rcs_contracts.runtime.evidence.policy import default_claim_policy, policy_violations
from rcs_contracts.runtime.evidence.store import EvidenceStore, bundle_violations

Refs = list[tuple[Location, EvidenceRef]]


def _store(context: Context, refs: Refs) -> Iterator[RcsError]:
    """Fail closed when evidence is cited but there is nothing to resolve it against (R-EV-6)."""
    return _store_count(context, len(refs))


def _store_count(context: Context, cited: int) -> Iterator[RcsError]:
    if cited and not isinstance(context.evidence, EvidenceStore):
        yield ERRORS.evidence_store_required(count=cited)


def _resolve(context: Context, refs: Refs) -> Iterator[RcsError]:
    store: EvidenceStore = context.evidence
    for location, ref in refs:
        if not store.resolves(ref):
            yield from store.ref_violations(ref, location)


def check_literature_map(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Node ids unique, edges between existing nodes, every ref resolves."""
    assert isinstance(model, LiteratureMap)
    node_refs: Refs = [
        (("nodes", i, "evidence_refs", j), ref)
        for i, node in enumerate(model.nodes)
        for j, ref in enumerate(node.evidence_refs)
    ]
    edge_refs: Refs = [
        (("edges", i, "evidence_refs", j), ref)
        for i, edge in enumerate(model.edges)
        # An absent optional property is pydantic's MISSING sentinel (truthy), not None.
        for j, ref in enumerate(edge.evidence_refs if isinstance(edge.evidence_refs, list) else [])
    ]
    blocked = list(_store(context, node_refs + edge_refs))
    if blocked:
        yield from blocked
        return
    ids: set[str] = set()
    for index, node in enumerate(model.nodes):
        if node.id in ids:
            yield ERRORS.duplicate_id(what="node", field="id", value=node.id, location=("nodes", index, "id"))
        ids.add(node.id)
        yield from _resolve(context, [r for r in node_refs if r[0][1] == index])
    for index, edge in enumerate(model.edges):
        for end in ("source", "target"):
            node_id = getattr(edge, end)
            if node_id not in ids:
                yield ERRORS.unknown_edge_endpoint(
                    index=index, end=end, node_id=node_id, location=("edges", index, end)
                )
        yield from _resolve(context, [r for r in edge_refs if r[0][1] == index])


def check_report(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Section order (R-EV-4), claim policy and citation keys (R-EV-5), evidence of every citation."""
    assert isinstance(model, StructuredReport)
    cited = sum(len(section.citations) for section in model.sections)
    blocked = list(_store_count(context, cited))
    if blocked:
        yield from blocked
        return
    found = [section.section for section in model.sections]
    if found != list(SECTION_ORDER):
        yield ERRORS.section_order(expected=", ".join(SECTION_ORDER), found=", ".join(found), location=("sections",))
    policy = context.claim_policy if isinstance(context.claim_policy, ClaimPolicy) else default_claim_policy()
    allowed = ", ".join(entry.name for entry in policy.severities)
    # The first entry of a severity decides, as in citation_required (a duplicate is reported apart).
    requirement = {entry.name: entry.citation_required for entry in reversed(policy.severities)}
    store: EvidenceStore = context.evidence
    claim_ids: set[str] = set()
    for s_index, section in enumerate(model.sections):
        used: set[str] = set()
        for c_index, claim in enumerate(section.claims):
            where: Location = ("sections", s_index, "claims", c_index)
            if claim.claim_id in claim_ids:
                yield ERRORS.duplicate_id(
                    what="claim", field="claim_id", value=claim.claim_id, location=where + ("claim_id",)
                )
            claim_ids.add(claim.claim_id)
            required = requirement.get(claim.severity)
            keys = claim.citation_keys if isinstance(claim.citation_keys, list) else []
            if required is None:
                yield ERRORS.unknown_severity(
                    claim_id=claim.claim_id, severity=claim.severity, allowed=allowed, location=where + ("severity",)
                )
            elif required and not keys:
                yield ERRORS.claim_missing_citation(claim_id=claim.claim_id, location=where)
            for k_index, key in enumerate(keys):
                used.add(key)
                if key not in section.citations:
                    yield ERRORS.claim_unknown_citation_key(
                        claim_id=claim.claim_id, citation_key=key, location=where + ("citation_keys", k_index)
                    )
        for key, ref in section.citations.items():
            if key not in used:
                where = ("sections", s_index, "citations", key)
                yield ERRORS.unused_citation_key(section=section.section, citation_key=key, location=where)
            if not store.resolves(ref):
                yield from store.ref_violations(ref, ("sections", s_index, "citations", key))


def check_experiment_plan(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Every dataset and baseline model cites snippet evidence that resolves (R-EV-3)."""
    assert isinstance(model, ExperimentPlan)
    refs: Refs = [
        ((group, i, "evidence_refs", j), ref)
        for group, items in (("datasets", model.datasets), ("baseline_models", model.baseline_models))
        for i, item in enumerate(items)
        for j, ref in enumerate(item.evidence_refs)
    ]
    blocked = list(_store(context, refs))
    if blocked:
        yield from blocked
        return
    yield from _resolve(context, refs)


def check_bundle(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """A bundle is itself validated: duplicates, hashes, offsets, snippet text (R-EV-6)."""
    assert isinstance(model, EvidenceBundle)
    yield from bundle_violations(model)


def check_claim_policy(model: BaseModel, context: Context) -> Iterator[RcsError]:
    """Each severity is listed once."""
    assert isinstance(model, ClaimPolicy)
    yield from policy_violations(model)


CHECKS: MappingProxyType[str, Check] = MappingProxyType(
    {
        "literature_map": check_literature_map,
        "structured_report": check_report,
        "experiment_plan": check_experiment_plan,
        "evidence_bundle": check_bundle,
        "claim_policy": check_claim_policy,
    }
)


def special_schema_error(model_cls: Any) -> Special:
    """A ref without snippet_id (missing, null, or a bare URL string) gets the contract's URL-only message."""

    def special(error: SchemaError) -> tuple[RcsError, Location] | None:
        loc = error.location
        if error.keyword == "required" and "snippet_id" in error.names and model_at(model_cls, loc) is EvidenceRef:
            return ERRORS.url_only_ref(location=loc), loc
        if loc and loc[-1] == "snippet_id" and error.instance is None and model_at(model_cls, loc[:-1]) is EvidenceRef:
            return ERRORS.url_only_ref(location=loc[:-1]), loc[:-1]
        if isinstance(error.instance, str) and model_at(model_cls, loc) is EvidenceRef:
            return ERRORS.url_only_ref(location=loc), loc
        return None

    return special
