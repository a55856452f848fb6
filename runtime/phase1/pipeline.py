"""The four contract functions (phase1.md, Interfaces): ingest, retrieve, summarise, and the pipeline."""

from __future__ import annotations

from pydantic import PrivateAttr

from rcs_contracts.generated.phase1 import errors as E
from rcs_contracts.generated.phase1 import ingested_paper_schema as ingested_models
from rcs_contracts.generated.phase1 import messages as M
from rcs_contracts.generated.phase1.config import BM25_B, BM25_K1, DEFAULT_TOP_K, MODES, NOT_STATED
from rcs_contracts.generated.phase1.grounded_summary_schema import Bullet, GroundedSummary
from rcs_contracts.generated.phase1.ingested_paper_schema import Chunk
from rcs_contracts.generated.phase1.pipeline_result_schema import PipelineResult
from rcs_contracts.generated.phase1.retrieval_result_schema import RetrievalResult
from rcs_contracts.runtime.phase1.chunks import chunk_sections, section_pairs
from rcs_contracts.runtime.phase1.index import Index
from rcs_contracts.runtime.phase1.text import query_tokens as text_query_tokens
from rcs_contracts.runtime.phase1.text import sentences, tokens


class IngestedPaper(ingested_models.IngestedPaper):
    """An ingested paper: its chunks (the schema's fields) and the BM25 index built from them."""

    _index: Index = PrivateAttr()

    @property
    def index(self) -> Index:
        """The inverted index over the chunks, in chunk order."""
        # From pydantic's private-value store directly: `self._index` first fails the normal attribute
        # lookup (an AttributeError raised and caught) before pydantic's __getattr__ looks there, ~6 µs
        # a call, as much as a one-term query's whole top-k. A paper never indexed still gets
        # pydantic's own AttributeError.
        # mutation: equivalent: a missed fast path falls back to `self._index`, the same index, slower
        index: Index | None = (self.__pydantic_private__ or {}).get("_index")
        return index if index is not None else self._index


def ingest_document(paper_id: str, sections: object) -> IngestedPaper:
    """Normalise, chunk and index one paper (R-P1-1..4); ValueError (InvalidInputError) on bad input."""
    if not isinstance(paper_id, str) or not paper_id.strip():
        raise E.empty_paper_id()
    rows = chunk_sections(paper_id, section_pairs(sections))
    if not rows:
        raise E.empty_paper(paper_id=paper_id)
    chunks = [
        Chunk(chunk_id=cid, section=section, text=text, section_index=si, chunk_index=ci)
        for cid, section, text, si, ci in rows
    ]
    paper = IngestedPaper(paper_id=paper_id, chunks=chunks)
    paper._index = Index.build([tokens(c.text) for c in chunks])
    return paper


def _check_top_k(top_k: object) -> int:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k <= 0:
        raise E.bad_top_k(top_k=repr(top_k))
    return top_k


def retrieve(query: str, ingested_paper: IngestedPaper, top_k: int) -> RetrievalResult:
    """The top-k chunks by BM25; chunks scoring 0 are left out; ties break by section, then chunk order."""
    query_tokens = text_query_tokens(query) if isinstance(query, str) else []
    if not query_tokens:
        raise E.empty_query()
    k = _check_top_k(top_k)
    index = ingested_paper.index
    chunks = ingested_paper.chunks  # in section order, then chunk order: position order is the tie-break
    best, scored = index.top(query_tokens, k)
    # The whole result is validated in one call from plain data: the same frozen models, field values
    # and fields-set as building each Hit, TermStat and the trace on its own, without a Python-level
    # __init__ per model (~20 µs less per top-10 query on the bench paper).
    return RetrievalResult.model_validate(
        {
            "paper_id": ingested_paper.paper_id,
            "query": query,
            "top_k": k,
            "hits": [
                {"rank": rank, "chunk_id": chunks[p].chunk_id, "section": chunks[p].section, "score": score}
                for rank, (p, score) in enumerate(best, 1)
            ],
            "trace": {
                "query_tokens": query_tokens,
                "terms": [{"term": t, "df": index.df(t), "idf": index.idf(t)} for t in dict.fromkeys(query_tokens)],
                "chunk_count": len(chunks),
                "avg_chunk_length": index.avg_length,
                "k1": BM25_K1,
                "b": BM25_B,
                "scored_chunks": scored,
            },
        }
    )


def _best_sentence(text: str, query_tokens: set[str]) -> str:
    """The sentence of a chunk sharing the most distinct query tokens (the earliest on a tie)."""
    # max() keeps the first of equal maxima: the earliest sentence wins a tie.
    return max(sentences(text) or [text], key=lambda sentence: len(query_tokens & set(tokens(sentence))))


def _not_stated() -> Bullet:
    return Bullet(text=NOT_STATED, chunk_ids=[])


def generate_summary(
    ingested_paper: IngestedPaper, retrieval_result: RetrievalResult, mode: str = MODES[0]
) -> GroundedSummary:
    """One extractive bullet per retrieved chunk: its best-matching sentence, verbatim (R-P1-5)."""
    if mode not in MODES:
        raise E.bad_mode(mode=str(mode), allowed=", ".join(MODES))
    if retrieval_result.paper_id != ingested_paper.paper_id:
        raise E.wrong_paper(found=retrieval_result.paper_id, expected=ingested_paper.paper_id)
    by_id = {c.chunk_id: c for c in ingested_paper.chunks}
    query_tokens = set(text_query_tokens(retrieval_result.query))
    bullets: list[Bullet] = []
    positions: dict[str, int] = {}
    for hit in retrieval_result.hits:
        chunk = by_id.get(hit.chunk_id)
        text = _best_sentence(chunk.text, query_tokens) if chunk is not None else ""
        if chunk is None or not text or text not in chunk.text:
            bullets.append(_not_stated())  # not found in its cited chunk: replaced (R-P1-5)
            continue
        if text in positions:  # the same sentence in two chunks: one bullet citing both
            earlier = bullets[positions[text]]
            bullets[positions[text]] = Bullet(text=text, chunk_ids=[*earlier.chunk_ids, chunk.chunk_id])
            continue
        positions[text] = len(bullets)
        bullets.append(Bullet(text=text, chunk_ids=[chunk.chunk_id]))
    if not bullets:
        bullets = [_not_stated()]  # empty retrieval: exactly one not-stated bullet (R-P1-5)
    return GroundedSummary(paper_id=ingested_paper.paper_id, mode=mode, bullets=bullets)


def check_invariants(ingested_paper: IngestedPaper, summary: GroundedSummary) -> None:
    """phase1.md Invariants 1 and 3, and R-P1-5's verbatim rule; InvariantViolationError otherwise."""
    texts = {c.chunk_id: c.text for c in ingested_paper.chunks}
    for index, bullet in enumerate(summary.bullets):
        if bullet.text == NOT_STATED:
            if bullet.chunk_ids:
                raise E.invariant_violation(detail=M.not_stated_cites(index=index))
            continue
        if not bullet.chunk_ids:
            raise E.invariant_violation(detail=M.cites_nothing(index=index))
        for cid in bullet.chunk_ids:
            if cid not in texts:
                raise E.invariant_violation(detail=M.unknown_chunk(index=index, chunk_id=cid))
            if bullet.text not in texts[cid]:
                raise E.invariant_violation(detail=M.not_verbatim(index=index, chunk_id=cid))


def run_phase1_pipeline(
    paper_id: str, sections: object, query: str, mode: str = MODES[0], top_k: int = DEFAULT_TOP_K
) -> PipelineResult:
    """Ingest, retrieve, summarise, check the invariants (fail closed), and report."""
    if mode not in MODES:
        raise E.bad_mode(mode=str(mode), allowed=", ".join(MODES))
    return summarise_ingested(ingest_document(paper_id, sections), query, mode, top_k)


def summarise_ingested(paper: IngestedPaper, query: str, mode: str, top_k: int) -> PipelineResult:
    """The pipeline after ingestion, for a caller that keeps the ingested paper (the CLI maps chunks to sections)."""
    if mode not in MODES:
        raise E.bad_mode(mode=str(mode), allowed=", ".join(MODES))
    result = retrieve(query, paper, top_k)
    summary = generate_summary(paper, result, mode)
    check_invariants(paper, summary)
    return PipelineResult(
        paper_id=paper.paper_id,
        mode=mode,
        retrieval_trace=result.trace,
        retrieved_chunk_ids=[h.chunk_id for h in result.hits],
        summary_bullet_count=len(summary.bullets),
        unsupported_bullet_count=sum(1 for b in summary.bullets if b.text == NOT_STATED),
        summary=summary,
    )
