"""Similarity of requirements (R-ODR-2): Jaccard similarity of word k-shingles."""

from __future__ import annotations

import unicodedata
from fractions import Fraction
from functools import lru_cache


@lru_cache(maxsize=4096)  # mutation: equivalent: a cache size changes speed, not results
def _keep(char: str) -> bool:
    """Letters, decimal digits and whitespace survive; everything else becomes a space."""
    category = unicodedata.category(char)
    return category[0] == "L" or category == "Nd" or char.isspace()


def words(text: str) -> list[str]:
    """Lowercase, replace every non-letter/digit/whitespace character with a space, split (R-ODR-2)."""
    lowered = text.lower()
    table = {ord(c): " " for c in set(lowered) if not _keep(c)}
    return lowered.translate(table).split()


def shingles(tokens: list[str], k: int) -> set[tuple[str, ...]]:
    """The set of runs of ``k`` consecutive words."""
    return {tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def similarity(a: str, b: str, k: int) -> Fraction:
    """``J_k(a, b) = |A ∩ B| / |A ∪ B|`` over k-shingles, exactly (1 or 0 when a side has fewer than k words).

    Exact, so that the strict and inclusive comparisons of R-ODR-3/4 are decided on the true value:
    ``1 - 9/10`` is not ``0.09999999999999998``.
    """
    wa, wb = words(a), words(b)
    if min(len(wa), len(wb)) < k:
        return Fraction(1 if wa == wb else 0)
    sa, sb = shingles(wa, k), shingles(wb, k)
    return Fraction(len(sa & sb), len(sa | sb))


def jaccard(a: str, b: str, k: int) -> float:
    """``J_k(a, b)`` as the float recorded in traces (R-ODR-2)."""
    return float(similarity(a, b, k))


def threshold(value: float) -> Fraction:
    """A configured threshold as the decimal the user wrote (0.05 is 1/20, not its binary neighbour)."""
    return Fraction(repr(value))
