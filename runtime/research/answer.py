"""The grounded, extractive answer (phase18-research.md §2.5, §2.6; R-RS-8), as in Phase 1.

Each bullet is a sentence quoted verbatim from the sources, citing every source that holds it.
Sentences are ranked by how many distinct query tokens they share (then source order, then their
order in the source); the heading, the bullet count and the bullet length come from the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from rcs_contracts.generated.research.response_schema import Bullet, CitedSource, ResearchResponse
from rcs_contracts.generated.research.responses import (
    ANSWER_HEADING,
    BASELINE,
    CLARIFY,
    MAX_BULLET_CHARS,
    MAX_BULLETS,
    UNKNOWN,
)
from rcs_contracts.generated.research.source_bundle_schema import Source
from rcs_contracts.runtime.phase1.text import query_tokens, sentences, tokens

SENTENCE_FOR = {"ASK_CLARIFY": CLARIFY, "UNKNOWN": UNKNOWN, "BASELINE": BASELINE}


def _quote(sentence: str) -> str:
    """The sentence, or its longest prefix that ends at a word and fits the table's bullet length."""
    if len(sentence) <= MAX_BULLET_CHARS:
        return sentence
    cut = sentence[:MAX_BULLET_CHARS]
    space = cut.rfind(" ")
    # mutation: equivalent: > 0 or >= 0: sentences come stripped, so no space is at 0
    return cut[:space] if space > 0 else cut


def answer(query: str, sources: Sequence[Source]) -> ResearchResponse:
    """The ANSWER response: the best sentences of ``sources`` for ``query``, each citing its sources."""
    wanted = set(query_tokens(query))
    cited_by: dict[str, list[str]] = {}
    rank: dict[str, tuple[int, int, int]] = {}
    for s_index, source in enumerate(sources):
        for t_index, sentence in enumerate(sentences(source.content) or [source.content]):
            text = _quote(sentence.strip())
            if not text:
                continue
            ids = cited_by.setdefault(text, [])
            if source.source_id not in ids:
                ids.append(source.source_id)
            # A token of the sentence is a substring of its case-folded text: a sentence holding none
            # of the wanted tokens as a substring shares none, and is not tokenised. (A few substring
            # searches: compiling the query's tokens into a regex cost more than all of them.)
            folded = text.casefold()
            overlap = len(wanted & set(tokens(text))) if any(w in folded for w in wanted) else 0
            rank.setdefault(text, (-overlap, s_index, t_index))
    best = sorted(rank, key=rank.__getitem__)[:MAX_BULLETS]
    bullets = [Bullet(text=text, source_ids=cited_by[text]) for text in best]
    used = {sid for b in bullets for sid in b.source_ids}
    cited = [
        CitedSource(source_id=s.source_id, locator=s.locator, title=s.title) for s in sources if s.source_id in used
    ]
    return ResearchResponse(
        action="ANSWER", text=ANSWER_HEADING.format(count=len(cited)), bullets=bullets, sources=cited
    )


def fixed(action: str) -> ResearchResponse:
    """A response with the table's sentence for ``action`` and no research content (R-RS-6, R-RS-8)."""
    return ResearchResponse.model_validate(
        {"action": action, "text": SENTENCE_FOR[action], "bullets": [], "sources": []}
    )
