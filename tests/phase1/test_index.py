"""Index.top and Index.scores against brute force (R-P1-4): every shortcut gives the same floats and list.

Index.top skips work by an impact order kept for frequent terms, a sampled floor under the k-th score
and a ceiling on chunks outside the sample; Index.scores adds the most frequent terms as dense
vectors. The corpora here make all of those paths run (the thresholds are moved too): a small
vocabulary (terms in far more than RANKED_MIN_DF chunks), chunks of few lengths (many exactly equal
impacts, so ties at the k-th score), rare terms, repeated query tokens, and k from 1 to more than the
chunks that score.
"""

from __future__ import annotations

import random

import pytest

from runtime.phase1 import index as index_module
from runtime.phase1.index import Index

COMMON = ["a", "b", "c", "d", "e", "f"]
RARE = [f"r{i}" for i in range(40)]


def brute_scores(index: Index, query_tokens: list[str]) -> list[float]:
    """Each chunk's score added up in query-token order in plain floats."""
    scores = [0.0] * len(index.lengths)
    for token in query_tokens:
        if token in index.postings:
            positions, weights = index.postings[token]
            for position, weight in zip(positions.tolist(), weights.tolist(), strict=True):
                scores[position] += weight
    return scores


def brute_top(index: Index, query_tokens: list[str], k: int) -> tuple[list[tuple[int, float]], int]:
    """The brute-force scores ranked by score, then position."""
    scored = sorted((-s, p) for p, s in enumerate(brute_scores(index, query_tokens)) if s > 0)
    return [(p, -negative) for negative, p in scored[:k]], len(scored)


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
        index = Index.build(corpus(rng, n_chunks))
        for _ in range(150):
            query = [rng.choice(COMMON + RARE[:10] + ["unseen"]) for _ in range(rng.randint(1, 6))]
            if rng.random() < 0.3:
                query += query[:2]  # a repeated token counts again
            assert index.scores(query).tolist() == brute_scores(index, query)
            for k in (1, 2, 3, 10, rng.randint(1, 2 * n_chunks + 1)):
                assert index.top(query, k) == brute_top(index, query, k), (n_chunks, query, k)


def test_top_returns_python_numbers() -> None:
    index = Index.build(corpus(random.Random(1), 200))
    for query in (["a"], ["a", "b", "r1"], ["r3"]):
        best, scored = index.top(query, 5)
        assert type(scored) is int
        assert all(type(p) is int and type(s) is float for p, s in best)
