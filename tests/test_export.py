"""``rcs schema export`` and ``rcs schema path``: the bundle other languages load (SPEC.md 2.4)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from rcs_contracts.engine import export
from rcs_contracts.generated._catalog import FILES
from rcs_contracts.generated.kinds import KINDS
from tests.conftest import ROOT, run_rcs


def test_the_bundle_holds_every_file_the_compiler_read_with_its_catalog(tmp_path: Path) -> None:
    done = run_rcs(["schema", "export", str(tmp_path / "bundle")], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"rcs schema export: {len(FILES)} files and catalog.json written to {tmp_path / 'bundle'}\n"
    catalog = json.loads((tmp_path / "bundle" / "catalog.json").read_text(encoding="utf-8"))
    assert catalog["format"] == 1 and catalog["producer"]["name"] == "rcs-contracts"
    files = {f["file"]: f for f in catalog["files"]}
    assert len(files) == len(FILES)
    for name, entry in files.items():
        raw = (tmp_path / "bundle" / name).read_bytes()
        assert raw == (ROOT / name).read_bytes() and hashlib.sha256(raw).hexdigest() == entry["sha256"]
    kinds = {f["kind"]: f for f in catalog["files"] if f["role"] == "schema"}
    assert set(kinds) == set(KINDS)
    assert kinds["research/request"]["version"] == "18.0.0"  # the research tables' contract version
    ids = [f["id"] for f in catalog["files"] if "id" in f]
    assert len(ids) == len(set(ids)) and len(ids) == len(kinds) + len(list((ROOT / "schemas/tables").iterdir()))
    # Every table still finds its schema by the relative path it names.
    for entry in catalog["files"]:
        if entry["role"] == "table":
            assert (tmp_path / "bundle" / entry["schema"]).is_file()


def test_an_earlier_export_is_replaced_whole_and_anything_else_refused(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    export.export(bundle)
    (bundle / "stale.txt").write_text("left from before", encoding="utf-8")
    export.export(bundle)
    assert not (bundle / "stale.txt").exists() and (bundle / "catalog.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle"]  # no staging folder left behind
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me", encoding="utf-8")
    done = run_rcs(["schema", "export", str(other)], cwd=tmp_path)
    assert done.returncode == 2
    refusal = f"{other}: not empty and not an earlier export (no catalog.json); nothing written"
    assert done.stderr == f"rcs schema export: {refusal}\n"
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]


def test_a_file_changed_since_codegen_is_refused_and_nothing_written(tmp_path: Path) -> None:
    source = tmp_path / "source"
    for entry in FILES:
        (source / entry.file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / entry.file, source / entry.file)
    edited = source / "schemas/evidence/partial_result.schema.json"
    edited.write_text(edited.read_text(encoding="utf-8").replace('"number"', '"integer"', 1), encoding="utf-8")
    with pytest.raises(export.ExportError) as caught:
        export.export(tmp_path / "bundle", source=source)
    assert str(caught.value) == (
        "schemas/evidence/partial_result.schema.json changed since this build's `rcs codegen`: run it, then export"
    )
    assert caught.value.stale  # the command exits 1 for it, 2 for a folder it cannot write
    assert not (tmp_path / "bundle").exists()


def test_schema_path_is_the_folder_of_the_shipped_schemas(tmp_path: Path) -> None:
    done = run_rcs(["schema", "path"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.strip())
    assert folder == (ROOT / "schemas").resolve()
    assert (folder / "evidence" / "structured_report.schema.json").is_file()


@pytest.mark.parametrize("where", ["under_a_file", "proc"])
def test_a_folder_whose_parent_cannot_hold_it_is_a_usage_error(tmp_path: Path, where: str) -> None:
    # The parent is made and the staging folder created before the bundle is written: both can fail
    # (a parent that is a file; /proc, where nothing can be created) and were an internal error.
    if where == "under_a_file":
        (tmp_path / "plain").write_text("x", encoding="utf-8")
        target = tmp_path / "plain" / "bundle"
    else:
        target = Path("/proc/rcs-export-test")  # Linux, where CI runs
    done = run_rcs(["schema", "export", str(target)], cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(f"rcs schema export: {target}: cannot write: ")
    assert "internal error" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert not target.exists()


def test_a_folder_that_cannot_be_looked_at_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As a user without search permission on the parent: Path.exists raises PermissionError (root,
    # who runs the tests, can search everything, so the check itself is made to raise).
    def unsearchable(folder: Path) -> None:
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(export, "_may_replace", unsearchable)
    with pytest.raises(export.ExportError) as caught:
        export.export(tmp_path / "locked" / "out")
    assert str(caught.value) == f"{tmp_path / 'locked' / 'out'}: cannot write: Permission denied"
    assert not (tmp_path / "locked").exists()
