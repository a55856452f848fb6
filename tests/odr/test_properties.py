"""Property tests: the parsers never raise, and run_round is deterministic and schema-valid.

The parsers are also fed outputs well-formed by construction from the header table and single known
faults of them; those properties and the round property print and bound their share of accepted
examples (tests/valid_share.py; shown with ``pytest -s``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.generated.odr.stop_rules import HEADERS, PARSE_ERROR_MESSAGES, ParseErrorCode
from rcs_contracts.runtime.odr import (
    ODRConfig,
    ODRState,
    ParseResult,
    TraceRecord,
    parse_architect,
    parse_auditor,
    run_round,
)
from tests.conftest import ROOT
from tests.odr.helpers import AUDITOR, architect
from tests.valid_share import Share

SETTINGS = settings(max_examples=150, deadline=None)
# The same examples on every run, so that the printed valid share is a fixed number.
TALLIED = settings(SETTINGS, derandomize=True)
HEADER_BITS = [
    "### REQUIREMENT",
    "### CHANGELOG",
    "### ASSUMPTIONS",
    "### OPEN_QUESTIONS",
    "### CRITIQUE",
    "### PATCHES",
    "### EDGE_CASES",
    "### TEST_GAPS",
    "###",
    "### ſ",
    "\ufeff",
    "\r\n",
    "\r",
    "- ",
    "```",
]
texts = st.lists(st.sampled_from(HEADER_BITS) | st.text(max_size=30), max_size=20).map("\n".join)
any_text = st.text(alphabet=st.characters(exclude_categories=()))  # lone surrogates included
anything = (
    st.none()
    | st.integers()
    | st.binary(max_size=200)
    | st.binary(max_size=50).map(bytearray)
    | st.binary(max_size=50).map(memoryview)
    | any_text
    | texts
    | st.lists(st.integers(), max_size=3)
)


@SETTINGS
@given(raw=anything)
def test_parsers_never_raise(raw: Any) -> None:
    # A crash fuzz only: these inputs are never well-formed. The success path is covered by
    # test_parsers_accept_exactly_the_well_formed_outputs.
    for parse in (parse_architect, parse_auditor):
        result = parse(raw)
        assert isinstance(result, ParseResult)
        assert result.ok == (result.error is None) == (result.data is not None)
        ParseResult.model_validate_json(result.model_dump_json(by_alias=True))


PARSERS = {"architect": parse_architect, "auditor": parse_auditor}
# Words free of the code-leak patterns, so that well-formed rounds are not stopped as leaks.
PLAIN_WORDS = ["retention", "window", "storage", "audit", "purge", "owner", "records", "legal", "hold", "approval"]
phrases = st.lists(st.sampled_from(PLAIN_WORDS), min_size=1, max_size=6).map(" ".join)


@st.composite
def well_formed(draw: st.DrawFn, parser: str) -> tuple[list[tuple[str, str]], dict[str, Any]]:
    """An output of ``parser`` built from the header table: its headers in order (any ASCII case, any
    indentation and spacing R-ODR-6 allows), each with a body; and the data the parser must return."""
    sections: list[tuple[str, str]] = []
    data: dict[str, Any] = {}
    for header in HEADERS[parser]:
        if header.body == "text":
            data[header.name.lower()] = "\n".join(draw(st.lists(phrases, min_size=1, max_size=3)))
            body = data[header.name.lower()]
        else:
            data[header.name.lower()] = draw(st.lists(phrases, max_size=3))
            body = "".join(f"- {item}\n" for item in data[header.name.lower()])
        spelled = draw(st.sampled_from([header.name, header.name.lower(), header.name.title()]))
        indent, gap = draw(st.sampled_from(["", " ", "\t"])), draw(st.sampled_from([" ", "  ", "\t"]))
        sections.append((header.name, f"{indent}###{gap}{spelled}\n{body.rstrip(chr(10))}\n"))
    return sections, data


FAULTS = ["empty", "duplicate", "missing", "swapped", "preamble", "empty requirement"]


@st.composite
def parser_outputs(draw: st.DrawFn, parser: str) -> tuple[object, dict[str, Any] | None, tuple[str, str] | None]:
    """A well-formed output (half the time) or one with a single known fault; then the raw output
    (str, CRLF, a BOM, or UTF-8 bytes), the data it parses to (None when faulty) and the expected
    error's (code, message)."""
    sections, data = draw(well_formed(parser))
    names = [name for name, _ in sections]
    fault = draw(st.none() | st.none() | st.sampled_from(FAULTS if parser == "architect" else FAULTS[:-1]))
    expected: tuple[ParseErrorCode, dict[str, str]] | None = None
    if fault == "empty":
        sections = [("", draw(st.sampled_from(["", " \n", "\t"])))]
        expected = ParseErrorCode.EMPTY_INPUT, {"source": parser}
    elif fault == "duplicate":
        index = draw(st.integers(0, len(sections) - 1))
        sections.append(sections[index])
        expected = ParseErrorCode.DUPLICATE_HEADER, {"header": names[index]}
    elif fault == "missing":
        index = draw(st.integers(0, len(sections) - 1))
        del sections[index]
        expected = ParseErrorCode.MISSING_HEADER, {"headers": names[index]}
    elif fault == "swapped":
        index = draw(st.integers(0, len(sections) - 2))
        sections[index], sections[index + 1] = sections[index + 1], sections[index]
        found = ", ".join(name for name, _ in sections)
        expected = ParseErrorCode.HEADER_OUT_OF_ORDER, {"expected": ", ".join(names), "found": found}
    elif fault == "preamble":
        sections.insert(0, ("text", draw(phrases) + "\n"))
        found = ", ".join(name for name, _ in sections)
        expected = ParseErrorCode.HEADER_OUT_OF_ORDER, {"expected": ", ".join(names), "found": found}
    elif fault == "empty requirement":
        header = sections[0][1].split("\n", 1)[0]
        sections[0] = (names[0], header + "\n" + draw(st.sampled_from(["", " \n", "\n\n"])))
        expected = ParseErrorCode.EMPTY_REQUIREMENT, {}
    text = draw(st.sampled_from(["", "\ufeff"])) + "".join(body for _, body in sections)
    text = text.replace("\n", draw(st.sampled_from(["\n", "\r\n", "\r"])))
    raw: object = text.encode() if draw(st.booleans()) else text
    if expected is None:
        return raw, data, None
    code, fields = expected
    return raw, None, (code.value, PARSE_ERROR_MESSAGES[code].format(**fields))


@pytest.mark.parametrize("parser", sorted(PARSERS))
def test_parsers_accept_exactly_the_well_formed_outputs(parser: str) -> None:
    share = Share(f"parse_{parser} on well-formed and faulty outputs")

    @TALLIED
    @given(case=parser_outputs(parser))
    def check(case: tuple[object, dict[str, Any] | None, tuple[str, str] | None]) -> None:
        raw, data, error = case
        result = PARSERS[parser](raw)
        share.count(result.ok)
        if data is not None:
            assert result.ok and result.data is not None, (raw, result.error)
            assert result.data.model_dump() == data
        else:
            assert not result.ok and result.error is not None, raw
            assert (result.error.code, result.error.message) == error

    check()
    share.check()


def test_parsers_on_megabytes() -> None:
    body = "word " * 200_000
    assert parse_architect(architect(body)).ok
    assert parse_auditor(body).error is not None


# A round is a well-formed pair (from the header table), or a REQUIREMENT header over fuzz text.
rounds = st.lists(
    st.tuples(
        well_formed("architect").map(lambda built: "".join(body for _, body in built[0])),
        well_formed("auditor").map(lambda built: "".join(body for _, body in built[0])),
    )
    | st.tuples(texts, texts).map(lambda pair: ("### REQUIREMENT\n" + pair[0], pair[1] or AUDITOR)),
    min_size=1,
    max_size=6,
)


def _schema_validator() -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    folder = ROOT / "schemas" / "odr"
    resources = [(p.as_uri(), Resource.from_contents(json.loads(p.read_text()))) for p in folder.glob("*.schema.json")]
    path = folder / "trace_record.schema.json"
    schema = dict(json.loads(path.read_text()), **{"$id": path.as_uri()})
    return Draft202012Validator(schema, registry=Registry().with_resources(resources))


VALIDATOR = _schema_validator()


def test_run_round_is_deterministic_and_its_trace_valid() -> None:
    share = Share("round records with both outputs parsed")

    @TALLIED
    @given(pairs=rounds, k=st.integers(1, 4))
    def check(pairs: list[tuple[str, str]], k: int) -> None:
        def go() -> tuple[ODRState, str]:
            state = ODRState(config=ODRConfig(shingle_k=k, max_rounds=5))
            for arch, aud in pairs:
                state = run_round(state, arch, aud)
            lines = (json.dumps(r.model_dump(mode="json", by_alias=True), ensure_ascii=False) for r in state.trace)
            return state, "\n".join(lines)

        (state, first), (_, second) = go(), go()
        assert first == second
        for record in state.trace:
            parsed = record.architect_parsed is not None and record.auditor_parsed is not None
            share.count(parsed)
            assert parsed == (record.parse_errors == [] and not record.metrics.code_leak_hit)
        for line in first.split("\n"):  # JSON Lines separate on \n only (U+0085 may sit inside a string)
            record = json.loads(line)
            assert VALIDATOR.is_valid(record), list(VALIDATOR.iter_errors(record))[:1]
            TraceRecord.model_validate_json(line)

    check()
    share.check()


PATTERNS = [*ODRConfig().code_leak_patterns, "(?i)k", "(?m)^x$", "[^a-z]{3}\\w", "(?u)\\w+q", "a\\sb", "\\S\\s\\S"]


@SETTINGS
@given(
    text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
    | st.text(max_size=30)
    | st.sampled_from(["a\x1cb", "a\x1fb x", "a b"])
)
def test_code_leaks_mean_what_python_re_means(text: str) -> None:
    """Patterns run on the linear-time engine; on text whose characters both engines class alike as
    word characters and spaces (SPEC 11.3 names where they differ), they match as Python's re."""
    import re

    from hypothesis import assume

    from rcs_contracts.runtime.odr.core import code_leaks
    from rcs_contracts.safeio.regex import compile_linear

    for class_ in (r"\w", r"\s"):
        assume(all((re.fullmatch(class_, c) is not None) == compile_linear(f"^{class_}$").search(c) for c in text))

    config = ODRConfig(code_leak_patterns=PATTERNS)
    expected = [{"side": "architect", "pattern": p} for p in PATTERNS if re.search(p, text)]
    assert [m.model_dump() for m in code_leaks(config, text, "")] == expected


def test_non_ascii_text_keeps_unicode_word_boundaries() -> None:
    from rcs_contracts.runtime.odr.core import code_leaks

    config = ODRConfig()
    assert code_leaks(config, "édef", "") == []  # é is a word character: no \b before "def"
    assert [m.side for m in code_leaks(config, "x def", "")] == ["architect"]


def test_surrogates_and_released_buffers_do_not_break_a_round() -> None:
    buffer = memoryview(b"x")
    buffer.release()
    assert parse_architect(buffer).error is not None
    state = run_round(ODRState(), architect("keep \ud800 data"), AUDITOR + "- odd \udfff item\n")
    record = state.trace[0]
    assert record.architect_parsed is not None and "\ufffd" in record.architect_parsed.requirement
    json.loads(record.model_dump_json())  # the trace can be written as UTF-8 JSON
