"""Normalisation, sentences and tokens (R-P1-2, R-P1-3, R-P1-4); settings from the phase1 config table."""

from __future__ import annotations

import re
import unicodedata

import regex

from rcs_contracts.generated.phase1.config import DROP_CHARACTERS, SENTENCE_TERMINATORS, TOKEN_PATTERN

_DROP = {ord(c): None for c in DROP_CHARACTERS}
_SPACES = re.compile(r"[ \t]+")
_TOKEN = regex.compile(TOKEN_PATTERN)  # the `regex` module: Python's re has no \p{M}


def _ascii_runs(pattern: str) -> re.Pattern[str] | None:
    """For a pattern that is one character class repeated (``[...]+``), the same pattern over ASCII
    text in Python's ``re`` (about three times faster than ``regex``): the class's ASCII characters,
    found by the pattern itself. None for any other shape of pattern."""
    if re.fullmatch(r"\[[^\[\]]*\]\+", pattern) is None:
        return None
    members = "".join(c for c in map(chr, range(128)) if _TOKEN.fullmatch(c))
    return re.compile("[" + re.escape(members) + "]+") if members else None


_ASCII_TOKEN = _ascii_runs(TOKEN_PATTERN)
# A sentence ends at a terminator (and any closing quotes or brackets) followed by whitespace.
_SENTENCE_END = re.compile("[" + re.escape(SENTENCE_TERMINATORS) + "][\"'”’)\\]]*(?=\\s)")


def normalize(text: str) -> str:
    """NFC; \\r\\n and \\r to \\n; drop the table's characters; collapse spaces/tabs; strip each line."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n").translate(_DROP)
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.split("\n"))


def paragraphs(text: str) -> list[str]:
    """Paragraphs of normalised text: runs of non-blank lines, joined by newlines."""
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a paragraph, without the whitespace around it."""
    spans: list[tuple[int, int]] = []
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        piece = text[start:end]
        stripped = piece.strip()
        if stripped:
            left = start + (len(piece) - len(piece.lstrip()))
            spans.append((left, left + len(stripped)))
        start = end
    return spans


def sentences(text: str) -> list[str]:
    """Sentences of a paragraph, each a verbatim substring of it."""
    return [text[a:b] for a, b in sentence_spans(text)]


def tokens(text: str) -> list[str]:
    """Case-folded Unicode words (R-P1-4) of text already normalised (R-P1-2)."""
    folded = text.casefold()
    if _ASCII_TOKEN is not None and folded.isascii():
        return _ASCII_TOKEN.findall(folded)
    return _TOKEN.findall(folded)


def query_tokens(query: str) -> list[str]:
    """The tokens of a query, normalised exactly as a paper's text is (R-P1-2): an NFD "café" or a
    soft hyphen in the query finds the word the paper has."""
    return tokens(normalize(query))
