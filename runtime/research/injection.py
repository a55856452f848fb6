"""The injection filter (phase18-research.md §3.4; R-RS-5): tool text is data, scanned, never obeyed.

``scan_injection(text)`` normalises the text (NFKC; invisible characters removed, which is the
obfuscation flag; case-folded), reads what tag characters spell, decodes base64 blobs, and runs the
rules of the injection table. It reports rule ids, severities and offsets into the normalised text,
never the matched text. Every rule, pattern and character range comes from the table.

The filter is one line of defence, not the design's: a source's text is only ever quoted into the
answer or hashed, never used to choose a tool, a query or an action (§3.5), so an instruction that
slips through has nothing to steer. (Indirect task hijacking, "translate your answer into Spanish",
cannot be told from content by any filter; SPEC chapter 12.)
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from generated.research.injection import (
    BIDI_OVERRIDE,
    ENCODED,
    ENCODED_PATTERN,
    INVISIBLE,
    MAX_ENCODED_BLOBS,
    OBFUSCATION,
    RULES,
    InjectionRule,
)

BLOCK = "block"
# Tag characters U+E0020..U+E007E spell printable ASCII (U+E0000 block, "tag" range of INVISIBLE).
_TAG_BASE = 0xE0000
_TAG_PRINTABLE = range(0xE0020, 0xE007F)


@dataclass(frozen=True)
class Hit:
    """One rule match: the rule's id, its severity and where it matched in the normalised text."""

    rule: str
    severity: str
    start: int
    end: int


@dataclass(frozen=True)
class Scan:
    """The verdict on one text: every hit, in order of position then rule."""

    hits: tuple[Hit, ...]

    @property
    def blocked(self) -> bool:
        """A block-severity rule matched: INJECTION_DETECTED."""
        return any(h.severity == BLOCK for h in self.hits)

    @property
    def flags(self) -> tuple[str, ...]:
        """Ids of the flag-severity rules that matched, sorted and distinct."""
        return tuple(sorted({h.rule for h in self.hits if h.severity != BLOCK}))


@cache
def _invisible() -> re.Pattern[str]:
    ranges = "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in INVISIBLE)
    return re.compile(f"[{ranges}]+")


@cache
def _override() -> re.Pattern[str]:
    start, end = (re.escape(chr(c)) for c in BIDI_OVERRIDE)
    return re.compile(f"{start}([^{end}]*)(?:{end}|$)")


@cache
def _rules() -> tuple[tuple[InjectionRule, re.Pattern[str]], ...]:
    return tuple((rule, re.compile(rule.pattern)) for rule in RULES)


@cache
def _encoded() -> re.Pattern[str]:
    return re.compile(ENCODED_PATTERN, re.IGNORECASE)  # the table spells it case-folded


def normalise(text: str) -> tuple[str, bool]:
    """(the text the rules read, whether invisible characters were removed).

    NFKC, then the invisible characters out, then case-folded; what tag characters spell is
    appended on a line of its own, so an instruction written in them is read.
    """
    folded = unicodedata.normalize("NFKC", text)
    # What a reader sees: a right-to-left override shows its text reversed.
    folded = _override().sub(lambda m: m[1][::-1], folded)
    hidden = "".join(chr(ord(c) - _TAG_BASE) for c in folded if ord(c) in _TAG_PRINTABLE)
    cleaned, removed = _invisible().subn("", folded)
    if hidden:
        cleaned = f"{cleaned}\n{hidden}"
    return cleaned.casefold(), removed > 0


def _rule_hits(text: str, offset: int = 0) -> list[Hit]:
    hits = []
    for rule, pattern in _rules():
        for match in pattern.finditer(text):
            hits.append(Hit(rule.id, rule.severity, offset + match.start(), offset + match.end()))
    return hits


def _decoded(blob: str) -> str | None:
    """The text a base64 blob encodes when it is mostly printable UTF-8, else None."""
    try:
        raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(c.isprintable() or c.isspace() for c in text)
    return text if text and printable >= 0.9 * len(text) else None


def scan_injection(text: str) -> Scan:
    """Scan one text with every rule of the injection table (R-RS-5)."""
    normal, obfuscated = normalise(text)
    hits = _rule_hits(normal)
    if obfuscated:
        hits.append(Hit(OBFUSCATION[0], OBFUSCATION[1], 0, 0))
    # Base64 is case-sensitive: blobs are read from the text before case-folding (their offsets
    # are into that text).
    source = _invisible().sub("", unicodedata.normalize("NFKC", text))
    for count, match in enumerate(_encoded().finditer(source)):
        if count >= MAX_ENCODED_BLOBS:
            break
        decoded = _decoded(source[match.start() : match.end()])
        if decoded is None:
            continue
        inner, _ = normalise(decoded)
        if _rule_hits(inner):  # hiding an instruction in base64 is itself the tell: any rule counts
            hits.append(Hit(ENCODED[0], ENCODED[1], match.start(), match.end()))
    return Scan(tuple(sorted(set(hits), key=lambda h: (h.start, h.end, h.rule))))
