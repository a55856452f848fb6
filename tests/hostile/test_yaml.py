"""YAML read as JSON data only (safeio.yaml_data), through every YAML reader of rcs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.safeio import yaml_data
from tests.hostile.conftest import rcs, rcs_schemas

# The characters a YAML stream may hold raw (YAML 1.2 5.1), minus surrogates.
_PRINTABLE = st.characters(
    codec="utf-8",
    blacklist_categories=("Cs",),
    blacklist_characters="".join(map(chr, [*range(9), 11, 12, *range(14, 32), *range(0x7F, 0xA0)]))
    + "\ufeff\ufffe\uffff\u2028\u2029",
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(_PRINTABLE, max_size=20)
)
JSON_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(_PRINTABLE, max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(data=JSON_DATA, indent=st.sampled_from([None, 2]))
@settings(max_examples=300, deadline=None)
def test_json_text_reads_as_the_same_data(data: Any, indent: int | None) -> None:
    """JSON is YAML 1.2: every JSON text is read as exactly its value (numbers by the 1.2 core schema)."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    assert yaml_data.load(text) == data


@given(text=st.text(max_size=200))
@settings(max_examples=500, deadline=None)
def test_any_text_is_json_data_or_a_yaml_error(text: str) -> None:
    try:
        value = yaml_data.load(text)
    except yaml_data.YamlError as exc:
        assert exc.line >= 1 and exc.problem and "\n" not in exc.problem
        return
    json.dumps(value, allow_nan=False)  # JSON data: nothing a JSON file could not hold


HALF = "is half of a surrogate pair, not a character: write the character itself"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("a: &x 1\nb: *x\n", 1, "anchors (&x) are not supported: write the value out"),
        ("a: 1\nb: *x\n", 2, "aliases (*x) are not supported: write the value out"),
        ("base: {a: 1}\n<<: {b: 2}\n", 2, "merge keys (<<) are not supported: write the keys out"),
        ("? [a, b]\n: 1\n", 1, "a key must be a string, not a sequence (quote it)"),
        ("1: x\n", 1, "a key must be a string, not 1 (quote it)"),
        ("a: !!binary aGk=\n", 1, "tags (!!binary) are not supported: JSON data only"),
        ("a: !!python/object:os.system x\n", 1, "tags (!!python/object:os.system) are not supported: JSON data only"),
        ("a: .inf\n", 1, ".inf is not a JSON number"),
        ("a: 1\nb: 2\na: 3\n", 3, "duplicate key 'a' (first at line 1)"),
        ('a: 1\nb: "x\u2028y"\n', 2, "a raw U+2028 is a line break to PyYAML but not to YAML 1.2: write it as \\u2028"),
        ("a: \x08\n", 1, "the character U+0008 is not allowed in YAML"),
        ("\ufeff\ufeffa: 1\n", 1, "a second byte-order mark at the start"),
        ('a: 1\nb: "\\U0011FFFF"\n', 2, "an escape beyond U+10FFFF is not a character"),
        ("a: 1\nb: " + "[" * 65 + "]" * 65 + "\n", 2, "nested deeper than 64 levels"),
        ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 70)), 65, "nested deeper than 64 levels"),
        ("a: 0x" + "f" * 3600 + "\n", 1, "an integer of 3602 digits is too long"),
        ("a: 0o" + "7" * 4800 + "\n", 1, "an integer of 4802 digits is too long"),
        ("a: b\ud800\n", 1, "the character U+D800 is not allowed in YAML"),
        ('a: 1\nb: "x\ufeffy"\n', 2, "a raw U+FEFF (byte-order mark) inside the text: write it as \\uFEFF"),
        ('a: "\\ud83d"\n', 1, "\\ud83d " + HALF),
        ('a: 1\n"x\\ude00": 2\n', 2, "\\ude00 " + HALF),
        ('a: ["\U0001F600\\ud83d\\ude00\\ud83d"]\n', 1,
         "\\ud83d " + HALF),
        ('a: "\\ude00\\ud83d"\n', 1, "\\ude00 " + HALF),
    ],
)
def test_refusals_name_their_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(yaml_data.YamlError) as info:
        yaml_data.load(text)
    assert (info.value.line, info.value.problem) == (line, problem)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e3", 1000.0),
        ("-1.5E-2", -0.015),
        ("012", 12),
        ("0o17", 15),
        ("0x1F", 31),
        ("yes", "yes"),
        ("on", "on"),
        ("2024-01-01", "2024-01-01"),
        ("1:30", "1:30"),
        ("TRUE", True),
        ("Null", None),
        ("~", None),
        ('"<<"', "<<"),
    ],
)
def test_yaml_1_2_core_schema(text: str, value: Any) -> None:
    assert yaml_data.load(f"k: {text}\n") == {"k": value}


def test_a_lone_surrogate_after_many_pairs_is_found_in_one_pass() -> None:
    # Each half was once looked up in a list of all halves: 1 MiB of pairs took minutes.
    text = 'a: "' + "\\ud83d\\ude00" * 50_000 + '\\ud83d"\n'
    with pytest.raises(yaml_data.YamlError, match="ud83d is half of a surrogate pair"):
        yaml_data.load(text)


def test_an_octal_or_hex_integer_python_writes_out_is_read() -> None:
    assert yaml_data.load("a: 0x" + "f" * 500) == {"a": 16**500 - 1}


def test_an_escaped_surrogate_pair_is_the_character_it_encodes() -> None:
    # As in JSON: "\ud83d\ude00" is U+1F600, in a value and in a key alike.
    assert yaml_data.load('"\\ud83d\\ude00": "a\\ud83d\\ude00b"\n') == {"\U0001F600": "a\U0001F600b"}


def test_a_lone_surrogate_in_a_rule_table_is_a_diagnostic_not_a_crash(tmp_path: Path) -> None:
    rcs_schemas(tmp_path)
    (tmp_path / "schemas/evidence/report.yaml").write_text(
        '{"$schema": "../tables/report.schema.json", "section_order": ["a"],\n "\\ud83d": null}\n'
    )
    ran = rcs("codegen", "--root", ".", cwd=tmp_path)
    assert ran.status == 1
    assert ("schemas/evidence/report.yaml:2: invalid YAML: \\ud83d is half of a surrogate pair, not a character: "
            "write the character itself") in ran.stderr
    assert not (tmp_path / "generated").exists()


def _laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_billion_laughs_in_a_claim_policy(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(_laughs())
    (tmp_path / "a.json").write_text("{}")
    ran = rcs("validate", "--kind", "structured_report", "--claim-policy", "policy.yaml", "a.json", cwd=tmp_path)
    assert ran.status == 2
    assert "line 1: anchors (&a0) are not supported: write the value out" in ran.stdout


def test_billion_laughs_in_sandbox_frontmatter(tmp_path: Path) -> None:
    from tests.autoresearch.conftest import git, make_repo

    repo = make_repo(tmp_path)
    (repo / "mission/sandbox.md").write_text("---\n" + _laughs() + "---\n")
    git(repo, "commit", "-qam", "bomb")
    ran = rcs("autoresearch", "mission", cwd=repo, env={"RCS_CODEX_BIN": "true"}, allowed=(".git",))
    assert ran.status == 2
    assert "line 2: anchors (&a0) are not supported: write the value out" in ran.stderr


def test_billion_laughs_in_a_rule_table(tmp_path: Path) -> None:
    rcs_schemas(tmp_path)
    table = tmp_path / "schemas/evidence/report.yaml"
    table.write_text(table.read_text() + "\n" + _laughs().replace("a0:", "x0:", 1))
    ran = rcs("codegen", "--root", ".", cwd=tmp_path)
    assert ran.status == 1
    assert "schemas/evidence/report.yaml:" in ran.stderr and "anchors (&a0) are not supported" in ran.stderr
    assert not (tmp_path / "generated").exists()


def test_a_complex_key_in_a_claim_policy_is_bad_input_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("? [a, b]\n: 1\n")
    (tmp_path / "a.json").write_text("{}")
    ran = rcs("validate", "--kind", "structured_report", "--claim-policy", "policy.yaml", "a.json", cwd=tmp_path)
    assert ran.status == 2
    assert "line 1: a key must be a string, not a sequence (quote it)" in ran.stdout


def test_sandbox_numbers_are_yaml_1_2(tmp_path: Path) -> None:
    """``timeout_seconds: 1e3`` is a number in sandbox.md (PyYAML's 1.1 would read a string)."""
    from rcs_contracts.runtime.autoresearch.mission import frontmatter

    text = "---\nevaluator:\n  command: x\n  format: json\n  timeout_seconds: 1e3\n---\n"
    assert frontmatter(text, Path("sandbox.md")).evaluator.timeout_seconds == 1000.0


def test_an_integer_beyond_pythons_digit_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("severities: " + "9" * 5000 + "\n")
    (tmp_path / "a.json").write_text("{}")
    ran = rcs("validate", "--kind", "structured_report", "--claim-policy", "policy.yaml", "a.json", cwd=tmp_path)
    assert ran.status == 2
    assert "line 1: an integer of 5000 digits is too long" in ran.stdout


# libyaml (when PyYAML has it) reads first and the Python reader takes what it refuses: where both
# read a text they must read the same data, and ``load`` must take exactly what either takes.
_YAML_SYNTAX = st.text(
    st.sampled_from([*":-[]{},#&*!|>'\"%@`?<=~.+_\\ \n\t\r", *"0123456789aeEnNtTfxyz", "\u00e9", "\ufeff", "\x85"]),
    max_size=80,
)


_REFUSED = object()
_REFUSED_RAW = re.compile("[\x85\u2028\u2029\ufeff]")


def _same_reading(text: str) -> None:
    pytest.importorskip("yaml.cyaml")
    body = text.removeprefix("\ufeff")
    if _REFUSED_RAW.search(body):  # refused before either reader runs
        with pytest.raises(yaml_data.YamlError):
            yaml_data.load(text)
        return
    try:
        fast: Any = yaml_data._FastLoader(body).get_single_data()
    except Exception:
        fast = _REFUSED
    try:
        pure: Any = yaml_data._Loader(body).get_single_data()
    except Exception:
        pure = _REFUSED
    if fast is not _REFUSED and pure is not _REFUSED:
        assert json.dumps(fast) == json.dumps(pure)
    try:
        loaded: Any = yaml_data.load(text)
    except yaml_data.YamlError as exc:
        assert exc.line >= 1 and exc.problem and "\n" not in exc.problem
        assert fast is _REFUSED and pure is _REFUSED
        return
    assert json.dumps(loaded) == json.dumps(fast if fast is not _REFUSED else pure)


@given(text=_YAML_SYNTAX)
@settings(max_examples=1500, deadline=None)
def test_libyaml_and_the_python_reader_read_alike(text: str) -> None:
    _same_reading(text)


@given(
    data=JSON_DATA,
    flow=st.sampled_from([None, True, False]),
    style=st.sampled_from([None, '"', "'", "|"]),
    width=st.sampled_from([8, 80]),
)
@settings(max_examples=300, deadline=None)
def test_yaml_dumps_of_json_data_read_the_same_both_ways(
    data: Any, flow: bool | None, style: str | None, width: int
) -> None:
    _same_reading(yaml.safe_dump(data, default_flow_style=flow, default_style=style, width=width, allow_unicode=True))


_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "path",
    sorted(p for p in _ROOT.rglob("*.yaml") if not {".venv", ".git", "node_modules"} & set(p.parts)),
    ids=lambda p: str(p.relative_to(_ROOT)),
)
def test_every_yaml_file_of_the_project_reads_the_same_both_ways(path: Path) -> None:
    _same_reading(path.read_text(encoding="utf-8"))


def test_a_merge_key_is_refused_on_the_fast_path_too() -> None:
    with pytest.raises(yaml_data.YamlError, match="merge keys"):
        yaml_data.load("a: 1\n<<: {b: 2}\n")
