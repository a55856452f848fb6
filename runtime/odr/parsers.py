"""The architect and auditor parsers (odr-v1.md, Parsing Contract; R-ODR-1, R-ODR-6).

They never raise: every outcome is a ParseResult. The required headers, the checks and their order
come from ``generated.odr.stop_rules``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from rcs_contracts.generated.odr import parse_result_schema
from rcs_contracts.generated.odr.parse_result_schema import ParseError, ParseResult
from rcs_contracts.generated.odr.stop_rules import (
    HEADERS,
    PARSE_CHECK_APPLIES_TO,
    PARSE_CHECK_ORDER,
    PARSE_ERROR_MESSAGES,
    Header,
    ParseErrorCode,
)
from rcs_contracts.runtime.odr.text import BOM, as_text, normalize_newlines

# A line that, stripped, is "###", one or more spaces or tabs, then a candidate header (R-ODR-6).
# Matched over the whole text, so that only candidate lines cost Python time.
# The candidate is captured greedily and stripped in Python: a lazy capture would be quadratic.
# The regex starts with the literal "###" so the engine can skip ahead; what precedes it on its line
# (only whitespace is allowed) is checked in Python for the few lines that have one.
_HEADER_LINE = re.compile(r"###[ \t]+([^\n]*)$", re.MULTILINE)
# ASCII-only case folding: "ſ" must not match "s" (R-ODR-6).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
# Each parser's model is named after it in parse_result.schema.json (architect -> ArchitectParsed).
_MODELS: dict[str, Any] = {name: getattr(parse_result_schema, f"{name.capitalize()}Parsed") for name in HEADERS}


class Hit(NamedTuple):
    """A required header line: its name and where the line starts and ends in the text."""

    name: str
    start: int
    end: int


@dataclass(frozen=True)  # mutation: equivalent: nothing assigns to a scan
class Scan:
    """One pass over a text: where each required header stands."""

    parser: str
    headers: tuple[Header, ...]
    text: str  # "" when the output is not text at all: EMPTY_INPUT either way
    hits: tuple[Hit, ...]


def _scan(parser: str, raw: object) -> Scan:
    headers = HEADERS[parser]
    text = as_text(raw)
    if text is None:
        return Scan(parser, headers, "", ())
    text = normalize_newlines(text.removeprefix(BOM))
    wanted = {h.name.translate(_ASCII_LOWER): h.name for h in headers}
    names: dict[str, str | None] = {}  # candidate text -> header name; candidates repeat a lot
    hits = []
    for match in _HEADER_LINE.finditer(text):
        start = match.start()
        line_start = text.rfind("\n", None, start) + 1  # at a line start: one step back, or none
        if line_start != start and not text[line_start:start].isspace():
            continue
        candidate = match[1]
        if candidate not in names:
            names[candidate] = wanted.get(candidate.strip().translate(_ASCII_LOWER))
        name = names[candidate]
        if name is not None:
            hits.append(Hit(name, line_start, match.end()))
    return Scan(parser, headers, text, tuple(hits))


def _error(code: ParseErrorCode, **fields: str) -> ParseError:
    return ParseError(code=code.value, message=PARSE_ERROR_MESSAGES[code].format(**fields))


def _empty_input(scan: Scan) -> ParseError | None:
    if not scan.text.strip():
        return _error(ParseErrorCode.EMPTY_INPUT, source=scan.parser)
    return None


def _duplicate_header(scan: Scan) -> ParseError | None:
    seen: set[str] = set()
    for hit in scan.hits:
        if hit.name in seen:
            return _error(ParseErrorCode.DUPLICATE_HEADER, header=hit.name)
        seen.add(hit.name)
    return None


def _missing_header(scan: Scan) -> ParseError | None:
    found = {hit.name for hit in scan.hits}
    missing = [h.name for h in scan.headers if h.name not in found]
    if missing:
        return _error(ParseErrorCode.MISSING_HEADER, headers=", ".join(missing))
    return None


def _header_out_of_order(scan: Scan) -> ParseError | None:
    expected = [h.name for h in scan.headers]
    found = [hit.name for hit in scan.hits]
    text = scan.text
    preamble = bool(text[: scan.hits[0].start if scan.hits else len(text)].strip())
    if found != expected or preamble:
        shown = (["text"] if preamble else []) + found
        return _error(ParseErrorCode.HEADER_OUT_OF_ORDER, expected=", ".join(expected), found=", ".join(shown))
    return None


def _sections(scan: Scan) -> dict[str, str]:
    """Each header's body: the text between its line and the next required header's line."""
    text = scan.text
    starts = [hit.start for hit in scan.hits[1:]] + [len(text)]
    pairs = zip(scan.hits, starts, strict=True)  # mutation: equivalent: one start per hit by construction
    return {hit.name: text[hit.end + 1 : max(hit.end + 1, nxt)] for hit, nxt in pairs}


def _empty_requirement(scan: Scan) -> ParseError | None:
    sections = _sections(scan)
    for header in scan.headers:
        if header.body == "text" and not sections.get(header.name, "").strip():
            return _error(ParseErrorCode.EMPTY_REQUIREMENT)
    return None


_CHECKS: dict[ParseErrorCode, Callable[[Scan], ParseError | None]] = {
    ParseErrorCode.EMPTY_INPUT: _empty_input,
    ParseErrorCode.DUPLICATE_HEADER: _duplicate_header,
    ParseErrorCode.MISSING_HEADER: _missing_header,
    ParseErrorCode.HEADER_OUT_OF_ORDER: _header_out_of_order,
    ParseErrorCode.EMPTY_REQUIREMENT: _empty_requirement,
}


def _body(header: Header, body: str) -> str | list[str]:
    if header.body == "text":
        return body.strip()  # Vn: nothing else is changed (R-ODR-1)
    items = []
    for line in body.split("\n"):
        item = line.strip()
        if item:
            items.append(item.removeprefix("- ").strip())
    return items


def parse(parser: str, raw: object) -> ParseResult:
    """Parse one output with the named parser's table; the first failing check is the error."""
    scan = _scan(parser, raw)
    for code in PARSE_CHECK_ORDER:
        if parser not in PARSE_CHECK_APPLIES_TO.get(code, frozenset({parser})):
            continue
        problem = _CHECKS[code](scan)
        if problem is not None:
            return ParseResult(ok=False, data=None, error=problem)
    sections = _sections(scan)
    data = {h.name.lower(): _body(h, sections[h.name]) for h in scan.headers}
    return ParseResult(ok=True, data=_MODELS[parser](**data), error=None)


def parse_architect(raw: object) -> ParseResult:
    """Parse the architect's output: REQUIREMENT, CHANGELOG, ASSUMPTIONS, OPEN_QUESTIONS."""
    return parse("architect", raw)


def parse_auditor(raw: object) -> ParseResult:
    """Parse the auditor's output: CRITIQUE, PATCHES, EDGE_CASES, TEST_GAPS."""
    return parse("auditor", raw)
