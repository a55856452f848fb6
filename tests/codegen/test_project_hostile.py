"""A user's project set up wrong, or against rcs (SPEC.md 2.6): codegen refuses what would lose or
misplace a file, and validate never judges by another project's kinds or crashes.

Each case is a defect an adversarial review found; the test holds the fix.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ORDER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "order.schema.json",
    "title": "Order",
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "qty"],
    "properties": {"$schema": {"type": "string"}, "id": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
}


def rcs(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=180
    )


def project(root: Path, settings: str, minimum: int = 1) -> Path:
    (root / "schemas/orders").mkdir(parents=True)
    schema = json.loads(json.dumps(ORDER))
    schema["properties"]["qty"]["minimum"] = minimum
    (root / "schemas/orders/order.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (root / "pyproject.toml").write_text(f"[tool.rcs]\nhouse-style = false\n{settings}\n", encoding="utf-8")
    return root


def test_generated_may_not_overlap_the_schemas(tmp_path: Path) -> None:
    for setting in ('generated = "schemas"', 'generated = "schemas/orders"', 'schemas = "gen/s"\ngenerated = "gen"'):
        root = tmp_path / str(abs(hash(setting)))
        project(root, setting)
        if "gen/s" in setting:
            (root / "gen").mkdir()
            (root / "schemas").rename(root / "gen/s")
        done = rcs(["codegen"], root)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "must not overlap the schemas folder" in done.stderr
        assert len(list(root.rglob("order.schema.json"))) == 1


def test_the_spec_may_not_be_an_input_or_inside_the_generated_folder(tmp_path: Path) -> None:
    cases = {
        'generated = "docs"\nspec = "docs/CONTRACTS.md"': "must not lie in the generated folder",
        'generated = "gen"\nspec = "gen"': "must not lie in the generated folder",
        'spec = "pyproject.toml"': "tool.rcs.spec must not be pyproject.toml",
        'spec = "schemas/orders/order.schema.json"': "must not lie in the schemas folder",
        'spec = "claim_policy.yaml"': "tool.rcs.spec must not be claim_policy.yaml",
    }
    for index, (setting, message) in enumerate(cases.items()):
        root = project(tmp_path / f"p{index}", setting)
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        done = rcs(["codegen"], root)
        assert done.returncode == 1 and message in done.stderr, (setting, done.stderr)
        assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before, setting


def test_files_of_the_project_in_the_generated_folder_are_kept(tmp_path: Path) -> None:
    root = project(tmp_path / "p", 'generated = "shop"')
    (root / "shop").mkdir()
    (root / "shop/app.py").write_text("def important() -> None: ...\n", encoding="utf-8")
    assert rcs(["codegen"], root).returncode == 0
    assert (root / "shop/app.py").read_text(encoding="utf-8") == "def important() -> None: ...\n"
    assert rcs(["codegen", "--check"], root).returncode == 0
    # A domain that goes away takes only its stamped files with it.
    (root / "shop/orders/notes.txt").write_text("mine\n", encoding="utf-8")
    (root / "schemas/orders/order.schema.json").rename(root / "schemas/orders/order.json.bak")
    (root / "schemas/stock").mkdir()
    (root / "schemas/stock/item.schema.json").write_text(json.dumps({**ORDER, "$id": "item.schema.json"}), "utf-8")
    assert rcs(["codegen"], root).returncode == 0
    assert not (root / "shop/orders/order_schema.py").exists()
    assert (root / "shop/orders/notes.txt").read_text(encoding="utf-8") == "mine\n"


def test_codegen_writes_nothing_through_a_symbolic_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep\n", encoding="utf-8")
    root = project(tmp_path / "p", 'generated = "gen"')
    (root / "gen").symlink_to(outside)
    done = rcs(["codegen"], root)
    assert done.returncode != 0 and "gen: is a symbolic link" in done.stderr, done.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]
    (root / "gen").unlink()
    (root / "gen").mkdir()
    (root / "gen/orders").symlink_to(outside)
    done = rcs(["codegen"], root)
    assert done.returncode != 0 and "gen/orders: is a symbolic link" in done.stderr, done.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]


def test_the_package_is_the_generated_folder_and_nobody_elses(tmp_path: Path) -> None:
    cases = {
        'generated = "src/shop"\npackage = "shop"': "must name the generated folder 'src/shop'",
        'generated = "json"\npackage = "json"': "would shadow Python's own module 'json'",
        'generated = "rcs_contracts/generated"\npackage = "rcs_contracts.generated"': "is rcs's own package name",
        'package = ".x"': "tool.rcs.package must be a dotted import name",
    }
    for index, (setting, message) in enumerate(cases.items()):
        root = project(tmp_path / f"p{index}", setting)
        done = rcs(["codegen"], root)
        assert done.returncode == 1 and message in done.stderr, (setting, done.stderr)


def test_a_malformed_project_file_is_an_error_with_its_line(tmp_path: Path) -> None:
    root = project(tmp_path / "p", "")
    for text in ("tool = 5\n", "[[tool]]\nx = 1\n", '[tool]\nrcs = "x"\n', '[tool.rcs]\nspec = "a\\u0000"\n'):
        (root / "pyproject.toml").write_text(text, encoding="utf-8")
        compiled = rcs(["codegen"], root)
        assert compiled.returncode == 1 and compiled.stderr.startswith("pyproject.toml:"), (text, compiled.stderr)
        judged = rcs(["validate", "--kind", "orders/order", "pyproject.toml"], root)
        assert "internal error" not in judged.stderr and "Traceback" not in judged.stderr, (text, judged.stderr)
    (root / "pyproject.toml").write_text("tool = 5\n", encoding="utf-8")
    judged = rcs(["validate", "--project", str(root), "--kind", "orders/order", "pyproject.toml"], root)
    assert judged.returncode == 2 and "[tool] must be a table" in judged.stderr, judged.stderr


def test_validate_refuses_a_broken_or_stale_package_in_words(tmp_path: Path) -> None:
    root = project(tmp_path / "p", 'generated = "shop"')
    assert rcs(["codegen", "-q"], root).returncode == 0
    (root / "q.json").write_text('{"id": "o-1", "qty": 0}', encoding="utf-8")
    kinds = root / "shop/kinds.py"
    saved = kinds.read_text(encoding="utf-8")
    kinds.write_text(saved + "def (\n", encoding="utf-8")
    done = rcs(["validate", "--kind", "orders/order", "q.json"], root)
    assert done.returncode == 2 and "the compiled package shop is broken (SyntaxError" in done.stderr, done.stderr
    kinds.write_text(saved, encoding="utf-8")
    (root / "shop/orders/order_schema.py").unlink()
    done = rcs(["validate", "--kind", "orders/order", "q.json"], root)
    assert done.returncode == 2 and "is stale or broken (ModuleNotFoundError" in done.stderr, done.stderr
    assert f"run rcs codegen in {root.resolve()}" in done.stderr


def test_validate_finds_the_project_from_a_subfolder_and_names_a_missing_one(tmp_path: Path) -> None:
    root = project(tmp_path / "p", 'generated = "shop"', minimum=100)
    assert rcs(["codegen", "-q"], root).returncode == 0
    (root / "data/deep").mkdir(parents=True)
    (root / "data/deep/q.json").write_text('{"id": "o-1", "qty": 5}', encoding="utf-8")
    done = rcs(["validate", "--kind", "orders/order", "q.json"], root / "data/deep")
    assert done.returncode == 1 and "less than the minimum of 100" in done.stdout, done.stdout + done.stderr
    missing = rcs(["validate", "--project", str(tmp_path / "nowhere"), "--kind", "orders/order", "x.json"], tmp_path)
    assert missing.returncode == 2 and f"{tmp_path / 'nowhere'}: no such directory" in missing.stderr


def test_two_projects_with_one_package_name_in_one_process(tmp_path: Path) -> None:
    # The second project must not be judged by the first's compiled modules (nor the first again
    # by the second's): the package is keyed by its root, and its modules are imported afresh.
    first = project(tmp_path / "a", 'generated = "acme"', minimum=1)
    second = project(tmp_path / "b", 'generated = "acme"', minimum=100)
    for root in (first, second):
        assert rcs(["codegen", "-q"], root).returncode == 0
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from rcs_contracts.engine import kinds, project, validation\n"
        "for root in sys.argv[1:]:\n"
        "    project.use(Path(root))\n"
        "    found = validation.violations(kinds.resolve('orders/order'), b'{\"id\": \"o-1\", \"qty\": 5}', "
        "validation.Context())\n"
        "    print(Path(root).name, len(list(found)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(first), str(second), str(first)], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split("\n") == ["a 0", "b 1", "a 0", ""], done.stdout + done.stderr


def test_generated_files_are_readable_as_the_umask_allows(tmp_path: Path) -> None:
    root = project(tmp_path / "p", 'generated = "shop"')
    previous = os.umask(0o022)
    try:
        assert rcs(["codegen", "-q"], root).returncode == 0
    finally:
        os.umask(previous)
    modes = {stat.S_IMODE(p.stat().st_mode) for p in (root / "shop").rglob("*.py")}
    assert modes == {0o644}, modes


def test_a_domain_folder_that_cannot_be_listed_is_refused_not_dropped(tmp_path: Path, monkeypatch: Any) -> None:
    # Root reads every folder, so the refusal is played by the listing itself (as non-root, chmod 000).
    from rcs_contracts.codegen import sources
    from rcs_contracts.codegen.diagnostics import CompileError

    root = project(tmp_path, "")
    (root / "schemas/shipping").mkdir()
    (root / "schemas/shipping/parcel.schema.json").write_text(json.dumps({**ORDER, "$id": "parcel.schema.json"}))
    locked = (root / "schemas/shipping").resolve()
    listing = Path.iterdir

    def iterdir(self: Path) -> Any:
        if self.resolve() == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return listing(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    with pytest.raises(CompileError) as caught:
        sources.load(root)
    assert [str(d) for d in caught.value.diagnostics] == ["schemas/shipping:0: cannot read: Permission denied"]
    locked = (root / "schemas").resolve()  # the schemas folder itself: refused, not a traceback
    with pytest.raises(CompileError) as caught:
        sources.load(root)
    assert [str(d) for d in caught.value.diagnostics] == ["schemas:0: cannot read: Permission denied"]
