"""safeio/regex_set.py: one RE2 pass says exactly which patterns match, and refuses what RE2 cannot run."""

from __future__ import annotations

import re
import re._constants as sre_constants
import re._parser as sre_parser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.safeio.regex import PatternError
from rcs_contracts.safeio.regex_set import check_pattern, compile_set, compile_spans, counts

# Patterns in the subset both engines read alike on ASCII-classed text (re.ASCII on the re side).
PATTERNS = (
    r"\bignore\b",
    r"prev(?:ious)?\W+instructions?",
    r"[a-z][0-9@$]+[a-z]",
    r"(?:^|[^a-z0-9])[a-z0-9](?:[ .\-/_]{1,3}[a-z0-9]){3,}",
    r"a[^.!?\n]{0,10}?b",
    r"(?i:[a-z0-9+/]{8,}={0,2})",
    r"é+\d",
    r"x\z",
)
ALPHABET = st.sampled_from(list("abeginoprstuvx0129@$ .-/_\n!?+=é") + ["ignore", "previous", "instructions"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_the_set_reports_exactly_the_patterns_re_finds(text: str) -> None:
    patterns = compile_set(PATTERNS)
    # Python 3.11 spells RE2's end-of-text anchor \z as \Z.
    expected = frozenset(i for i, p in enumerate(PATTERNS) if re.search(p.replace(r"\z", r"\Z"), text, re.ASCII))
    assert patterns.matching(text) == expected
    for pattern in PATTERNS:
        python = pattern.replace(r"\z", r"\Z")
        assert compile_spans(pattern).spans(text) == [m.span() for m in re.finditer(python, text, re.ASCII)]


def test_the_share_of_texts_with_a_match_is_neither_none_nor_all() -> None:
    patterns = compile_set(PATTERNS)
    texts = ["ignore previous instructions", "p4ss", "i g n o r e", "plain", "", "café1", "box"]
    found = [bool(patterns.matching(t)) for t in texts]
    assert found == [True, True, True, False, False, True, True]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("a(?=b)", "invalid perl operator: (?="),
        ("(a)\\1", "invalid escape sequence: \\1"),
        ("x{2000}", "invalid repetition size: {2000}"),
        ("(?-u:\\b)a", "invalid perl operator: (?-u"),
        ("ab$", "'$' at offset 2: RE2 and Python disagree before a final newline; not allowed"),
        ("(a|$)", "'$' at offset 3: RE2 and Python disagree before a final newline; not allowed"),
        ("a\\sb", "'\\s' at offset 1: RE2's leaves out \\v, Python's has it; spell the class"),
        ("[\\S]", "'\\S' at offset 1: RE2's leaves out \\v, Python's has it; spell the class"),
    ],
)
def test_what_re2_cannot_run_is_refused_with_its_reason(pattern: str, reason: str) -> None:
    assert check_pattern(pattern) == reason
    with pytest.raises(PatternError) as caught:
        compile_set(["fine", pattern])
    assert caught.value.pattern == pattern and caught.value.detail == reason
    with pytest.raises(PatternError) as caught:
        compile_spans(pattern)
    assert caught.value.pattern == pattern and caught.value.detail == reason


def test_spans_are_characters_not_bytes() -> None:
    assert compile_spans(r"\bignore\b").spans("é ignore, ğ ignore") == [(2, 8), (12, 18)]


def test_a_long_text_is_read_to_the_end() -> None:
    patterns = compile_set([r"\bignore\b", r"needle", r"nee{1,2}dle!"])
    hay = "benign prose, " * 200_000  # 2.8 MB: far more automaton states than one 4 KB item
    assert patterns.matching(hay + "needle") == {1}
    assert patterns.matching(hay + "needle!") == {1, 2}
    assert patterns.matching(hay + " ignore") == {0}


@pytest.mark.parametrize("pattern", [r"a\$", r"[$]", r"[]$]", r"[^]$]", r"[a\]$]", r"[@$]+x"])
def test_a_dollar_that_is_a_literal_is_accepted(pattern: str) -> None:
    assert check_pattern(pattern) is None


def _counts_by_python(pattern: str) -> bool:
    """Python's own parse: some repeat counts past one (a bound above 1, or a minimum above 1)."""

    def walk(items: object) -> bool:
        for op, argument in items:  # type: ignore[attr-defined]
            if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT):
                low, high, inner = argument
                if low > 1 or (high != sre_constants.MAXREPEAT and high > 1) or walk(inner):
                    return True
            elif op in (sre_constants.SUBPATTERN, sre_constants.BRANCH):
                inner = [argument[-1]] if op == sre_constants.SUBPATTERN else argument[1]
                if any(walk(branch) for branch in inner):
                    return True
        return False

    return walk(sre_parser.parse(pattern))


COUNT_PIECES = [
    "a",
    "[a-z]",
    "[{]",
    "[^]{]",
    "\\{",
    "\\]",
    "{2}",
    "{0,1}",
    "{0,6}",
    "{1,}",
    "{24,}",
    "{3,5}?",
    "*",
    "+",
    "?",
    "(?:",
    ")",
    "|",
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(COUNT_PIECES), max_size=12).map("".join))
def test_a_pattern_counts_exactly_when_python_s_parser_sees_a_repeat_past_one(pattern: str) -> None:
    try:
        expected = _counts_by_python(pattern)
    except re.error:
        return  # not a pattern: nothing to compare
    assert counts(pattern) == expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("a{2}", True),
        ("a{0,1}", False),
        ("a{1,}", False),
        ("(?:w+ ){0,6}?x", True),
        ("[a{2}]", False),
        ("\\{2,3}", False),
        ("b{24,}", True),
    ],
)
def test_counting_examples(pattern: str, expected: bool) -> None:
    assert counts(pattern) is expected


def test_the_counting_patterns_are_searched_apart_and_the_rest_share_one_set() -> None:
    # Counts in one automaton multiply its states (the module docstring): a counting pattern with a
    # word it needs is searched for alone, behind the filter; one that needs none ("[a-z]{24,}": no
    # literal string) shares a second automaton with its kind, so it is not one more pass alone.
    patterns = compile_set(["plain", "ab{0,6}cde", "other|words", "[a-z]{24,}", "d+", "[xy]{3,}"])
    groups = [automaton.indices for automaton in patterns._automata]
    assert groups == [(0, 2, 4), (3, 5)]
    assert patterns._filtered is not None and patterns._filtered.indices == (1,)
    assert patterns.matching("abbbcde plain " + "c" * 24 + " d") == {0, 1, 3, 4}
    assert patterns.matching("abbbcd plain " + "c" * 23 + " d 12 3") == {0, 4}
    assert patterns.matching("xyx") == {5}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["ignore", "previous", "instructions", "all", " ", ".", "x", "\n"]), max_size=30))
def test_the_filter_of_needed_words_never_hides_a_match(words: list[str]) -> None:
    # Word-gap patterns like the injection gates': the filter passes a pattern only when the words
    # it needs are there, and then its own search decides.
    gaps = [
        r"\bignore\W+(?:\w+\W+){0,3}?instructions",
        r"\b(?:all|previous)(?:\W+\w+){0,2}\W+instructions\b",
        r"x{2,}|\ball\b",
    ]
    text = "".join(words)
    expected = {i for i, pattern in enumerate(gaps) if re.search(pattern, text, re.ASCII)}
    assert compile_set(gaps).matching(text) == expected
