"""Where a header line starts (R-ODR-6): only whitespace may stand before "###" on its line."""

from __future__ import annotations

import pytest

from rcs_contracts.runtime.odr.parsers import parse_architect

BODY = (
    "### REQUIREMENT\nThe system shall log.\n"
    "### CHANGELOG\n- one\n### ASSUMPTIONS\n- two\n### OPEN_QUESTIONS\n- three\n"
)


@pytest.mark.parametrize("indent", ["", " ", "\t", "  \t "])
def test_a_header_indented_by_whitespace_is_a_header(indent: str) -> None:
    text = "".join(f"{indent}{line}\n" if line.startswith("###") else f"{line}\n" for line in BODY.splitlines())
    result = parse_architect(text)
    assert result.ok, result.error
    assert result.data is not None
    assert result.data.model_dump() == {
        "requirement": "The system shall log.",
        "changelog": ["one"],
        "assumptions": ["two"],
        "open_questions": ["three"],
    }


@pytest.mark.parametrize("before", ["x", "x ", "-", "\u00a0x"])
def test_text_before_the_hashes_on_the_same_line_makes_it_no_header(before: str) -> None:
    # The first line is fine; the CHANGELOG line has text before "###" right after a newline, so
    # CHANGELOG is missing (its line is part of the REQUIREMENT body).
    text = BODY.replace("\n### CHANGELOG", f"\n{before}### CHANGELOG")
    result = parse_architect(text)
    assert not result.ok and result.error is not None
    assert result.error.code == "MISSING_HEADER"
    assert result.error.message.endswith("CHANGELOG")


def test_the_first_line_of_the_text_can_be_a_header_and_text_before_it_cannot() -> None:
    assert parse_architect(BODY).ok
    result = parse_architect("x" + BODY)
    assert result.error is not None and result.error.code == "MISSING_HEADER"
