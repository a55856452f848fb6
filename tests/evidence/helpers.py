"""Builders for small, valid evidence artifacts that tests then break one way at a time."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from rcs_contracts.runtime.evidence import EvidenceStore, validate_artifact

SECTIONS = ["intro", "background", "related_work", "methods", "comparison", "gaps", "conclusions"]
RAW = "Dense retrievers — trained on naïve pairs — beat BM25 on 5 of 7 tasks. Σ scores ≥ 0.8 were rare."


def sha(text: str) -> str:
    """SHA-256 hex of text as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def bundle() -> dict[str, Any]:
    """A bundle with one snapshot (non-ASCII before the snippets) and two snippets."""
    first = RAW.index("beat BM25")
    second = RAW.index("Σ scores")
    return {
        "snapshots": [
            {
                "snapshot_id": "snap-1",
                "source_meta": {"url": "https://example.org/paper", "title": "Retrieval study"},
                "content_hash": sha(RAW),
                "captured_at": "2026-03-14T09:30:00Z",
                "raw_text": RAW,
            }
        ],
        "snippets": [
            {
                "snippet_id": "snip-1",
                "snapshot_id": "snap-1",
                "start_char": first,
                "end_char": first + 28,
                "snippet_text": RAW[first : first + 28],
            },
            {
                "snippet_id": "snip-2",
                "snapshot_id": "snap-1",
                "start_char": second,
                "end_char": len(RAW),
                "snippet_text": RAW[second:],
                "injection_risk_flag": False,
            },
        ],
    }


def store() -> EvidenceStore:
    """The store of ``bundle()``."""
    return EvidenceStore.from_bundle(json.dumps(bundle()))


def ref(snippet: str = "snip-1") -> dict[str, Any]:
    """A ref to one of the bundle's snippets."""
    return {"snapshot_id": "snap-1", "snippet_id": snippet}


def report() -> dict[str, Any]:
    """A valid report: seven sections, a trivial and a cited non-trivial claim in each."""
    sections = []
    for index, name in enumerate(SECTIONS):
        sections.append(
            {
                "section": name,
                "text": f"The {name} section.",
                "claims": [
                    {"claim_id": f"c{index}a", "text": "Framing.", "severity": "trivial"},
                    {
                        "claim_id": f"c{index}b",
                        "text": "Dense beats BM25.",
                        "severity": "non_trivial",
                        "citation_keys": [f"k{index}"],
                    },
                ],
                "citations": {f"k{index}": ref("snip-1" if index % 2 else "snip-2")},
            }
        )
    return {"sections": sections}


def literature_map() -> dict[str, Any]:
    """A valid map: a paper, a dataset and code, linked."""
    return {
        "nodes": [
            {"id": "p1", "type": "paper", "metadata": {"year": 2024}, "score": 0.9, "evidence_refs": [ref()]},
            {"id": "d1", "type": "dataset", "metadata": {}, "score": 1, "evidence_refs": [ref("snip-2")]},
            {"id": "g1", "type": "code", "metadata": {"lang": "python"}, "score": 0.5, "evidence_refs": [ref()]},
        ],
        "edges": [
            {"source": "p1", "target": "d1", "type": "compares"},
            {"source": "g1", "target": "p1", "type": "extends", "evidence_refs": [ref("snip-2")]},
        ],
    }


def plan() -> dict[str, Any]:
    """A valid experiment plan."""
    return {
        "hypothesis": "Hybrid retrieval beats either retriever alone.",
        "datasets": [{"name": "BEIR", "evidence_refs": [ref()]}],
        "baseline_models": [{"name": "BM25", "description": "Lucene defaults", "evidence_refs": [ref("snip-2")]}],
        "evaluation_metrics": ["nDCG@10"],
        "ablation_plan": ["Drop the dense retriever."],
        "compute_estimation": {"summary": "One GPU day.", "gpu_hours": 24},
        "risks_and_failure_cases": ["Leakage between train and test."],
    }


BUILDERS = {"structured_report": report, "literature_map": literature_map, "experiment_plan": plan}


def check(kind: str, data: dict[str, Any], evidence: EvidenceStore | None = None) -> Any:
    """Validate ``data`` (as JSON text) with the store of ``bundle()`` unless told otherwise."""
    return validate_artifact(kind, json.dumps(data), evidence=evidence if evidence is not None else store())


def mutate(data: dict[str, Any]) -> dict[str, Any]:
    """A deep copy to break."""
    return copy.deepcopy(data)
