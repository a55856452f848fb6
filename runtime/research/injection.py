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
import codecs
import re
import string
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple, Protocol

from rcs_contracts.generated.research.injection import (
    ACCENTED,
    BIDI_OVERRIDE,
    CONFUSABLE_SCRIPTS,
    CONFUSABLES,
    ENCODED,
    ENCODED_HEX_PATTERN,
    ENCODED_PATH_REACH,
    ENCODED_PATH_STARTS,
    ENCODED_PATTERN,
    ENCODED_PROSE,
    ENCODED_PROSE_MIN_WORDS,
    ENCODED_TEXT_SHARE,
    INVISIBLE,
    LEET,
    LEET_ONE_AS,
    LEET_WORD_MIN_LETTERS,
    LETTER_SEPARATORS,
    MARKS,
    MAX_ENCODED_BLOBS,
    MAX_ENCODED_DEPTH,
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
# A member is a letter, a digit or a symbol leetspeak reads as a letter ("r e v e @ l").
_SYMBOLS = "".join(c for c in LEET[0] if not c.isalnum())
_MEMBER = f"[a-z0-9{re.escape(_SYMBOLS)}]"
# A symbol glued to a member's side does not make it part of a word ("d i s r e g a r d!").
_LETTER_RUN = re.compile(f"(?<![a-z0-9]){_MEMBER}(?:{_SEPARATORS}{_MEMBER}(?![a-z0-9]))+", re.ASCII)
_MARKS = re.compile(_class(MARKS))
_SEPARATOR = re.compile(_SEPARATORS, re.ASCII)
# A Latin letter: ASCII, or one of the table's look-alikes that is itself Latin (a small capital, a
# barred letter), so that text written wholly in those is read too, and wholly Greek text is not.
_LATIN_LOOK_ALIKES = "".join(c for c in CONFUSABLES[0] if unicodedata.name(c, "").startswith("LATIN "))
_LATIN = re.compile(f"[a-zA-Z{re.escape(_LATIN_LOOK_ALIKES)}]")
# A leetspeak token: a run of token characters with a core, a digit or symbol between letters
# ("pr3v10u5"), and a letter past f, so hexadecimal ids and plain names like "bm25" do not count.
# The symbols leetspeak reads as letters come from the table ("@$+!" today); digits are all read.
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
_LETTER_RUN_GATE = f"(?:^|[^a-z0-9]){_MEMBER}(?:{_SEPARATORS}{_MEMBER}){{{_GATE_REPEATS},}}"
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
# What leetspeak reads as a letter (the table's digits and symbols).
_LEET_CHARS = frozenset(LEET[0])


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


def _sentence_around(text: str, index: int) -> tuple[int, int]:
    """Where the sentence of ``text`` holding ``index`` starts and ends (its end mark left out), as
    ``_sentences_with`` cuts it."""
    breaks = _leet_breaks(text)
    number = bisect.bisect_right([end for _, end in breaks], index)
    return (breaks[number - 1][1] if number else 0), (breaks[number][0] if number < len(breaks) else len(text))


def _sentences_with(text: str, spans: list[tuple[int, int]], written: str | None = None) -> str:
    """The sentences of ``text`` that hold the start of one of ``spans``, without the marks that end
    them, in order, one per line. ``written``: the text as written, of the same length, when
    ``text`` is a reading of it: its sentences are the ones cut out (a "!" read as an i still ends
    one)."""
    breaks = _leet_breaks(text if written is None else written)
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


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` in order, those that overlap merged into one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


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
_INVISIBLE_CLASS, _TAG_CLASS, _OVERRIDE_CLASS, _MARK_CLASS, _CONFUSABLE_CLASS, _ACCENTED_CLASS = range(6)


@cache
def _classes() -> PatternSet:
    return compile_set(
        [
            _class(INVISIBLE),
            _TAGS.pattern,
            _class(((BIDI_OVERRIDE[0], BIDI_OVERRIDE[0]),)),
            _class(MARKS),
            _class(CONFUSABLE_SCRIPTS),
            _class(ACCENTED),
        ]
    )


def _unmarked(raw: str, decompose: bool = False) -> str:
    """``raw`` as displayed with every combining mark dropped: those NFKC would compose into an
    accented letter ("o" + U+0301 is "ó") are dropped before it can, those left over after it too.
    With ``decompose``, those built into a letter too: precomposed letters are decomposed first
    ("ó" is "o" + U+0301, "İ" is "I" + U+0307)."""
    marked = unicodedata.normalize("NFD", raw) if decompose else raw
    folded = unicodedata.normalize("NFKC", _MARKS.sub("", marked))
    return _MARKS.sub("", _invisible().sub("", folded))


def _spaced(lowered: str) -> tuple[str, list[tuple[int, int]]]:
    """(the lowered text with each run of spaced-out letters joined up in place, where the joined
    runs are in it), or ("", []) when it holds no such run."""
    pieces, runs, last, length = [], [], 0, 0
    for match in _LETTER_RUN.finditer(lowered):
        if sum(c.isalnum() for c in match[0]) < SPACED_MIN_LETTERS:
            continue
        before, joined = lowered[last : match.start()], _joined(match[0])
        pieces += [before, joined]
        length += len(before)
        runs.append((length, length + len(joined)))
        length += len(joined)
        last = match.end()
    if not runs:
        return "", []
    return "".join([*pieces, lowered[last:]]), runs


def _readings(
    text: str,
    present: frozenset[int] | None = None,
    possible: frozenset[int] | None = None,
    raw: str | None = None,
    decompose: bool = False,
) -> list[str]:
    """The other readings of a visible text that differ from it (see the table's ``readings``).
    ``present``: a superset of the classes ``text`` (and ``raw``) hold (``_classes``), ``possible``
    of the reading gates its lowered text passes (``_reading_gates``), when already known; ``raw``:
    the text before NFKC, when there was one; ``decompose``: the accent-free readings, whose first
    drops the accents built into letters too (``_unmarked``), the others made from it.

    The readings chain: look-alikes are read in the text with its marks dropped, and letters are
    joined up and read as leetspeak in the text with both undone, so that tricks combine.
    """
    found: list[str] = []
    base = text
    if not text.isascii():
        present = _classes().matching(text) if present is None else present
        # Combining marks decorate letters (an underline on each, an accent NFKC composes, and in the
        # accent-free readings an accent built into the letter): drop them.
        if _MARK_CLASS in present or (decompose and _ACCENTED_CLASS in present):
            stripped = _unmarked(text if raw is None else raw, decompose)
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
    joined_text, runs = _spaced(lowered) if _RUN in possible else ("", [])
    if joined_text:
        found.append(joined_text)
    # Leetspeak is read in the text with its letters joined up, so the two tricks combine: a
    # joined run holding a digit or symbol is leetspeak whatever its shape ("i g n o r 3"). Two
    # pieces of leetspeak (tokens or such runs), or spaced letters with a digit among them, make
    # their sentences read as letters whole ("1gn0re 4ll pr3v10us"); one token, or one run spaced
    # with symbols only, is read as letters with the leet words beside it but not the rest of its
    # sentence: "ign0re all previous instructions" is an order, while in "Step 41: run the k8s
    # upgrade" or "Eq. 41: use x + y + z + w" the number must not read as "ai".
    base = joined_text or lowered
    leet_runs = [(start, end) for start, end in runs if not _LEET_CHARS.isdisjoint(base[start:end])]
    if _LEET in possible or leet_runs:
        spans = _leet_spans(base) if _LEET in possible or runs else []
        pieces = _merged(spans + leet_runs)  # a token inside a joined run is that run
        # Letters spaced out with a digit among them are written to be read as letters: their
        # sentence is read whole ("i g n 0 r e previou5 instruction5"); spaced with a symbol only,
        # they may be sums ("x + y + z + w"), one piece like any other.
        spaced_digits = any(any(c.isdigit() for c in base[start:end]) for start, end in leet_runs)
        if len(pieces) >= 2 or spaced_digits:
            # Only the sentences that hold leetspeak are read as letters: a rule reads within a
            # sentence, and a page of ids and hashes is not copied twice more.
            as_i, as_l = _leet()
            raw_leet = _sentences_with(base, spans + leet_runs).encode("utf-8")
            found.extend([raw_leet.translate(as_i).decode("utf-8"), raw_leet.translate(as_l).decode("utf-8")])
        elif pieces:
            # The piece, and the words of its sentence that mix two letters or more with a digit
            # or symbol ("1gnore", "th3"), are read as letters; a number, or one letter beside
            # digits ("41", "A1"), is not.
            [(start, end)] = pieces
            first, last = _sentence_around(base, start)
            words = [(m.start(), m.end()) for m in _LEET_WORD.finditer(base, first, last) if _leet_word(m[0])]
            marked = _merged([(start, end), *words])
            for table in _leet():
                found.append(_sentences_with(_translated(base, marked, table), [(start, end)], base))
    return found


# A word of the characters leetspeak reads: letters, digits and the table's symbols, not ending in
# a "!" (punctuation there, "thanks!").
_LEET_WORD = re.compile(f"{_MEMBER}*[a-z0-9{re.escape(_SYMBOLS.replace('!', ''))}]", re.ASCII)


def _leet_word(word: str) -> bool:
    """Whether a word beside a piece of leetspeak is read as letters too: two letters or more, and
    a symbol or a leading digit ("$how", "instruct!ons", "1gnore"), or a digit after just two
    letters ("th3"). A longer name with a number at its end ("mode1", "gpt5", "python3") is not:
    read as letters, it may become a word the rules know ("model")."""
    letters = sum(c.isalpha() for c in word)
    if letters < LEET_WORD_MIN_LETTERS:
        return False
    return word[0].isdigit() or any(c in _SYMBOLS for c in word) or letters == LEET_WORD_MIN_LETTERS


def _translated(text: str, spans: list[tuple[int, int]], table: bytes) -> str:
    """``text`` with the characters of each span (in order, not overlapping) read through a byte
    table of ASCII; spans of leetspeak are ASCII, the rest is copied as it is."""
    pieces, last = [], 0
    for start, end in spans:
        pieces += [text[last:start], text[start:end].encode("utf-8").translate(table).decode("utf-8")]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)



@dataclass(frozen=True)
class _Visible:
    """A text as the rules read it: what is displayed (NFKC, invisible characters out), its other
    readings one per line (what tag characters spell first), the ASCII the tags spell alone (where
    blobs are looked for too), whether any invisible character was there, and the accent-free
    readings that differ from all those, one per line (read by every rule but the ``as_written``
    ones: an accent a model reads past in "ignóre" makes another word of French "oublié")."""

    text: str
    readings: str
    obfuscated: bool
    spelled: str = ""
    unaccented: str = ""

    @property
    def blob_text(self) -> str:
        """Where blobs are looked for: the visible text and what its tag characters spell (base64
        is case-sensitive, so before case-folding)."""
        return f"{self.text}\n{self.spelled}" if self.spelled else self.text

    def read(self) -> tuple[str, int]:
        """(the text and every reading, one per line, case-folded; where the accent-free readings
        start in it, its length when there are none)."""
        head = f"{self.text}\n{self.readings}" if self.readings else self.text
        if not self.unaccented:
            folded = head.casefold()
            return folded, len(folded)
        return f"{head}\n{self.unaccented}".casefold(), len(head.casefold())


def _accent_free(text: str, present: frozenset[int], raw: str | None, known: list[str]) -> list[str]:
    """The accent-free readings of ``text`` (``_readings`` with ``decompose``) that are neither
    ``text`` nor one of the ``known`` readings."""
    if _ACCENTED_CLASS not in present:
        return []
    seen = {text, *known}
    return [line for line in _readings(text, present, raw=raw, decompose=True) if line not in seen]


def _spelled(tags: list[str]) -> str:
    """The ASCII that runs of tag characters spell."""
    return "".join(chr(ord(c) - _TAG_BASE) for run in tags for c in run)


def _visible(text: str) -> _Visible:
    """How the rules read ``text``. ASCII text is its own display."""
    if text.isascii():
        return _Visible(text, "\n".join(_readings(text)), False)
    folded = unicodedata.normalize("NFKC", text)
    # Both the text and its NFKC form: a combining mark NFKC composes is only in the first, a
    # look-alike NFKC makes (mathematical alphanumerics) only in the second.
    present = _classes().matching(f"{text}\n{folded}")
    tags = _TAGS.findall(folded) if _TAG_CLASS in present else []
    spelled = _spelled(tags)
    cleaned, removed = _invisible().subn("", folded) if _INVISIBLE_CLASS in present else (folded, 0)
    extra = [spelled, *_readings(spelled)] if spelled else []
    # A model reads the characters in their stored order, a person as displayed: text after a
    # right-to-left override shows reversed, so that order is read too (the override characters
    # themselves are invisible: removed, and flagged).
    unaccented: list[str] = []
    if _OVERRIDE_CLASS in present:
        shown = _invisible().sub("", _override().sub(lambda m: m[1][::-1], folded))
        if shown != cleaned:
            shown_readings = _readings(shown, present)
            extra += [shown, *shown_readings]
            unaccented += _accent_free(shown, present, None, shown_readings)
    # Removing characters only takes classes away, so ``present`` still holds all of cleaned's.
    readings = _readings(cleaned, present, raw=text)
    unaccented += _accent_free(cleaned, present, text, readings)
    return _Visible(cleaned, "\n".join([*extra, *readings]), removed > 0, spelled, "\n".join(unaccented))


def normalise(text: str) -> tuple[str, bool]:
    """(the text the rules read, whether invisible characters were removed).

    NFKC, then the invisible characters out, then case-folded; what tag characters spell and the
    text's other readings are appended on lines of their own, so an instruction written in them is
    read. A lone surrogate reads as U+FFFD, as in ``scan_injection``.
    """
    seen = _visible(valid_text(text))
    return seen.read()[0], seen.obfuscated


def _rule_hits(text: str, passed: frozenset[int] | None = None, as_written: bool | None = None) -> list[Hit]:
    """Every rule hit in ``text`` (which holds no lone surrogate). ``passed``: a superset of the
    rule gates ``text`` passes, when already known (a finder only confirms what its gate allows);
    ``as_written``: only the rules whose ``as_written`` is that, when not None."""
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
        if as_written is not None and rule.as_written != as_written:
            continue
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


# Units that do not decode are read as lone surrogates (UTF-8 with surrogateescape, UTF-16 with
# surrogatepass: neither makes one from valid input), counted, and then shown as U+FFFD; a U+FFFD
# the text itself encodes is a character like any other.
_BROKEN = re.compile("[\ud800-\udfff]")
_UNREADABLE = "\ufffd"


class _Text(NamedTuple):
    """Decoded bytes: the text (each unit that did not decode as U+FFFD), how many units did not
    decode, and whether all of those are at its ends (a stray byte glued before or after)."""

    text: str
    broken: int
    at_ends: bool


_SURROGATES = "".join(map(chr, range(0xD800, 0xE000)))


def _text_of(raw: bytes) -> _Text:
    """``raw`` read as UTF-16 when it looks like it (a byte order mark, or a zero byte in at least
    half of its even or odd places: Latin text in UTF-16), else as UTF-8."""
    # An odd byte at the end is half a character (a wrapped line, a byte glued on): read without it.
    even = raw[: len(raw) - len(raw) % 2]
    if even[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        codec, data, handler = "utf-16", even, "surrogatepass"
    elif even and 2 * even[1::2].count(0) >= len(even) // 2:
        codec, data, handler = "utf-16-le", even, "surrogatepass"
    elif even and 2 * even[0::2].count(0) >= len(even) // 2:
        codec, data, handler = "utf-16-be", even, "surrogatepass"
    else:
        codec, data, handler = "utf-8", raw, "surrogateescape"
    marked = data.decode(codec, handler)
    if marked.isascii():  # mutation: equivalent: both codecs fail only above U+007F
        return _Text(marked, 0, True)
    # Counted from two decodings in C (a unit that fails is one lone surrogate in the first, nothing
    # in the second), so that binary is refused before any character is looked at.
    broken = len(marked) - len(data.decode(codec, "ignore"))
    if not broken or broken > (1 - ENCODED_TEXT_SHARE) * len(marked):
        return _Text(marked, broken, False)
    at_ends = _BROKEN.search(marked.strip(_SURROGATES)) is None
    return _Text(_BROKEN.sub(_UNREADABLE, marked), broken, at_ends)


def _decoded_exactly(blob: str) -> _Text | None:
    """What a base64 (or hex) blob encodes when it is mostly printable UTF-8 or UTF-16, else None.

    A unit that does not decode (a stray byte, half a surrogate pair) counts against the text
    rather than refusing all of it: one byte glued to an order must not hide the order."""
    try:
        if _hex().fullmatch(blob) and len(blob) % 2 == 0:
            raw = bytes.fromhex(blob)
        else:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    decoded = _text_of(raw)
    text, broken = decoded.text, decoded.broken
    if broken > (1 - ENCODED_TEXT_SHARE) * len(text):  # most binary data: decided without a count
        return None
    if not broken and text.isprintable():  # most decoded text: no character to count
        return decoded if text else None
    # Invisible characters are not counted: spread between the letters of an order, they would
    # otherwise make it look like binary (they are removed, and flagged, when it is read); what tag
    # characters spell is counted, so an order written wholly in them is text.
    shown = _invisible().sub("", text) + _spelled(_TAGS.findall(text))
    printable = sum(c.isprintable() or c.isspace() for c in shown) - broken
    return decoded if shown and printable >= ENCODED_TEXT_SHARE * len(shown) else None


@cache
def _shortest_blob() -> int:
    """How long the shortest base64 blob the table's pattern finds is (a run of its alphabet)."""
    pattern = re.compile(ENCODED_PATTERN, re.IGNORECASE)
    return next((n for n in range(1, 1 << 16) if pattern.fullmatch("a" * n)), 1)


class _Decoding(NamedTuple):
    """What part of a run encodes text: where it starts in the run, the text, whether every unit
    of it decoded, and whether it is judged by the prose test (every unit decoded but at its ends:
    a stray byte glued on does not spare an order, while text among binary, a PDF's or a page in
    Latin-1, is not taken for one)."""

    offset: int
    text: str
    whole: bool
    prose: bool


def _decoded(blob: str, lenient: bool = True) -> _Decoding | None:
    """Where in ``blob`` the encoded part starts and the text it encodes, when some part of it
    encodes mostly printable UTF-8 or UTF-16: the whole run first, then the run without up to three
    leading characters (a blob glued to a word: "x" + blob), then what follows one of its first
    ``ENCODED_PATH_STARTS`` "/" (a blob glued to a path, from the table), with the same shifts;
    each piece still as long as a blob (a piece of a run is in its alphabet, so only its length
    can fail the pattern). The first piece that decodes whole, else (``lenient``) the first that is
    text with some units that do not decode."""
    slashes: list[int] = []
    at = blob.find("/")
    while at >= 0 and len(slashes) < ENCODED_PATH_STARTS:
        slashes.append(at + 1)
        at = blob.find("/", at + 1)
    # A piece that decodes whole wins over an earlier one with units that do not: the run glued to
    # a path decodes, its path read as a few broken bytes, but the blob starts after the path.
    best: _Decoding | None = None
    for start in [0, *slashes]:
        for shift in range(4):
            piece = blob[start + shift :]
            if (start or shift) and len(piece) < _shortest_blob():
                break
            decoded = _decoded_exactly(piece)
            if decoded is not None and not decoded.broken:
                return _Decoding(start + shift, decoded.text, True, True)
            if decoded is not None and best is None:
                best = _Decoding(start + shift, decoded.text, False, decoded.at_ends)
                # Only a broken prefix (a path read as base64) can be left behind by a later
                # piece: past it, trying them would decode the whole run again for nothing.
                if not _broken_only_at_start(decoded.text):
                    return best if lenient else None
    return best if lenient else None


def _broken_only_at_start(text: str) -> bool:
    """Whether every unit of a decoded text that did not decode is among its first few characters
    (where a path glued before a blob lands when the run is read whole)."""
    return _UNREADABLE not in text[ENCODED_PATH_REACH:]


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


def _inners(blobs: list[str]) -> tuple[list[_Visible], bool]:
    """(each decoded blob as the rules read it, whether any rule gate passes on one of them)."""
    # Most decoded blobs are ASCII with no other reading: they read as their lowered text, which
    # one pass over all of them shows (a gate that passes on one passes on their join).
    lowered = [blob.lower() if blob.isascii() else "" for blob in blobs]
    passed = _every_passed("\n".join(lowered))
    plain = not passed.readings
    inners = [
        _Visible(low, "", False) if plain and blob.isascii() else _visible(valid_text(blob))
        for blob, low in zip(blobs, lowered, strict=True)
    ]
    if plain and all(blob.isascii() for blob in blobs):
        return inners, bool(passed.rules)
    return inners, bool(_every_passed("\n".join(inner.read()[0] for inner in inners)).rules)


def _folded_at(text: str, index: int) -> int:
    """Where ``text[index]`` lands once ``text`` is case-folded (folding is per character, and may
    lengthen one: "ß" is "ss")."""
    return index if text.isascii() else len(text[:index].casefold())


def _hits_in(seen: _Visible, passed: frozenset[int] | None = None) -> list[Hit]:
    """Every rule hit in a text as the rules read it: the ``as_written`` rules do not read its
    accent-free readings. ``passed``: the rule gates it passes, when already known."""
    folded, head = seen.read()
    if head == len(folded):
        return _rule_hits(folded, passed)
    return _rule_hits(folded, passed, as_written=False) + _rule_hits(folded[:head], as_written=True)


def _scan(seen: _Visible, passed: _Passed | None = None) -> Scan:
    # ``passed``: the gates of an ASCII source with no other reading, when already known.
    source = seen.text
    unfolded = f"{source}\n{seen.readings}" if seen.readings else source
    hits = _hits_in(seen, None if passed is None else passed.rules)
    if seen.obfuscated:
        hits.append(Hit(OBFUSCATION[0], OBFUSCATION[1], 0, 0))
    # Base64 is case-sensitive: blobs are read before case-folding, in the text and in what tag
    # characters spell (the first of its readings), and their offsets then moved to the folded text.
    blob_text = seen.blob_text
    found: list[tuple[tuple[int, int], str, bool]] = []
    for blob in _decodings(blob_text, None if passed is None else passed.blobs):
        span = _folded_at(unfolded, blob.start), _folded_at(unfolded, blob.end)
        if len(found) == MAX_ENCODED_BLOBS:
            # Failing closed: more encoded text than the filter reads is itself the tell.
            hits.append(Hit(ENCODED[0], ENCODED[1], *span))
            break
        found.append((span, blob.text, blob.prose))
    if not found:
        return Scan(tuple(sorted(set(hits), key=lambda h: (h.start, h.end, h.rule))))
    # Every decoded text, of every layer, with the outer blob it came out of (where a hit is put).
    texts, closed = _layers([(decoded, prose) for _, decoded, prose in found])
    # One pass of the rule gates over every decoded text says whether any rule can match in any of
    # them: most pages' blobs are images and fonts.
    inners, can_hit = _inners([decoded for _, decoded, _ in texts])
    for (owner, _, prose), inner in zip(texts, inners, strict=True):
        # Hiding a sentence in base64 is itself the tell; not one among binary (a PDF, a page in
        # Latin-1), where text among broken units is what such files hold (``_Decoding``).
        if (can_hit and _hits_in(inner)) or (prose and _speaks(inner.read()[0])):
            closed.add(owner)
    hits += [Hit(ENCODED[0], ENCODED[1], *found[owner][0]) for owner in closed]
    return Scan(tuple(sorted(set(hits), key=lambda h: (h.start, h.end, h.rule))))


_LINE_BREAKS = ("\n", "\r\n")


# The last line of a wrapped blob, when it is too short for the blob pattern to find on its own.
_TAIL = re.compile(r"\r?\n([A-Za-z0-9+/]+={0,2})(?![A-Za-z0-9+/=])")


def _blob_runs(text: str, kinds: frozenset[int] | None = None) -> list[list[tuple[int, int]]]:
    """Where the runs that may be blobs are in ``text``, grouped: base64 runs wrapped over lines
    (each line but the last as long as the first, a multiple of four with no padding, a line break
    between: MIME's 76 columns, PEM's 64; a last line too short for the blob pattern included)
    make one group; then the hex runs that are not one of those lines (a hex run is in base64's
    alphabet, and a run that is all hex is decoded as hex whichever finder found it: counted once),
    each a group of its own. ``kinds``: the blob gates it passes, when known."""
    kinds = _blob_gates().matching(text) if kinds is None else kinds
    base64_blobs, hex_blobs = _blob_spans()
    groups: list[list[tuple[int, int]]] = []
    for start, end in base64_blobs.spans(text) if 0 in kinds else []:
        if groups and _wraps(text, groups[-1]) and text[groups[-1][-1][1] : start] in _LINE_BREAKS:
            group = groups[-1]
            if end - start <= group[0][1] - group[0][0]:
                group.append((start, end))
                continue
        groups.append([(start, end)])
    for group in groups:
        # A last line shorter than a blob: the blob pattern never found it, and without it the
        # order's end would be cut off (``_decodings`` tries the group without it too).
        tail = _TAIL.match(text, group[-1][1]) if _wraps(text, group) else None
        if tail is not None and len(tail[1]) < _shortest_blob():
            group.append(tail.span(1))
    lines = {run for group in groups for run in group}
    return groups + [[run] for run in (hex_blobs.spans(text) if 1 in kinds else []) if run not in lines]


def _wraps(text: str, group: list[tuple[int, int]]) -> bool:
    """Whether a group of base64 lines may go on over the next line: its last line is as long as
    its first, a multiple of four, with no padding."""
    first, (last_start, last_end) = group[0][1] - group[0][0], group[-1]
    return last_end - last_start == first and first % 4 == 0 and text[last_end - 1] != "="


class _Blob(NamedTuple):
    """A blob of a text that decodes to text: where its encoded part starts and ends, the text,
    and whether every unit of it decoded."""

    start: int
    end: int
    text: str
    whole: bool
    prose: bool


def _decodings(text: str, kinds: frozenset[int] | None = None) -> Iterator[_Blob]:
    """Each blob of ``text`` that decodes to text, left to right (base64 ones, then hex ones): a
    wrapped group as one blob (with its short last line, else without it), or its lines one by one
    when the group does not decode whole, each line only if every unit of it decodes (a line is a
    slice of the bytes: a certificate's lines would pass for text by the few broken units at their
    edges). The start is where the encoded part starts (``_decoded``). A hex run inside a blob
    that decoded whole is not decoded again (a hex run after a "/")."""
    whole: list[tuple[int, int]] = []
    for group in _blob_runs(text, kinds):
        if any(start <= group[0][0] and group[-1][1] <= end for start, end in whole):
            continue
        blob = _wrapped(text, group) if len(group) > 1 else None
        if blob is None:
            lines = group[:-1] if len(group) > 1 and group[-1][1] - group[-1][0] < _shortest_blob() else group
            if len(group) == 2 and len(lines) == 1:
                continue  # one line and a short word after it: the line alone was read above
            for start, end in lines:
                part = _decoded(text[start:end], lenient=len(group) == 1)
                if part is not None:
                    blob = _Blob(start + part.offset, end, part.text, part.whole, part.prose)
                    whole += [(blob.start, blob.end)] if blob.whole else []
                    yield blob
            continue
        whole += [(blob.start, blob.end)] if blob.whole else []
        yield blob


def _wrapped(text: str, group: list[tuple[int, int]]) -> _Blob | None:
    """The blob a wrapped group of lines encodes read whole, or without a short last line (a word
    after a blob whose last line is full), when either is text."""
    ends = [group[-1][1]]
    if group[-1][1] - group[-1][0] < _shortest_blob():
        ends.append(group[-2][1])
    for end in ends:
        start = group[0][0]
        piece = text[start:end]
        part = _decoded(piece.replace("\r", "").replace("\n", ""))
        if part is not None:
            return _Blob(start + _unwrapped_at(piece, part.offset), end, part.text, part.whole, part.prose)
    return None


def _unwrapped_at(piece: str, index: int) -> int:
    """Where the character at ``index`` of ``piece`` with its line breaks removed is in ``piece``."""
    at = 0
    for line in piece.splitlines(keepends=True):
        body = len(line.rstrip("\r\n"))
        if index < body:
            return at + index
        index, at = index - body, at + len(line)
    return at


def _blob_texts(decoded: str) -> Iterator[tuple[str, bool]]:
    """The texts the blobs of a decoded text encode, left to right (base64 ones, then hex ones),
    each with whether the prose test judges it (``_Decoding``), looked for as in a source: in its
    visible text and in what its tag characters spell."""
    seen = _visible(valid_text(decoded))
    for blob in _decodings(seen.blob_text):
        yield blob.text, blob.prose


def _layers(outer: list[tuple[str, bool]]) -> tuple[list[tuple[int, str, bool]], set[int]]:
    """(every decoded text with the index of the outer blob it came from and whether the prose
    test judges it: the outer ones, then the blobs inside them, ``MAX_ENCODED_DEPTH`` layers in all; the
    outer blobs that fail closed).

    A blob that decodes to text one layer deeper than the table reads, or past ``MAX_ENCODED_BLOBS``
    counted over every layer, fails closed: encoding within encoding is itself the tell, and the
    work stays bounded by the blob budget whatever the nesting.
    """
    texts = [(owner, text, whole) for owner, (text, whole) in enumerate(outer)]
    layer, count, closed = texts, len(outer), set()
    for depth in range(2, MAX_ENCODED_DEPTH + 2):
        deeper = []
        for owner, text, _ in layer:
            for inner, whole in _blob_texts(text):
                if depth > MAX_ENCODED_DEPTH or count >= MAX_ENCODED_BLOBS:
                    closed.add(owner)
                    break
                count += 1
                deeper.append((owner, inner, whole))
        texts += deeper
        layer = deeper
        if not layer:
            break
    return texts, closed


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
