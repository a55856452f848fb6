"""`rcs validate`: kinds, formats, exit statuses, and never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.runtime.cli import main
from tests.conftest import ROOT, run_rcs
from tests.evidence import helpers as h

SCHEMA = "../../schemas/evidence/{}.schema.json"


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return write(tmp_path, "bundle.json", h.bundle())


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_kind_from_schema_property_and_text_output(
    tmp_path: Path, bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = h.report()
    data["$schema"] = SCHEMA.format("structured_report")
    data["sections"][0]["claims"][1]["citation_keys"] = ["k0", "k9"]
    path = write(tmp_path, "r.json", data)
    status, out, err = cli(capsys, "validate", "--evidence", str(bundle), str(path))
    assert status == 1 and err == ""
    assert out.splitlines() == [
        f"{path}: ClaimPolicyViolationError: Claim references unknown citation_key: claim_id=c0b citation_key=k9 "
        "(at $.sections[0].claims[1].citation_keys[1])",
        "1 file(s) checked: 0 valid, 1 invalid, 1 violation(s)",
    ]


def test_cli_reports_every_violation_in_document_order(
    tmp_path: Path, bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = h.report()
    data["sections"][0]["claims"][1].pop("citation_keys")
    data["sections"][2]["claims"][1]["citation_keys"] = ["nope"]
    data["sections"][3]["citations"]["k3"]["snippet_id"] = "snip-x"
    path = write(tmp_path, "r.json", data)
    status, out, _ = cli(
        capsys, "validate", "--kind", "structured_report", "--evidence", str(bundle), "--format", "json", str(path)
    )
    assert status == 1
    [result] = json.loads(out)
    assert result["path"] == str(path) and result["kind"] == "evidence/structured_report" and result["valid"] is False
    assert [(e["error"], e["location"]) for e in result["errors"]] == [
        ("ClaimPolicyViolationError", "$.sections[0].claims[1]"),
        ("ClaimPolicyViolationError", "$.sections[0].citations.k0"),
        ("ClaimPolicyViolationError", "$.sections[2].claims[1].citation_keys[0]"),
        ("ClaimPolicyViolationError", "$.sections[2].citations.k2"),
        ("EvidenceValidationError", "$.sections[3].citations.k3.snippet_id"),
    ]
    assert set(result["errors"][0]) == {"error", "message", "location"}


def test_valid_files_exit_0_and_directories_are_walked(
    tmp_path: Path, bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "arts"
    (folder / "deep").mkdir(parents=True)
    for name, build in h.BUILDERS.items():
        data = build()
        data["$schema"] = SCHEMA.format(name)
        write(folder / "deep", f"{name}.json", data)
    (folder / "notes.txt").write_text("not json, not looked at")
    status, out, err = cli(capsys, "validate", "--evidence", str(bundle), str(folder))
    assert (status, err) == (0, "")
    assert out == "3 file(s) checked: 3 valid, 0 invalid, 0 violation(s)\n"


def test_missing_kind_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "x.json", {"nodes": [], "edges": []})
    status, _, err = cli(capsys, "validate", str(path))
    assert status == 2
    assert "no artifact kind: pass --kind KIND" in err


def test_unknown_and_ambiguous_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "x.json", {})
    status, _, err = cli(capsys, "validate", "--kind", "evidence/nope", str(path))
    assert status == 2 and "unknown artifact kind 'evidence/nope'; known kinds: " in err
    data = {"$schema": "schemas/evidence/nope.schema.json"}
    status, _, err = cli(capsys, "validate", str(write(tmp_path, "y.json", data)))
    assert status == 2 and "no artifact kind" in err


def test_evidence_without_bundle_is_a_usage_error_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "m.json", h.literature_map())
    status, _, err = cli(capsys, "validate", "--kind", "literature_map", str(path))
    assert status == 2
    assert (
        err.strip()
        == f"rcs validate: {path}: the artifact cites evidence (4 evidence_refs); pass --evidence BUNDLE.json"
    )


def test_malformed_json_is_a_violation_with_line_and_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "bad.json", '{\n  "nodes": [,\n}')
    status, out, _ = cli(capsys, "validate", str(path))
    assert status == 1
    message = f"{path}: SchemaViolationError: Invalid JSON: expected value at line 2 column 13"
    assert out.splitlines()[0] == message
    status, out, _ = cli(capsys, "validate", "--kind", "literature_map", str(path))
    assert status == 1
    assert out.splitlines()[0] == message  # the same parser, the same words, with or without --kind


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"a": ' + "9" * 5000 + "}", '{"nodes": NaN}', "\ufeff{}", "[1, 2]"],
    ids=["deep", "huge-int", "nan", "bom", "array"],
)
def test_hostile_json_never_crashes(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    path = write(tmp_path, "x.json", text)
    for args in (["validate", str(path)], ["validate", "--kind", "literature_map", str(path)]):
        status, out, err = cli(capsys, *args)
        assert status in (1, 2), (args, out, err)
        assert "internal error" not in err


def test_unchecked_files_are_never_reported_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_kind = write(tmp_path, "no_kind.json", {"nodes": [], "edges": []})
    cites = write(tmp_path, "cites.json", dict(h.literature_map(), **{"$schema": SCHEMA.format("literature_map")}))
    status, out, _ = cli(capsys, "validate", "--format", "json", str(no_kind), str(cites))
    assert status == 2
    results = json.loads(out)
    assert [r["valid"] for r in results] == [False, False]
    assert [r["errors"][0]["error"] for r in results] == ["UsageError", "UsageError"]
    assert "no artifact kind" in results[0]["errors"][0]["message"]
    assert "pass --evidence BUNDLE.json" in results[1]["errors"][0]["message"]
    status, out, _ = cli(capsys, "validate", str(no_kind))
    assert status == 2 and out.strip() == "1 file(s): 0 valid, 0 invalid, 0 violation(s), 1 not checked"


def test_closed_pipe_keeps_the_exit_status(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(300):
        write(folder, f"m{index:03}.json", {"nodes": [{"id": "x"}], "edges": []})
    script = (
        f"{sys.executable} -m runtime.cli validate --kind literature_map {folder} | head -c 10 >/dev/null; "
        "echo ${PIPESTATUS[0]}"
    )
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "1", result.stderr
    assert "Traceback" not in result.stderr


def test_special_files_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    status, _, err = cli(capsys, "validate", "--kind", "literature_map", str(fifo))
    assert status == 2 and f"{fifo}: cannot read: not a regular file (a FIFO)" in err


def test_unreadable_and_missing_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys, "validate", "--kind", "literature_map", str(tmp_path / "nope.json"))
    assert status == 2 and "no such file or directory" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    status, _, err = cli(capsys, "validate", "--kind", "literature_map", str(empty))
    assert status == 2 and "no *.json files found" in err


def test_invalid_bundle_is_reported_and_blocks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = h.bundle()
    data["snippets"][0]["snippet_text"] = "tampered"
    bad = write(tmp_path, "bundle.json", data)
    art = write(tmp_path, "m.json", h.literature_map())
    status, out, err = cli(capsys, "validate", "--kind", "literature_map", "--evidence", str(bad), str(art))
    assert status == 2
    assert f"{bad}: EvidenceValidationError: Snippet text does not equal" in out
    assert "the evidence bundle is invalid (1 violations); nothing was validated against it" in err


def test_custom_claim_policy(tmp_path: Path, bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "severities:\n  - name: trivial\n    citation_required: true\n"
        "  - name: non_trivial\n    citation_required: true\n"
    )
    path = write(tmp_path, "r.json", h.report())
    status, out, _ = cli(
        capsys,
        "validate",
        "--kind",
        "structured_report",
        "--evidence",
        str(bundle),
        "--claim-policy",
        str(policy),
        str(path),
    )
    assert status == 1
    assert "Non-trivial claim requires at least one citation_key: claim_id=c0a" in out
    policy.write_text("severities: [\n")
    status, out, err = cli(
        capsys,
        "validate",
        "--kind",
        "structured_report",
        "--evidence",
        str(bundle),
        "--claim-policy",
        str(policy),
        str(path),
    )
    assert status == 2
    assert f"{policy}: SchemaViolationError: Invalid YAML: " in out
    assert f"{policy}: the claim policy is invalid (1 violations); nothing was validated against it" in err
    status, out, _ = cli(capsys, "validate", "--format", "json", "--claim-policy", str(policy), str(path))
    assert status == 2
    [result] = json.loads(out)
    assert (result["path"], result["kind"], result["valid"]) == (str(policy), "evidence/claim_policy", False)


def test_help_explains_exit_statuses() -> None:
    result = run_rcs(["validate", "--help"])
    assert result.returncode == 0
    assert "Exit status: 0 all valid, 1 any violation, 2 usage error" in " ".join(result.stdout.split())
    top = run_rcs(["--help"])
    assert "codegen" in top.stdout and "validate" in top.stdout


def test_no_arguments_is_usage() -> None:
    result = run_rcs(["validate"])
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_output_is_deterministic(tmp_path: Path, bundle: Path) -> None:
    data = h.report()
    data["sections"].reverse()
    path = write(tmp_path, "r.json", data)
    args = ["validate", "--kind", "structured_report", "--evidence", str(bundle), "--format", "json", str(path)]
    first, second = run_rcs(args, cwd=ROOT), run_rcs(args, cwd=ROOT)
    assert first.returncode == 1 and first.stdout == second.stdout


def test_progress_is_reported_for_long_runs(tmp_path: Path) -> None:
    from rcs_contracts.engine import collect
    from rcs_contracts.runtime.cli import _progress

    for index in range(3):
        write(tmp_path, f"m{index}.json", {"nodes": [], "edges": []})
    calls: list[tuple[int, int]] = []
    collection = collect.collect([str(tmp_path)], "literature_map", None, None, lambda d, t: calls.append((d, t)))
    assert calls == [(1, 3), (2, 3), (3, 3)] and all(r.valid for r in collection.results)
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        for done in range(1, 501):
            _progress(done, 500)
    assert err.getvalue() == "\rrcs validate: 250/500 files\rrcs validate: 500/500 files\n"


@pytest.mark.parametrize(
    "body,detail",
    [
        (b"severities: []\nseverities: []\n", "Invalid YAML: line 2: duplicate key 'severities' (first at line 1)"),
        (b"\xff\xfe: x\n", "Invalid YAML: not UTF-8 (invalid start byte at byte 0)"),
        (b"a: " + b"[" * 3000 + b"]" * 3000 + b"\n", "Invalid YAML: "),
        (b"severities: [\n", "Invalid YAML: line 2: "),
    ],
    ids=["duplicate-key", "not-utf8", "deep", "syntax"],
)
def test_bad_claim_policy_files_are_contract_errors(tmp_path: Path, body: bytes, detail: str) -> None:
    from rcs_contracts.runtime.evidence import SchemaViolationError, load_claim_policy

    path = tmp_path / "policy.yaml"
    path.write_bytes(body)
    with pytest.raises(SchemaViolationError) as info:
        load_claim_policy(path)
    assert str(info.value).startswith(detail)
