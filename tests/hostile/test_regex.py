"""Regexes that cannot explode: ODR patterns and schema patterns on a linear-time engine."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.generated.odr.config_schema import ODRConfig
from rcs_contracts.safeio.regex import PatternError, compile_linear
from tests.hostile.conftest import rcs, rcs_schemas

DEFAULTS = tuple(ODRConfig().code_leak_patterns)
_KEYWORDS = ["def", "class", "import", "fn", "let", "const", "interface", "type", "npm", "pip", "cargo", "docker",
             "venv", "node_modules", "```"]


def _word_in_python(char: str) -> bool:
    return re.fullmatch(r"\w", char) is not None


def _word_in_engine(char: str) -> bool:
    return compile_linear(r"^\w$").search(char)


_TEXT = st.lists(
    st.sampled_from(_KEYWORDS) | st.text(max_size=3) | st.sampled_from([" ", "\n", "é", "_", "\u0301", "١", "x"]),
    max_size=12,
).map("".join)


@given(text=_TEXT)
@settings(max_examples=1500, deadline=None)
def test_default_patterns_mean_what_python_re_means(text: str) -> None:
    """On every text whose characters both engines call word (or non-word) alike, the default
    patterns match exactly as Python's ``re`` does (SPEC 11.3 names the one difference)."""
    agree_on_words = all(_word_in_python(c) == _word_in_engine(c) for c in text)
    for pattern in DEFAULTS:
        python = re.search(pattern, text) is not None
        if agree_on_words:
            assert compile_linear(pattern).search(text) == python, (pattern, text)


def test_the_word_difference_is_the_documented_one() -> None:
    """A combining mark: a word character to the engine (Unicode), not to Python's ``re``."""
    assert _word_in_engine("\u0301") and not _word_in_python("\u0301")
    assert re.search(DEFAULTS[1], "def\u0301") is not None
    assert not compile_linear(DEFAULTS[1]).search("def\u0301")


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(?<=a)b", "look-around, including look-ahead and look-behind, is not supported"),
        ("a(?!b)", "look-around, including look-ahead and look-behind, is not supported"),
        (r"(a)\1", "backreferences are not supported"),
        ("(unclosed", "unclosed group"),
    ],
)
def test_backtracking_constructs_are_refused_by_name(pattern: str, reason: str) -> None:
    with pytest.raises(PatternError) as info:
        compile_linear(pattern)
    assert info.value.detail == reason


def test_a_catastrophic_pattern_runs_in_linear_time(tmp_path: Path) -> None:
    """``(a+)+$`` took 37 s on a 29-character round under Python's re; here a 1 MB round is quick."""
    (tmp_path / "config.json").write_text(json.dumps({"code_leak_patterns": ["(a+)+$", "(x|x)*y"]}))
    rounds = json.dumps({"architect": "a" * 1_000_000 + "!", "auditor": "x" * 1_000_000}) + "\n"
    (tmp_path / "rounds.jsonl").write_text(rounds)
    ran = rcs("odr", "run", "rounds.jsonl", "--config", "config.json", cwd=tmp_path, guard=20)
    assert ran.status == 0
    record = json.loads(ran.stdout.splitlines()[0])
    assert record["metrics"]["code_leak_hit"] is False


def test_run_and_validate_refuse_the_same_config(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"code_leak_patterns": ["ok", "(?=x)y"]}))
    (tmp_path / "rounds.jsonl").write_text('{"architect": "a", "auditor": "b"}\n')
    message = (
        "code_leak_patterns[1] does not compile: look-around, including look-ahead and look-behind, is not supported"
    )
    ran = rcs("odr", "run", "rounds.jsonl", "--config", "config.json", cwd=tmp_path)
    assert ran.status == 2 and message in ran.stderr
    checked = rcs("validate", "--kind", "odr/config", "config.json", cwd=tmp_path)
    assert checked.status == 1
    assert f"config.json: ODRConfigError: {message} (at $.code_leak_patterns[1])" in checked.stdout


def test_lint_refuses_a_schema_pattern_that_needs_backtracking(tmp_path: Path) -> None:
    rcs_schemas(tmp_path)
    path = tmp_path / "schemas/odr/parse_result.schema.json"
    schema = json.loads(path.read_text())
    schema["$defs"] = {**schema.get("$defs", {}), "Word": {"type": "string", "pattern": "^(?!bad)\\w+$"}}
    path.write_text(json.dumps(schema, indent=2))
    ran = rcs("codegen", "--root", ".", cwd=tmp_path)
    assert ran.status == 1
    assert (
        "pattern '^(?!bad)\\\\w+$' cannot run on rcs's linear-time regex engine: look-around, including "
        "look-ahead and look-behind, is not supported" in ran.stderr
    )
    assert not (tmp_path / "generated").exists()


def test_schema_word_boundaries_keep_ecma_meaning() -> None:
    """``\\b`` in a schema is ECMA-262's ASCII boundary, compiled without look-around."""
    from rcs_contracts.codegen import engine

    validator = engine.compile_schema({"pattern": r"\bab\b"}, "rcs:///t.json", engine.registry([]))
    assert validator.is_valid("éab")  # é is not an ECMA word character: a boundary before "ab"
    assert not validator.is_valid("xab")
