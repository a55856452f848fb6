"""The README's quickstart has exactly two set-up commands, and CI runs the second one verbatim."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)]


def test_two_setup_commands() -> None:
    commands = quickstart_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    install_run, test = commands
    assert "pip install" in install_run and "rcs codegen" in install_run and "rcs validate" in install_run
    assert "pip install" in test and test.endswith("pytest -n auto")  # one worker per core (pytest-xdist)


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert quickstart_commands()[1] in ci.splitlines()
    steps = ("rcs codegen --check", "ruff check", "mypy --strict -p rcs_contracts\n", "mypy --strict bench interop\n")
    for step in (*steps, "conformance/suite.py"):
        assert step in ci


def test_the_own_contracts_example_is_the_project_ci_builds() -> None:
    # The README says .ci/wheel runs "exactly this": the settings of its [tool.rcs] example, all but
    # the optional schemas folder (whose default it names), are the ones .ci/wheel writes. Without
    # house-style = false the one-schema project is refused (no errors.yaml), as a user found.
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Your own contracts", 1)[1].split("\n## ", 1)[0]
    example = tomllib.loads(re.findall(r"```toml\n(.*?)```", section, re.DOTALL)[0])["tool"]["rcs"]
    assert example.pop("schemas") == "schemas"
    wheel = (ROOT / ".ci" / "wheel").read_text(encoding="utf-8")
    written = re.search(r"printf '(\[tool\.rcs\].*?)' > pyproject\.toml", wheel)
    assert written is not None
    built = tomllib.loads(written[1].replace("\\n", "\n"))["tool"]["rcs"]
    assert example == built
