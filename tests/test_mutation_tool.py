"""bench/mutation.py: its mutants are exactly one change each, and an interrupted run keeps its table."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rcs_bench_mutation", ROOT / "bench" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


mutation = _load()

SAMPLE = '''"""A module docstring: never mutated."""
import logging

log = logging.getLogger(__name__)


def f(x: int, name: str = "ünïcode") -> str:
    """A function docstring."""
    assert x >= 0
    log.debug("never %s", "mutated")
    label = "é€😀"; total = -3 if (x <
        10 and name) else 7
    if x == 99: raise ValueError("guarded")
    return f"{label}:{x + total!r:>4}:{'ok' if not x else 'no'}"
'''


def _changed_nodes(before: str, after: str) -> int:
    """How many positions of the two pre-order walks differ (ignoring source positions)."""
    left = [ast.dump(n) for _, n, _ in mutation._walk(ast.parse(before))]
    right = [ast.dump(n) for _, n, _ in mutation._walk(ast.parse(after))]
    return sum(a != b for a, b in zip(left, right, strict=False)) + abs(len(left) - len(right))


def test_every_mutant_of_the_sample_is_one_change_and_keeps_the_other_lines() -> None:
    mutants = mutation.mutants_of("sample.py", SAMPLE)
    kinds = {m.kind for m in mutants}
    assert kinds == {"compare", "boolop", "not", "int", "string", "guard"}
    originals = {m.original for m in mutants}
    assert not any("docstring" in text or "never" in text for text in originals)  # docstrings, logging
    assert "x >= 0" not in originals  # asserts narrow types: left alone
    for mutant in mutants:
        text = mutation.mutated_source(SAMPLE, mutant)
        assert text != SAMPLE
        assert _changed_nodes(SAMPLE, text) >= 1
        before, after = SAMPLE.splitlines(), text.splitlines()
        span = range(mutant.stmt_line - 1, mutant.end_line + 1)
        # Lines before the changed statement are byte-for-byte the original.
        assert after[: span.start] == before[: span.start], mutant
        # Every line after the change is the original too (a multi-line span may become one line).
        tail = len(before) - mutant.end_line
        assert after[len(after) - tail :] == before[len(before) - tail :], mutant


def test_a_splice_after_non_ascii_text_on_the_same_line_lands_on_the_node() -> None:
    mutants = [m for m in mutation.mutants_of("sample.py", SAMPLE) if m.kind == "int" and m.original == "3"]
    assert len(mutants) == 1
    text = mutation.mutated_source(SAMPLE, mutants[0])
    assert 'label = "é€😀"; total = -(4) if' in text


def test_a_dropped_guard_keeps_its_condition() -> None:
    (guard,) = [m for m in mutation.mutants_of("sample.py", SAMPLE) if m.kind == "guard"]
    text = mutation.mutated_source(SAMPLE, guard)
    assert "    if x == 99: pass\n" in text
    assert guard.mutated == "if x == 99: pass"


def test_a_change_inside_an_f_string_rewrites_that_f_string_only() -> None:
    inside = [m for m in mutation.mutants_of("sample.py", SAMPLE) if m.line == 14]
    assert {m.kind for m in inside} == {"string", "not"}
    for mutant in inside:
        text = mutation.mutated_source(SAMPLE, mutant)
        assert text.splitlines()[:13] == SAMPLE.splitlines()[:13]
        namespace: dict[str, object] = {}
        exec(compile(text, "sample.py", "exec"), namespace)  # the mutant still runs
        result = namespace["f"](0)  # type: ignore[operator]
        assert isinstance(result, str) and result != "é€😀:-3:ok"


def test_a_splice_that_would_not_give_the_mutated_tree_is_refused() -> None:
    (mutant,) = [m for m in mutation.mutants_of("sample.py", SAMPLE) if m.kind == "guard"]
    wrong = mutation.Mutant(**{**mutant.__dict__, "kind": "not"})  # the index names an If, not a `not`
    with pytest.raises((ValueError, AssertionError)):
        mutation.mutated_source(SAMPLE, wrong)


@pytest.mark.parametrize("module", ["runtime/odr/checks.py", "runtime/phase1/index.py", "engine/report.py"])
def test_every_mutant_of_a_runtime_module_splices(module: str) -> None:
    source = (ROOT / module).read_text()
    mutants = mutation.mutants_of(module, source)
    assert mutants
    for mutant in mutants:
        assert mutation.mutated_source(source, mutant) != source


def test_an_interrupted_run_prints_the_finished_mutants_and_exits_130(tmp_path: Path) -> None:
    """SIGTERM while mutants run: the table of those that finished, 'interrupted', exit 130."""
    log = tmp_path / "out.txt"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "bench" / "mutation.py"),
                "--module",
                "runtime/phase1/chunks.py",
                "--tests",
                "tests/phase1/test_examples.py",
                "--jobs",
                "2",
                "--verbose",
            ],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        deadline = time.monotonic() + 600
        while ": killed (" not in log.read_text() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # waits on content: the first finished mutant
        assert process.poll() is None, log.read_text()
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=120)
    out = log.read_text()
    assert code == 130, out
    assert "interrupted after" in out and "(interrupted: partial numbers)" in out, out
    row = next(line for line in out.splitlines() if line.startswith("runtime/phase1/chunks.py  "))
    counted, killed = int(row.split()[1]), int(row.split()[2])
    total = len(mutation.mutants_of("runtime/phase1/chunks.py", (ROOT / "runtime/phase1/chunks.py").read_text()))
    assert 1 <= killed <= counted < total, row


def test_a_sample_is_deterministic_in_source_order_and_never_larger_than_asked() -> None:
    source = (ROOT / "runtime" / "research" / "policy.py").read_text()
    mutants = mutation.mutants_of("runtime/research/policy.py", source)
    assert len(mutants) > 8
    first = mutation.draw_sample(mutants, 8, 0)
    assert first == mutation.draw_sample(mutants, 8, 0)
    assert len(first) == 8 and len(set(first)) == 8
    assert [mutants.index(m) for m in first] == sorted(mutants.index(m) for m in first)
    assert first != mutation.draw_sample(mutants, 8, 1)
    assert mutation.draw_sample(mutants, None, 0) == mutants
    assert mutation.draw_sample(mutants, len(mutants) + 5, 0) == mutants


@pytest.mark.parametrize(
    ("killed", "counted", "low", "high"),
    [(0, 0, 0.0, 1.0), (10, 10, 0.722, 1.0), (45, 50, 0.786, 0.957), (0, 20, 0.0, 0.161)],
)
def test_the_wilson_interval_of_a_sampled_rate(killed: int, counted: int, low: float, high: float) -> None:
    got_low, got_high = mutation.wilson_interval(killed, counted)
    assert got_low == pytest.approx(low, abs=1e-3) and got_high == pytest.approx(high, abs=1e-3)
    if counted:
        assert got_low <= killed / counted <= got_high


def test_a_line_marked_equivalent_gets_no_mutant_unless_asked() -> None:
    source = (
        "from functools import lru_cache\n"
        "\n"
        "\n"
        "@lru_cache(maxsize=64)  # mutation: equivalent: a cache size changes speed only\n"
        "def f(x: int) -> bool:\n"
        '    return x > 1  # "# mutation: equivalent" inside a string would not count\n'
    )
    assert mutation.equivalent_lines(source) == {4: "a cache size changes speed only"}
    kept = mutation.mutants_of("m.py", source)
    every = mutation.mutants_of("m.py", source, keep_marked=True)
    assert [m.line for m in every if m not in kept] == [4]
    assert {m.line for m in kept} == {6}
    assert mutation.equivalent_lines('x = "# mutation: equivalent: no"\n') == {}


def test_a_command_s_documentation_is_not_mutated_but_its_names_and_defaults_are() -> None:
    source = (
        "import argparse\n"
        "parser = argparse.ArgumentParser(prog='rcs', description=f'Checks {1}.', epilog='See README.')\n"
        "parser.add_argument('--top-k', type=int, default=5, metavar='K', help='how many, ' 'at most')\n"
    )
    changed = sorted((m.line, m.original) for m in mutation.mutants_of("m.py", source))
    assert changed == [(2, "'rcs'"), (3, "'--top-k'"), (3, "5")]


def test_a_mutant_on_an_import_time_line_runs_every_test_of_its_module() -> None:
    source = "LIMIT = 3\n\n\ndef over(x: int) -> bool:\n    return x > LIMIT\n"
    (constant,) = [m for m in mutation.mutants_of("m.py", source) if m.line == 1]
    coverage = mutation.Coverage(
        lines={"m.py": {1: {"tests/t.py::child"}, 5: {"tests/t.py::in_process", "tests/t.py::child"}}},
        import_lines={"m.py": {1, 4}},
        durations={"tests/t.py::child": 2.0, "tests/t.py::in_process": 0.1},
        failing=set(),
    )
    # Line 1 ran at import time in-process (no test) and inside one test's child process: the
    # in-process test that uses LIMIT must be selected too, fastest first.
    assert mutation.select_tests(constant, coverage) == ["tests/t.py::in_process", "tests/t.py::child"]


def test_a_marker_on_its_own_line_marks_the_next_line_of_code() -> None:
    source = "# mutation: equivalent: strict= on equal lengths\n# more words\n\npairs = list(zip(a, b, strict=True))\n"
    assert mutation.equivalent_lines(source) == {4: "strict= on equal lengths"}


def test_tests_sharing_a_module_fixture_with_a_covering_test_all_run() -> None:
    source = "def render(x: int) -> str:\n    return '- ' + str(x)\n"
    (dash,) = [m for m in mutation.mutants_of("m.py", source) if m.original == "'- '"]
    coverage = mutation.Coverage(
        lines={"m.py": {2: {"tests/t.py::test_first"}}},
        import_lines={},
        durations={"tests/t.py::test_first": 3.0, "tests/t.py::test_text": 0.01, "tests/u.py::test_other": 0.02},
        failing=set(),
        shared={
            "tests/t.py::test_first": ["tests/t.py::runs"],
            "tests/t.py::test_text": ["tests/t.py::runs"],  # asserts on what the fixture printed
            "tests/u.py::test_other": ["tests/u.py::runs"],
        },
    )
    assert mutation.select_tests(dash, coverage) == ["tests/t.py::test_text", "tests/t.py::test_first"]


def test_tests_run_file_by_file_so_a_module_fixture_is_set_up_once() -> None:
    durations = {"a.py::slow": 5.0, "a.py::quick": 0.1, "b.py::one": 0.2, "b.py::two": 0.3, "c.py::x": 0.05}
    # By duration alone: a.py::quick, b.py::one, b.py::two, a.py::slow (a.py's fixture twice).
    assert mutation.fastest_files_first(durations, durations) == [
        "c.py::x",
        "b.py::one",
        "b.py::two",
        "a.py::quick",
        "a.py::slow",
    ]


def test_the_runtime_test_selection_is_every_test_file_but_the_compilers_and_the_tools(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    for folder in ("codegen", "conformance", "odr", "zeta"):
        (tests / folder).mkdir(parents=True)
        (tests / folder / "test_x.py").write_text("", encoding="utf-8")
    (tests / "helpers").mkdir()
    (tests / "helpers" / "data.py").write_text("", encoding="utf-8")  # no test file: not selected
    for name in ("test_new.py", "test_mutation_tool.py", "conftest.py", "schema_cases.py"):
        (tests / name).write_text("", encoding="utf-8")
    assert mutation.runtime_tests(tmp_path) == ["tests/odr", "tests/test_new.py", "tests/zeta"]
    # and on this tree: every top-level test file of the runtime is in it
    selected = mutation.runtime_tests(ROOT)
    assert "tests/test_schema_errors.py" in selected and "tests/codegen" not in selected


def test_lines_of_cached_functions_count_as_run_once() -> None:
    source = (
        "import functools\n"
        "from functools import cache\n"
        "@cache\n"
        "def a():\n"
        "    return 1\n"
        "@functools.lru_cache(maxsize=4)\n"
        "def b():\n"
        "    return 2\n"
        "def c():\n"
        "    return 3\n"
        "class K:\n"
        "    @functools.cached_property\n"
        "    def d(self):\n"
        "        return 4\n"
    )
    assert mutation.cached_lines(source) == {4, 5, 7, 8, 13, 14}


def test_a_constant_s_mutant_runs_the_tests_of_the_modules_that_import_it(tmp_path: Path) -> None:
    package = tmp_path / "runtime" / "sub"
    package.mkdir(parents=True)
    (tmp_path / "runtime" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "runtime" / "codes.py").write_text("OK, BAD = 0, 1\n", encoding="utf-8")
    (tmp_path / "runtime" / "cli.py").write_text("from runtime.codes import OK\n", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "command.py").write_text("from ..codes import BAD\n", encoding="utf-8")
    (package / "whole.py").write_text("from runtime import codes\n", encoding="utf-8")
    (package / "other.py").write_text("from runtime import cli\nimport runtime.sub.command\n", encoding="utf-8")
    found = mutation.importers_of(["runtime/codes.py", "runtime/sub/command.py"], tmp_path)
    assert found == {
        "runtime/codes.py": ["runtime/cli.py", "runtime/sub/command.py", "runtime/sub/whole.py"],
        "runtime/sub/command.py": ["runtime/sub/other.py"],
    }
    (bad,) = [m for m in mutation.mutants_of("runtime/codes.py", "OK, BAD = 0, 1\n") if m.original == "1"]
    coverage = mutation.Coverage(
        lines={
            "runtime/codes.py": {},  # a constant module: no line runs inside a test
            "runtime/sub/command.py": {3: {"tests/c.py::usage"}},
            "runtime/other.py": {9: {"tests/o.py::unrelated"}},
        },
        import_lines={"runtime/codes.py": {1}},
        durations={"tests/c.py::usage": 0.5},
        failing=set(),
        importers=found,
    )
    assert mutation.select_tests(bad, coverage) == ["tests/c.py::usage"]


def test_module_level_lines_are_the_import_time_ones() -> None:
    source = (
        "import re\n"  # 1
        "KIND = 'a/b'\n"  # 2
        "@decorate(3)\n"  # 3
        "def f(x=LIMIT):\n"  # 4
        "    return x\n"  # 5
        "class K(Base):\n"  # 6
        "    NAME = 'k'\n"  # 7
        "    def m(self):\n"  # 8
        "        return 1\n"  # 9
        "TABLE = {\n"  # 10
        "    'x': 1,\n"  # 11
        "}\n"  # 12
    )
    assert mutation.module_level_lines(source) == {1, 2, 3, 4, 6, 7, 8, 10, 11, 12}


def test_a_constant_of_a_module_first_imported_inside_one_test_runs_every_test_of_the_module() -> None:
    # runtime/collect.py is imported lazily: in-process, its constants were credited to the one
    # test that imported it first, and run K's mutant of POLICY_KIND ran none of the tests using it.
    source = "KIND = 'evidence/claim_policy'\n\n\ndef kind():\n    return KIND\n"
    (constant,) = [m for m in mutation.mutants_of("m.py", source) if m.line == 1]
    coverage = mutation.Coverage(
        lines={"m.py": {1: {"tests/t.py::first"}, 5: {"tests/t.py::first", "tests/t.py::uses_it"}}},
        import_lines={},
        durations={"tests/t.py::first": 0.2, "tests/t.py::uses_it": 0.1},
        failing=set(),
        once={"m.py": mutation.module_level_lines(source)},
    )
    assert mutation.select_tests(constant, coverage) == ["tests/t.py::uses_it", "tests/t.py::first"]
    assert mutation.select_tests(constant, dataclasses.replace(coverage, once={})) == ["tests/t.py::first"]


def test_a_test_file_that_imports_the_module_runs_for_its_import_time_lines(tmp_path: Path) -> None:
    # A test may use a frozen dataclass of the module without running any of its lines (the
    # generated __init__ has no line of the file): run K/P's `frozen=True` mutant ran none of them.
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_x():\n    from runtime.engine import Error\n")
    (tmp_path / "tests" / "test_b.py").write_text("import json\n")
    (tmp_path / "tests" / "test_c.py").write_text("from runtime import engine\n")
    found = mutation.test_files_importing(["runtime/engine.py"], ["tests"], tmp_path)
    assert found == {"runtime/engine.py": ["tests/test_a.py", "tests/test_c.py"]}
    source = "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Error:\n    code: str\n"
    (frozen,) = [m for m in mutation.mutants_of("runtime/engine.py", source) if m.original == "True"]
    coverage = mutation.Coverage(
        lines={"runtime/engine.py": {4: {"tests/test_b.py::test_first"}}},
        import_lines={},
        durations={"tests/test_a.py::test_x": 0.1, "tests/test_b.py::test_first": 0.2, "tests/test_c.py::test_y": 0.3},
        failing=set(),
        once={"runtime/engine.py": mutation.module_level_lines(source)},
        test_files=found,
    )
    assert mutation.select_tests(frozen, coverage) == [
        "tests/test_a.py::test_x",
        "tests/test_b.py::test_first",
        "tests/test_c.py::test_y",
    ]


def test_a_traced_file_maps_to_the_project_path_in_the_copy_or_in_a_copy_a_test_made() -> None:
    paths = ["runtime/engine.py", "runtime/json_text.py"]
    prefix = "/tmp/rcs-mutation-x/main/"
    assert mutation.project_relative(prefix + "runtime/engine.py", prefix, paths) == "runtime/engine.py"
    assert mutation.project_relative(prefix + "runtime/cli.py", prefix, paths) == "runtime/cli.py"
    # test_user_schemas copies the project and runs rcs from the copy: the copy ran the mutant
    copy = "/tmp/pytest-of-root/pytest-1/user0/project/runtime/engine.py"
    assert mutation.project_relative(copy, prefix, paths) == "runtime/engine.py"
    assert mutation.project_relative("/tmp/elsewhere/runtime/cli.py", prefix, paths) is None
    assert mutation.project_relative("/tmp/elsewhere/my_engine.py", prefix, ["engine.py"]) is None
