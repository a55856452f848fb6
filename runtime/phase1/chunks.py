"""Ingestion: sections -> normalised paragraphs -> chunks with content-hash ids (R-P1-1, R-P1-3)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from rcs_contracts.generated.phase1 import errors as E
from rcs_contracts.generated.phase1.config import MAX_CHUNK_CHARS
from rcs_contracts.runtime.phase1.text import normalize, paragraphs, sentence_spans


def chunk_id(paper_id: str, section: str, text: str) -> str:
    """``sha256("{paper_id}|{section}|{text}")[:16]``, lowercase hex of the UTF-8 bytes (phase1.md)."""
    return hashlib.sha256(f"{paper_id}|{section}|{text}".encode()).hexdigest()[:16]


def section_pairs(sections: object) -> list[tuple[str, str]]:
    """(label, text) pairs from tuples or ``{label, text}`` mappings; InvalidInputError for anything else."""
    if isinstance(sections, str | bytes | Mapping) or not isinstance(sections, Iterable):
        raise E.bad_sections(index=0)
    pairs: list[tuple[str, str]] = []
    for index, item in enumerate(sections):
        if isinstance(item, Mapping):
            if set(item) != {"label", "text"}:
                raise E.bad_sections(index=index)
            label, text = item["label"], item["text"]
        elif isinstance(item, tuple | list) and len(item) == 2:
            label, text = item
        else:
            raise E.bad_sections(index=index)
        if not isinstance(label, str) or not isinstance(text, str):
            raise E.bad_sections(index=index)
        pairs.append((label, text))
    return pairs


def split_long(paragraph: str, cap: int = MAX_CHUNK_CHARS) -> list[str]:
    """A paragraph as verbatim pieces of at most ``cap`` characters, cut between sentences.

    Consecutive sentences are packed greedily; a sentence longer than the cap is cut at spaces, and a
    word longer than the cap where it must be. Every piece is a substring of the paragraph.
    """
    if len(paragraph) <= cap:
        return [paragraph]
    units = [unit for a, b in sentence_spans(paragraph) for unit in _fit(paragraph, a, b, cap)]
    pieces: list[str] = []
    first = last = units[0]
    for unit in units[1:]:
        if unit[1] - first[0] <= cap:
            last = unit
        else:
            pieces.append(paragraph[first[0] : last[1]])
            first = last = unit
    pieces.append(paragraph[first[0] : last[1]])
    return pieces


def _fit(text: str, start: int, end: int, cap: int) -> list[tuple[int, int]]:
    """Spans of at most ``cap`` characters covering text[start:end], cut at spaces where possible."""
    spans: list[tuple[int, int]] = []
    while end - start > cap:
        cut = text.rfind(" ", start + 1, start + cap + 1)
        if cut == -1:  # no space after the first character
            cut = start + cap  # one word longer than the cap
            spans.append((start, cut))
            start = cut
        else:
            spans.append((start, cut))
            start = cut + 1
        while text.startswith(" ", start, end):  # the spaces after a cut, never past the span's end
            start += 1
    if end > start:
        spans.append((start, end))
    return spans


def chunk_sections(paper_id: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str, str, int, int]]:
    """(chunk_id, section, text, section_index, chunk_index) for every chunk, in order.

    Labels are compared stripped and case-folded for duplicates (R-P1-1); identical chunk text twice in
    one section is one chunk (R-P1-3); two different chunks with one id are an InvalidInputError.
    """
    seen_labels: set[str] = set()
    owners: dict[str, str] = {}  # chunk id -> the section of the chunk it already names
    rows: list[tuple[str, str, str, int, int]] = []
    for section_index, (label, text) in enumerate(pairs):
        section = label.strip()
        if not section:
            raise E.empty_label(index=section_index)
        key = section.casefold()
        if key in seen_labels:
            raise E.duplicate_section(label=section)
        seen_labels.add(key)
        texts_here: set[str] = set()
        for paragraph in paragraphs(normalize(text)):
            for piece in split_long(paragraph):
                if piece in texts_here:
                    continue
                texts_here.add(piece)
                identity = chunk_id(paper_id, section, piece)
                if identity in owners:
                    # Only a "|" in a label or text can do this (R-P1-3's formula): two chunks, one id.
                    raise E.chunk_id_collision(chunk_id=identity, first=owners[identity], second=section)
                owners[identity] = section
                rows.append((identity, section, piece, section_index, len(texts_here) - 1))
    return rows
