"""A BM25 inverted index, built once at ingestion (R-P1-4).

A query costs time in proportion to the postings of its terms, not to the size of the paper.
idf is Lucene's never-negative ``ln(1 + (N - df + 0.5) / (df + 0.5))``; k1 and b come from the table.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from generated.phase1.config import BM25_B, BM25_K1


@dataclass(frozen=True)
class Index:
    """Postings (term -> ((chunk position, term frequency), ...)) and chunk lengths."""

    postings: dict[str, tuple[tuple[int, int], ...]]
    lengths: tuple[int, ...]
    avg_length: float

    @classmethod
    def build(cls, chunk_tokens: list[list[str]]) -> Index:
        """Index each chunk's tokens."""
        postings: dict[str, list[tuple[int, int]]] = {}
        for position, toks in enumerate(chunk_tokens):
            for term, tf in Counter(toks).items():
                postings.setdefault(term, []).append((position, tf))
        lengths = tuple(len(t) for t in chunk_tokens)
        avg = sum(lengths) / len(lengths) if lengths else 0.0
        return cls({t: tuple(p) for t, p in postings.items()}, lengths, avg)

    def idf(self, term: str) -> float:
        """Lucene's never-negative idf of a term."""
        n = len(self.lengths)
        df = len(self.postings.get(term, ()))
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def scores(self, query_tokens: list[str]) -> dict[int, float]:
        """BM25 score of every chunk that contains a query token; each query token counts once per occurrence."""
        scores: dict[int, float] = {}
        avg = self.avg_length or 1.0
        for term in query_tokens:
            plist = self.postings.get(term)
            if not plist:
                continue
            idf = self.idf(term)
            for position, tf in plist:
                norm = tf + BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[position] / avg)
                scores[position] = scores.get(position, 0.0) + idf * tf * (BM25_K1 + 1) / norm
        return scores
