"""R-P1-2 for queries: a query is normalised exactly as the paper's text is."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.runtime.phase1.pipeline import ingest_document, retrieve

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
    from rcs_contracts.generated.phase1.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="Query must contain at least one word"):
        retrieve("\u00ad\u200b", PAPER, 1)


@pytest.mark.parametrize(
    ("text", "query", "word"),
    [
        ("हिन्दी भाषा का इतिहास।\n\nअंग्रेज़ी भी बोली जाती है।", "हिन्दी", "हिन्दी"),  # Devanagari: marks inside words
        ("อังกฤษ ใช้ใน การค้า\n\nภาษาไทย เป็นภาษาราชการ", "อังกฤษ", "อังกฤษ"),  # Thai: marks above and below
        ("İstanbul büyük bir şehir.\n\nAnkara başkenttir.", "İSTANBUL", "i̇stanbul"),  # Turkish dotted I
        ("Η ελληνική γλώσσα.\n\nΟ Όμηρος έγραψε.", "ΓΛΏΣΣΑ", "γλώσσα"),  # Greek: accents, final sigma
    ],
)
def test_words_of_every_script_stay_whole(text: str, query: str, word: str) -> None:
    from rcs_contracts.runtime.phase1.text import normalize, tokens

    assert word in tokens(normalize(text))
    paper = ingest_document("s", [("S", text)])
    result = retrieve(query, paper, 1)
    assert [h.chunk_id for h in result.hits] == [paper.chunks[0].chunk_id]


def test_combining_marks_do_not_split_words() -> None:
    from rcs_contracts.runtime.phase1.text import tokens

    assert tokens("हिन्दी") == ["हिन्दी"]  # [^\W_]+ gave ह, न, द
    assert tokens("İstanbul".casefold()) == ["i̇stanbul"]  # not "i" + "stanbul"
    assert tokens("snake_case x2") == ["snake", "case", "x2"]  # "_" still separates


@given(text=st.text(st.characters(codec="utf-8", categories=("L", "M", "N", "P", "S", "Z", "Cc")), max_size=60))
@settings(max_examples=400, deadline=None)
def test_ascii_text_is_tokenised_as_the_table_pattern_says(text: str) -> None:
    """The ASCII fast path (Python's re) gives exactly what the table's pattern gives in `regex`."""
    import regex

    from rcs_contracts.generated.phase1.config import TOKEN_PATTERN
    from rcs_contracts.runtime.phase1.text import tokens

    for subject in (text, text.encode("ascii", "ignore").decode("ascii")):
        assert tokens(subject) == regex.findall(TOKEN_PATTERN, subject.casefold())


def test_the_ascii_fast_path_is_taken_for_the_table_pattern() -> None:
    from rcs_contracts.runtime.phase1 import text

    assert text._ASCII_TOKEN is not None  # the table's pattern is one class repeated
    assert text._ascii_runs("[\\p{L}]+(?:'[\\p{L}]+)*") is None  # another shape: no fast path
