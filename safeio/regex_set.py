"""Many patterns, few passes: which of them match somewhere in a text (RE2's ``RE2::Set``).

A filter with dozens of rules would otherwise read every text once per rule. RE2 compiles the
patterns that do not count (below) into one automaton, which reads the text once, in time linear
in its length, and answers with the indices of those that match; the patterns that count are each
searched for alone, only when the words they need are in the text. Python's ``re`` or RE2 alone
then finds where, for the few that match.

Syntax is RE2's, which is Python's for everything rule tables use, with three differences that
matter: ``\\b`` and ``\\w`` are ASCII (as with ``re.ASCII``), there is no look-around and no
backreference (refused when the set is built, with RE2's reason), and a bounded repeat is at most
``{1000}``. The fourth, ``$``, is refused outright: RE2 reads it as the very end of the text, while
Python's ``re`` also matches it before a final newline, so the gate and the rule that follows it
would disagree on ``"x\\n"`` and a rule could silently never fire. For the same reason ``\\s`` and
``\\S`` are refused (RE2's whitespace leaves out ``\\v``, Python's has it): spell the class.

``compile_spans`` runs one such pattern on RE2 alone and gives where it matches, as Python's
``re.finditer`` would on the same text (RE2's leftmost-first search is Perl's): a rule whose two
spellings are the same needs no second engine.

Patterns that count (a bounded repeat such as ``(?:\\w+\\W+){0,6}`` or ``[a-z]{24,}``) are kept out
of the first automaton. RE2 builds an automaton's states as the text asks for them, and a state
records where every pattern of the set stands at once: in one automaton the counts of several such
patterns multiply, so on text it has not read before it builds a new state for almost every byte,
and its memory grows as long as new text comes. Each is searched for by an RE2 of its own, behind
RE2's FilteredRE2: the literal strings a pattern needs ("atoms") are found in one pass of a set of
them, and a pattern whose atoms are missing cannot match, so it is not searched for. A counting
pattern that needs no literal string (its words are optional, or as short as "ai") would be
searched for on every text; those few share a second automaton instead. Over prose
none of the automata had read, the injection scan (whose rule gates are such a set) read 0.5-0.8
MB/s with every gate in one automaton, and 1.5-3.5 MB/s this way (on text read before, once the
one automaton had every state it needed, it was up to a third faster than this way).

Failing closed: RE2 would answer "no match" if its automaton ran out of memory. A set whose program
does not fit the budget below is refused when it is built; a set search never gives up for being
slow (RE2 flushes its state cache and goes on, unlike a single pattern's search), so it could only
fail if the rest of the budget could not hold a few states, and it is orders of magnitude larger.
A single pattern's search that gives up on its automaton is finished by RE2's NFA: slower, the same
answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import re2

from rcs_contracts.safeio.regex import PatternError

# Bytes RE2 may spend on the automaton of one set: states are built lazily and flushed when full,
# so this bounds memory, not speed; it must hold at least a few states of the largest set.
MAX_MEMORY = 256 << 20


def _options() -> re2.Options:
    options = re2.Options()
    options.max_mem = MAX_MEMORY
    options.never_capture = True
    options.log_errors = False
    return options


@dataclass(frozen=True)
class _Automaton:
    """One RE2 set and, for each of its patterns in order, the pattern's index in the whole."""

    compiled: re2.Set
    indices: tuple[int, ...]


@dataclass(frozen=True)
class _Filtered:
    """Patterns behind RE2's FilteredRE2 and, for each in order, its index in the whole."""

    compiled: re2.Filter
    indices: tuple[int, ...]


@dataclass(frozen=True)
class PatternSet:
    """Compiled patterns; ``matching(text)`` gives the indices of those that match in ``text``."""

    patterns: tuple[str, ...]
    # The patterns that do not count, then the counting ones no literal string can filter: each
    # group shares an automaton. The other counting ones: one RE2 each, behind their filter.
    _automata: tuple[_Automaton, ...] = field(repr=False, compare=False)
    _filtered: _Filtered | None = field(repr=False, compare=False)

    def matching(self, text: str) -> frozenset[int]:
        """Indices (into ``patterns``) of the patterns that match somewhere in ``text``, which must
        hold no lone surrogate (``safeio.regex.valid_text``)."""
        subject = text.encode("utf-8")
        found: list[int] = []
        for automaton in self._automata:
            found.extend(automaton.indices[i] for i in automaton.compiled.Match(subject) or ())
        if self._filtered is not None:
            found.extend(self._filtered.indices[i] for i in self._filtered.compiled.Match(subject) or ())
        return frozenset(found)


@dataclass(frozen=True)
class Spans:
    """One pattern compiled by RE2; ``spans(text)`` gives its matches as ``re.finditer`` would."""

    pattern: str
    _regexp: re2._Regexp = field(repr=False, compare=False)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of each match, left to right, not overlapping, in characters of ``text``."""
        # ASCII text is searched as its bytes, whose offsets are its characters': the binding then
        # skips mapping every match's byte offsets back to characters (half the time of a search).
        subject: str | bytes = text.encode("ascii") if text.isascii() else text
        return [match.span() for match in self._regexp.finditer(subject)]


def _tokens(pattern: str) -> Iterator[tuple[int, str, bool]]:
    """Each token of ``pattern``, with its offset and whether it stands in a character class: an
    escape (the backslash and the character after it) or one character. A ']' first in a class
    (after an optional '^') is a literal, not the class's end."""
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            yield i, pattern[i : i + 2], in_class
            i += 2
        elif in_class:
            yield i, char, True
            in_class = char != "]"
            i += 1
        elif char == "[":
            yield i, char, False
            in_class = True
            i += 2 if pattern[i + 1 : i + 2] == "]" else 3 if pattern[i + 1 : i + 3] == "^]" else 1
        else:
            yield i, char, False
            i += 1


def _differs(pattern: str) -> str | None:
    """Why RE2 and Python's ``re`` would read ``pattern`` differently, or None."""
    for i, token, in_class in _tokens(pattern):
        if token in ("\\s", "\\S"):
            return f"'{token}' at offset {i}: RE2's leaves out \\v, Python's has it; spell the class"
        if token == "$" and not in_class:
            return f"'$' at offset {i}: RE2 and Python disagree before a final newline; not allowed"
    return None


_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def counts(pattern: str) -> bool:
    """Whether ``pattern`` holds a bounded repeat that counts past one (``{2}``, ``{0,6}``, ``{24,}``;
    not ``{0,1}``), outside character classes and escapes."""
    for i, token, in_class in _tokens(pattern):
        if token == "{" and not in_class and (repeat := _REPEAT.match(pattern, i)) is not None:
            low, high = repeat[1], repeat[2]
            if (int(high) if high else int(low)) > 1:
                return True
    return False


def check_pattern(pattern: str) -> str | None:
    """Why RE2 refuses ``pattern`` (its own words), or None when it compiles; also refuses what
    RE2 and Python's ``re`` read differently (a ``$`` anchor, ``\\s``)."""
    differs = _differs(pattern)
    if differs is not None:
        return differs
    try:
        compiled = re2.compile(pattern, _options())
    except re2.error as exc:
        detail = exc.args[0] if exc.args else b""
        text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
        return text or "does not compile"
    del compiled
    return None


def _automaton(patterns: Sequence[str], indices: tuple[int, ...]) -> _Automaton:
    compiled = re2.Set.SearchSet(_options())
    for index in indices:
        compiled.Add(patterns[index])
    compiled.Compile()
    return _Automaton(compiled, indices)


def _filter(patterns: Sequence[str], indices: tuple[int, ...]) -> re2.Filter:
    compiled = re2.Filter()
    for index in indices:
        compiled.Add(patterns[index], _options())
    compiled.Compile()
    return compiled


def compile_set(patterns: Sequence[str]) -> PatternSet:
    """All of ``patterns``, grouped as the module docstring says; raises PatternError naming the
    first pattern that RE2 refuses."""
    for pattern in patterns:
        problem = check_pattern(pattern)
        if problem is not None:
            raise PatternError(pattern, problem)
    counting = tuple(i for i, pattern in enumerate(patterns) if counts(pattern))
    plain = tuple(i for i in range(len(patterns)) if i not in set(counting))
    try:
        # FilteredRE2 passes every pattern that needs no literal string (an empty text has none):
        # those would each be searched for on every text, so they share an automaton instead.
        unfiltered = tuple(counting[i] for i in _filter(patterns, counting).Match(b"", True) or ()) if counting else ()
        filtered = tuple(i for i in counting if i not in set(unfiltered))
        automata = tuple(_automaton(patterns, group) for group in (plain, unfiltered) if group)
        behind = _Filtered(_filter(patterns, filtered), filtered) if filtered else None
    except re2.error:
        raise PatternError("|".join(patterns), "the set does not fit RE2's memory budget") from None
    return PatternSet(tuple(patterns), automata, behind)


def compile_spans(pattern: str) -> Spans:
    """``pattern`` on RE2 alone; raises PatternError with RE2's reason when it cannot run it."""
    problem = check_pattern(pattern)
    if problem is not None:
        raise PatternError(pattern, problem)
    return Spans(pattern, re2.compile(pattern, _options()))
