"""Property tests: the parsers never raise, and run_round is deterministic and schema-valid."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.odr import ODRConfig, ODRState, ParseResult, TraceRecord, parse_architect, parse_auditor, run_round
from tests.conftest import ROOT
from tests.odr.helpers import AUDITOR, architect

SETTINGS = settings(max_examples=150, deadline=None)
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
    for parse in (parse_architect, parse_auditor):
        result = parse(raw)
        assert isinstance(result, ParseResult)
        assert result.ok == (result.error is None) == (result.data is not None)
        ParseResult.model_validate_json(result.model_dump_json(by_alias=True))


def test_parsers_on_megabytes() -> None:
    body = "word " * 200_000
    assert parse_architect(architect(body)).ok
    assert parse_auditor(body).error is not None


rounds = st.lists(st.tuples(texts, texts), min_size=1, max_size=6)


def _schema_validator() -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    folder = ROOT / "schemas" / "odr"
    resources = [(p.as_uri(), Resource.from_contents(json.loads(p.read_text()))) for p in folder.glob("*.schema.json")]
    path = folder / "trace_record.schema.json"
    schema = dict(json.loads(path.read_text()), **{"$id": path.as_uri()})
    return Draft202012Validator(schema, registry=Registry().with_resources(resources))


VALIDATOR = _schema_validator()


@SETTINGS
@given(pairs=rounds, k=st.integers(1, 4))
def test_run_round_is_deterministic_and_its_trace_valid(pairs: list[tuple[str, str]], k: int) -> None:
    def go() -> str:
        state = ODRState(config=ODRConfig(shingle_k=k, max_rounds=5))
        for arch, aud in pairs:
            state = run_round(state, "### REQUIREMENT\n" + arch, aud or AUDITOR)
        return "\n".join(json.dumps(r.model_dump(mode="json", by_alias=True), ensure_ascii=False) for r in state.trace)

    first, second = go(), go()
    assert first == second
    for line in first.split("\n"):  # JSON Lines separate on \n only (U+0085 may sit inside a string)
        record = json.loads(line)
        assert VALIDATOR.is_valid(record), list(VALIDATOR.iter_errors(record))[:1]
        TraceRecord.model_validate_json(line)


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

    from runtime.odr.core import code_leaks
    from safeio.regex import compile_linear

    for class_ in (r"\w", r"\s"):
        assume(all((re.fullmatch(class_, c) is not None) == compile_linear(f"^{class_}$").search(c) for c in text))

    config = ODRConfig(code_leak_patterns=PATTERNS)
    expected = [{"side": "architect", "pattern": p} for p in PATTERNS if re.search(p, text)]
    assert [m.model_dump() for m in code_leaks(config, text, "")] == expected


def test_non_ascii_text_keeps_unicode_word_boundaries() -> None:
    from runtime.odr.core import code_leaks

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
