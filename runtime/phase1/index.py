"""A BM25 inverted index, built once at ingestion (R-P1-4).

Each term keeps its postings as two arrays: the chunk positions it occurs in, and its BM25 impact
there, ``idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))``, computed once. A query adds the
impacts of its terms into a score vector, touching only those postings, so it costs time in
proportion to them, not to the paper. idf is Lucene's never-negative
``ln(1 + (N - df + 0.5) / (df + 0.5))``; k1 and b come from the phase1 config table.

Terms in more than ``RANKED_MIN_DF`` chunks also keep their postings' order by impact (best first,
ties by position). A one-term query reads its top k straight off that order. A longer query still
adds up all its postings (the exact scores, and the count of chunks scoring above 0), but then ranks
only a sample, each term's best postings, when a bound shows no chunk outside it can reach the top k,
and otherwise only the chunks at or above the sample's k-th best score: about k chunks, rather than
every scored one. Terms in a quarter of the chunks or more are added as dense vectors instead of
postings. Every path adds the same floats in the same order, so scores, ranks and ties are exactly
those of adding all postings in query-token order and sorting by score, then position.
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

# Up to this document frequency a term's postings are cheaper to rank at query time than to keep an
# order for: ordering every term added ~13% to Index.build on the 5 MiB bench paper (one sort call per
# term, mostly for the many rare terms whose few postings a query ranks in microseconds anyway);
# ordering only the terms above it adds ~3%.
RANKED_MIN_DF = 32
# How deep into each term's impact order a query samples, in multiples of k: deeper samples cost a
# little more to sort but more often hold the whole top k (see Index.top).
HEAD_DEPTH = 8
# A term in at least 1/DENSE_FRACTION of the chunks also keeps its impacts as a dense vector (0 where
# absent): adding it to the scores is one contiguous pass, several times faster than scattering that
# many postings, for ~n x 8 bytes each (31 terms, 3 MiB, on the 5 MiB bench paper).
DENSE_FRACTION = 4


@dataclass(frozen=True)
class Index:
    """Postings per term (positions, weights), chunk lengths and their mean; for frequent terms also
    the postings' order by impact, and for the most frequent their impacts as dense vectors."""

    postings: dict[str, tuple[Positions, Weights]]
    lengths: tuple[int, ...]
    avg_length: float
    # term -> indices into its postings, by impact descending then position; terms with df > RANKED_MIN_DF
    by_impact: dict[str, Positions]
    # term -> its impact in every chunk (0.0 where absent); terms with df >= chunks / DENSE_FRACTION
    dense: dict[str, Weights]

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
        by_impact = {}
        dense = {}
        for term, (positions, weights) in raw.items():
            idf = math.log(1 + (n - len(positions) + 0.5) / (len(positions) + 0.5))
            impacts = idf * np.array(weights, dtype=np.float64)
            postings[term] = (np.array(positions, dtype=np.int64), impacts)
            if len(positions) > RANKED_MIN_DF:
                # Stable on the negated impacts: equal impacts stay in position order, the tie-break.
                by_impact[term] = np.argsort(-impacts, kind="stable")
            if len(positions) * DENSE_FRACTION >= n:
                dense[term] = np.zeros(n, dtype=np.float64)
                dense[term][postings[term][0]] = impacts
        return cls(postings, lengths, avg, by_impact, dense)

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
        return self._sum([t for t in query_tokens if t in self.postings])

    def _sum(self, terms: list[str]) -> Weights:
        """Add the impacts of the query's (indexed) terms, in query-token order, into a score per chunk.

        Every chunk's score is the same float whichever way a term is added: its impacts in query-token
        order, starting from 0.0 (0.0 + x and x + 0.0 are exact), as one bincount over all the
        postings concatenated would add them.
        """
        summed: Weights | None = None
        for term in terms:
            dense = self.dense.get(term)
            positions, weights = self.postings[term]
            if summed is None:
                if dense is not None:
                    summed = dense.copy()
                else:
                    summed = np.zeros(len(self.lengths), dtype=np.float64)
                    summed[positions] = weights
            elif dense is not None:
                np.add(summed, dense, out=summed)
            else:
                np.add.at(summed, positions, weights)  # a term's positions are distinct: one add each
        return np.zeros(len(self.lengths), dtype=np.float64) if summed is None else summed

    def top(self, query_tokens: list[str], k: int) -> tuple[list[tuple[int, float]], int]:
        """The k best (position, score) with score > 0, ties by position (section, then chunk order);
        and how many chunks scored above 0."""
        terms = [t for t in query_tokens if t in self.postings]
        if not terms:
            return [], 0
        if len(terms) == 1:
            # One term: its postings already are the scored chunks, with their scores.
            positions, weights = self.postings[terms[0]]
            ranked = self.by_impact.get(terms[0])
            if ranked is not None:
                best = ranked[:k]
                return list(zip(positions[best].tolist(), weights[best].tolist(), strict=True)), len(positions)
            return _best(positions, weights, k), len(positions)
        entries = [self.postings[t] for t in terms]
        summed = self._sum(terms)
        # Impacts are > 0, so a chunk scored exactly where its sum is not +0.0 (all-zero bits);
        # counting on the integer view skips a float compare over every chunk.
        scored = int(np.count_nonzero(summed.view(np.int64)))
        # A sample of the chunks likeliest to rank: each term's best HEAD_DEPTH x k postings by impact
        # (all of them for a term with fewer, or with no order). `beyond` is the best impact a term
        # has outside the sample (0 when it is all in it).
        depth = HEAD_DEPTH * k
        heads: list[Positions] = []
        beyond: dict[str, float] = {}
        for term in dict.fromkeys(terms):
            positions, weights = self.postings[term]
            ranked = self.by_impact.get(term)
            if ranked is None or len(ranked) <= depth:
                heads.append(positions)
                beyond[term] = 0.0
            else:
                heads.append(positions[ranked[:depth]])
                beyond[term] = float(weights[ranked[depth]])
        candidates = _distinct(np.concatenate(heads))
        values = summed.take(candidates)
        if len(candidates) > k:  # else the sample is every scored chunk
            # k distinct chunks reach the sample's k-th best score, so the top k (with any tie at the
            # k-th) all score at least that floor.
            floor = np.partition(values, len(values) - k)[len(values) - k]
            # A chunk outside the sample scores at most the terms' `beyond` impacts added up in the
            # same order (float addition is monotonic), so if that stays below the floor the sample
            # holds the whole top k; otherwise look for every chunk reaching the floor.
            ceiling = 0.0
            for term in terms:
                ceiling += beyond[term]
            if ceiling >= floor:
                candidates = self._reaching(entries, summed, floor)
                values = summed.take(candidates)
            else:
                keep = values >= floor  # the floor is the sample's k-th best: _best need not find it again
                candidates, values = candidates[keep], values[keep]
        return _best(candidates, values, k), scored

    @staticmethod
    def _reaching(entries: list[tuple[Positions, Weights]], summed: Weights, floor: float) -> Positions:
        """The chunks whose score is at least ``floor`` (> 0), ascending."""
        if 2 * sum(len(e[0]) for e in entries) < len(summed):
            # Few postings: look the sums up at them rather than scanning every chunk.
            every = np.concatenate([e[0] for e in entries])
            return _distinct(every[summed.take(every) >= floor])
        return np.flatnonzero(summed >= floor)  # via a mask: far faster than nonzero() on floats


def _distinct(positions: Positions) -> Positions:
    """The distinct positions, ascending (np.unique without its overhead on small arrays)."""
    ordered = np.sort(positions)
    first = np.empty(len(ordered), dtype=np.bool_)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def _best(candidates: Positions, values: Weights, k: int) -> list[tuple[int, float]]:
    """The k best (position, score) of distinct candidate chunks, ties by position."""
    if len(candidates) > k:
        # Keep everything at least the k-th best, so that ties at the boundary are kept for the sort.
        kth = np.partition(values, len(values) - k)[len(values) - k]
        keep = values >= kth
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))[:k]
    return list(zip(candidates[order].tolist(), values[order].tolist(), strict=True))
