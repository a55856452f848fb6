"""Phase 1 (phase1.md): functional requirements, invariants, failure modes; rulings R-P1-1..5."""

from __future__ import annotations

import hashlib
import json
import math

import pytest

from rcs_contracts.generated.phase1.config import BM25_B, BM25_K1, MAX_CHUNK_CHARS, NOT_STATED, SCORE_BITS
from rcs_contracts.runtime.phase1 import (
    Phase1Error,
    generate_summary,
    ingest_document,
    retrieve,
    run_phase1_pipeline,
)
from rcs_contracts.runtime.phase1.text import normalize, tokens

SECTIONS = [
    (
        "Introduction",
        "Retrieval grounds answers in passages. It reduces unsupported claims.\n\n"
        "We compare BM25 with dense retrieval.",
    ),
    ("  Methods ", "BM25 weighs term frequency against document length. Dense retrieval compares embeddings."),
    ("Results", "BM25 wins on rare entity names. Dense retrieval wins on paraphrases."),
]


def test_chunk_ids_follow_the_formula() -> None:
    paper = ingest_document("paper-7", SECTIONS)
    assert [c.section for c in paper.chunks] == ["Introduction", "Introduction", "Methods", "Results"]
    for chunk in paper.chunks:
        expected = hashlib.sha256(f"paper-7|{chunk.section}|{chunk.text}".encode()).hexdigest()[:16]
        assert chunk.chunk_id == expected


def test_r_p1_2_normalisation() -> None:
    raw = "\ufeffCafe\u0301  au\tlait\u200b is\u00ad good.\r\n  second   line  \rthird"
    assert normalize(raw) == "Café au lait is good.\nsecond line\nthird"


def test_r_p1_3_paragraphs_long_splits_and_duplicates() -> None:
    sentence = "This sentence is about ranking passages for grounded answers. "
    long = sentence * (MAX_CHUNK_CHARS // len(sentence) + 5)
    paper = ingest_document("p", [("A", f"{long}\n\nShort one.\n\nShort one."), ("B", "Short one.")])
    a_chunks = [c for c in paper.chunks if c.section == "A"]
    assert all(len(c.text) <= MAX_CHUNK_CHARS for c in a_chunks)
    assert len(a_chunks) >= 3
    assert " ".join(c.text for c in a_chunks[:-1]) == long.strip()  # cut only between sentences
    assert [c.text for c in a_chunks].count("Short one.") == 1  # identical text twice: one chunk
    b = [c for c in paper.chunks if c.section == "B"]
    assert b[0].text == "Short one." and b[0].chunk_id != a_chunks[-1].chunk_id
    assert len({c.chunk_id for c in paper.chunks}) == len(paper.chunks)


def test_r_p1_4_bm25_scores_and_ties() -> None:
    paper = ingest_document("p", SECTIONS)
    result = retrieve("dense retrieval", paper, 10)
    lengths = [len(tokens(c.text)) for c in paper.chunks]
    avg = sum(lengths) / len(lengths)
    n = len(lengths)

    def score(i: int) -> float:
        total = 0.0
        for term in ["dense", "retrieval"]:
            tf = tokens(paper.chunks[i].text).count(term)
            df = sum(1 for c in paper.chunks if term in tokens(c.text))
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                total += idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * lengths[i] / avg))
        return total

    by_id = {c.chunk_id: i for i, c in enumerate(paper.chunks)}
    assert result.hits, "dense retrieval occurs in the paper"
    for hit in result.hits:
        # Each of the two impacts is rounded to the nearest quantum (SPEC chapter 8): within half of one each.
        assert hit.score == pytest.approx(score(by_id[hit.chunk_id]), rel=0, abs=2**-SCORE_BITS)
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert len(result.hits) == sum(1 for i in range(n) if score(i) > 0)  # zero scores are not returned


def test_r_p1_4_ties_break_by_section_then_chunk_order() -> None:
    paper = ingest_document("p", [("A", "alpha beta"), ("B", "alpha beta"), ("C", "gamma")])
    result = retrieve("alpha", paper, 5)
    assert [h.section for h in result.hits] == ["A", "B"] and result.hits[0].score == result.hits[1].score


def test_r_p1_5_bullets_are_verbatim_best_sentences() -> None:
    result = run_phase1_pipeline("p", SECTIONS, "Which retriever wins on rare entity names?", top_k=2)
    texts = {c.chunk_id: c.text for c in ingest_document("p", SECTIONS).chunks}
    assert result.summary.bullets[0].text == "BM25 wins on rare entity names."
    for bullet in result.summary.bullets:
        assert bullet.chunk_ids and all(bullet.text in texts[c] for c in bullet.chunk_ids)
    assert result.unsupported_bullet_count == 0
    assert result.summary_bullet_count == len(result.summary.bullets)
    assert result.retrieved_chunk_ids == [c for b in result.summary.bullets for c in b.chunk_ids]


def test_r_p1_5_empty_retrieval_is_exactly_one_not_stated_bullet() -> None:
    result = run_phase1_pipeline("p", SECTIONS, "zebras migrate", top_k=3)
    assert [b.model_dump() for b in result.summary.bullets] == [{"text": NOT_STATED, "chunk_ids": []}]
    assert result.unsupported_bullet_count == 1 and result.retrieved_chunk_ids == []


def test_observability_fields() -> None:
    result = run_phase1_pipeline("p", SECTIONS, "dense retrieval", top_k=1)
    dumped = result.model_dump(mode="json")
    assert set(dumped) == {
        "paper_id",
        "mode",
        "retrieval_trace",
        "retrieved_chunk_ids",
        "summary_bullet_count",
        "unsupported_bullet_count",
        "summary",
    }
    assert dumped["mode"] == "summary" and dumped["paper_id"] == "p"
    assert dumped["retrieval_trace"]["query_tokens"] == ["dense", "retrieval"]


def test_determinism_byte_identical_json() -> None:
    runs = [run_phase1_pipeline("p", SECTIONS, "BM25 dense", top_k=3).model_dump_json() for _ in range(2)]
    assert runs[0] == runs[1]
    assert [c.chunk_id for c in ingest_document("p", SECTIONS).chunks] == [
        c.chunk_id for c in ingest_document("p", list(SECTIONS)).chunks
    ]


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: ingest_document("p", [("A", "  \n\t ")]), "Paper has no content: paper_id=p"),
        (lambda: ingest_document("p", []), "Paper has no content: paper_id=p"),
        (
            lambda: ingest_document("p", [("Intro", "x"), (" intro ", "y")]),
            "Duplicate section label: intro (labels are compared stripped and case-folded)",
        ),
        (lambda: ingest_document("", [("A", "x")]), "paper_id must be a non-empty string"),
        (
            lambda: ingest_document("p", "text"),
            "sections must be a sequence of (label, text) pairs or {label, text} objects: item 0 is not",
        ),
        (
            lambda: ingest_document("p", [("A", 3)]),
            "sections must be a sequence of (label, text) pairs or {label, text} objects: item 0 is not",
        ),
        (lambda: retrieve(" ?! ", ingest_document("p", SECTIONS), 3), "Query must contain at least one word"),
        (lambda: retrieve("bm25", ingest_document("p", SECTIONS), 0), "top_k must be a positive integer: top_k=0"),
        (
            lambda: retrieve("bm25", ingest_document("p", SECTIONS), True),
            "top_k must be a positive integer: top_k=True",
        ),
        (
            lambda: run_phase1_pipeline("p", SECTIONS, "bm25", mode="report"),
            "Unsupported mode: report (allowed: summary)",
        ),
        (
            lambda: generate_summary(
                ingest_document("p", SECTIONS), retrieve("bm25", ingest_document("p", SECTIONS), 1), mode="abstract"
            ),
            "Unsupported mode: abstract (allowed: summary)",
        ),
    ],
    ids=[
        "empty-content",
        "no-sections",
        "duplicate-label",
        "empty-id",
        "not-pairs",
        "not-text",
        "empty-query",
        "top-k-0",
        "top-k-bool",
        "mode",
        "summary-mode",
    ],
)
def test_failure_modes_raise_value_error(call: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        call()  # type: ignore[operator]
    assert isinstance(info.value, Phase1Error)
    assert str(info.value) == message


def test_sections_as_json_objects() -> None:
    as_objects = [{"label": label, "text": text} for label, text in SECTIONS]
    assert ingest_document("p", as_objects).chunks == ingest_document("p", SECTIONS).chunks


def test_cli_summarize(tmp_path: object) -> None:
    from pathlib import Path

    from tests.conftest import run_rcs

    folder = Path(str(tmp_path))
    paper = folder / "paper.json"
    paper.write_text(json.dumps({"paper_id": "p", "sections": [{"label": label, "text": t} for label, t in SECTIONS]}))
    text = run_rcs(["phase1", "summarize", str(paper), "--query", "rare entity names", "--top-k", "1"])
    assert text.returncode == 0, text.stderr
    chunk = next(c for c in ingest_document("p", SECTIONS).chunks if c.section == "Results")
    assert text.stdout.splitlines() == [
        "p: 1 bullet(s), 0 not stated; retrieved 1 chunk(s) for: rare entity names",
        f"- BM25 wins on rare entity names.  [{chunk.chunk_id} (Results)]",
    ]
    as_json = run_rcs(["phase1", "summarize", str(paper), "--query", "rare entity names", "--format", "json"])
    assert json.loads(as_json.stdout)["summary"]["bullets"][0]["chunk_ids"] == [chunk.chunk_id]
    bad = folder / "bad.json"
    bad.write_text(json.dumps({"paper_id": "p", "sections": [{"label": "A"}]}))
    result = run_rcs(["phase1", "summarize", str(bad), "--query", "x"])
    assert result.returncode == 2
    assert (
        result.stderr.strip()
        == f"rcs phase1: {bad}: invalid paper: Required property 'text' is missing (at $.sections[0].text)"
    )
    empty = run_rcs(["phase1", "summarize", str(paper), "--query", "x", "--top-k", "-1"])
    assert empty.returncode == 2 and empty.stderr.strip() == "rcs phase1: top_k must be a positive integer: top_k=-1"


def test_spec_has_the_phase1_chapter() -> None:
    from tests.conftest import ROOT

    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    assert all(f"R-P1-{n}" in spec for n in range(1, 6)) and "<!-- generated:phase1-config " in spec


def test_r_p1_3_split_pieces_are_verbatim_even_across_line_breaks() -> None:
    from rcs_contracts.runtime.phase1.chunks import split_long
    from rcs_contracts.runtime.phase1.text import paragraphs

    wrapped = "\n".join(f"Sentence number {i} talks about ranking and caching." for i in range(40))
    [paragraph] = paragraphs(normalize(wrapped))
    pieces = split_long(paragraph, 200)
    assert len(pieces) > 1 and all(len(p) <= 200 and p in paragraph for p in pieces)
    assert all(p.endswith(".") for p in pieces)
    giant = "word " * 100 + "x" * 450
    cut = split_long(giant.strip(), 120)
    assert all(len(p) <= 120 and p in giant for p in cut)
    assert "".join(cut).replace(" ", "") == giant.replace(" ", "")
