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
import string
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from rcs_contracts.generated.research.injection import (
    BIDI_OVERRIDE,
    CONFUSABLE_SCRIPTS,
    CONFUSABLES,
    ENCODED,
    ENCODED_HEX_PATTERN,
    ENCODED_PATH_STARTS,
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
from rcs_contracts.safeio.regex import valid_text
from rcs_contracts.safeio.regex_set import PatternSet, Spans, compile_set, compile_spans

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
    # An override ends at its pop or at the end of its paragraph (Unicode's bidi algorithm): the
    # paragraph separators are the characters of bidi class B.
    start, end = (re.escape(chr(c)) for c in BIDI_OVERRIDE)
    paragraph = "".join(re.escape(chr(c)) for c in range(0x3000) if unicodedata.bidirectional(chr(c)) == "B")
    return re.compile(f"{start}([^{end}{paragraph}]*){end}?")


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
    # mutation: equivalent: either engine gives the same spans for every pattern the lint accepts
    # (a test compares them on every corpus); the choice is speed
    return compile_spans(pattern) if pattern == linear else _Python(re.compile(pattern, re.ASCII))


# mutation: equivalent: nothing assigns to a compiled rule; frozen only guards the shared cache
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
def _blob_spans() -> tuple[Spans, Spans]:
    """Where the base64 blobs are, and the hexadecimal ones, on RE2 (linear: Python's re tries the
    24-character repeat again at every letter of a long word). The table spells them case-folded."""
    return compile_spans(f"(?i:{ENCODED_PATTERN})"), compile_spans(f"(?i:{ENCODED_HEX_PATTERN})")


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
_SEPARATOR = re.compile(_SEPARATORS, re.ASCII)
_LATIN = re.compile(r"[a-z]", re.ASCII | re.IGNORECASE)
# A leetspeak token: a run of token characters with a core, a digit or symbol between letters
# ("pr3v10u5"), and a letter past f, so hexadecimal ids and plain names like "bm25" do not count.
# The symbols leetspeak reads as letters come from the table ("@$+!" today); digits are all read.
_SYMBOLS = "".join(c for c in LEET[0] if not c.isalnum())
_INNER = f"[0-9{re.escape(_SYMBOLS)}]"
_TOKEN = f"[a-z{_INNER[1:]}"
_CORE = f"[a-z]{_INNER}+[a-z]"
_NOT_HEX = re.compile(r"[g-z]", re.ASCII)
# Some token holds a core and a letter past f: before the core, after it, or as one of its letters.
_LEET_GATE = f"[g-z]{_TOKEN}*{_CORE}|{_CORE}{_TOKEN}*[g-z]|[g-z]{_INNER}+[a-z]|[a-z]{_INNER}+[g-z]"


# A superset of a letter run of SPACED_MIN_LETTERS letters or more (the first letter standing alone,
# the others not checked), for the RE2 pass that decides whether the readings are worth computing.
# mutation: equivalent: a smaller count only widens the gate; the run's own count is checked after it
_GATE_REPEATS = SPACED_MIN_LETTERS - 1
_LETTER_RUN_GATE = f"(?:^|[^a-z0-9])[a-z0-9](?:{_SEPARATORS}[a-z0-9]){{{_GATE_REPEATS},}}"
_RUN, _LEET = 0, 1


@cache
def _reading_gates() -> PatternSet:
    """One pass over the lowered text: could it hold a letter run (index 0), leetspeak (index 1)?"""
    return compile_set([_LETTER_RUN_GATE, _LEET_GATE])


@cache
def _leet_token() -> Spans:
    # A whole token around a core: on RE2, one linear pass whatever the tokens' lengths (a
    # backtracking engine would try the leading run again from every letter of a long token).
    return compile_spans(f"{_TOKEN}*{_CORE}{_TOKEN}*")


def _leet_spans(text: str) -> list[tuple[int, int]]:
    """The tokens (maximal runs of ASCII letters, digits and ``@$+!``) that hold a leetspeak core
    and a letter past f."""
    return [(start, end) for start, end in _leet_token().spans(text) if _NOT_HEX.search(text, start, end)]


def _leet_tokens(text: str) -> int:
    """How many tokens of ``text`` hold a leetspeak core and a letter past f."""
    return len(_leet_spans(text))


# Where a sentence ends for the leet reading: an end mark, but a "!" only when no token character
# follows its run ("pr3v!0us" reads as "previous"; in "1nstruct10ns! Then" it is punctuation).
# As the regex (?:[ends but !]|!+(?![a-z0-9@$+!]))+ finds them, but faster: runs of end marks and
# "!" (a bare class, which re scans in C), then a run's closing "!"s dropped when a token character
# follows them (a test checks the two agree).
_MARK_RUN = re.compile(f"[{re.escape(SENTENCE_ENDS)}]+")
_TOKEN_CHARS = frozenset(string.ascii_lowercase + string.digits + _SYMBOLS)


def _leet_breaks(text: str) -> list[tuple[int, int]]:
    """Where a sentence ends for the leet reading in ``text`` (start, end), left to right."""
    found = []
    for match in _MARK_RUN.finditer(text):
        start, end = match.span()
        if text[end - 1] == "!" and end < len(text) and text[end] in _TOKEN_CHARS:
            end = len(text[start:end].rstrip("!")) + start
        if end > start:
            found.append((start, end))
    return found


def _sentences_with(text: str, spans: list[tuple[int, int]]) -> str:
    """The sentences of ``text`` that hold the start of one of ``spans``, without the marks that end
    them, in order, one per line."""
    breaks = _leet_breaks(text)
    starts = [end for _, end in breaks]  # sentence i starts where break i - 1 ends
    pieces: dict[int, str] = {}
    for start, _ in spans:
        index = bisect.bisect_right(starts, start)
        if index not in pieces:
            first = starts[index - 1] if index else 0
            pieces[index] = text[first : breaks[index][0] if index < len(breaks) else len(text)]
    return "\n".join(pieces.values())


@cache
def _confusables() -> dict[int, int]:
    return str.maketrans(*CONFUSABLES)


@cache
def _leet() -> tuple[bytes, bytes]:
    # Byte tables: the table maps ASCII to ASCII, and in UTF-8 an ASCII byte is never part of another
    # character, so translating the bytes is translating the text (str.translate of non-ASCII text
    # looks every character up in a dict, about a hundred times slower).
    ones = LEET[0].index("1")
    other = LEET[1][:ones] + LEET_ONE_AS + LEET[1][ones + 1 :]
    source = LEET[0].encode("ascii")
    return bytes.maketrans(source, LEET[1].encode("ascii")), bytes.maketrans(source, other.encode("ascii"))


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


# Which character classes a non-ASCII text holds, in one RE2 pass: Python's re reads a class one
# character at a time (about 100 us for 4 KB of them), so each pass it would make is made only when
# its class is there.
_INVISIBLE_CLASS, _TAG_CLASS, _OVERRIDE_CLASS, _MARK_CLASS, _CONFUSABLE_CLASS = range(5)


@cache
def _classes() -> PatternSet:
    return compile_set(
        [
            _class(INVISIBLE),
            _TAGS.pattern,
            _class(((BIDI_OVERRIDE[0], BIDI_OVERRIDE[0]),)),
            _class(MARKS),
            _class(CONFUSABLE_SCRIPTS),
        ]
    )


def _unmarked(raw: str) -> str:
    """``raw`` as displayed with every combining mark dropped: those NFKC composes into an accented
    letter ("o" + U+0301 is "ó") are dropped before it can, those left over after it too."""
    folded = unicodedata.normalize("NFKC", _MARKS.sub("", raw))
    return _MARKS.sub("", _invisible().sub("", folded))


def _spaced(lowered: str) -> tuple[str, str]:
    """(the lowered text with each run of spaced-out letters joined up in place, the joined runs
    alone, one space between), or ("", "") when it holds no such run."""
    pieces, runs, last = [], [], 0
    for match in _LETTER_RUN.finditer(lowered):
        if sum(c.isalnum() for c in match[0]) < SPACED_MIN_LETTERS:
            continue
        runs.append(_joined(match[0]))
        pieces += [lowered[last : match.start()], runs[-1]]
        last = match.end()
    if not runs:
        return "", ""
    return "".join([*pieces, lowered[last:]]), " ".join(runs)


def _readings(
    text: str, present: frozenset[int] | None = None, possible: frozenset[int] | None = None, raw: str | None = None
) -> list[str]:
    """The other readings of a visible text that differ from it (see the table's ``readings``).
    ``present``: a superset of the classes ``text`` (and ``raw``) hold (``_classes``), ``possible``
    of the reading gates its lowered text passes (``_reading_gates``), when already known; ``raw``:
    the text before NFKC, when there was one.

    The readings chain: look-alikes are read in the text with its marks dropped, and letters are
    joined up and read as leetspeak in the text with both undone, so that tricks combine.
    """
    found: list[str] = []
    base = text
    if not text.isascii():
        present = _classes().matching(text) if present is None else present
        # Combining marks decorate letters (an underline on each, an accent NFKC composes): drop them.
        if _MARK_CLASS in present:
            stripped = _unmarked(text if raw is None else raw)
            if stripped != base:
                found.append(stripped)
                base = stripped
        if _CONFUSABLE_CLASS in present and _LATIN.search(base):
            latin = base.translate(_confusables())
            if latin != base:
                found.append(latin)
                base = latin
    lowered = base.lower()
    if possible is None or base is not text:
        possible = _reading_gates().matching(lowered)
    # Spaced-out letters are joined up where they stand, so the words around them are read with
    # them ("ignore all p r e v i o u s instructions").
    joined_text, joined = _spaced(lowered) if _RUN in possible else ("", "")
    if joined_text:
        found.append(joined_text)
    if _LEET in possible:
        base = f"{lowered}\n{joined}" if joined else lowered
        spans = _leet_spans(base)
        # mutation: equivalent: or ">=": position len(lowered) is the line break, where no token starts
        in_joined = sum(start > len(lowered) for start, _ in spans)
        if len(spans) - in_joined >= 2 or in_joined:
            # Only the sentences that hold leetspeak are read as letters: a rule reads within a
            # sentence, and a page of ids and hashes is not copied twice more.
            as_i, as_l = _leet()
            raw_leet = _sentences_with(base, spans).encode("utf-8")
            found.extend([raw_leet.translate(as_i).decode("utf-8"), raw_leet.translate(as_l).decode("utf-8")])
    return found


@dataclass(frozen=True)
class _Visible:
    """A text as the rules read it: what is displayed (NFKC, invisible characters out), its other
    readings one per line (what tag characters spell first), the ASCII the tags spell alone (where
    blobs are looked for too), and whether any invisible character was there."""

    text: str
    readings: str
    obfuscated: bool
    spelled: str = ""


def _visible(text: str) -> _Visible:
    """How the rules read ``text``. ASCII text is its own display."""
    if text.isascii():
        return _Visible(text, "\n".join(_readings(text)), False)
    folded = unicodedata.normalize("NFKC", text)
    # Both the text and its NFKC form: a combining mark NFKC composes is only in the first, a
    # look-alike NFKC makes (mathematical alphanumerics) only in the second.
    present = _classes().matching(f"{text}\n{folded}")
    tags = _TAGS.findall(folded) if _TAG_CLASS in present else []
    spelled = "".join(chr(ord(c) - _TAG_BASE) for run in tags for c in run)
    cleaned, removed = _invisible().subn("", folded) if _INVISIBLE_CLASS in present else (folded, 0)
    extra = [spelled, *_readings(spelled)] if spelled else []
    # A model reads the characters in their stored order, a person as displayed: text after a
    # right-to-left override shows reversed, so that order is read too (the override characters
    # themselves are invisible: removed, and flagged).
    if _OVERRIDE_CLASS in present:
        shown = _invisible().sub("", _override().sub(lambda m: m[1][::-1], folded))
        if shown != cleaned:
            extra += [shown, *_readings(shown)]
    # Removing characters only takes classes away, so ``present`` still holds all of cleaned's.
    return _Visible(cleaned, "\n".join([*extra, *_readings(cleaned, present, raw=text)]), removed > 0, spelled)


def normalise(text: str) -> tuple[str, bool]:
    """(the text the rules read, whether invisible characters were removed).

    NFKC, then the invisible characters out, then case-folded; what tag characters spell and the
    text's other readings are appended on lines of their own, so an instruction written in them is
    read. A lone surrogate reads as U+FFFD, as in ``scan_injection``.
    """
    seen = _visible(valid_text(text))
    cleaned = f"{seen.text}\n{seen.readings}" if seen.readings else seen.text
    return cleaned.casefold(), seen.obfuscated


def _rule_hits(text: str, passed: frozenset[int] | None = None) -> list[Hit]:
    """Every rule hit in ``text`` (which holds no lone surrogate). ``passed``: a superset of the
    rule gates ``text`` passes, when already known (a finder only confirms what its gate allows)."""
    hits: list[Hit] = []
    breaks: list[int] | None = None
    rules, gates = _rules()
    passed = gates.matching(text) if passed is None else passed
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


def _decoded_exactly(blob: str) -> str | None:
    """The text a base64 (or hex) blob encodes when it is mostly printable UTF-8, else None."""
    try:
        if _hex().fullmatch(blob) and len(blob) % 2 == 0:
            raw = bytes.fromhex(blob)
        else:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if text.isprintable():  # most decoded text: no character to count
        return text or None
    printable = sum(c.isprintable() or c.isspace() for c in text)
    return text if printable >= 0.9 * len(text) else None


@cache
def _shortest_blob() -> int:
    """How long the shortest base64 blob the table's pattern finds is (a run of its alphabet)."""
    pattern = re.compile(ENCODED_PATTERN, re.IGNORECASE)
    return next((n for n in range(1, 1 << 16) if pattern.fullmatch("a" * n)), 1)


def _decoded(blob: str) -> tuple[int, str] | None:
    """(where in ``blob`` the encoded part starts, the text it encodes), when some part of it
    encodes mostly printable UTF-8: the whole run first, then the run without up to three leading
    characters (a blob glued to a word: "x" + blob), then what follows one of its first
    ``ENCODED_PATH_STARTS`` "/" (a blob glued to a path, from the table), with the same shifts;
    each piece still as long as a blob (a piece of a run is in its alphabet, so only its length
    can fail the pattern)."""
    slashes: list[int] = []
    at = blob.find("/")
    while at >= 0 and len(slashes) < ENCODED_PATH_STARTS:
        slashes.append(at + 1)
        at = blob.find("/", at + 1)
    for start in [0, *slashes]:
        for shift in range(4):
            piece = blob[start + shift :]
            if (start or shift) and len(piece) < _shortest_blob():
                break
            decoded = _decoded_exactly(piece)
            if decoded is not None:
                return start + shift, decoded
    return None


@dataclass(frozen=True)
class _Passed:
    """Which gates of each kind a text passes (supersets), from one pass of ``_every_gate``."""

    rules: frozenset[int]
    readings: frozenset[int]
    blobs: frozenset[int]


def _every_passed(lowered: str) -> _Passed:
    """The gates the lowered text(s) pass, each kind indexed as in its own set."""
    found = _every_gate().matching(lowered)
    rules, readings = len(_rules()[1].patterns), len(_reading_gates().patterns)
    return _Passed(
        frozenset(i for i in found if i < rules),
        frozenset(i - rules for i in found if rules <= i < rules + readings),
        frozenset(i - rules - readings for i in found if i >= rules + readings),
    )


def _inners(blobs: list[str]) -> tuple[list[str], bool]:
    """(each decoded blob normalised, whether any rule gate passes on one of them)."""
    # Most decoded blobs are ASCII with no other reading: their normal form is their lowered text,
    # which one pass over all of them shows (a gate that passes on one passes on their join).
    lowered = [blob.lower() if blob.isascii() else "" for blob in blobs]
    passed = _every_passed("\n".join(lowered))
    plain = not passed.readings
    inners = [low if plain and blob.isascii() else normalise(blob)[0] for blob, low in zip(blobs, lowered, strict=True)]
    if plain and all(blob.isascii() for blob in blobs):
        return inners, bool(passed.rules)
    return inners, bool(_every_passed("\n".join(inners)).rules)


def _folded_at(text: str, index: int) -> int:
    """Where ``text[index]`` lands once ``text`` is case-folded (folding is per character, and may
    lengthen one: "ß" is "ss")."""
    return index if text.isascii() else len(text[:index].casefold())


def _scan(seen: _Visible, passed: _Passed | None = None) -> Scan:
    # ``passed``: the gates of an ASCII source with no other reading, when already known.
    source = seen.text
    unfolded = f"{source}\n{seen.readings}" if seen.readings else source
    hits = _rule_hits(unfolded.casefold(), None if passed is None else passed.rules)
    if seen.obfuscated:
        hits.append(Hit(OBFUSCATION[0], OBFUSCATION[1], 0, 0))
    # Base64 is case-sensitive: blobs are read before case-folding, in the text and in what tag
    # characters spell (the first of its readings), and their offsets then moved to the folded text.
    blob_text = f"{source}\n{seen.spelled}" if seen.spelled else source
    kinds = _blob_gates().matching(blob_text) if passed is None else passed.blobs
    base64_blobs, hex_blobs = _blob_spans()
    blobs = base64_blobs.spans(blob_text) if 0 in kinds else []
    blobs += hex_blobs.spans(blob_text) if 1 in kinds else []
    found: list[tuple[tuple[int, int], str]] = []
    for start, end in blobs:
        part = _decoded(blob_text[start:end])
        if part is None:
            continue
        skipped, decoded = part
        span = _folded_at(unfolded, start + skipped), _folded_at(unfolded, end)
        if len(found) == MAX_ENCODED_BLOBS:
            # Failing closed: more encoded text than the filter reads is itself the tell.
            hits.append(Hit(ENCODED[0], ENCODED[1], *span))
            break
        found.append((span, decoded))
    # One pass of the rule gates over every decoded text says whether any rule can match in any of
    # them: most pages' blobs are images and fonts.
    inners, can_hit = _inners([decoded for _, decoded in found]) if found else ([], False)
    for (span, _), inner in zip(found, inners, strict=True):
        if (can_hit and _rule_hits(inner)) or _speaks(inner):  # hiding a sentence in base64 is itself the tell
            hits.append(Hit(ENCODED[0], ENCODED[1], *span))
    return Scan(tuple(sorted(set(hits), key=lambda h: (h.start, h.end, h.rule))))


def _scan_valid(text: str) -> Scan:
    """``scan_injection`` of one text of a batch (holding no lone surrogate) whose joined pass of
    every gate passed.

    An ASCII text is read by that same automaton once more, alone, which has just built the states
    its bytes need, instead of by the three sets (rules, readings, blobs) scan_injection starts
    with: it says which rules, readings and blob kinds are possible, and the rule gates run again
    only over a text that has another reading. (scan_injection keeps the three: on a text no
    automaton has read, the one holding every gate is the slower.)
    """
    if not text.isascii():
        return _scan(_visible(text))
    passed = _every_passed(text.lower())
    readings = "\n".join(_readings(text, possible=passed.readings)) if passed.readings else ""
    return _scan(_Visible(text, readings, False)) if readings else _scan(_Visible(text, "", False), passed)


def scan_injection(text: str) -> Scan:
    """Scan one text with every rule of the injection table (R-RS-5)."""
    return _scan(_visible(valid_text(text)))


_NOTHING = Scan(())


@cache
def _every_gate() -> PatternSet:
    """Every gate of the filter (the rules', the readings', the blobs') in one set, each read with
    ``(?m)``, so that "^" also matches after a line break: on the lowered texts of several ASCII
    texts joined by line breaks, a gate that passes on one of them passes on the whole."""
    _, rule_gates = _rules()
    patterns = [*rule_gates.patterns, *_reading_gates().patterns, *_blob_gates().patterns]
    return compile_set([f"(?m:{pattern})" for pattern in patterns])


def prepare() -> None:
    """Compile every automaton and table the scan may use, now rather than on the first text that
    needs it: a start-up cost paid once per process (the bench times it apart from the scan)."""
    builds = (_invisible, _override, _rules, _blob_spans, _prose, _hex, _shortest_blob, _blob_gates, _reading_gates)
    for build in (*builds, _leet_token, _confusables, _leet, _classes, _every_gate):
        build()


def scan_many(texts: list[str]) -> list[Scan]:
    """``scan_injection`` of each text (a source's title, locator, content and metadata values).

    ASCII texts (most of what tools return) are first read together in one pass of every gate: an
    ASCII text has no invisible character, tag or look-alike, so when no reading or blob gate
    passes and no rule has all its gates passing (a co-occurrence rule has two), it has no
    reading, no rule hit and no blob, and its scan is empty. Only otherwise is each text scanned
    on its own.
    """
    valid = [valid_text(text) for text in texts]
    plain = [text for text in valid if text.isascii()]
    if plain and not _possible(_every_passed("\n".join(plain).lower())):
        return [_NOTHING if text.isascii() else _scan(_visible(text)) for text in valid]
    return [_scan_valid(text) for text in valid]


def _possible(passed: _Passed) -> bool:
    """Whether a text whose gates are ``passed`` could have a reading, a blob or a rule hit."""
    return bool(passed.readings or passed.blobs) or any(passed.rules.issuperset(c.gates) for c in _rules()[0])
