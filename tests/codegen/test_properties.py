"""Property tests for the compiler's parsers: any bytes in a table or schema give diagnostics, never a crash."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.cli import run
from runtime.evidence import ContractViolationError, load_claim_policy
from tests.conftest import copy_project

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
yaml_like = st.text(alphabet=st.sampled_from(list("abc:-[]{}\"' \n\t#&*!|>%@`0123$_")), max_size=80)


@SETTINGS
@given(body=yaml_like | st.binary(max_size=60).map(lambda b: b.decode("latin-1")))
def test_any_table_text_gives_diagnostics_not_a_crash(body: str, tmp_path_factory: object) -> None:
    root = copy_project(tmp_path_factory.mktemp("p") / "project")  # type: ignore[attr-defined]
    (root / "schemas/evidence/report.yaml").write_text(
        "$schema: ../tables/report.schema.json\n" + body, encoding="utf-8"
    )
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = run(root, check=True, quiet=True)
    assert status in (0, 1)
    if status == 1:
        lines = err.getvalue().strip().splitlines()
        assert lines[-1].endswith("problem(s); nothing written")
        assert all(line.split(":")[0].endswith((".yaml", ".json", ".md")) for line in lines[:-1]), lines


@SETTINGS
@given(body=yaml_like)
def test_any_schema_text_gives_diagnostics_not_a_crash(body: str, tmp_path_factory: object) -> None:
    root = copy_project(tmp_path_factory.mktemp("p") / "project")  # type: ignore[attr-defined]
    (root / "schemas/evidence/partial_result.schema.json").write_text(body, encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert run(root, check=True, quiet=True) == 1
    assert "schemas/evidence/partial_result.schema.json:" in err.getvalue()


@SETTINGS
@given(body=yaml_like)
def test_any_claim_policy_file_loads_or_raises_a_contract_error(body: str, tmp_path_factory: object) -> None:
    path: Path = tmp_path_factory.mktemp("c") / "policy.yaml"  # type: ignore[attr-defined]
    path.write_text(body, encoding="utf-8")
    try:
        policy = load_claim_policy(path)
    except ContractViolationError as error:
        assert str(error)
    else:
        assert policy.severities
