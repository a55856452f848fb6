"""``rcs research run`` in process: the text and JSON renderings, the error line, the artifacts written.

The CLI tests run the command in subprocesses over real tools; here ``command.run`` is called with
``io.StringIO`` streams and, where a source without a title is needed, a stand-in tool, so each
rendering rule is pinned to the character.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from rcs_contracts.runtime.research import command

TEXT = "Term frequency saturation is bounded by k1. Length normalisation divides by the average length."


class Canned:
    """A ``docs`` tool that answers two fixed items, the second without a title."""

    name = "docs"

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        return [
            {"locator": "a.txt#1", "title": "Paper A", "content": TEXT},
            {"locator": "b.txt#2", "content": "Saturation of term frequency keeps k1 bounded."},
        ]


def _request(tmp_path: Path, **change: Any) -> str:
    data = {
        "query": "saturation of term frequency",
        "requested_mode": "research",
        "tier": "PRO",
        "env": "prod",
        "already_clarified": False,
    }
    data.update(change)
    path = tmp_path / "request.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _run(path: str, output: str, **files: str | None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = command.run(path, None, None, output, files.get("telemetry"), files.get("evidence"), True, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def canned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command, "make_tools", lambda docs, web: [Canned()])


def test_text_output_is_built_from_the_response(tmp_path: Path, canned: None) -> None:
    path = _request(tmp_path)
    code, text, err = _run(path, "text")
    assert (code, err) == (0, "")
    code, as_json, _ = _run(path, "json")
    response = json.loads(as_json)
    assert response["action"] == "ANSWER" and response["bullets"]
    number = {s["source_id"]: n for n, s in enumerate(response["sources"], 1)}
    expected = [f"[{response['action']}] {response['text']}"]
    expected += [
        f"- {b['text']} " + "".join(f"[{number[sid]}]" for sid in b["source_ids"]) for b in response["bullets"]
    ]
    for n, source in enumerate(response["sources"], 1):
        expected.append(f"[{n}] {source['locator']}" + (f" ({source['title']})" if source["title"] else ""))
    assert text == "\n".join(expected) + "\n"
    # The same, written out: a source without a title is its locator alone.
    assert text == (
        "[ANSWER] Findings from 2 sources:\n"
        "- Saturation of term frequency keeps k1 bounded. [2]\n"
        "- Term frequency saturation is bounded by k1. [1]\n"
        "- Length normalisation divides by the average length. [1]\n"
        "[1] a.txt#1 (Paper A)\n"
        "[2] b.txt#2\n"
    )


def test_json_output_is_indented_by_two(tmp_path: Path, canned: None) -> None:
    telemetry = tmp_path / "telemetry.json"
    _, as_json, _ = _run(_request(tmp_path), "json", telemetry=str(telemetry))
    assert as_json == json.dumps(json.loads(as_json), indent=2, ensure_ascii=False) + "\n"
    written = telemetry.read_text(encoding="utf-8")
    assert written == json.dumps(json.loads(written), indent=2, ensure_ascii=False) + "\n"


def test_evidence_is_captured_at_a_whole_second_in_utc(tmp_path: Path, canned: None) -> None:
    evidence = tmp_path / "evidence.json"
    code, _, _ = _run(_request(tmp_path), "json", evidence=str(evidence))
    assert code == 0
    bundle = json.loads(evidence.read_text(encoding="utf-8"))
    stamps = {s["captured_at"] for s in bundle["snapshots"]}
    assert len(stamps) == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamps.pop())


def test_a_bad_request_names_the_place(tmp_path: Path) -> None:
    path = _request(tmp_path, already_clarified="no")
    code, out, err = _run(path, "text")
    assert (code, out) == (2, "")
    assert err.startswith(f"rcs research: {path}: invalid research request: ")
    assert err.endswith(" (at $.already_clarified)\n")
    assert err.count("\n") == 1


class Shared:
    """A ``docs`` tool whose two items share a sentence; one title is not ASCII."""

    name = "docs"

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        sentence = "Saturation of term frequency keeps k1 bounded."
        return [
            {"locator": "a.txt#1", "title": "Über A", "content": f"{sentence} Other words here."},
            {"locator": "b.txt#2", "content": sentence},
        ]


def test_a_sentence_from_two_sources_cites_both_and_text_stays_unescaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command, "make_tools", lambda docs, web: [Shared()])
    path = _request(tmp_path)
    _, text, _ = _run(path, "text")
    assert text == (
        "[ANSWER] Findings from 2 sources:\n"
        "- Saturation of term frequency keeps k1 bounded. [1][2]\n"
        "- Other words here. [1]\n"
        "[1] a.txt#1 (Über A)\n"
        "[2] b.txt#2\n"
    )
    _, as_json, _ = _run(path, "json")
    assert '"title": "Über A"' in as_json


def test_an_unwritable_telemetry_path_is_named_as_given_and_nothing_is_printed(tmp_path: Path, canned: None) -> None:
    telemetry = tmp_path / "missing" / "telemetry.json"
    evidence = tmp_path / "evidence.json"
    code, out, err = _run(_request(tmp_path), "text", telemetry=str(telemetry), evidence=str(evidence))
    assert (code, out) == (2, "")
    assert err == f"rcs research: cannot write {telemetry}: No such file or directory\n"
    assert not evidence.exists()  # the first failure stops: no artifact without its telemetry


def test_an_evidence_path_that_is_a_folder_is_named_as_given_and_leaves_no_temporary(
    tmp_path: Path, canned: None
) -> None:
    telemetry = tmp_path / "telemetry.json"
    folder = tmp_path / "taken"
    folder.mkdir()
    code, out, err = _run(_request(tmp_path), "json", telemetry=str(telemetry), evidence=str(folder))
    assert (code, out) == (2, "")
    assert err == f"rcs research: cannot write {folder}: Is a directory\n"
    # Found before any tool ran: nothing written, the telemetry included.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["request.json", "taken"]
    assert list(folder.iterdir()) == []


# From an adversarial review (helper-25): outputs are checked before any tool runs, and a path
# that is not a regular file is written to, never replaced.


class Counting(Canned):
    calls = 0

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        Counting.calls += 1
        return super().search(query, limit)


def test_a_bad_output_path_is_found_before_any_tool_runs_and_an_old_file_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command, "make_tools", lambda docs, web: [Counting()])
    Counting.calls = 0
    telemetry = tmp_path / "telemetry.json"
    telemetry.write_text("old\n", encoding="utf-8")
    missing = tmp_path / "missing" / "evidence.json"
    code, out, err = _run(_request(tmp_path), "text", telemetry=str(telemetry), evidence=str(missing))
    assert (code, out, Counting.calls) == (2, "", 0)
    assert err == f"rcs research: cannot write {missing}: No such file or directory\n"
    assert telemetry.read_text(encoding="utf-8") == "old\n"


def test_one_file_named_for_both_outputs_is_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command, "make_tools", lambda docs, web: [Counting()])
    Counting.calls = 0
    both = tmp_path / "out.json"
    (tmp_path / "link.json").symlink_to(both)
    code, out, err = _run(_request(tmp_path), "text", telemetry=str(both), evidence=str(tmp_path / "link.json"))
    assert (code, out, Counting.calls) == (2, "", 0)
    assert err == f"rcs research: --telemetry and --evidence-out name the same file: {tmp_path / 'link.json'}\n"
    assert not both.exists()


def test_a_link_to_a_file_is_followed_and_kept(tmp_path: Path, canned: None) -> None:
    target = tmp_path / "target.json"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "telemetry.json"
    link.symlink_to(target)
    code, _, _ = _run(_request(tmp_path), "text", telemetry=str(link))
    assert code == 0 and link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))["stop_reason"] == "SUCCESS_COMPLETED"
    assert target.stat().st_mode & 0o777 == 0o640  # the replaced file keeps its mode


def test_a_new_output_file_gets_the_users_umask(tmp_path: Path, canned: None) -> None:
    old = os.umask(0o027)
    try:
        code, _, _ = _run(_request(tmp_path), "text", telemetry=str(tmp_path / "t.json"))
    finally:
        os.umask(old)
    assert code == 0
    assert (tmp_path / "t.json").stat().st_mode & 0o777 == 0o640


def test_a_device_is_written_to_not_replaced(tmp_path: Path, canned: None) -> None:
    code, out, _ = _run(_request(tmp_path), "text", telemetry=os.devnull)
    assert code == 0 and out.startswith("[ANSWER]")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_pipe_no_one_reads_is_an_error_after_the_response_not_a_hang(tmp_path: Path, canned: None) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, err = _run(_request(tmp_path), "text", telemetry=str(fifo))
    assert code == 2 and out.startswith("[ANSWER]")  # the response is never lost
    assert err == f"rcs research: cannot write {fifo}: No such device or address\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_read_error_without_a_system_reason_gives_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(path: str, name: object) -> bytes:
        raise OSError("the disk said no")

    monkeypatch.setattr(command.inputs, "read_bytes", refuse)
    code, out, err = _run("request.json", "text")
    assert (code, out) == (2, "")
    assert err == "rcs research: request.json: cannot read: the disk said no\n"
