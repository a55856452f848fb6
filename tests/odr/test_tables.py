"""R-GEN-1 for ODR: the stop-rules table drives precedence, check order and header order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import copy_project, run_python, run_rcs


@pytest.fixture(scope="module")
def reordered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("odr") / "project")
    table = project / "schemas/odr/stop_rules.yaml"
    text = table.read_text()
    text = text.replace(
        "metric_precedence: [MAX_ROUNDS, DIFF_FLOOR, CIRCULARITY]",
        "metric_precedence: [CIRCULARITY, DIFF_FLOOR, MAX_ROUNDS]",
    )
    text = text.replace(
        "      - {name: REQUIREMENT, body: text}\n      - {name: CHANGELOG, body: list}\n",
        "      - {name: CHANGELOG, body: list}\n      - {name: REQUIREMENT, body: text}\n",
    )
    dup = text[text.index("  - code: DUPLICATE_HEADER") : text.index("  - code: MISSING_HEADER")]
    missing = text[text.index("  - code: MISSING_HEADER") : text.index("  - code: HEADER_OUT_OF_ORDER")]
    text = text.replace(dup + missing, missing + dup)
    text = text.replace('message: "The {source} output is empty"', 'message: "Nothing came from the {source}"')
    table.write_text(text)
    config = project / "schemas/odr/config.schema.json"
    config.write_text(config.read_text().replace('"minimum": 1, "default": 8}', '"minimum": 1, "default": 5}'))
    errors = project / "schemas/odr/errors.yaml"
    errors.write_text(errors.read_text().replace("does not compile: {detail}", "is not a regular expression: {detail}"))
    result = run_rcs(["codegen"], project=project)
    assert result.returncode == 0, result.stdout + result.stderr
    (project / "tests").mkdir()
    for part in ("__init__.py", "conftest.py"):
        (project / "tests" / part).write_text((Path(__file__).parents[1] / part).read_text())
    (project / "tests/odr").mkdir()
    (project / "tests/odr/__init__.py").touch()
    (project / "tests/odr/helpers.py").write_text((Path(__file__).parent / "helpers.py").read_text())
    return project


def probe(project: Path, code: str) -> list[str]:
    prelude = "from rcs_contracts.runtime.odr import *\nfrom tests.odr.helpers import A, B, A2, run, AUDITOR\n"
    result = run_python(prelude + code, project)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_reordered_precedence_changes_the_winner(reordered: Path) -> None:
    out = probe(
        reordered,
        (
            "import tests.odr.helpers as H\n"
            "H.architect = lambda r, c='- x': (f'### CHANGELOG\\n{c}\\n### REQUIREMENT\\n{r}\\n'\n"
            "    '### ASSUMPTIONS\\n### OPEN_QUESTIONS\\n')\n"
            "print(run([A, B, A2], shingle_k=1, diff_floor_pct=0.5, stable_rounds=1, max_rounds=3).stop_reason)\n"
            "print(run([A, B, A2], shingle_k=1, diff_floor_pct=0.5, stable_rounds=1).stop_reason)\n"
        ),
    )
    assert out == ["CIRCULARITY", "CIRCULARITY"]  # was MAX_ROUNDS, then DIFF_FLOOR


def test_reordered_headers_change_what_parses(reordered: Path) -> None:
    out = probe(
        reordered,
        (
            "ok = '### CHANGELOG\\n### REQUIREMENT\\nx\\n### ASSUMPTIONS\\n### OPEN_QUESTIONS\\n'\n"
            "old = '### REQUIREMENT\\nx\\n### CHANGELOG\\n### ASSUMPTIONS\\n### OPEN_QUESTIONS\\n'\n"
            "print(parse_architect(ok).ok, parse_architect(old).error.code)\n"
        ),
    )
    assert out == ["True", "HEADER_OUT_OF_ORDER"]


def test_reordered_checks_change_which_error_is_reported(reordered: Path) -> None:
    out = probe(
        reordered,
        ("text = '### CHANGELOG\\n### CHANGELOG\\n### REQUIREMENT\\nx\\n'\nprint(parse_architect(text).error.code)\n"),
    )
    assert out == ["MISSING_HEADER"]  # DUPLICATE_HEADER comes first in the shipped table


def test_defaults_and_messages_come_from_the_schema_and_tables(reordered: Path) -> None:
    out = probe(
        reordered,
        (
            "print(ODRConfig().max_rounds)\n"
            "print(parse_auditor('').error.message.replace(' ', '_'))\n"
            "try:\n"
            "    ODRState(config=ODRConfig(code_leak_patterns=['(']))\n"
            "except ODRConfigError as e:\n"
            "    print(str(e).split(':')[0].replace(' ', '_'))\n"
        ),
    )
    assert out == ["5", "Nothing_came_from_the_auditor", "code_leak_patterns[0]_is_not_a_regular_expression"]
