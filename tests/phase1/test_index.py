"""Index.top and Index.scores against brute force (R-P1-4): every shortcut gives the same scores and list.

Index.top skips work by an impact order kept for frequent terms, a sampled floor under the k-th score
and a ceiling on chunks outside the sample; Index.scores adds the most frequent terms as dense
vectors. The corpora here make all of those paths run (the thresholds are moved too): a small
vocabulary (terms in far more than RANKED_MIN_DF chunks), chunks of few lengths (many exactly equal
impacts, so ties at the k-th score), rare terms, repeated query tokens, and k from 1 to more than the
chunks that score. The brute force computes every impact on its own, from the tokens, by SPEC chapter 8's
definition: no array of the index is trusted.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rcs_contracts.generated.phase1.config import BM25_B, BM25_K1, SCORE_BITS
from rcs_contracts.runtime.phase1 import InvalidInputError, ingest_document, retrieve
from rcs_contracts.runtime.phase1 import index as index_module
from rcs_contracts.runtime.phase1.index import Index

COMMON = ["a", "b", "c", "d", "e", "f"]
RARE = [f"r{i}" for i in range(40)]


def brute_quanta(chunks: list[list[str]], query_tokens: list[str]) -> list[int]:
    """Each chunk's score in quanta by SPEC chapter 8 (R-P1-4): per query token present in the chunk, its impact
    idf x saturation (the saturation exact in rationals, rounded once) rounded to whole quanta of
    2**-SCORE_BITS, at least one; summed as integers."""
    n = len(chunks)
    lengths = [len(c) for c in chunks]
    avg = Fraction(sum(lengths), n) if sum(lengths) else Fraction(1)
    k1, b = Fraction(str(BM25_K1)), Fraction(str(BM25_B))
    totals = [0] * n
    for token in query_tokens:
        df = sum(1 for c in chunks if token in c)
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for i, chunk in enumerate(chunks):
            tf = Counter(chunk)[token]
            if tf:
                saturation = float(tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[i] / avg)))
                totals[i] += max(1, round(idf * saturation * 2**SCORE_BITS))
    return totals


def brute_scores(chunks: list[list[str]], query_tokens: list[str]) -> list[float]:
    """The brute-force scores as floats (quanta x 2**-SCORE_BITS)."""
    return [q * 2.0**-SCORE_BITS for q in brute_quanta(chunks, query_tokens)]


def brute_top(chunks: list[list[str]], query_tokens: list[str], k: int) -> tuple[list[tuple[int, float]], int]:
    """The brute-force scores ranked by score, then position."""
    scored = sorted((-q, p) for p, q in enumerate(brute_quanta(chunks, query_tokens)) if q > 0)
    return [(p, -negative * 2.0**-SCORE_BITS) for negative, p in scored[:k]], len(scored)


def corpus(rng: random.Random, n_chunks: int) -> list[list[str]]:
    chunks = []
    for _ in range(n_chunks):
        toks = [rng.choice(COMMON) for _ in range(rng.choice([2, 3, 3, 4]))]
        if rng.random() < 0.2:
            toks.append(rng.choice(RARE))
        chunks.append(toks)
    return chunks


@pytest.mark.parametrize(
    ("ranked_min_df", "head_depth", "dense_fraction"),
    [(32, 8, 4), (0, 1, 4), (0, 8, 1), (4, 2, 10**9), (10**9, 8, 4), (10**9, 8, 1)],
)
def test_top_equals_brute_force(
    monkeypatch: pytest.MonkeyPatch, ranked_min_df: int, head_depth: int, dense_fraction: int
) -> None:
    monkeypatch.setattr(index_module, "RANKED_MIN_DF", ranked_min_df)
    monkeypatch.setattr(index_module, "HEAD_DEPTH", head_depth)
    monkeypatch.setattr(index_module, "DENSE_FRACTION", dense_fraction)
    rng = random.Random(f"{ranked_min_df}/{head_depth}/{dense_fraction}")
    for n_chunks in (1, 7, 60, 400):
        chunks = corpus(rng, n_chunks)
        index = Index.build(chunks)
        for _ in range(150):
            query = [rng.choice(COMMON + RARE[:10] + ["unseen"]) for _ in range(rng.randint(1, 6))]
            if rng.random() < 0.3:
                query += query[:2]  # a repeated token counts again
            assert index.scores(query).tolist() == brute_scores(chunks, query)
            for k in (1, 2, 3, 10, rng.randint(1, 2 * n_chunks + 1)):
                assert index.top(query, k) == brute_top(chunks, query, k), (n_chunks, query, k)


def test_top_returns_python_numbers() -> None:
    index = Index.build(corpus(random.Random(1), 200))
    for query in (["a"], ["a", "b", "r1"], ["r3"]):
        best, scored = index.top(query, 5)
        assert type(scored) is int
        assert all(type(p) is int and type(s) is float for p, s in best)


def test_exact_ties_do_not_depend_on_the_query_order() -> None:
    # The reproducer: both chunks hold x, y and z with the same length, tf 4/2/1 against 1/2/4,
    # so their scores are equal sums of the same three impacts in another order. Summed as floats in
    # query order they differed by an ulp, and which chunk ranked first followed the query's order.
    paper = ingest_document("m", [{"label": "S", "text": "x x x x y y z\n\nx y y z z z z"}])
    first = paper.chunks[0].chunk_id
    for words in itertools.permutations(["x", "y", "z"]):
        result = retrieve(" ".join(words), paper, 1)
        assert [h.chunk_id for h in result.hits] == [first], words
    both = retrieve("z y x", paper, 2).hits
    assert both[0].score == both[1].score and [h.chunk_id for h in both] == [c.chunk_id for c in paper.chunks]


def test_equal_saturation_from_different_tf_and_length_is_a_tie() -> None:
    # 13 x dl(a) = 5 x dl(b) with tf 1 and 2: tf / (tf + k1 (1 - b + b dl / avgdl)) is exactly equal
    # (1 x (0.25 avgdl + 0.75 x 13) = 2 x (0.25 avgdl + 0.75 x 5) at avgdl 9), though computed in
    # floats the two factors need not be. Computed in rationals and rounded once, they are one float.
    a = ["x", "p1", "p2", "p3", "p4"]
    b = ["x", "x"] + [f"q{i}" for i in range(11)]
    index = Index.build([a, b])
    assert index.postings["x"][1].tolist()[0] == index.postings["x"][1].tolist()[1]
    assert index.top(["x"], 2) == brute_top([a, b], ["x"], 2) and index.top(["x"], 1)[0][0][0] == 0


def test_a_chunk_outside_the_sample_that_ties_the_floor_and_comes_first_ranks_first() -> None:
    # The sample is each term's best 8 x k postings. Chunk 8 ("a b b") holds exactly the best impact
    # outside each sample, and their sum ties the sample's best, chunk 9 ("a a b"): the same two
    # impacts the other way round (a and b have one df, so one idf). The bound is reached, not
    # exceeded, and only a search for every chunk at the floor finds chunk 8, which wins the tie.
    fill = iter(range(1000))
    chunks = (
        [["b", "b", f"z{next(fill)}", f"z{next(fill)}"] for _ in range(8)]  # b's sample
        + [["a", "b", "b", f"z{next(fill)}"], ["a", "a", "b", f"z{next(fill)}"]]
        + [["a", "a", f"z{next(fill)}", f"z{next(fill)}"] for _ in range(7)]  # the rest of a's sample
        + [["a", *(f"z{next(fill)}" for _ in range(7))] for _ in range(31)]  # lower impacts: df 40 each
        + [["b", *(f"z{next(fill)}" for _ in range(7))] for _ in range(30)]
    )
    index = Index.build(chunks)
    assert index.df("a") == index.df("b") == 40 > index_module.RANKED_MIN_DF
    for query in (["a", "b"], ["b", "a"]):
        assert index.top(query, 1) == brute_top(chunks, query, 1)
        assert index.top(query, 1)[0][0][0] == 8
    paper = ingest_document("m", [{"label": "S", "text": "\n\n".join(" ".join(c) for c in chunks)}])
    assert [h.chunk_id for h in retrieve("a b", paper, 1).hits] == [paper.chunks[8].chunk_id]


@given(
    st.lists(st.lists(st.sampled_from("abcdef"), min_size=0, max_size=9), min_size=1, max_size=30),
    st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=6),
    st.integers(min_value=1, max_value=12),
    st.randoms(use_true_random=False),
)
def test_any_order_of_the_query_gives_the_same_result(
    chunks: list[list[str]], query: list[str], k: int, rnd: random.Random
) -> None:
    index = Index.build(chunks)
    shuffled = list(query)
    rnd.shuffle(shuffled)
    expected = brute_top(chunks, query, k)
    assert index.top(query, k) == expected
    assert index.top(shuffled, k) == expected


def test_a_query_too_long_to_sum_exactly_is_refused() -> None:
    index = replace(Index.build([["a", "b"], ["b"]]), max_terms=2)
    assert index.top(["a", "b", "zzz"], 1)[1] == 2  # tokens the paper lacks do not count
    with pytest.raises(InvalidInputError) as caught:
        index.top(["a", "b", "b"], 1)
    assert str(caught.value) == "Query has 3 indexed words; at most 2 can be scored exactly against this paper"


def test_the_overflow_bound_is_the_largest_impact_s_share_of_int64() -> None:
    index = Index.build([["a"], ["b", "b", "c"], ["c"]])
    largest = max(int(q.max()) for _, q in index.postings.values())
    assert index.max_terms == (2**63 - 1) // largest
    assert index.max_terms * largest <= 2**63 - 1 < (index.max_terms + 1) * largest


def test_an_index_is_frozen() -> None:
    # One index serves every query of its paper (and the research docs tool's cache): nothing may rebind it.
    import dataclasses

    index = Index.build([["a", "b"], ["b"]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        index.avg_length = 0.0  # type: ignore[misc]
