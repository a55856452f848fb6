"""SourceBundle -> evidence bundle (R-EV-1, R-EV-2): every field pinned, so a changed id, key or
offset is caught (mutation survivors of runtime/research/evidence.py)."""

from __future__ import annotations

import hashlib

from rcs_contracts.generated.research.response_schema import ResearchResponse
from rcs_contracts.generated.research.source_bundle_schema import SourceBundle
from rcs_contracts.runtime.research.adapter import source_id
from rcs_contracts.runtime.research.evidence import to_evidence

AT = "2026-11-23T06:00:00Z"


def source(locator: str, content: str, flagged: bool = False, title: str = "T") -> dict[str, object]:
    return {
        "source_id": source_id("docs", locator, content),
        "tool": "docs",
        "locator": locator,
        "title": title,
        "content": content,
        "metadata": {},
        "injection_risk_flag": flagged,
        "flags": ["TELL_THE_USER"] if flagged else [],
    }


def test_snapshots_and_snippets_of_quoted_sentences() -> None:
    text = "Alpha comes first. Beta follows. Alpha comes first."
    one, two = source("a.md#1", text), source("b.md#2", "Gamma only.\u00e9", flagged=True, title="")
    bundle = SourceBundle.model_validate({"contract_version": "18.0.0", "sources": [one, two]})
    response = ResearchResponse.model_validate(
        {
            "action": "ANSWER",
            "text": "Findings from 1 sources:",
            "bullets": [
                {"text": "Beta follows.", "source_ids": [one["source_id"]]},
                {"text": "Alpha comes first.", "source_ids": [one["source_id"]]},
                {"text": "Alpha comes first.", "source_ids": [one["source_id"]]},  # the same span once
            ],
            "sources": [{"source_id": one["source_id"], "locator": "a.md#1", "title": "T"}],
        }
    )
    evidence = to_evidence(bundle, response, AT).model_dump(mode="json", exclude_unset=True)
    first, second = evidence["snapshots"]
    assert first == {
        "snapshot_id": "research-" + str(one["source_id"])[:16],
        "source_meta": {"tool": "docs", "locator": "a.md#1", "title": "T"},
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
        "captured_at": AT,
        "raw_text": text,
    }
    assert second["content_hash"] == hashlib.sha256("Gamma only.\u00e9".encode()).hexdigest()
    assert second["source_meta"] == {"tool": "docs", "locator": "b.md#2", "title": ""}
    sid = first["snapshot_id"]
    spans = [(s["snapshot_id"], s["start_char"], s["end_char"], s["snippet_id"]) for s in evidence["snippets"]]
    # Quoted sentences where they first occur, in text order, each span once; an unquoted source
    # gets one snippet of its whole text.
    assert spans == [
        (sid, 0, 18, f"{sid}-0-18"),
        (sid, 19, 32, f"{sid}-19-32"),
        (second["snapshot_id"], 0, 12, f"{second['snapshot_id']}-0-12"),
    ]
    assert [s["snippet_text"] for s in evidence["snippets"]] == [
        "Alpha comes first.",
        "Beta follows.",
        "Gamma only.\u00e9",
    ]
    assert [s["injection_risk_flag"] for s in evidence["snippets"]] == [False, False, True]


def test_a_quote_not_in_the_text_gives_the_whole_text() -> None:
    one = source("a.md#1", "Delta.")
    bundle = SourceBundle.model_validate({"contract_version": "18.0.0", "sources": [one]})
    response = ResearchResponse.model_validate(
        {
            "action": "ANSWER",
            "text": "Findings from 1 sources:",
            "bullets": [{"text": "Not there.", "source_ids": [one["source_id"]]}],
            "sources": [{"source_id": one["source_id"], "locator": "a.md#1", "title": "T"}],
        }
    )
    (snippet,) = to_evidence(bundle, response, AT).snippets
    assert (snippet.start_char, snippet.end_char, snippet.snippet_text) == (0, 6, "Delta.")
