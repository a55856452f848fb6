"""One bad file never sinks a batch: an unexpected error is reported on its file, exit status 3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.engine import validation
from rcs_contracts.runtime.cli import main


@pytest.fixture
def batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Three partial results: valid, one that makes the checker blow up, and an invalid one."""
    files = {
        "a-good.json": {"partial": True, "reason": "fine"},
        "b-crash.json": {"partial": True, "reason": "boom"},
        "c-bad.json": {"partial": False, "reason": "wrong"},
    }
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data))
    original = validation.violations

    def flaky(kind: Any, text: str | bytes, context: Any) -> Any:
        if b"boom" in (text if isinstance(text, bytes) else text.encode()):
            raise RuntimeError("a bug inside rcs\nsecond line")
        return original(kind, text, context)

    monkeypatch.setattr(validation, "violations", flaky)
    return [str(tmp_path / name) for name in files]


def test_json_report_names_the_crash_and_checks_the_rest(batch: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["validate", "--kind", "partial_result", "--format", "json", *batch])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert status == 3
    assert [r["valid"] for r in report] == [True, False, False]
    crash = {"error": "InternalError", "message": "RuntimeError: a bug inside rcs", "location": "$"}
    assert report[1]["errors"] == [crash]
    assert report[2]["errors"][0]["error"] == "SchemaViolationError"
    assert (
        f"rcs validate: {batch[1]}: internal error while checking this file: RuntimeError: a bug inside rcs "
        "(please report this; every other file was checked)"
    ) in captured.err
    assert "Traceback" not in captured.err


def test_text_report_and_summary(batch: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["validate", "--kind", "partial_result", *batch])
    out = capsys.readouterr().out.splitlines()
    assert status == 3
    assert f"{batch[1]}: InternalError: RuntimeError: a bug inside rcs" in out
    assert any(line.startswith(f"{batch[2]}: SchemaViolationError:") for line in out)
    assert out[-1] == (
        "3 file(s): 1 valid, 1 invalid, 1 violation(s), 0 not checked, 1 internal error(s) (exit status 3)"
    )


def test_the_json_report_keeps_non_ascii_text_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "résumé.json"
    path.write_text(json.dumps({"partial": False, "reason": "naïve"}), encoding="utf-8")
    assert main(["validate", "--kind", "partial_result", "--format", "json", str(path)]) == 1
    out = capsys.readouterr().out
    assert f'"path": "{path}"' in out and "\\u00e9" not in out
    assert json.loads(out)[0]["path"] == str(path)
