"""R-P1-2 for queries: a query is normalised exactly as the paper's text is."""

from __future__ import annotations

import unicodedata

import pytest

from runtime.phase1.pipeline import ingest_document, retrieve

PAPER = ingest_document("q", [("S", "Le café est prêt.\n\nCo-operation matters.")])


@pytest.mark.parametrize(
    "query",
    [
        unicodedata.normalize("NFD", "café"),  # decomposed é
        "caf\u00e9",
        "ca\u00adfé",  # a soft hyphen, dropped from papers by normalisation
        "café\u200b",  # a zero-width space
    ],
)
def test_a_query_finds_the_word_however_it_is_encoded(query: str) -> None:
    result = retrieve(query, PAPER, 1)
    assert [h.chunk_id for h in result.hits] == [PAPER.chunks[0].chunk_id]
    assert result.query == query  # stored as given


def test_a_query_of_only_dropped_characters_is_empty() -> None:
    from generated.phase1.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="Query must contain at least one word"):
        retrieve("\u00ad\u200b", PAPER, 1)
