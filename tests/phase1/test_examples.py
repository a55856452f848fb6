"""The phase 1 worked example in examples/phase1/ replays through the real CLI byte for byte (phase1.md).

``paper.json`` is a ~2,900-word paper whose raw text needs normalising (R-P1-2): a BOM, zero-width
characters, soft hyphens, a word joiner, CRLF line endings, tabs and runs of spaces, and words spelled
in decomposed form (NFD). It holds a paragraph repeated verbatim in Results and once more, in noisy
bytes, in Conclusion (R-P1-3 duplicates), and a Method paragraph longer than ``max_chunk_chars`` that
must be split at sentence boundaries. ``queries.json`` lists the queries; ``expected/<n>.json`` and
``expected/<n>.txt`` are the exact stdout of ``rcs phase1 summarize`` for query n (1-based).

The checks below recompute what they can independently of the runtime: normalisation, paragraphs,
chunk ids (``sha256("{paper_id}|{section}|{text}")[:16]``) and the BM25 ranking (R-P1-4).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.generated.phase1.config import BM25_B, BM25_K1, MAX_CHUNK_CHARS, NOT_STATED, SENTENCE_TERMINATORS
from rcs_contracts.runtime.phase1 import IngestedPaper, ingest_document

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "phase1"
PAPER = EXAMPLES / "paper.json"
QUERIES: list[dict[str, Any]] = json.loads((EXAMPLES / "queries.json").read_text(encoding="utf-8"))
EXPECTED = EXAMPLES / "expected"
FORMATS = {"json": "json", "text": "txt"}

# What the example is built to show (see examples/phase1/README.md).
SPLIT_QUERY, DUPLICATE_QUERY, NFC_QUERY, DROP_QUERY, CRLF_QUERY, CJK_QUERY, NO_SUPPORT_QUERY = range(1, 8)
DUPLICATE_SECTION, OTHER_SECTION, LONG_SECTION = "Results", "Conclusion", "Method"

# R-P1-2, written out here so the test does not lean on the runtime's own normaliser.
BOM, ZERO_WIDTH, SOFT_HYPHEN, WORD_JOINER = "\ufeff", "\u200b", "\u00ad", "\u2060"
DROPPED = {ord(c): None for c in (BOM, ZERO_WIDTH, "\u200c", "\u200d", WORD_JOINER, SOFT_HYPHEN)}

Results = dict[tuple[str, ...], tuple[subprocess.CompletedProcess[bytes], tuple[int, bytes]]]


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n").translate(DROPPED)
    return "\n".join(re.sub(r"[ \t]+", " ", line).strip() for line in text.split("\n"))


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", normalise(text)) if p.strip()]


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def expected_id(paper_id: str, section: str, text: str) -> str:
    return hashlib.sha256(f"{paper_id}|{section}|{text}".encode()).hexdigest()[:16]


def paper_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PAPER.read_text(encoding="utf-8"))
    return data


def raw_sections() -> dict[str, str]:
    return {s["label"].strip(): s["text"] for s in paper_json()["sections"]}


def ingested() -> IngestedPaper:
    paper = paper_json()
    return ingest_document(paper["paper_id"], [(s["label"], s["text"]) for s in paper["sections"]])


def query_args(n: int, fmt: str) -> tuple[str, ...]:
    q = QUERIES[n - 1]
    paper = PAPER.relative_to(ROOT).as_posix()
    return ("phase1", "summarize", paper, "--query", q["query"], "--top-k", str(q["top_k"]), "--format", fmt)


def env(hash_seed: str) -> dict[str, str]:
    return dict(os.environ, PYTHONHASHSEED=hash_seed)


def rcs(args: tuple[str, ...]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", *args],
        cwd=ROOT,
        env=env("1"),
        capture_output=True,
        timeout=60,
    )


# The second run of every query, all in one more process (each interpreter start costs ~0.4 s): the CLI's
# main() with stdout captured, printed as JSON. That process has another hash seed, so output that depended
# on the iteration order of a set of strings would differ between the two runs.
RERUN = """
import contextlib, io, json, sys
from rcs_contracts.runtime.cli import main
out = []
for args in json.load(sys.stdin):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(args)
    out.append([status, buffer.getvalue()])
print(json.dumps(out))
"""


def rerun(jobs: list[tuple[str, ...]]) -> list[tuple[int, bytes]]:
    proc = subprocess.run(
        [sys.executable, "-c", RERUN],
        cwd=ROOT,
        env=env("2"),
        input=json.dumps(jobs).encode(),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return [(status, text.encode()) for status, text in json.loads(proc.stdout)]


@pytest.fixture(scope="module")
def results() -> Results:
    """Every query in both formats through the real CLI, one process each, concurrently; then again."""
    jobs = [query_args(n, fmt) for n in range(1, len(QUERIES) + 1) for fmt in FORMATS]
    with ThreadPoolExecutor(max_workers=4) as pool:
        first = pool.map(rcs, jobs)
        second = pool.submit(rerun, jobs)
        return {args: (proc, again) for args, proc, again in zip(jobs, first, second.result(), strict=True)}


@pytest.fixture(scope="module")
def outputs(results: Results) -> dict[int, dict[str, Any]]:
    """The parsed JSON result of each query (1-based)."""
    parsed: dict[int, dict[str, Any]] = {}
    for n in range(1, len(QUERIES) + 1):
        parsed[n] = json.loads(results[query_args(n, "json")][0].stdout)
    return parsed


def test_paper_validates() -> None:
    proc = rcs(("validate", "--kind", "phase1/paper", "examples/phase1/paper.json"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_paper_is_realistic_and_needs_normalising() -> None:
    sections = raw_sections()
    assert list(sections) == [
        "Abstract", "Introduction", "Related Work", "Method", "Experiments", "Results", "Limitations", "Conclusion"
    ]  # fmt: skip
    assert 2500 <= sum(len(t.split()) for t in sections.values()) <= 4000
    raw = "".join(sections.values())
    for needle in (BOM, ZERO_WIDTH, SOFT_HYPHEN, WORD_JOINER, "\r\n", "\t", "   ", "\u0308", "≥", "—", "α", "検索"):
        assert needle in raw, repr(needle)
    assert sections["Abstract"].startswith(BOM)


def test_expected_files_are_exactly_the_queries() -> None:
    assert len(QUERIES) >= 6
    names = {p.name for p in EXPECTED.iterdir()}
    assert names == {f"{n}.{ext}" for n in range(1, len(QUERIES) + 1) for ext in FORMATS.values()}


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("n", range(1, len(QUERIES) + 1))
def test_cli_output_matches_expected(results: Results, n: int, fmt: str) -> None:
    proc, (status, again) = results[query_args(n, fmt)]
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    assert proc.stdout == (EXPECTED / f"{n}.{FORMATS[fmt]}").read_bytes()
    assert (status, again) == (0, proc.stdout)  # the second run, in another process (phase1.md NFR 1)


def test_chunks_follow_the_rulings() -> None:
    """Chunks are the normalised paragraphs in order, a repeat in one section dropped, the long one split.

    Every chunk's id is the formula's (R-P1-3). How the long paragraph is split is checked below.
    """
    paper_id = paper_json()["paper_id"]
    split = "<the long paragraph, split>"
    want: list[tuple[str, str]] = []
    long: set[str] = set()
    for section, text in raw_sections().items():
        seen: set[str] = set()
        for paragraph in paragraphs(text):
            if len(paragraph) > MAX_CHUNK_CHARS:
                long.add(paragraph)
            item = split if len(paragraph) > MAX_CHUNK_CHARS else paragraph
            if item not in seen:
                seen.add(item)
                want.append((section, item))
    got: list[tuple[str, str]] = []
    chunks = ingested().chunks
    for c in chunks:
        assert c.chunk_id == expected_id(paper_id, c.section, c.text)
        item = split if any(c.text in p and c.text != p for p in long) else c.text
        if item != split or got[-1:] != [(c.section, split)]:
            got.append((c.section, item))
    assert got == want
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_ids_and_bullets_in_every_result(outputs: dict[int, dict[str, Any]]) -> None:
    """(d): every cited or retrieved id recomputes from its chunk; every bullet is verbatim text of its chunks."""
    paper_id = paper_json()["paper_id"]
    labels = set(raw_sections())
    by_id = {c.chunk_id: c for c in ingested().chunks}
    for n, result in outputs.items():
        assert result["paper_id"] == paper_id and result["mode"] == "summary"
        bullets = result["summary"]["bullets"]
        assert result["summary_bullet_count"] == len(bullets)
        assert result["unsupported_bullet_count"] == sum(b["text"] == NOT_STATED for b in bullets)
        cited = [cid for b in bullets for cid in b["chunk_ids"]]
        assert set(cited) <= set(result["retrieved_chunk_ids"]), n
        for cid in [*result["retrieved_chunk_ids"], *cited]:
            chunk = by_id[cid]
            assert chunk.section in labels
            assert cid == expected_id(paper_id, chunk.section, chunk.text)
        for bullet in bullets:
            if bullet["text"] == NOT_STATED:
                assert bullet["chunk_ids"] == []
                continue
            assert bullet["chunk_ids"], (n, bullet)
            for cid in bullet["chunk_ids"]:
                assert bullet["text"] in by_id[cid].text, (n, cid)


def test_retrieval_is_bm25(outputs: dict[int, dict[str, Any]]) -> None:
    """R-P1-4, recomputed: Lucene idf, k1/b from the table, zero scores dropped, ties by section then chunk."""
    chunks = ingested().chunks
    toks = [words(c.text) for c in chunks]
    avg = sum(map(len, toks)) / len(toks)
    df = Counter(t for ts in toks for t in set(ts))
    n_chunks = len(chunks)

    def idf(term: str) -> float:
        return math.log(1 + (n_chunks - df[term] + 0.5) / (df[term] + 0.5))

    for n, result in outputs.items():
        query = words(QUERIES[n - 1]["query"])
        trace = result["retrieval_trace"]
        assert trace["query_tokens"] == query
        assert trace["chunk_count"] == n_chunks and trace["k1"] == BM25_K1 and trace["b"] == BM25_B
        for stat in trace["terms"]:
            assert stat["df"] == df[stat["term"]] and stat["idf"] == pytest.approx(idf(stat["term"]))
        scores = []
        for position, ts in enumerate(toks):
            tf = Counter(ts)
            score = sum(
                idf(t) * tf[t] * (BM25_K1 + 1) / (tf[t] + BM25_K1 * (1 - BM25_B + BM25_B * len(ts) / avg))
                for t in query
                if tf[t]
            )
            if score > 0:
                scores.append((-score, chunks[position].section_index, chunks[position].chunk_index, position))
        ranked = [chunks[p].chunk_id for *_, p in sorted(scores)[: QUERIES[n - 1]["top_k"]]]
        assert result["retrieved_chunk_ids"] == ranked, n


def test_duplicate_paragraph(outputs: dict[int, dict[str, Any]]) -> None:
    """(e): twice verbatim in Results -> one chunk; once more in Conclusion (noisy bytes) -> a different id."""
    raw = raw_sections()
    repeated = [p for p, count in Counter(paragraphs(raw[DUPLICATE_SECTION])).items() if count == 2]
    assert len(repeated) == 1
    duplicate = repeated[0]
    assert duplicate in paragraphs(raw[OTHER_SECTION])
    assert raw[DUPLICATE_SECTION].count(duplicate) == 2  # verbatim twice in the raw text
    assert duplicate not in raw[OTHER_SECTION]  # the Conclusion copy only matches after normalising
    ids = {
        section: [c.chunk_id for c in ingested().chunks if c.section == section and c.text == duplicate]
        for section in (DUPLICATE_SECTION, OTHER_SECTION)
    }
    assert len(ids[DUPLICATE_SECTION]) == 1 and len(ids[OTHER_SECTION]) == 1
    assert ids[DUPLICATE_SECTION] != ids[OTHER_SECTION]
    # The query about it retrieves both copies and gives one bullet citing both.
    both = [ids[DUPLICATE_SECTION][0], ids[OTHER_SECTION][0]]
    assert [b["chunk_ids"] for b in outputs[DUPLICATE_QUERY]["summary"]["bullets"]].count(both) == 1


def test_long_paragraph_is_split_at_sentences(outputs: dict[int, dict[str, Any]]) -> None:
    """(e): the one paragraph over the cap becomes several chunks, each <= the cap and ending a sentence."""
    long = [p for text in raw_sections().values() for p in paragraphs(text) if len(p) > MAX_CHUNK_CHARS]
    assert len(long) == 1 and long[0] in paragraphs(raw_sections()[LONG_SECTION])
    method = [c for c in ingested().chunks if c.section == LONG_SECTION]
    pieces = [c for c in method if c.text in long[0]]
    assert len(pieces) >= 3
    assert [c.chunk_index for c in pieces] == list(range(pieces[0].chunk_index, pieces[0].chunk_index + len(pieces)))
    assert " ".join(c.text for c in pieces) == long[0]
    for c in pieces:
        assert len(c.text) <= MAX_CHUNK_CHARS
        assert c.text[-1] in SENTENCE_TERMINATORS
    assert outputs[SPLIT_QUERY]["retrieved_chunk_ids"] == [c.chunk_id for c in pieces]


def test_normalisation_is_what_makes_queries_match(outputs: dict[int, dict[str, Any]]) -> None:
    """The matched words are absent from the raw text and present only after R-P1-2."""
    raw = "".join(raw_sections().values())
    by_id = {c.chunk_id: c.text for c in ingested().chunks}
    cases = {
        NFC_QUERY: ("naïve", "Schütze"),
        DROP_QUERY: ("The eviction order", "invalidation"),
        CRLF_QUERY: ("candidates, and the reader",),
    }
    for n, needles in cases.items():
        texts = " ".join(by_id[cid] for cid in outputs[n]["retrieved_chunk_ids"])
        for needle in needles:
            assert needle not in raw and needle in texts, (n, needle)


def test_cjk_query_matches_fewer_chunks_than_top_k(outputs: dict[int, dict[str, Any]]) -> None:
    result = outputs[CJK_QUERY]
    assert result["retrieval_trace"]["query_tokens"] == ["検索拡張生成"]
    assert len(result["retrieved_chunk_ids"]) == 1 < QUERIES[CJK_QUERY - 1]["top_k"]


def test_query_without_support(outputs: dict[int, dict[str, Any]]) -> None:
    result = outputs[NO_SUPPORT_QUERY]
    vocabulary = {t for c in ingested().chunks for t in words(c.text)}
    assert not set(words(QUERIES[NO_SUPPORT_QUERY - 1]["query"])) & vocabulary
    assert result["retrieved_chunk_ids"] == []
    assert result["summary"]["bullets"] == [{"text": NOT_STATED, "chunk_ids": []}]
    assert (result["summary_bullet_count"], result["unsupported_bullet_count"]) == (1, 1)
