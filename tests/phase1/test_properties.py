"""Property tests: any sections and query give a result whose invariants hold, or a contract ValueError."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from generated.phase1.config import MAX_CHUNK_CHARS, NOT_STATED
from runtime.phase1 import Phase1Error, ingest_document, run_phase1_pipeline

words = st.sampled_from(["bm25", "dense", "retrieval", "Café", "naïve", "ΔG", "検索", "rank", "the", "of", "x"])
sentence = st.lists(words, min_size=1, max_size=12).map(lambda w: " ".join(w) + ".")


texts = st.lists(
    st.one_of(sentence, st.text(max_size=40), st.sampled_from(["\n\n", "\r\n", "\u200b", "\ufeff", "  \t", "\u00ad"])),
    max_size=30,
).map("".join)
labels = st.text(min_size=0, max_size=8)
sections = st.lists(st.tuples(labels, texts), max_size=5)
queries = st.one_of(st.text(max_size=20), st.lists(words, min_size=1, max_size=4).map(" ".join))


@settings(max_examples=150, deadline=None)
@given(paper_sections=sections, query=queries, top_k=st.integers(-2, 8))
def test_invariants_always_hold(paper_sections: list[tuple[str, str]], query: str, top_k: int) -> None:
    try:
        result = run_phase1_pipeline("prop", paper_sections, query, top_k=top_k)
    except Phase1Error as error:
        assert isinstance(error, ValueError) and str(error)
        return
    paper = ingest_document("prop", paper_sections)
    texts_by_id = {c.chunk_id: c for c in paper.chunks}
    for chunk in paper.chunks:
        assert len(chunk.text) <= MAX_CHUNK_CHARS
        assert chunk.chunk_id == hashlib.sha256(f"prop|{chunk.section}|{chunk.text}".encode()).hexdigest()[:16]
    assert len(texts_by_id) == len(paper.chunks)
    assert result.summary.bullets
    for bullet in result.summary.bullets:
        if bullet.text == NOT_STATED:
            assert bullet.chunk_ids == []
        else:
            assert bullet.chunk_ids and all(bullet.text in texts_by_id[c].text for c in bullet.chunk_ids)
    assert result.unsupported_bullet_count == sum(1 for b in result.summary.bullets if b.text == NOT_STATED)
    assert len(result.retrieved_chunk_ids) <= top_k
    again = run_phase1_pipeline("prop", paper_sections, query, top_k=top_k)
    assert again.model_dump_json() == result.model_dump_json()
