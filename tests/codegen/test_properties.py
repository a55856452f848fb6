"""Property tests for the compiler's parsers: any bytes in a table or schema give diagnostics, never a crash.

Besides fuzz, each property gets inputs valid by construction (a report table and a claim policy
drawn from their schemas, the partial-result schema re-serialised) and single known faults of
them, asserts the exact outcome both ways, and prints and bounds its share of accepted examples
(tests/valid_share.py; shown with ``pytest -s``).
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rcs_contracts.codegen.cli import run
from rcs_contracts.runtime.evidence import ContractViolationError, load_claim_policy
from tests import schema_cases
from tests.conftest import ROOT, copy_project
from tests.schema_cases import Case
from tests.valid_share import Share

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# The same examples on every run, so that the printed valid share is a fixed number.
TALLIED = settings(SETTINGS, derandomize=True)
yaml_like = st.text(alphabet=st.sampled_from(list("abc:-[]{}\"' \n\t#&*!|>%@`0123$_")), max_size=80)

REPORT_TABLE = schema_cases.load("tables", "report")
TABLE_POINTER = {"$schema": "../tables/report.schema.json"}  # where schemas/evidence/report.yaml finds its schema
CLAIM_POLICY = schema_cases.load("evidence", "claim_policy")
PARTIAL_RESULT = ROOT / "schemas/evidence/partial_result.schema.json"
PARTIAL_RESULT_MODEL = "generated/evidence/partial_result_schema.py"


def _unique(key: str, field: str) -> schema_cases.Refine:
    """A refinement keeping the first item of each ``field`` value in the list under ``key`` (the
    domain rule that a name is listed once, which the schemas cannot state)."""

    def refine(data: dict[str, Any]) -> dict[str, Any]:
        seen: set[Any] = set()
        kept = []
        for item in data[key]:
            name = item if field == "" else item[field]
            if name not in seen:
                seen.add(name)
                kept.append(item)
        return {**data, key: kept}

    return refine


def _codegen(root: Path, check: bool) -> tuple[int, list[str]]:
    """Run the compiler on ``root``: its status and its stderr lines."""
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = run(root, check=check, quiet=True)
    return status, err.getvalue().strip().splitlines()


def _refused(lines: list[str], where: str) -> None:
    """The compiler's refusal: ``file:line: message`` lines, the first naming ``where``, then the summary."""
    assert lines and lines[-1].endswith("problem(s); nothing written"), lines
    assert all(line.split(":")[0].endswith((".yaml", ".json", ".md")) for line in lines[:-1]), lines
    assert lines[0].startswith(f"{where}:"), lines


def _section_order(root: Path) -> list[str]:
    """SECTION_ORDER as written to generated/evidence/report.py."""
    module = ast.parse((root / "generated/evidence/report.py").read_text(encoding="utf-8"))
    for node in module.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "SECTION_ORDER":
            assert node.value is not None
            return list(ast.literal_eval(node.value))
    raise AssertionError("no SECTION_ORDER in generated/evidence/report.py")


def test_any_table_text_gives_diagnostics_not_a_crash(tmp_path_factory: pytest.TempPathFactory) -> None:
    share = Share("report tables through codegen")
    tables = schema_cases.cases(REPORT_TABLE, TABLE_POINTER, _unique("section_order", ""))
    # One copy for all examples: each run compiles from the inputs alone, and a valid table costs a
    # full render (~0.6 s), hence fewer examples than the pure fuzz had.
    root = copy_project(tmp_path_factory.mktemp("p") / "project")

    @settings(TALLIED, max_examples=45)
    @given(table=tables.map(lambda case: (case, None)) | yaml_like.map(lambda body: (None, body)), block=st.booleans())
    def check(table: tuple[Case | None, str | None], block: bool) -> None:
        case, fuzz = table
        if case is not None:
            assert schema_cases.reference(REPORT_TABLE).is_valid(case.data) is case.valid, case
            body = schema_cases.yaml_text(case.data, block)
        else:
            body = "$schema: ../tables/report.schema.json\n" + str(fuzz)
        (root / "schemas/evidence/report.yaml").write_text(body, encoding="utf-8")
        # Written, not --check: a valid table changes the generated files, which --check reports as stale.
        status, lines = _codegen(root, check=False)
        share.count(status == 0)
        assert status in (0, 1), lines
        if status == 1:
            assert case is None or not case.valid, (case, lines)
            _refused(lines, "schemas/evidence/report.yaml")
            return
        assert case is None or case.valid, case
        if case is not None:
            assert _section_order(root) == case.data["section_order"]
        assert _codegen(root, check=True) == (0, [])  # and what was written is up to date

    check()
    share.check()


@st.composite
def schema_texts(draw: st.DrawFn) -> tuple[str, bool]:
    """The partial-result schema re-serialised (any indentation, separators, escaping: the same
    schema), or with one known fault: cut short, an unknown keyword, a keyword of the wrong type; or
    fuzz. The second item says whether the compiler must accept it."""
    document = json.loads(PARTIAL_RESULT.read_text(encoding="utf-8"))
    layout = {
        "indent": draw(st.sampled_from([None, 1, 2, 4, "\t"])),
        "ensure_ascii": draw(st.booleans()),
        "separators": draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])),
    }
    fault = draw(st.sampled_from([None, None, "truncated", "unknown keyword", "wrong keyword type", "fuzz"]))
    if fault == "unknown keyword":
        document[draw(st.sampled_from(["frobnicate", "requried", "additonalProperties", "minimun"]))] = 1
    elif fault == "wrong keyword type":
        key, value = draw(st.sampled_from([("required", "x"), ("type", 7), ("properties", []), ("title", 3)]))
        document[key] = value
    text = json.dumps(document, **layout)  # type: ignore[arg-type]
    if fault == "truncated":
        text = text[: draw(st.integers(0, len(text) - 1))]  # the closing brace always goes
    elif fault == "fuzz":
        text = draw(yaml_like)
    return text, fault is None


def test_any_schema_text_gives_diagnostics_not_a_crash(tmp_path_factory: pytest.TempPathFactory) -> None:
    share = Share("partial_result schemas through codegen")
    checked_in = (ROOT / PARTIAL_RESULT_MODEL).read_text(encoding="utf-8").splitlines()
    root = copy_project(tmp_path_factory.mktemp("p") / "project")  # one copy: see the table test

    @settings(TALLIED, max_examples=30)
    @given(schema=schema_texts())
    def check(schema: tuple[str, bool]) -> None:
        text, valid = schema
        (root / "schemas/evidence/partial_result.schema.json").write_text(text, encoding="utf-8")
        status, lines = _codegen(root, check=False)
        share.count(status == 0)
        if not valid:
            assert status == 1, (text, lines)
            _refused(lines, "schemas/evidence/partial_result.schema.json")
            return
        assert status == 0, lines
        # The same schema compiles to the same model; only the stamp of the inputs' hash differs.
        written = (root / PARTIAL_RESULT_MODEL).read_text(encoding="utf-8").splitlines()
        assert [written[0], *written[2:]] == [checked_in[0], *checked_in[2:]]

    check()
    share.check()


def test_any_claim_policy_file_loads_or_raises_a_contract_error(tmp_path_factory: pytest.TempPathFactory) -> None:
    share = Share("claim policy files")
    path = tmp_path_factory.mktemp("c") / "policy.yaml"
    unique_names = _unique("severities", "name")

    @TALLIED
    @given(
        branch=st.sampled_from(["valid", "mutated", "valid", "damaged", "fuzz"]), block=st.booleans(), data=st.data()
    )
    def check(branch: str, block: bool, data: st.DataObject) -> None:
        if branch == "fuzz":
            path.write_text(data.draw(yaml_like), encoding="utf-8")
            try:
                share.count(bool(load_claim_policy(path).severities))
            except ContractViolationError as error:
                share.count(False)
                assert str(error)
            return
        if branch == "mutated":
            case = data.draw(schema_cases.mutated(CLAIM_POLICY, refine=unique_names))
        else:
            case = Case(data.draw(schema_cases.valid(CLAIM_POLICY, refine=unique_names)))
        assert schema_cases.reference(CLAIM_POLICY).is_valid(case.data) is case.valid, case
        damage = data.draw(st.sampled_from(["duplicate name", "broken YAML"])) if branch == "damaged" else None
        if damage == "duplicate name":  # schema-valid, but a severity listed twice is ambiguous
            severities = case.data["severities"]
            index = data.draw(st.integers(0, len(severities) - 1))
            severities.append({**severities[index], "citation_required": data.draw(st.booleans())})
        text = schema_cases.yaml_text(case.data, block)
        if damage == "broken YAML":
            text = schema_cases.yaml_scalar(case.data)[:-1] + "\n"  # an unclosed flow mapping
        path.write_text(text, encoding="utf-8")
        try:
            loaded = load_claim_policy(path)
        except ContractViolationError as error:
            share.count(False)
            assert branch != "valid", (case, error)
            code = getattr(error, "code", None)
            if damage == "broken YAML":
                assert code == "YAML_SYNTAX", error
            elif damage == "duplicate name":
                assert (code, error.location) == ("DUPLICATE_ID", ("severities", len(severities) - 1, "name")), error
            else:
                expected = {"drop": "SCHEMA_MISSING_PROPERTY", "extra": "SCHEMA_UNKNOWN_PROPERTY"}
                assert code == expected.get(str(case.mutation), "SCHEMA_VIOLATION"), (case, error)
                assert error.location == case.path, (case, error)
        else:
            share.count(True)
            assert branch == "valid", (branch, case, damage)
            assert loaded.model_dump(mode="json", by_alias=True) == case.data

    check()
    share.check()
