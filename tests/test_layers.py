"""The house has no circles: which folder of rcs may import which (the package docstring's drawing).

Data flows one way, schemas -> codegen -> generated -> engine -> runtime -> the command line: the
compiler never imports the runtime, a domain never imports the command line, and every import of
rcs goes through the one package (``rcs_contracts.``), never a top-level folder name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = "rcs_contracts"
FOLDERS = ("base", "safeio", "codegen", "generated", "engine", "runtime")
# What each layer may import besides itself.
ALLOWED = {
    "base": set(),
    "safeio": {"base"},
    "codegen": {"base", "safeio"},
    "generated": set(),
    "engine": {"base", "safeio", "generated"},
    "runtime": {"base", "safeio", "generated", "engine"},
    # The compiler's two commands (`rcs codegen`, `rcs schema diff`): their entry modules, nothing deeper.
    "runtime.cli": {"base", "safeio", "generated", "engine", "runtime", "codegen.cli", "codegen.evolution.cli"},
}


def _modules() -> list[tuple[str, Path]]:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found.append((".".join(path.relative_to(ROOT).with_suffix("").parts), path))
    return found


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _layer(module: str) -> str:
    return "runtime.cli" if module == "runtime.cli" else module.split(".")[0]


def _allows(layer: str, module: str, target: str) -> bool:
    if target.split(".")[0] == layer.split(".")[0] and layer != "runtime.cli":
        # Inside runtime: a domain may use another's (research reads with phase1's index), never the CLI.
        return not (layer == "runtime" and target.startswith("runtime.cli"))
    return any(target == a or target.startswith(a + ".") for a in ALLOWED[layer]) or target == layer


@pytest.mark.parametrize(("module", "path"), _modules(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_module_imports_only_the_layers_below_it(module: str, path: Path) -> None:
    layer = _layer(module)
    wrong = []
    for name in sorted(_imports(path)):
        head = name.split(".")[0]
        if head in FOLDERS:
            wrong.append(f"{name}: a folder imported by its top-level name; import {PACKAGE}.{name}")
        elif head == PACKAGE and name != PACKAGE:
            target = name.removeprefix(PACKAGE + ".")
            if target.split(".")[0] in FOLDERS and not _allows(layer, module, target):
                wrong.append(f"{name}: {layer} may not import {target.split('.')[0]}")
    assert not wrong, wrong


def test_the_rule_catches_a_circle(tmp_path: Path) -> None:
    # The two circles the layout once had: a domain importing the CLI, the compiler the runtime.
    assert not _allows("runtime", "runtime.odr.command", "runtime.cli")
    assert not _allows("codegen", "codegen.sources", "engine.validation")
    assert not _allows("engine", "engine.collect", "runtime.evidence")
    assert not _allows("generated", "generated.kinds", "engine.kinds")
    assert _allows("runtime", "runtime.research.adapter", "runtime.phase1.text")
    assert _allows("runtime.cli", "runtime.cli", "codegen.cli")
    assert not _allows("runtime.cli", "runtime.cli", "codegen.render")
    assert _allows("runtime.cli", "runtime.cli", "codegen.evolution.cli")
    assert not _allows("runtime.cli", "runtime.cli", "codegen.evolution.witness")
    bad = tmp_path / "x.py"
    bad.write_text("from runtime import cli\nimport rcs_contracts.engine.kinds\n", encoding="utf-8")
    assert _imports(bad) == {"runtime", "runtime.cli", "rcs_contracts.engine.kinds"}
