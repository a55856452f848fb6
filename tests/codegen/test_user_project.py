"""A user's own contracts (SPEC.md 2.6): `rcs codegen` and `rcs validate` on a project of theirs.

The project names, in its pyproject.toml, where its compiled package goes and its import name;
codegen writes nothing outside it, and validate judges by that project's kinds, not rcs's.
(.ci/wheel does the same from a wheel installed without the checkout.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SETTINGS = """[tool.rcs]
house-style = false
generated = "acme/contracts"
package = "acme.contracts"
spec = "docs/CONTRACTS.md"
"""
ORDER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "order.schema.json",
    "title": "Order",
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "qty"],
    "properties": {
        "$schema": {"type": "string"},
        "id": {"type": "string", "pattern": "^o-[0-9]+$"},
        "qty": {"type": "integer", "minimum": 1},
    },
}


def rcs(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rcs_contracts.runtime.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=180
    )


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_a_user_project_compiles_into_its_own_package_and_validates_by_its_kinds(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "schemas" / "orders").mkdir(parents=True)
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    (project / "schemas/orders/order.schema.json").write_text(json.dumps(ORDER, indent=2), encoding="utf-8")
    before = _files(project)
    compiled = rcs(["codegen"], project)
    assert compiled.returncode == 0, compiled.stderr
    written = _files(project) - before
    assert written and all(name.startswith("acme/contracts/") for name in written), sorted(written)
    assert "acme/contracts/orders/order_schema.py" in written and "acme/contracts/kinds.py" in written
    kinds = (project / "acme/contracts/kinds.py").read_text(encoding="utf-8")
    assert 'module="acme.contracts.orders.order_schema"' in kinds
    assert rcs(["codegen", "--check"], project).returncode == 0

    reference = "schemas/orders/order.schema.json"
    (project / "good.json").write_text(json.dumps({"$schema": reference, "id": "o-1", "qty": 2}), encoding="utf-8")
    (project / "bad.json").write_text(json.dumps({"$schema": reference, "id": "x", "qty": 0}), encoding="utf-8")
    good = rcs(["validate", "good.json"], project)
    assert (good.returncode, good.stdout) == (0, "1 file(s) checked: 1 valid, 0 invalid, 0 violation(s)\n"), good.stderr
    bad = rcs(["validate", "bad.json"], project)
    assert bad.returncode == 1 and bad.stdout.count("SchemaViolationError") == 2, bad.stdout
    # From elsewhere, --project names it; rcs's own kinds are not the project's.
    args = ["validate", "--project", str(project), "--kind", "orders/order", str(project / "good.json")]
    elsewhere = rcs(args, tmp_path)
    assert elsewhere.returncode == 0, elsewhere.stdout + elsewhere.stderr
    theirs = rcs(["validate", "--kind", "evidence/literature_map", "good.json"], project)
    assert theirs.returncode == 2 and "unknown artifact kind 'evidence/literature_map'; known kinds: orders/order" in (
        theirs.stderr
    )


def test_a_project_never_compiled_is_a_usage_error(tmp_path: Path) -> None:
    # No package named: it is the generated folder, dotted, as codegen reads it; nothing is there yet.
    (tmp_path / "pyproject.toml").write_text("[tool.rcs]\nhouse-style = false\n", encoding="utf-8")
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    done = rcs(["validate", "--project", str(tmp_path), "--kind", "x/y", "a.json"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"rcs validate: cannot validate by the project's kinds: {tmp_path}: "), done.stderr
    assert f"run rcs codegen in {tmp_path}" in done.stderr and "Traceback" not in done.stderr


def test_settings_may_not_point_outside_the_root(tmp_path: Path) -> None:
    (tmp_path / "schemas" / "orders").mkdir(parents=True)
    (tmp_path / "schemas/orders/order.schema.json").write_text(json.dumps(ORDER), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.rcs]\ngenerated = "../elsewhere"\n', encoding="utf-8")
    done = rcs(["codegen"], tmp_path)
    assert done.returncode == 1
    assert "pyproject.toml:2: tool.rcs.generated must be a relative path inside the root" in done.stderr
    assert not (tmp_path.parent / "elsewhere").exists()


def test_the_schemas_folder_is_the_one_the_project_names(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "contracts/defs/orders").mkdir(parents=True)
    (project / "contracts/defs/orders/order.schema.json").write_text(json.dumps(ORDER, indent=2), encoding="utf-8")
    # A schemas/ folder the project did not name is not read: its broken file must not matter.
    (project / "schemas/orders").mkdir(parents=True)
    (project / "schemas/orders/broken.schema.json").write_text("{", encoding="utf-8")
    settings = SETTINGS.replace("[tool.rcs]\n", '[tool.rcs]\nschemas = "contracts/defs"\n')
    (project / "pyproject.toml").write_text(settings, encoding="utf-8")
    before = _files(project)
    compiled = rcs(["codegen"], project)
    assert compiled.returncode == 0, compiled.stderr
    written = _files(project) - before
    assert all(name.startswith("acme/contracts/") for name in written), sorted(written)
    module = (project / "acme/contracts/orders/order_schema.py").read_text(encoding="utf-8")
    assert "from contracts/defs/orders/order.schema.json" in module.splitlines()[0]
    reference = "contracts/defs/orders/order.schema.json"
    (project / "bad.json").write_text(json.dumps({"$schema": reference, "id": "o-1", "qty": 0}), encoding="utf-8")
    bad = rcs(["validate", "bad.json"], project)
    assert bad.returncode == 1 and "SchemaViolationError" in bad.stdout, bad.stdout + bad.stderr

    # Diagnostics name the files where the project keeps them.
    (project / "contracts/defs/orders/order.schema.json").write_text(
        json.dumps({**ORDER, "required": ["id", "qty", "note"]}, indent=2), encoding="utf-8"
    )
    refused = rcs(["codegen"], project)
    assert refused.returncode == 1
    assert refused.stderr.startswith("contracts/defs/orders/order.schema.json:"), refused.stderr
    assert "required property 'note' can never be present" in refused.stderr


def test_a_missing_or_outside_schemas_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.rcs]\nschemas = "defs"\n', encoding="utf-8")
    missing = rcs(["codegen"], tmp_path)
    assert missing.returncode == 1
    assert f"defs:0: no defs/ directory under {tmp_path.resolve()}" in missing.stderr, missing.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.rcs]\nschemas = "/etc"\n', encoding="utf-8")
    outside = rcs(["codegen"], tmp_path)
    assert outside.returncode == 1
    assert "pyproject.toml:2: tool.rcs.schemas must be a relative path inside the root" in outside.stderr


def test_validate_warns_when_a_schema_changed_since_codegen_and_not_once_it_is_compiled(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "schemas" / "orders").mkdir(parents=True)
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    schema = project / "schemas/orders/order.schema.json"
    schema.write_text(json.dumps(ORDER, indent=2), encoding="utf-8")
    assert rcs(["codegen"], project).returncode == 0
    (project / "two.json").write_text(json.dumps({"id": "o-1", "qty": 2}), encoding="utf-8")
    args = ["validate", "--kind", "orders/order", "two.json"]
    assert rcs(args, project).stderr == ""
    stricter = json.loads(json.dumps(ORDER))
    stricter["properties"]["qty"]["minimum"] = 5
    schema.write_text(json.dumps(stricter, indent=2), encoding="utf-8")
    # The verdict is still the compiled schema's, and the user is told so.
    stale = rcs(args, project)
    assert stale.returncode == 0 and stale.stdout.endswith("1 valid, 0 invalid, 0 violation(s)\n"), stale.stdout
    assert stale.stderr == (
        f"rcs validate: warning: schemas/orders/order.schema.json changed since the last rcs codegen in {project}; "
        "verdicts follow the schemas as compiled: run rcs codegen there\n"
    )
    # From a folder below the root the files are still named from the root the message names.
    (project / "orders").mkdir()
    below = rcs(["validate", "--kind", "orders/order", "../two.json"], project / "orders")
    assert below.returncode == 0 and below.stderr == stale.stderr, below.stderr
    assert rcs(["codegen"], project).returncode == 0
    fresh = rcs(args, project)
    assert fresh.returncode == 1 and fresh.stderr == "" and "SchemaViolationError" in fresh.stdout, fresh.stdout


def test_a_folder_starting_with_an_underscore_is_not_a_domain_and_codegen_says_so(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    for folder in ("orders", "_drafts", ".hidden", "_empty"):
        (project / "schemas" / folder).mkdir(parents=True)
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    (project / "schemas/orders/order.schema.json").write_text(json.dumps(ORDER), encoding="utf-8")
    draft = {**ORDER, "$id": "draft.schema.json", "title": "Draft"}
    (project / "schemas/_drafts/draft.schema.json").write_text(json.dumps(draft), encoding="utf-8")
    (project / "schemas/.hidden/hidden.schema.json").write_text(json.dumps(draft), encoding="utf-8")
    (project / "schemas/_empty/notes.txt").write_text("not an input", encoding="utf-8")
    compiled = rcs(["codegen"], project)
    assert compiled.returncode == 0, compiled.stderr
    note = "rcs codegen: schemas/_drafts/ skipped: a folder whose name starts with _ is not a domain\n"
    assert compiled.stderr == note
    kinds = (project / "acme/contracts/kinds.py").read_text(encoding="utf-8")
    assert '"orders/order"' in kinds and "draft" not in kinds and "hidden" not in kinds
    quiet = rcs(["codegen", "-q", "--check"], project)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_a_broken_catalog_is_named_and_changes_no_verdict(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "schemas" / "orders").mkdir(parents=True)
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    (project / "schemas/orders/order.schema.json").write_text(json.dumps(ORDER, indent=2), encoding="utf-8")
    assert rcs(["codegen"], project).returncode == 0
    (project / "two.json").write_text(json.dumps({"id": "o-1", "qty": 2}), encoding="utf-8")
    catalog = project / "acme/contracts/_catalog.py"
    text = catalog.read_text(encoding="utf-8")
    catalog.write_text(text.replace("FILES:", "<<<<<<< HEAD\n=======\n>>>>>>> theirs\nFILES:"), encoding="utf-8")
    done = rcs(["validate", "--kind", "orders/order", "two.json"], project)
    assert done.returncode == 0 and done.stdout.endswith("1 valid, 0 invalid, 0 violation(s)\n"), done.stdout
    assert done.stderr.startswith(
        f"rcs validate: warning: acme/contracts/_catalog.py changed since the last rcs codegen in {project}; "
    ), done.stderr


def test_an_underscore_folder_holding_a_folder_named_like_a_schema_is_not_noted(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / "schemas" / "orders").mkdir(parents=True)
    (project / "schemas/_x/a.yaml").mkdir(parents=True)  # a folder, not a table
    (project / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    (project / "schemas/orders/order.schema.json").write_text(json.dumps(ORDER), encoding="utf-8")
    compiled = rcs(["codegen"], project)
    assert (compiled.returncode, compiled.stderr) == (0, "")
