"""Behaviour bench/mutation.py found unpinned in runtime/phase1, each checked against phase1.md / SPEC.md.

`rcs phase1 summarize` error paths with their exact text (a missing paper, a paper that is not JSON),
its text output (a bullet citing two chunks, the not-stated bullet with no citation), `rcs validate`
refusing an ingested paper or a retrieval result that lists a chunk id twice (SPEC 11.5), and
R-P1-2's collapse of spaces and tabs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.engine.kinds import resolve
from rcs_contracts.engine.validation import Context, violations
from rcs_contracts.generated.phase1.config import NOT_STATED
from rcs_contracts.runtime.cli import main
from rcs_contracts.runtime.phase1 import ingest_document, retrieve
from rcs_contracts.runtime.phase1.text import normalize
from tests.conftest import ROOT, run_rcs

EXAMPLES = ROOT / "examples" / "phase1"
QUERIES: list[dict[str, Any]] = json.loads((EXAMPLES / "queries.json").read_text(encoding="utf-8"))
SHARED = "Caching halves the latency of repeated questions."


def rcs(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The real CLI entry in-process: (exit status, stdout, stderr)."""
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def chunk_id(paper_id: str, section: str, text: str) -> str:
    """R-P1-3's formula, written out here: sha256("{paper_id}|{section}|{text}")[:16]."""
    return hashlib.sha256(f"{paper_id}|{section}|{text}".encode()).hexdigest()[:16]


def write_paper(path: Path, paper_id: str, sections: list[tuple[str, str]]) -> Path:
    path.write_text(json.dumps({"paper_id": paper_id, "sections": [{"label": a, "text": b} for a, b in sections]}))
    return path


# --- rcs phase1 summarize: invalid input exits 2 with the reason ---


def test_a_missing_paper_names_the_os_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.json"
    status, out, err = rcs(capsys, "phase1", "summarize", str(missing), "--query", "cache")
    assert (status, out) == (2, "")
    assert err == f"rcs phase1: {missing}: cannot read: No such file or directory\n"


def test_a_paper_that_is_not_json_has_no_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paper = tmp_path / "paper.json"
    paper.write_text("{\n")
    status, out, err = rcs(capsys, "phase1", "summarize", str(paper), "--query", "cache")
    assert (status, out) == (2, "")
    assert err == f"rcs phase1: {paper}: invalid paper: Invalid JSON: EOF while parsing an object at line 2 column 0\n"


def test_a_schema_violation_names_its_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paper = tmp_path / "paper.json"
    paper.write_text(json.dumps({"paper_id": "", "sections": [{"label": "A", "text": "x"}]}))
    status, out, err = rcs(capsys, "phase1", "summarize", str(paper), "--query", "cache")
    assert (status, out) == (2, "")
    assert err == f'rcs phase1: {paper}: invalid paper: "" is shorter than 1 character (at $.paper_id)\n'


# --- rcs phase1 summarize: the text output lists each bullet with its chunk ids and sections ---


def test_one_sentence_in_two_sections_is_one_bullet_citing_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paper = write_paper(
        tmp_path / "paper.json",
        "p",
        [("Results", SHARED), ("Conclusion", f"  {SHARED}\t"), ("Method", "Entries expire after ten minutes.")],
    )
    status, out, err = rcs(capsys, "phase1", "summarize", str(paper), "--query", "latency", "--top-k", "3")
    assert (status, err) == (0, "")
    results, conclusion = chunk_id("p", "Results", SHARED), chunk_id("p", "Conclusion", SHARED)
    assert out == (
        "p: 1 bullet(s), 0 not stated; retrieved 2 chunk(s) for: latency\n"
        f"- {SHARED}  [{results} (Results), {conclusion} (Conclusion)]\n"
    )


def test_the_not_stated_bullet_cites_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paper = write_paper(tmp_path / "paper.json", "p", [("Results", SHARED)])
    status, out, err = rcs(capsys, "phase1", "summarize", str(paper), "--query", "gluon")
    assert (status, err) == (0, "")
    assert out == f"p: 1 bullet(s), 1 not stated; retrieved 0 chunk(s) for: gluon\n- {NOT_STATED}\n"


@pytest.mark.parametrize("n", [2, 7])  # 2: a bullet citing Results and Conclusion; 7: no support
def test_the_worked_example_text_output(n: int, capsys: pytest.CaptureFixture[str]) -> None:
    query = QUERIES[n - 1]
    args = ("phase1", "summarize", str(EXAMPLES / "paper.json"), "--query", query["query"])
    status, out, err = rcs(capsys, *args, "--top-k", str(query["top_k"]), "--format", "text")
    assert (status, err) == (0, "")
    assert out == (EXAMPLES / "expected" / f"{n}.txt").read_text(encoding="utf-8")


def test_the_json_output_is_the_pipeline_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paper = write_paper(tmp_path / "paper.json", "p", [("Results", SHARED), ("Conclusion", SHARED)])
    status, out, err = rcs(capsys, "phase1", "summarize", str(paper), "--query", "latency", "--format", "json")
    assert (status, err) == (0, "")
    result = json.loads(out)
    ids = [chunk_id("p", "Results", SHARED), chunk_id("p", "Conclusion", SHARED)]
    assert result["retrieved_chunk_ids"] == ids
    assert result["summary"]["bullets"] == [{"text": SHARED, "chunk_ids": ids}]
    assert list(violations(resolve("phase1/pipeline_result"), out, Context())) == []


# --- rcs validate: a chunk id names one chunk (R-P1-3, SPEC 11.5) ---


def found(kind: str, data: dict[str, Any]) -> list[tuple[str, str, tuple[str | int, ...]]]:
    return [(type(e).__name__, str(e), e.location) for e in violations(resolve(kind), json.dumps(data), Context())]


def test_an_ingested_paper_lists_each_chunk_id_once() -> None:
    data = ingest_document("m", [("S", "alpha beta\n\nalpha gamma\n\nalpha delta")]).model_dump(mode="json")
    assert found("phase1/ingested_paper", data) == []
    twice = data["chunks"][0]["chunk_id"]
    data["chunks"][2]["chunk_id"] = twice
    assert found("phase1/ingested_paper", data) == [
        (
            "InvariantViolationError",
            f"Chunk id {twice} is listed twice (first at $.chunks[0].chunk_id)",
            ("chunks", 2, "chunk_id"),
        )
    ]


def test_a_retrieval_result_lists_each_hit_once() -> None:
    paper = ingest_document("m", [("S", "alpha beta\n\nalpha gamma\n\nalpha delta")])
    data = retrieve("alpha", paper, 3).model_dump(mode="json")
    assert [h["chunk_id"] for h in data["hits"]] == [c.chunk_id for c in paper.chunks]
    assert found("phase1/retrieval_result", data) == []
    twice = data["hits"][1]["chunk_id"]
    data["hits"][2]["chunk_id"] = twice
    assert found("phase1/retrieval_result", data) == [
        (
            "InvariantViolationError",
            f"Chunk id {twice} is listed twice (first at $.hits[1].chunk_id)",
            ("hits", 2, "chunk_id"),
        )
    ]


@pytest.mark.parametrize("kind", ["ingested_paper", "retrieval_result"])
def test_validate_refuses_an_id_listed_twice(tmp_path: Path, kind: str) -> None:
    """Through `rcs validate` in its own process (the kind's check is registered at import)."""
    paper = ingest_document("m", [("S", "alpha beta\n\nalpha gamma")])
    data = (
        paper.model_dump(mode="json")
        if kind == "ingested_paper"
        else retrieve("alpha", paper, 2).model_dump(mode="json")
    )
    field = "chunks" if kind == "ingested_paper" else "hits"
    data[field][1]["chunk_id"] = twice = data[field][0]["chunk_id"]
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(data))
    result = run_rcs(["validate", "--kind", f"phase1/{kind}", str(path)])
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[:-1] == [
        f"{path}: InvariantViolationError: Chunk id {twice} is listed twice (first at $.{field}[0].chunk_id) "
        f"(at $.{field}[1].chunk_id)"
    ]


# --- R-P1-2: runs of spaces and tabs collapse to one space ---


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a  b", "a b"),
        ("a\tb", "a b"),
        ("a \t \t b\t\tc   d", "a b c d"),
        ("  lead and trail \t", "lead and trail"),
        ("one\n two  \n\tthree", "one\ntwo\nthree"),
        ("x\u00a0\u00a0y", "x\u00a0\u00a0y"),  # only spaces and tabs collapse
    ],
)
def test_runs_of_spaces_and_tabs_become_one_space(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_the_cli_quotes_whole_normalised_sentences(tmp_path: Path) -> None:
    """In its own process: spaces and tabs collapse (R-P1-2), and only the table's terminators end a sentence."""
    text = "Plan  X\tcuts the latency  in half. Plan Y does not!  It keeps\t\tthe cost."
    paper = write_paper(tmp_path / "paper.json", "p", [("Results", text)])
    result = run_rcs(["phase1", "summarize", str(paper), "--query", "latency cost", "--top-k", "1"])
    assert (result.returncode, result.stderr) == (0, "")
    normalised = "Plan X cuts the latency in half. Plan Y does not! It keeps the cost."
    assert result.stdout == (
        "p: 1 bullet(s), 0 not stated; retrieved 1 chunk(s) for: latency cost\n"
        f"- Plan X cuts the latency in half.  [{chunk_id('p', 'Results', normalised)} (Results)]\n"
    )


# --- sections and long paragraphs (runtime/phase1/chunks.py) -----------------------------------------


@pytest.mark.parametrize(
    "sections",
    [
        [{"label": "A", "text": "x", "note": "y"}],  # an object with a key besides label and text
        [{"label": "A"}],
        [("A", "x", "y")],  # three items
        ["ab"],  # a two-character string is not a pair
    ],
)
def test_a_section_that_is_not_a_pair_is_refused_with_its_index(sections: list[Any]) -> None:
    from rcs_contracts.generated.phase1.errors import InvalidInputError
    from rcs_contracts.runtime.phase1.chunks import section_pairs

    with pytest.raises(InvalidInputError) as info:
        section_pairs([("first", "fine"), *sections])
    assert str(info.value) == (
        "sections must be a sequence of (label, text) pairs or {label, text} objects: item 1 is not"
    )


def test_a_paragraph_that_fits_is_one_verbatim_piece() -> None:
    from rcs_contracts.runtime.phase1.chunks import split_long

    assert split_long("ab ", 3) == ["ab "]  # exactly the cap: not re-cut into its sentences


def test_a_long_sentence_is_cut_at_its_first_space_and_spaces_after_a_cut_are_dropped() -> None:
    from rcs_contracts.runtime.phase1.chunks import split_long

    assert split_long("a bcdefgh", 4) == ["a", "bcde", "fgh"]  # the space right after the first letter
    assert split_long("abcdefgh  ij", 4) == ["abcd", "efgh", "ij"]  # no piece starts with a space


# --- the summary's invariants, checked before a result is reported (runtime/phase1/pipeline.py) ------


@pytest.mark.parametrize(
    ("bullet", "detail"),
    [
        ({"text": NOT_STATED, "chunk_ids": ["c"]}, "bullet 1 is not-stated but cites chunks"),
        ({"text": "Caching halves", "chunk_ids": []}, "bullet 1 cites no chunk"),
        ({"text": "Caching halves", "chunk_ids": ["0" * 16]}, "bullet 1 cites unknown chunk 0000000000000000"),
        ({"text": "Caching doubles", "chunk_ids": ["<first>"]}, "bullet 1 is not verbatim text of chunk <first>"),
    ],
)
def test_a_summary_that_breaks_an_invariant_is_refused_with_what_and_where(bullet: dict[str, Any], detail: str) -> None:
    from rcs_contracts.generated.phase1.errors import InvariantViolationError
    from rcs_contracts.generated.phase1.grounded_summary_schema import Bullet, GroundedSummary
    from rcs_contracts.runtime.phase1.pipeline import check_invariants

    paper = ingest_document("p", [("S", SHARED)])
    first = paper.chunks[0].chunk_id
    good = Bullet(text="Caching halves the latency", chunk_ids=[first])
    # Built without validation: the check is what stands between a hand-made summary and a report.
    cited = [first if c == "<first>" else c for c in bullet["chunk_ids"]]
    bad = Bullet.model_construct(text=bullet["text"], chunk_ids=cited)
    check_invariants(paper, GroundedSummary(paper_id="p", mode="summary", bullets=[good]))  # the good one passes
    with pytest.raises(InvariantViolationError) as info:
        check_invariants(paper, GroundedSummary.model_construct(paper_id="p", mode="summary", bullets=[good, bad]))
    assert str(info.value) == "Summary invariant violated: " + detail.replace("<first>", first)


def test_the_best_sentence_is_the_earliest_of_those_sharing_most_query_words() -> None:
    from rcs_contracts.runtime.phase1.pipeline import _best_sentence

    text = "Nothing here. Caching helps. Caching helps latency. Latency and caching matter."
    assert _best_sentence(text, {"caching", "latency"}) == "Caching helps latency."
    assert _best_sentence(text, {"zebra"}) == "Nothing here."  # no overlap anywhere: the first
    assert _best_sentence("no full stop", {"zebra"}) == "no full stop"


def test_sentences_packed_to_exactly_the_cap_stay_one_piece() -> None:
    from rcs_contracts.runtime.phase1.chunks import split_long

    # "aaaa. bbbb." is 11 characters: at a cap of 11 the two sentences are one piece.
    assert split_long("aaaa. bbbb. cccc.", 11) == ["aaaa. bbbb.", "cccc."]
    assert split_long("aaaa. bbbb. cccc.", 10) == ["aaaa.", "bbbb.", "cccc."]


def test_a_summary_of_another_papers_retrieval_is_refused() -> None:
    from rcs_contracts.generated.phase1.errors import InvalidInputError
    from rcs_contracts.runtime.phase1 import generate_summary

    sections = [{"label": "A", "text": "Term frequency saturates."}]
    one, two = ingest_document("one", sections), ingest_document("two", sections)
    with pytest.raises(InvalidInputError) as caught:
        generate_summary(one, retrieve("term frequency", two, 1))
    assert str(caught.value) == "The retrieval result is for paper two, not one"
