"""A BM25 inverted index, built once at ingestion (R-P1-4).

Each term keeps its postings as two arrays: the chunk positions it occurs in, and its BM25 impact
there, ``idf x tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))``, computed once. A query adds the
impacts of its terms into a score vector, touching only those postings, so it costs time in
proportion to them, not to the paper. idf is Lucene's never-negative
``ln(1 + (N - df + 0.5) / (df + 0.5))``; k1 and b come from the phase1 config table.

Exact ties are ties (R-P1-4; SPEC chapter 8). An impact is held as a whole number of quanta of
``2**-SCORE_BITS`` (at least one), and a score is the integer sum of its impacts: addition is exact,
so its order (the query's, or a fast path's) cannot make two equal scores differ by an ulp and let
float rounding, rather than section and chunk order, break the tie. The term-saturation factor is
computed in exact rational arithmetic (k1 and b read as the decimals the table writes) and rounded
once, so chunks whose ``tf / dl`` make the factor equal get the same impact too.

Terms in more than ``RANKED_MIN_DF`` chunks also keep their postings' order by impact (best first,
ties by position). A one-term query reads its top k straight off that order. A longer query still
adds up all its postings (the exact scores, and the count of chunks scoring above 0), but then ranks
only a sample, each term's best postings, when a bound shows no chunk outside it can reach the top k,
and otherwise only the chunks at or above the sample's k-th best score: about k chunks, rather than
every scored one. Terms in a quarter of the chunks or more are added as dense vectors instead of
postings. Every path sums the same integers, so scores, ranks and ties are exactly those of adding
all postings and sorting by score, then position.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from rcs_contracts.generated.phase1 import errors as E
from rcs_contracts.generated.phase1.config import BM25_B, BM25_K1, SCORE_BITS

Positions = npt.NDArray[np.int64]
Quanta = npt.NDArray[np.int64]
Weights = npt.NDArray[np.float64]

# One quantum as a float: a score of q quanta is q x QUANTUM (exact while q < 2**53).
QUANTUM = math.ldexp(1.0, -SCORE_BITS)
# Sums are int64: a query may add up this much before one could overflow.
_INT64_ROOM = 2**63 - 1

# Up to this document frequency a term's postings are cheaper to rank at query time than to keep an
# order for: ordering every term added ~13% to Index.build on the 5 MiB bench paper (one sort call per
# term, mostly for the many rare terms whose few postings a query ranks in microseconds anyway);
# ordering only the terms above it adds ~3%.
RANKED_MIN_DF = 32  # mutation: equivalent: a speed knob; every path sums the same integers (see above)
# How deep into each term's impact order a query samples, in multiples of k: deeper samples cost a
# little more to sort but more often hold the whole top k (see Index.top).
HEAD_DEPTH = 8  # mutation: equivalent: a speed knob; the bound in Index.top keeps any depth exact
# A term in at least 1/DENSE_FRACTION of the chunks also keeps its impacts as a dense vector (0 where
# absent): adding it to the scores is one contiguous pass, several times faster than scattering that
# many postings, for ~n x 8 bytes each (31 terms, 3 MiB, on the 5 MiB bench paper).
DENSE_FRACTION = 4  # mutation: equivalent: a speed knob; dense or by postings, the same integers are added


def _decimal(value: float) -> Fraction:
    """A table number as the decimal it is written as (1.2 is 6/5, not the nearest binary fraction)."""
    return Fraction(repr(value))


@dataclass(frozen=True)
class Index:
    """Postings per term (positions, impacts in quanta), chunk lengths and their mean; for frequent
    terms also the postings' order by impact, and for the most frequent their impacts as dense vectors."""

    postings: dict[str, tuple[Positions, Quanta]]
    lengths: tuple[int, ...]
    avg_length: float
    # term -> indices into its postings, by impact descending then position; terms with df > RANKED_MIN_DF
    by_impact: dict[str, Positions]
    # term -> its impact in every chunk (0 where absent); terms with df >= chunks / DENSE_FRACTION
    dense: dict[str, Quanta]
    # How many indexed query tokens can be summed without an int64 overflow (the largest impact's share)
    max_terms: int

    @classmethod
    def build(cls, chunk_tokens: list[list[str]]) -> Index:
        """Index each chunk's tokens."""
        lengths = tuple(len(t) for t in chunk_tokens)
        n = len(lengths)
        total = sum(lengths)
        avg = total / n if n else 0.0
        k1, b = _decimal(BM25_K1), _decimal(BM25_B)
        # The saturation factor depends only on (tf, dl): few distinct pairs, each computed exactly once.
        saturation: dict[tuple[int, int], float] = {}
        raw: dict[str, tuple[list[int], list[float]]] = {}
        for position, toks in enumerate(chunk_tokens):
            dl = lengths[position]
            for term, tf in Counter(toks).items():
                factor = saturation.get((tf, dl))
                if factor is None:
                    # dl / avgdl is dl * n / total; total > 0 here, since this chunk has a token.
                    exact = tf * (k1 + 1) / (tf + k1 * (1 - b + b * Fraction(dl * n, total)))
                    factor = saturation[(tf, dl)] = float(exact)  # correctly rounded, once
                positions, weights = raw.setdefault(term, ([], []))
                positions.append(position)
                weights.append(factor)
        postings = {}
        by_impact = {}
        dense = {}
        largest = 1
        for term, (positions, weights) in raw.items():
            idf = math.log(1 + (n - len(positions) + 0.5) / (len(positions) + 0.5))
            # Rounded to whole quanta, at least one: a term present always scores above 0.
            quanta = np.maximum(np.rint(idf * np.array(weights, dtype=np.float64) / QUANTUM), 1).astype(np.int64)
            postings[term] = (np.array(positions, dtype=np.int64), quanta)
            largest = max(largest, int(quanta.max()))
            if len(positions) > RANKED_MIN_DF:
                # Stable on the negated impacts: equal impacts stay in position order, the tie-break.
                # mutation: equivalent: numpy reads a sort kind by its first letter ("stableX" is "stable")
                by_impact[term] = np.argsort(-quanta, kind="stable")
            if len(positions) * DENSE_FRACTION >= n:
                dense[term] = np.zeros(n, dtype=np.int64)
                dense[term][postings[term][0]] = quanta
        return cls(postings, lengths, avg, by_impact, dense, _INT64_ROOM // largest)

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
        return np.multiply(self._sum(self._terms(query_tokens)), QUANTUM, dtype=np.float64)

    def _terms(self, query_tokens: list[str]) -> list[str]:
        """The query tokens the paper has; InvalidInputError if so many that a sum could overflow."""
        terms = [t for t in query_tokens if t in self.postings]
        if len(terms) > self.max_terms:
            raise E.query_too_long(count=len(terms), limit=self.max_terms)
        return terms

    def _sum(self, terms: list[str]) -> Quanta:
        """Add the impacts of the query's (indexed) terms into a score per chunk, in quanta.

        Integer addition is exact, so the order the terms are added in, and whether a term is added
        as a dense vector or by its postings, cannot change a score.
        """
        summed: Quanta | None = None
        for term in terms:
            dense = self.dense.get(term)
            positions, quanta = self.postings[term]
            if summed is None:
                if dense is not None:
                    summed = dense.copy()
                else:
                    summed = np.zeros(len(self.lengths), dtype=np.int64)
                    summed[positions] = quanta
            elif dense is not None:
                np.add(summed, dense, out=summed)
            else:
                np.add.at(summed, positions, quanta)  # a term's positions are distinct: one add each
        return np.zeros(len(self.lengths), dtype=np.int64) if summed is None else summed

    def top(self, query_tokens: list[str], k: int) -> tuple[list[tuple[int, float]], int]:
        """The k best (position, score) with score > 0, ties by position (section, then chunk order);
        and how many chunks scored above 0."""
        terms = self._terms(query_tokens)
        if not terms:
            return [], 0
        if len(terms) == 1:
            # One term: its postings already are the scored chunks, with their scores.
            positions, quanta = self.postings[terms[0]]
            ranked = self.by_impact.get(terms[0])
            if ranked is not None:
                best = ranked[:k]
                return _scored(positions[best], quanta[best]), len(positions)
            return _best(positions, quanta, k), len(positions)
        entries = [self.postings[t] for t in terms]
        summed = self._sum(terms)
        scored = int(np.count_nonzero(summed))  # impacts are >= 1 quantum: a chunk scored iff its sum is not 0
        # A sample of the chunks likeliest to rank: each term's best HEAD_DEPTH x k postings by impact
        # (all of them for a term with fewer, or with no order). `beyond` is the best impact a term
        # has outside the sample (0 when it is all in it).
        depth = HEAD_DEPTH * k
        heads: list[Positions] = []
        beyond: dict[str, int] = {}
        for term in dict.fromkeys(terms):
            positions, quanta = self.postings[term]
            ranked = self.by_impact.get(term)
            if ranked is None or len(ranked) <= depth:
                heads.append(positions)
                beyond[term] = 0
            else:
                heads.append(positions[ranked[:depth]])
                beyond[term] = int(quanta[ranked[depth]])
        candidates = _distinct(np.concatenate(heads))
        values = summed.take(candidates)
        if len(candidates) > k:  # else the sample is every scored chunk
            # k distinct chunks reach the sample's k-th best score, so the top k (with any tie at the
            # k-th) all score at least that floor.
            floor = int(np.partition(values, len(values) - k)[len(values) - k])
            # A chunk outside the sample scores at most the terms' `beyond` impacts added up, so if
            # that stays below the floor the sample holds the whole top k; otherwise look for every
            # chunk reaching the floor.
            if sum(beyond[term] for term in terms) >= floor:
                candidates = self._reaching(entries, summed, floor)
                values = summed.take(candidates)
            else:
                keep = values >= floor  # the floor is the sample's k-th best: _best need not find it again
                candidates, values = candidates[keep], values[keep]
        return _best(candidates, values, k), scored

    @staticmethod
    def _reaching(entries: list[tuple[Positions, Quanta]], summed: Quanta, floor: int) -> Positions:
        """The chunks whose score is at least ``floor`` (> 0), ascending."""
        # mutation: equivalent: either branch finds the same chunks; the test only picks the faster
        if 2 * sum(len(e[0]) for e in entries) < len(summed):
            # Few postings: look the sums up at them rather than scanning every chunk.
            every = np.concatenate([e[0] for e in entries])
            return _distinct(every[summed.take(every) >= floor])
        return np.flatnonzero(summed >= floor)  # via a mask: far faster than nonzero() on the values


def _distinct(positions: Positions) -> Positions:
    """The distinct positions, ascending (np.unique without its overhead on small arrays)."""
    ordered = np.sort(positions)
    first = np.empty(len(ordered), dtype=np.bool_)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def _scored(positions: Positions, quanta: Quanta) -> list[tuple[int, float]]:
    """(position, score) pairs as Python numbers, the score in score units rather than quanta."""
    return list(zip(positions.tolist(), (quanta * QUANTUM).tolist(), strict=True))


def _best(candidates: Positions, values: Quanta, k: int) -> list[tuple[int, float]]:
    """The k best (position, score) of distinct candidate chunks, ties by position."""
    if len(candidates) > k:
        # Keep everything at least the k-th best, so that ties at the boundary are kept for the sort.
        kth = np.partition(values, len(values) - k)[len(values) - k]
        keep = values >= kth
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))[:k]
    return _scored(candidates[order], values[order])
