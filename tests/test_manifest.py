"""interop/manifest.json: rcs reaches every case of the cross-language manifest it publishes.

The JavaScript runner (interop/js/check.mjs, run by .ci/run) holds Ajv to the same schema
verdicts; this holds rcs to them and to every contract error the manifest names.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.engine import validation
from rcs_contracts.generated.kinds import KINDS
from rcs_contracts.runtime.evidence import EvidenceStore, validate_artifact
from tests.conftest import ROOT

FOLDER = ROOT / "interop"
MANIFEST = json.loads((FOLDER / "manifest.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = MANIFEST["cases"]
_LISTS: dict[Path, dict[str, str]] = {}


def text_of(file: str) -> str:
    """A case's text, resolved as the manifest says (a file, or ``<list>.json#<id>``)."""
    path, _, case = file.partition("#")
    full = (FOLDER / path).resolve()
    if not case:
        return full.read_text(encoding="utf-8")
    if full not in _LISTS:
        _LISTS[full] = {c["id"]: c["text"] for c in json.loads(full.read_text(encoding="utf-8"))}
    return _LISTS[full][case]


def test_the_manifest_is_what_its_builder_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(FOLDER / "build_manifest.py"), "--check"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert MANIFEST["format"] == 1 and len(CASES) >= 790
    evidence = {k for k in KINDS if k.startswith("evidence/")}
    research = {"research/response", "research/telemetry", "research/source_bundle"}
    assert {c["kind"] for c in CASES} == evidence | research | {"odr/trace_record"}
    assert sum(c["error"] is not None for c in CASES) >= 8 and sum(c["schema_valid"] is None for c in CASES) >= 5


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rcs_reaches_the_schema_verdict(case: dict[str, Any]) -> None:
    errors = validation.schema_verdict(KINDS[case["kind"]], text_of(case["file"]))
    if case["schema_valid"] is None:  # refused as text before any schema: the domain's JSON syntax error
        assert [e.code for e in errors] == ["JSON_SYNTAX"], case["note"]
    else:
        assert (not errors) == case["schema_valid"], (case["note"], [str(e) for e in errors])


@pytest.mark.parametrize("case", [c for c in CASES if c["id"].startswith(("research/", "odr/"))], ids=lambda c: c["id"])
def test_rcs_holds_each_semantic_vector(case: dict[str, Any]) -> None:
    found = list(validation.violations(KINDS[case["kind"]], text_of(case["file"]), validation.Context()))
    if case["error"] is None:
        assert found == []
    else:
        first = found[0]
        expected = tuple(case["error"][k] for k in ("code", "class", "message"))
        assert (first.code, type(first).__name__, str(first)) == expected


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["error"] and c["kind"].startswith("evidence/")], ids=lambda c: c["id"]
)
def test_rcs_raises_the_named_contract_error(case: dict[str, Any], tmp_path: Path) -> None:
    artifact = tmp_path / "artifact.json"
    artifact.write_text(text_of(case["file"]), encoding="utf-8")
    evidence = EvidenceStore.read((FOLDER / case["evidence"]).resolve()) if case["evidence"] else None
    with pytest.raises(Exception) as info:
        validate_artifact(case["kind"], artifact, evidence=evidence)
    assert (type(info.value).__name__, str(info.value)) == (case["error"]["class"], case["error"]["message"])
