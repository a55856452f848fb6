"""§3.1 and R-RS-4: tools are imported and called by the adapter module only (import analysis)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

ADAPTER = "runtime/research/adapter.py"
TOOLS_PACKAGE = "rcs_contracts.runtime.research.tools"


def _modules() -> list[Path]:
    folders = ("runtime", "engine", "base", "codegen", "generated", "safeio")
    return sorted(p for d in folders for p in (ROOT / d).rglob("*.py"))


def test_only_the_adapter_imports_a_tool() -> None:
    importers = set()
    for path in _modules():
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith("runtime/research/tools/"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            if any(n == TOOLS_PACKAGE or n.startswith(TOOLS_PACKAGE + ".") for n in names):
                importers.add(relative)
    assert importers == {ADAPTER}


def test_only_the_adapter_calls_search() -> None:
    callers = set()
    for path in _modules():
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "search":
                owner = ast.unparse(node.func.value)
                if "tool" in owner.lower():  # regex objects' .search are not tool calls
                    callers.add(relative)
    assert callers == {ADAPTER}


def test_nothing_in_the_session_reads_tool_text_to_decide_a_call() -> None:
    """The plan is built before the first call from the request only (§3.5)."""
    source = (ROOT / "runtime/research/session.py").read_text()
    tree = ast.parse(source)
    run = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "run")
    loop = next(n for n in ast.walk(run) if isinstance(n, ast.For))
    assert ast.unparse(loop.iter) == "plan"  # a fixed list, not a generator fed by results
    for node in ast.walk(loop):
        assert not (
            isinstance(node, ast.Attribute)
            and node.attr in {"append", "extend", "insert"}
            and ast.unparse(node.value) == "plan"
        )
