"""Similarity of requirements (R-ODR-2): Jaccard similarity of word k-shingles."""

from __future__ import annotations

import unicodedata
from functools import lru_cache


@lru_cache(maxsize=4096)
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


def jaccard(a: str, b: str, k: int) -> float:
    """``J_k(a, b) = |A ∩ B| / |A ∪ B|`` over k-shingles; with fewer than k words, 1.0 iff the word lists are equal."""
    wa, wb = words(a), words(b)
    if len(wa) < k or len(wb) < k:
        return 1.0 if wa == wb else 0.0
    sa, sb = shingles(wa, k), shingles(wb, k)
    return len(sa & sb) / len(sa | sb)
