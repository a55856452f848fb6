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
import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from generated.research.injection import (
    BIDI_OVERRIDE,
    CONFUSABLE_SCRIPTS,
    CONFUSABLES,
    ENCODED,
    ENCODED_HEX_PATTERN,
    ENCODED_PATTERN,
    ENCODED_PROSE,
    ENCODED_PROSE_MIN_WORDS,
    INVISIBLE,
    LEET,
    LEET_ONE_AS,
    LETTER_SEPARATORS,
    MARKS,
    MAX_ENCODED_BLOBS,
    OBFUSCATION,
    RULES,
    SENTENCE_ENDS,
    SPACED_MIN_LETTERS,
    InjectionRule,
)
from safeio.regex import valid_text
from safeio.regex_set import PatternSet, compile_set, compile_spans

BLOCK = "block"
# Tag characters U+E0020..U+E007E spell printable ASCII (U+E0000 block, "tag" range of INVISIBLE).
_TAG_BASE = 0xE0000
_TAGS = re.compile("[\U000e0020-\U000e007e]+")


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


class _Finder(Protocol):
    def spans(self, text: str) -> list[tuple[int, int]]: ...


@dataclass(frozen=True)
class _Python:
    """A rule pattern only Python's re can run (its linear spelling is a different prefilter)."""

    regexp: re.Pattern[str]

    def spans(self, text: str) -> list[tuple[int, int]]:
        return [match.span() for match in self.regexp.finditer(text)]


def _finder(pattern: str, linear: str) -> _Finder:
    # One spelling for both engines: RE2 finds the spans too (several times faster than re, and
    # the same spans; the lint refuses what the two read differently). Otherwise re does.
    return compile_spans(pattern) if pattern == linear else _Python(re.compile(pattern, re.ASCII))


@dataclass(frozen=True)
class _Compiled:
    """A rule ready to run: the gates (indices into the RE2 set) that must all match, then its finders."""

    rule: InjectionRule
    gates: tuple[int, ...]
    pattern: _Finder | None  # a plain rule
    first: _Finder | None  # a co-occurrence rule
    then: _Finder | None


@cache
def _rules() -> tuple[tuple[_Compiled, ...], PatternSet]:
    # Every rule's gate goes into one RE2 set, which reads the text once and says which rules can
    # match at all (most text matches none); the rule's finder then says where, for those only. A
    # co-occurrence rule is two gates and two patterns with a sentence window, paired in code: a
    # regex spanning the window backtracks quadratically on text made of the first pattern
    # repeated. The table lint compiles every pattern on both engines; a test checks on the
    # corpora that the set never misses what re finds and that the finders give re's spans.
    gates: dict[str, int] = {}

    def gate(pattern: str) -> int:
        return gates.setdefault(pattern, len(gates))

    compiled = []
    for rule in RULES:
        if rule.pattern:
            finder = _finder(rule.pattern, rule.linear)
            compiled.append(_Compiled(rule, (gate(rule.linear),), finder, None, None))
        else:
            first, then = _finder(rule.first, rule.first_linear), _finder(rule.then, rule.then_linear)
            compiled.append(_Compiled(rule, (gate(rule.first_linear), gate(rule.then_linear)), None, first, then))
    return tuple(compiled), compile_set(list(gates))


_SENTENCE_END = re.compile("[" + re.escape(SENTENCE_ENDS) + "]")


def _pairs(text: str, first: _Finder, then: _Finder, window: int, breaks: list[int]) -> list[tuple[int, int]]:
    """Spans from a ``first`` match to the nearest ``then`` match that starts at most ``window``
    characters after it ends, with no sentence end between: linear in the matches (bisection)."""
    starts = then.spans(text)
    if not starts:
        return []
    keys = [s for s, _ in starts]
    spans = []
    for first_start, first_end in first.spans(text):
        index = bisect.bisect_left(keys, first_end)
        if index == len(keys):
            continue
        start, end = starts[index]
        same_sentence = bisect.bisect_left(breaks, first_end) == bisect.bisect_left(breaks, start)
        if start - first_end <= window and same_sentence:
            spans.append((first_start, end))
    return spans


@cache
def _encoded() -> re.Pattern[str]:
    return re.compile(ENCODED_PATTERN, re.IGNORECASE)  # the table spells it case-folded


@cache
def _prose() -> re.Pattern[str]:
    return re.compile(ENCODED_PROSE, re.ASCII)


def _speaks(decoded: str) -> bool:
    """Decoded prose (enough space-separated words: not JSON, not a key) that speaks to someone."""
    return len(decoded.split()) >= ENCODED_PROSE_MIN_WORDS and _prose().search(decoded) is not None


@cache
def _hex() -> re.Pattern[str]:
    return re.compile(ENCODED_HEX_PATTERN, re.IGNORECASE)


@cache
def _blob_gates() -> PatternSet:
    """Whether a text holds a base64 blob (index 0) or a hexadecimal one (index 1), in one pass."""
    return compile_set([f"(?i:{ENCODED_PATTERN})", f"(?i:{ENCODED_HEX_PATTERN})"])


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]"


_SEPARATORS = "[" + re.escape(LETTER_SEPARATORS) + "]{1,3}"
# Single letters or digits with separators between, each standing alone ("i g n o r e").
_LETTER_RUN = re.compile(f"(?<![a-z0-9])[a-z0-9](?:{_SEPARATORS}[a-z0-9](?![a-z0-9]))+", re.ASCII)
_MARKS = re.compile(_class(MARKS))
_GREEK_CYRILLIC = re.compile(_class(CONFUSABLE_SCRIPTS))
_SEPARATOR = re.compile(_SEPARATORS, re.ASCII)
_LATIN = re.compile(r"[a-z]", re.ASCII | re.IGNORECASE)
# A token with a digit or symbol between letters ("pr3v10u5") and a letter past f, so hexadecimal
# ids and plain names like "bm25" do not count as leetspeak.
_LEET_CORE = re.compile(r"[a-z][0-9@$+!]+[a-z]", re.ASCII)
_NOT_HEX = re.compile(r"[g-z]", re.ASCII)


# A superset of a letter run of SPACED_MIN_LETTERS letters or more (the first letter standing alone,
# the others not checked), for the RE2 pass that decides whether the readings are worth computing.
# mutation: equivalent: a smaller count only widens the gate; the run's own count is checked after it
_GATE_REPEATS = SPACED_MIN_LETTERS - 1
_LETTER_RUN_GATE = f"(?:^|[^a-z0-9])[a-z0-9](?:{_SEPARATORS}[a-z0-9]){{{_GATE_REPEATS},}}"
_RUN, _LEET = 0, 1


@cache
def _reading_gates() -> PatternSet:
    """One pass over the lowered text: could it hold a letter run (index 0), leetspeak (index 1)?"""
    return compile_set([_LETTER_RUN_GATE, _LEET_CORE.pattern])


# A token is a run of these; the characters leetspeak is read from are among them.
# mutation: equivalent: tokens are read from lowered text, so an added capital is never met
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789@$+!")
_TOKEN_END = re.compile(r"[^a-z0-9@$+!]")


def _leet_tokens(text: str) -> int:
    """How many tokens (runs of ``_TOKEN_CHARS``) hold a leetspeak core and a letter past f.

    Every core lies inside one token, and a left-to-right search finds a core in each token that
    has one, so the tokens are found from the cores: one search per token that has a core, each
    resumed past the end of the last token, so a long token (a base64 blob full of cores) is
    walked once, not once per core.
    """
    count, position = 0, 0
    while (match := _LEET_CORE.search(text, position)) is not None:
        start, end = match.start(), match.end()
        while start > position and text[start - 1] in _TOKEN_CHARS:
            start -= 1
        found = _TOKEN_END.search(text, end)
        end = len(text) if found is None else found.start()
        if _NOT_HEX.search(text, start, end):
            count += 1
        position = end
    return count


@cache
def _confusables() -> dict[int, int]:
    return str.maketrans(*CONFUSABLES)


@cache
def _leet() -> tuple[dict[int, int], dict[int, int]]:
    ones = LEET[0].index("1")
    other = LEET[1][:ones] + LEET_ONE_AS + LEET[1][ones + 1 :]
    return str.maketrans(LEET[0], LEET[1]), str.maketrans(LEET[0], other)


def _joined(run: str) -> str:
    """Letters spaced out, joined: the commonest separator is inside words, any other between."""
    separators = _SEPARATOR.findall(run)
    inside = max(sorted(set(separators)), key=separators.count)
    pieces = _SEPARATOR.split(run)
    words, word = [], pieces[0]
    for separator, piece in zip(separators, pieces[1:], strict=True):
        if separator == inside:
            word += piece
        else:
            words.append(word)
            word = piece
    words.append(word)
    return " ".join(words)


def _readings(text: str) -> list[str]:
    """The other readings of a visible text that differ from it (see the table's ``readings``)."""
    found: list[str] = []
    if not text.isascii():
        # After NFKC, combining marks left over decorate letters (an underline on each): drop them.
        stripped = _MARKS.sub("", text)
        if stripped != text:
            found.append(stripped)
        if _GREEK_CYRILLIC.search(text) and _LATIN.search(text):
            found.append(text.translate(_confusables()))
    lowered = text.lower()
    possible = _reading_gates().matching(lowered)
    runs = (
        [m[0] for m in _LETTER_RUN.finditer(lowered) if sum(c.isalnum() for c in m[0]) >= SPACED_MIN_LETTERS]
        if _RUN in possible
        else []
    )
    joined = " ".join(_joined(r) for r in runs)
    if joined:
        found.append(joined)
    if _LEET in possible and (_leet_tokens(lowered) >= 2 or (joined and _leet_tokens(joined))):
        as_i, as_l = _leet()
        base = f"{lowered}\n{joined}" if joined else lowered
        found.extend([base.translate(as_i), base.translate(as_l)])
    return found


def _visible(text: str) -> tuple[str, str, bool]:
    """(NFKC text as displayed with the invisible characters out, its other readings (what tag
    characters spell, then the table's readings) one per line, whether any invisible character
    was there). ASCII text is its own display."""
    if text.isascii():
        return text, "\n".join(_readings(text)), False
    folded = unicodedata.normalize("NFKC", text)
    # What a reader sees: a right-to-left override shows its text reversed.
    folded = _override().sub(lambda m: m[1][::-1], folded)
    hidden = "".join(chr(ord(c) - _TAG_BASE) for run in _TAGS.findall(folded) for c in run)
    cleaned, removed = _invisible().subn("", folded)
    extra = [hidden] if hidden else []
    return cleaned, "\n".join([*extra, *_readings(cleaned)]), removed > 0


def normalise(text: str) -> tuple[str, bool]:
    """(the text the rules read, whether invisible characters were removed).

    NFKC, then the invisible characters out, then case-folded; what tag characters spell is
    appended on a line of its own, so an instruction written in them is read.
    """
    cleaned, hidden, removed = _visible(text)
    if hidden:
        cleaned = f"{cleaned}\n{hidden}"
    return cleaned.casefold(), removed


def _rule_hits(text: str) -> list[Hit]:
    """Every rule hit in ``text`` (which holds no lone surrogate)."""
    hits: list[Hit] = []
    breaks: list[int] | None = None
    rules, gates = _rules()
    passed = gates.matching(text)
    if not passed:
        return hits
    for compiled in rules:
        if not passed.issuperset(compiled.gates):
            continue
        rule = compiled.rule
        if compiled.pattern is not None:
            hits.extend(Hit(rule.id, rule.severity, start, end) for start, end in compiled.pattern.spans(text))
            continue
        assert compiled.first is not None and compiled.then is not None
        if breaks is None:
            breaks = [m.start() for m in _SENTENCE_END.finditer(text)]
        spans = _pairs(text, compiled.first, compiled.then, rule.window, breaks)
        if rule.either_order:
            spans += _pairs(text, compiled.then, compiled.first, rule.window, breaks)
        hits.extend(Hit(rule.id, rule.severity, start, end) for start, end in spans)
    return hits


def _decoded(blob: str) -> str | None:
    """The text a base64 (or hex) blob encodes when it is mostly printable UTF-8, else None."""
    try:
        if _hex().fullmatch(blob) and len(blob) % 2 == 0:
            raw = bytes.fromhex(blob)
        else:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(c.isprintable() or c.isspace() for c in text)
    return text if text and printable >= 0.9 * len(text) else None


def _scan(source: str, hidden: str, obfuscated: bool) -> Scan:
    hits = _rule_hits((f"{source}\n{hidden}" if hidden else source).casefold())
    if obfuscated:
        hits.append(Hit(OBFUSCATION[0], OBFUSCATION[1], 0, 0))
    # Base64 is case-sensitive: blobs are read from the text before case-folding (their offsets
    # are into that text).
    kinds = _blob_gates().matching(source)
    blobs = list(_encoded().finditer(source)) if 0 in kinds else []
    blobs += list(_hex().finditer(source)) if 1 in kinds else []
    for count, match in enumerate(blobs):
        if count >= MAX_ENCODED_BLOBS:
            break
        decoded = _decoded(source[match.start() : match.end()])
        if decoded is None:
            continue
        inner, _ = normalise(decoded)
        if _rule_hits(inner) or _speaks(inner):  # hiding a sentence in base64 is itself the tell
            hits.append(Hit(ENCODED[0], ENCODED[1], match.start(), match.end()))
    return Scan(tuple(sorted(set(hits), key=lambda h: (h.start, h.end, h.rule))))


def scan_injection(text: str) -> Scan:
    """Scan one text with every rule of the injection table (R-RS-5)."""
    return _scan(*_visible(valid_text(text)))


def scan_many(texts: list[str]) -> list[Scan]:
    """``scan_injection`` of each text (a source's title, locator, content and metadata values)."""
    return [scan_injection(text) for text in texts]
