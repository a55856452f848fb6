"""Research meets evidence: a SourceBundle as an evidence bundle (researchops-part1.md; R-EV-1, R-EV-2).

Each source becomes an immutable snapshot (``content_hash`` the SHA-256 of its text, captured at
the given time) and each sentence the answer quoted from it a snippet with its offsets, flagged
``injection_risk_flag`` when the filter flagged the source (R-RS-5); a source no bullet quotes gets
one snippet of its whole text. ``rcs validate --evidence`` can then check a report that cites what
research found.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from rcs_contracts.generated.evidence.evidence_bundle_schema import EvidenceBundle
from rcs_contracts.generated.research.response_schema import ResearchResponse
from rcs_contracts.generated.research.source_bundle_schema import SourceBundle

SNAPSHOT_PREFIX = "research-"


def snapshot_id(source_id: str) -> str:
    """The evidence snapshot id of a research source (stable: derived from its content hash id)."""
    return f"{SNAPSHOT_PREFIX}{source_id[:16]}"


def to_evidence(bundle: SourceBundle, response: ResearchResponse, captured_at: str) -> EvidenceBundle:
    """The evidence bundle of a session's sources; ``captured_at`` is an RFC 3339 time (R-EV-1)."""
    quoted: dict[str, list[str]] = {}
    for bullet in response.bullets:
        for sid in bullet.source_ids:
            quoted.setdefault(sid, []).append(bullet.text)
    snapshots, snippets = [], []
    for source in bundle.sources:
        sid = snapshot_id(source.source_id)
        snapshots.append(
            {
                "snapshot_id": sid,
                "source_meta": {"tool": source.tool, "locator": source.locator, "title": source.title},
                "content_hash": hashlib.sha256(source.content.encode("utf-8")).hexdigest(),
                "captured_at": captured_at,
                "raw_text": source.content,
            }
        )
        for start, end in _spans(source.content, quoted.get(source.source_id, [])):
            snippets.append(
                {
                    "snippet_id": f"{sid}-{start}-{end}",
                    "snapshot_id": sid,
                    "start_char": start,
                    "end_char": end,
                    "snippet_text": source.content[start:end],
                    "injection_risk_flag": source.injection_risk_flag,
                }
            )
    return EvidenceBundle.model_validate({"snapshots": snapshots, "snippets": snippets})


def _spans(text: str, quotes: Sequence[str]) -> list[tuple[int, int]]:
    """Where each quote first occurs in ``text`` (distinct, in order); the whole text when none does."""
    spans = []
    for quote in quotes:
        start = text.find(quote)
        if start >= 0 and (start, start + len(quote)) not in spans:
            spans.append((start, start + len(quote)))
    return sorted(spans) or [(0, len(text))]
