"""A BM25 inverted index, built once at ingestion (R-P1-4).

Each term keeps its postings as two arrays: the chunk positions it occurs in, and its BM25 impact
there, ``idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))``, computed once. A query adds the
impacts of its terms into a score vector, touching only those postings, so it costs time in
proportion to them, not to the paper. idf is Lucene's never-negative
``ln(1 + (N - df + 0.5) / (df + 0.5))``; k1 and b come from the phase1 config table.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from generated.phase1.config import BM25_B, BM25_K1

Positions = npt.NDArray[np.int64]
Weights = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Index:
    """Postings per term (positions, weights), chunk lengths and their mean."""

    postings: dict[str, tuple[Positions, Weights]]
    lengths: tuple[int, ...]
    avg_length: float

    @classmethod
    def build(cls, chunk_tokens: list[list[str]]) -> Index:
        """Index each chunk's tokens."""
        lengths = tuple(len(t) for t in chunk_tokens)
        avg = sum(lengths) / len(lengths) if lengths else 0.0
        norm_base = avg or 1.0
        raw: dict[str, tuple[list[int], list[float]]] = {}
        for position, toks in enumerate(chunk_tokens):
            length_norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[position] / norm_base)
            for term, tf in Counter(toks).items():
                positions, weights = raw.setdefault(term, ([], []))
                positions.append(position)
                weights.append(tf * (BM25_K1 + 1) / (tf + length_norm))
        n = len(lengths)
        postings = {}
        for term, (positions, weights) in raw.items():
            idf = math.log(1 + (n - len(positions) + 0.5) / (len(positions) + 0.5))
            postings[term] = (np.array(positions, dtype=np.int64), idf * np.array(weights, dtype=np.float64))
        return cls(postings, lengths, avg)

    def df(self, term: str) -> int:
        """How many chunks contain the term."""
        entry = self.postings.get(term)
        return 0 if entry is None else len(entry[0])

    def idf(self, term: str) -> float:
        """Lucene's never-negative idf of a term."""
        n, df = len(self.lengths), self.df(term)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def scores(self, query_tokens: list[str]) -> Weights:
        """BM25 score of every chunk (0 where no query token occurs); a repeated token counts again."""
        entries = [self.postings[t] for t in query_tokens if t in self.postings]
        if not entries:
            return np.zeros(len(self.lengths), dtype=np.float64)
        # One pass in C; bincount adds in array order, i.e. in query-token order for every chunk.
        summed = np.bincount(
            np.concatenate([e[0] for e in entries]),
            weights=np.concatenate([e[1] for e in entries]),
            minlength=len(self.lengths),
        )
        return summed.astype(np.float64, copy=False)  # already float64 with weights; this types it

    def top(self, query_tokens: list[str], k: int) -> tuple[list[tuple[int, float]], int]:
        """The k best (position, score) with score > 0, ties by position (section, then chunk order);
        and how many chunks scored above 0."""
        entries = [self.postings[t] for t in query_tokens if t in self.postings]
        if len(entries) == 1:
            # One term: its postings already are the scored chunks, in position order, with their scores.
            candidates, values = entries[0]
        else:
            scores = self.scores(query_tokens)
            candidates = np.flatnonzero(scores > 0)  # via a boolean mask: far faster than nonzero() on floats
            values = scores[candidates]
        scored = len(candidates)
        if scored > k:
            # Partition only the positive scores (selection degrades on a sea of equal zeros), then keep
            # everything at least the k-th best, so that ties at the boundary are kept.
            kth = np.partition(values, scored - k)[scored - k]
            keep = values >= kth
            candidates, values = candidates[keep], values[keep]
        order = np.lexsort((candidates, -values))[:k]
        return [(int(candidates[i]), float(values[i])) for i in order], scored
