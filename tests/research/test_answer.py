"""The extractive answer (R-RS-8): sentences quoted verbatim, ranked, cut to the table's length."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.generated.research.responses import ANSWER_HEADING, MAX_BULLET_CHARS, MAX_BULLETS
from rcs_contracts.generated.research.source_bundle_schema import Source
from rcs_contracts.runtime.phase1.text import query_tokens, sentences, tokens
from rcs_contracts.runtime.research.adapter import source_id
from rcs_contracts.runtime.research.answer import answer


def src(locator: str, content: str) -> Source:
    return Source.model_validate(
        {
            "source_id": source_id("docs", locator, content),
            "tool": "docs",
            "locator": locator,
            "title": locator,
            "content": content,
            "metadata": {},
            "injection_risk_flag": False,
            "flags": [],
        }
    )


def test_each_bullet_is_one_sentence_ranked_by_the_query() -> None:
    one = src("a", "Cats sleep a lot. Saturation bounds term frequency in BM25. Dogs bark.")
    two = src("b", "BM25 saturation is controlled by k1.")
    result = answer("BM25 saturation", [one, two])
    texts = [b.text for b in result.bullets]
    assert texts[:2] == ["Saturation bounds term frequency in BM25.", "BM25 saturation is controlled by k1."]
    assert set(texts) <= {
        "Cats sleep a lot.",
        "Saturation bounds term frequency in BM25.",
        "Dogs bark.",
        "BM25 saturation is controlled by k1.",
    }
    assert len(texts) <= MAX_BULLETS
    assert result.text == ANSWER_HEADING.format(count=len(result.sources)) and result.action == "ANSWER"


def test_a_sentence_shared_by_two_sources_cites_both() -> None:
    one, two = src("a", "Shared fact here."), src("b", "Shared fact here. Other.")
    result = answer("shared fact", [one, two])
    assert result.bullets[0].text == "Shared fact here."
    assert result.bullets[0].source_ids == [one.source_id, two.source_id]


def test_the_bullet_length_limit_is_inclusive_and_cuts_at_a_word() -> None:
    exact = ("word " * MAX_BULLET_CHARS)[: MAX_BULLET_CHARS - 1].rstrip() + "."
    exact = exact + "x" * (MAX_BULLET_CHARS - len(exact))  # exactly the limit, no terminator inside
    assert len(exact) == MAX_BULLET_CHARS
    (bullet,) = answer("word", [src("a", exact)]).bullets
    assert bullet.text == exact
    longer = "alpha " * (MAX_BULLET_CHARS // 6 + 5)
    (bullet,) = answer("alpha", [src("b", longer.strip())]).bullets
    assert len(bullet.text) <= MAX_BULLET_CHARS and bullet.text.endswith("alpha")
    assert longer.startswith(bullet.text)


def test_only_cited_sources_are_listed() -> None:
    cited, uncited = src("a", "Relevant BM25 fact."), src("b", "Another relevant fact.")
    result = answer("BM25", [cited, uncited])
    listed = [s.source_id for s in result.sources]
    used = {sid for b in result.bullets for sid in b.source_ids}
    assert listed and set(listed) == used
    assert [s.locator for s in result.sources] == [s.locator for s in (cited, uncited) if s.source_id in used]


def test_a_cut_keeps_a_one_letter_first_word() -> None:
    text = "a " + "x" * (MAX_BULLET_CHARS + 50)
    (bullet,) = answer("x", [src("a", text)]).bullets
    assert bullet.text == "a"


def test_the_fixed_responses_say_the_table_sentences() -> None:
    from rcs_contracts.generated.research.responses import BASELINE, CLARIFY, UNKNOWN
    from rcs_contracts.runtime.research.answer import fixed

    for action, sentence in (("ASK_CLARIFY", CLARIFY), ("UNKNOWN", UNKNOWN), ("BASELINE", BASELINE)):
        response = fixed(action)
        assert (response.action, response.text, response.bullets, response.sources) == (action, sentence, [], [])


WORDS = ["bm25", "saturation", "Straße", "strasse", "k1", "cat", "café", "cafe\u0301", "x", "ΣΊΣΥΦΟΣ", "σίσυφος"]


@settings(max_examples=200, deadline=None)
@given(
    contents=st.lists(
        st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=1, max_size=4),
        min_size=1,
        max_size=4,
    ),
    query=st.lists(st.sampled_from(WORDS), max_size=4),
)
def test_the_ranking_is_the_overlap_of_every_sentence_by_brute_force(
    contents: list[list[list[str]]], query: list[str]
) -> None:
    # The answer skips tokenising a sentence that holds no wanted token as a substring; the ranking
    # must be the one that tokenises every sentence: (-shared tokens, source order, sentence order).
    sources = [src(f"s{i}", " ".join(" ".join(words) + "." for words in content)) for i, content in enumerate(contents)]
    wanted = set(query_tokens(" ".join(query)))
    rank: dict[str, tuple[int, int, int]] = {}
    for s_index, source in enumerate(sources):
        for t_index, sentence in enumerate(sentences(source.content)):
            rank.setdefault(sentence, (-len(wanted & set(tokens(sentence))), s_index, t_index))
    expected = sorted(rank, key=rank.__getitem__)[:MAX_BULLETS]
    assert [b.text for b in answer(" ".join(query), sources).bullets] == expected
