"""Hostile inputs through the real CLI: special files, walks, exit statuses, escaping, BOMs."""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.hostile.conftest import rcs, rcs_schemas

EXAMPLES = ROOT / "examples"
REPORT = EXAMPLES / "evidence/valid/structured_report.json"
BUNDLE = EXAMPLES / "evidence/bundle.json"
PAPER = EXAMPLES / "phase1/paper.json"


def _special(tmp_path: Path, kind: str, name: str) -> str:
    path = tmp_path / name
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return name


# (argv with {} for the special file, its name, the words the refusal must contain)
OPTION_CASES = [
    (["validate", "--kind", "structured_report", "--evidence", "{}", "r.json"], "bundle.json"),
    (["validate", "--kind", "structured_report", "--claim-policy", "{}", "r.json"], "policy.yaml"),
    (["odr", "run", "rounds.jsonl", "--config", "{}"], "config.json"),
    (["odr", "run", "{}"], "rounds.jsonl"),
    (["phase1", "summarize", "{}", "--query", "x"], "paper.json"),
    (["validate", "--kind", "structured_report", "{}"], "r2.json"),
]


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
@pytest.mark.parametrize(("argv", "name"), OPTION_CASES)
def test_special_files_are_refused_wherever_they_are_named(
    tmp_path: Path, kind: str, argv: list[str], name: str
) -> None:
    shutil.copy(REPORT, tmp_path / "r.json")
    (tmp_path / "rounds.jsonl").write_text('{"architect": "a", "auditor": "b"}\n')
    special = _special(tmp_path, kind, name)
    ran = rcs(*[a.replace("{}", special) for a in argv], cwd=tmp_path, guard=20)
    assert ran.status == 2
    what = "a FIFO" if kind == "fifo" else "a character device"
    assert f"{special}: cannot read: not a regular file ({what})" in ran.stderr + ran.stdout


def test_an_oversize_input_names_the_cap(tmp_path: Path) -> None:
    from rcs_contracts.generated.cli.limits import MAX_BYTES, Input

    cap = MAX_BYTES[Input.ODR_CONFIG]
    (tmp_path / "config.json").write_text("{" + " " * cap + "}")
    (tmp_path / "rounds.jsonl").write_text('{"architect": "a", "auditor": "b"}\n')
    ran = rcs("odr", "run", "rounds.jsonl", "--config", "config.json", cwd=tmp_path)
    assert ran.status == 2
    assert f"larger than {cap} bytes, the cap for odr_config (schemas/cli/limits.yaml)" in ran.stderr


def test_a_path_the_system_cannot_even_look_at_is_named_with_the_system_s_reason(tmp_path: Path) -> None:
    # A name longer than the file system allows cannot be stat'ed: its problem is the OS's own
    # words, not a guess at what kind of file it might be.
    name = "x" * (os.pathconf(tmp_path, "PC_NAME_MAX") + 1)
    ran = rcs("validate", name, cwd=tmp_path)
    assert ran.status == 2
    assert f"rcs validate: {name}: cannot read: {os.strerror(errno.ENAMETOOLONG)}" in ran.stderr, ran.stderr


def test_a_walk_lists_everything_it_could_not_check(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "ok.json").write_text("{}")
    os.mkfifo(data / "fifo.json")
    (data / "dangling").symlink_to(data / "nowhere")
    (data / "sub/up").symlink_to(data)
    (data / "zero.jsonl").symlink_to("/dev/zero")
    os.mkfifo(data / "not-a-candidate.txt")
    ran = rcs("validate", "--kind", "odr/config", "data", cwd=tmp_path, guard=20)
    assert ran.status == 2
    assert "data/fifo.json: cannot read: not a regular file (a FIFO)" in ran.stderr
    assert "data/dangling: cannot read: a symbolic link to nothing" in ran.stderr
    assert "data/sub/up: cannot read: a symbolic link loop" in ran.stderr
    assert "data/zero.jsonl: cannot read: not a regular file (a character device)" in ran.stderr
    assert "not-a-candidate" not in ran.stderr
    assert ran.stdout.splitlines()[-1] == "5 file(s): 1 valid, 0 invalid, 0 violation(s), 4 not checked"


def test_an_unlistable_directory_is_not_checked_not_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(In process: root can list any directory, so the refusal is injected where the walk lists.)"""
    from rcs_contracts.engine import collect

    (tmp_path / "locked").mkdir()
    real = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(collect.os, "scandir", scandir)
    collection = collect.collect([str(tmp_path)], "structured_report", None, None)
    assert collection.usage == [f"{tmp_path}/locked: cannot read: Permission denied"]
    assert [r.unchecked for r in collection.results] == [collection.usage[0]]


def test_a_two_line_evidence_bundle_is_one_document(tmp_path: Path) -> None:
    bundle = json.loads(BUNDLE.read_text())
    text = json.dumps(bundle)
    first, rest = text[: text.index(",") + 1], text[text.index(",") + 1 :]
    (tmp_path / "bundle.json").write_text(first + "\n" + rest)
    shutil.copy(REPORT, tmp_path / "r.json")
    ran = rcs("validate", "--evidence", "bundle.json", "r.json", cwd=tmp_path)
    expected = rcs("validate", "--evidence", str(BUNDLE), "r.json", cwd=tmp_path)
    assert (ran.status, ran.stdout) == (expected.status, expected.stdout) == (0, expected.stdout)


def test_a_two_line_invalid_bundle_is_reported_not_crashed(tmp_path: Path) -> None:
    (tmp_path / "bundle.json").write_text('{"snapshots": [],\n"snippets": [], "extra": 1}')
    shutil.copy(REPORT, tmp_path / "r.json")
    ran = rcs("validate", "--evidence", "bundle.json", "r.json", cwd=tmp_path)
    assert ran.status == 2
    assert "the evidence bundle is invalid" in ran.stderr


def test_an_ascii_terminal_keeps_the_decided_exit_status(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text(json.dumps({"$schema": "x/evidence/literature_map.schema.json", "é": 1}))
    ran = rcs("validate", "--kind", "literature_map", "bad.json", cwd=tmp_path, env={"PYTHONIOENCODING": "ascii"})
    assert ran.status == 1
    assert "\\u00e9" in ran.stdout  # shown as an escape, not lost
    as_json = rcs("validate", "--kind", "literature_map", "--format", "json", "bad.json", cwd=tmp_path,
                  env={"PYTHONIOENCODING": "ascii"})
    assert as_json.status == 1
    assert json.loads(as_json.stdout)[0]["errors"][0]["message"] == "Property 'é' is not allowed by the schema"


@pytest.mark.parametrize("redirect", ["closed", "full", "pipe"])
def test_broken_output_never_changes_the_decided_status(tmp_path: Path, redirect: str) -> None:
    import subprocess
    import sys

    (tmp_path / "bad.json").write_text("{}")
    shutil.copy(PAPER, tmp_path / "paper.json")
    commands = {
        ("validate", "--kind", "literature_map", "bad.json"): 1,
        ("phase1", "summarize", "paper.json", "--query", "retrieval"): 0,
        ("odr", "run", "rounds.jsonl"): 0,
    }
    (tmp_path / "rounds.jsonl").write_text('{"architect": "a", "auditor": "b"}\n' * 3)
    shell = {"closed": ">&-", "full": ">/dev/full", "pipe": "| true"}[redirect]
    for args, status in commands.items():
        line = f"{sys.executable} -m runtime.cli {' '.join(args)} {shell}; echo \"status $?\" >&2"
        if redirect == "pipe":
            line = f"{sys.executable} -m runtime.cli {' '.join(args)} | true; echo \"status ${{PIPESTATUS[0]}}\" >&2"
        done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1] == f"status {status}", (args, done.stderr)


def test_a_walk_through_a_lattice_of_links_stays_linear(tmp_path: Path) -> None:
    """25 levels of directories, each with two links to the next: 2**25 paths, 25 directories."""
    levels = [tmp_path / "dag" / f"L{i}" for i in range(26)]
    for level in levels:
        level.mkdir(parents=True)
    for here, below in itertools.pairwise(levels):
        (here / "a").symlink_to(below)
        (here / "b").symlink_to(below)
    (levels[-1] / "x.json").write_text("{}")
    ran = rcs("validate", "--kind", "odr/config", "dag/L0", cwd=tmp_path, guard=20)
    assert ran.status == 0
    assert ran.stdout.splitlines()[-1] == "1 file(s) checked: 1 valid, 0 invalid, 0 violation(s)"


def test_a_deep_tree_is_walked_without_recursion(tmp_path: Path) -> None:
    path = tmp_path / "deep"
    path.mkdir()
    for _ in range(1200):  # deeper than Python's stack; mkdir one level at a time
        path = path / "d"
        path.mkdir()
    (path / "x.json").write_text("{}")
    try:
        ran = rcs("validate", "--kind", "odr/config", "deep", cwd=tmp_path, guard=30)
        assert ran.status == 0, ran.stderr[-300:]
    finally:  # bottom up: shutil.rmtree (pytest's cleanup) recurses and would fail on this depth
        (path / "x.json").unlink()
        while path != tmp_path:
            path.rmdir()
            path = path.parent


def test_file_names_cannot_forge_lines_or_colour_the_terminal(tmp_path: Path) -> None:
    name = "x\n\x1b[32mok.json: all valid\x1b[0m.json"
    (tmp_path / name).write_text("{}")
    ran = rcs("validate", "--kind", "literature_map", name, cwd=tmp_path)
    assert ran.status == 1
    assert "\x1b" not in ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    assert all(line.startswith("x\\n\\x1b[32mok.json: all valid\\x1b[0m.json: ") for line in lines[:-1])
    report = rcs("validate", "--kind", "literature_map", "--format", "json", name, cwd=tmp_path)
    assert json.loads(report.stdout)[0]["path"] == name


def test_bidi_and_c1_controls_in_json_output_are_escaped(tmp_path: Path) -> None:
    name = "a\u202eb\x9bc.json"
    (tmp_path / name).write_text("{}")
    ran = rcs("validate", "--kind", "literature_map", "--format", "json", name, cwd=tmp_path)
    assert "\u202e" not in ran.stdout and "\x9b" not in ran.stdout
    assert json.loads(ran.stdout)[0]["path"] == name


def test_a_bom_is_ignored_in_every_reader(tmp_path: Path) -> None:
    bom = b"\xef\xbb\xbf"
    (tmp_path / "r.json").write_bytes(bom + REPORT.read_bytes())
    (tmp_path / "b.json").write_bytes(bom + BUNDLE.read_bytes())
    (tmp_path / "p.yaml").write_bytes(bom + (ROOT / "claim_policy.yaml").read_bytes())
    ran = rcs("validate", "--evidence", "b.json", "--claim-policy", "p.yaml", "r.json", cwd=tmp_path)
    assert ran.status == 0, ran.stdout + ran.stderr
    (tmp_path / "c.json").write_bytes(bom + b'{"max_rounds": 1}')
    (tmp_path / "rounds.jsonl").write_bytes(bom + b'{"architect": "a", "auditor": "b"}\n')
    assert rcs("odr", "run", "rounds.jsonl", "--config", "c.json", cwd=tmp_path).status == 0
    (tmp_path / "paper.json").write_bytes(bom + PAPER.read_bytes())
    assert rcs("phase1", "summarize", "paper.json", "--query", "retrieval", cwd=tmp_path).status == 0
    from rcs_contracts.runtime.autoresearch.mission import frontmatter
    from rcs_contracts.safeio.files import read_text

    (tmp_path / "sandbox.md").write_bytes(bom + b"---\nevaluator:\n  command: x\n  format: json\n---\n")
    sandbox = tmp_path / "sandbox.md"
    assert frontmatter(read_text(sandbox, 1000, "test"), sandbox).evaluator.command == "x"


def test_codegen_refuses_a_directory_where_it_writes_a_file(tmp_path: Path) -> None:
    rcs_schemas(tmp_path)
    (tmp_path / "generated/evidence/errors.py").mkdir(parents=True)
    ran = rcs("codegen", "--root", ".", cwd=tmp_path, allowed=())
    assert ran.status == 2
    message = "rcs codegen: generated/evidence/errors.py: rcs codegen writes a file here, but it is a directory"
    assert message in ran.stderr
    assert sorted(p.name for p in (tmp_path / "generated").iterdir()) == ["evidence"]  # nothing written


@pytest.mark.parametrize("kind", ["fifo", "loop", "dangling"])
def test_codegen_never_skips_an_optional_input_that_is_there(tmp_path: Path, kind: str) -> None:
    rcs_schemas(tmp_path)
    for name in ("claim_policy.yaml", "pyproject.toml"):
        path = tmp_path / name
        path.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "loop":
            path.symlink_to(path)
        else:
            path.symlink_to(tmp_path / "nowhere")
        ran = rcs("codegen", "--root", ".", cwd=tmp_path, guard=20)
        assert ran.status == 1, (name, ran.stderr)
        assert f"{name}:" in ran.stderr and "cannot read" in ran.stderr, ran.stderr
        assert not (tmp_path / "generated").exists()
        path.unlink()
        if name == "pyproject.toml":
            shutil.copy(ROOT / "pyproject.toml", path)


def test_codegen_refuses_absurd_json_without_crashing(tmp_path: Path) -> None:
    rcs_schemas(tmp_path)
    odd = tmp_path / "schemas/odr/odd.schema.json"
    odd.write_text('{"maximum": ' + "9" * 5000 + "}")
    ran = rcs("codegen", "--root", ".", cwd=tmp_path)
    assert ran.status == 1 and "schemas/odr/odd.schema.json:1: invalid JSON" in ran.stderr
    odd.write_text("{\"items\": " * 300 + "{}" + "}" * 300)
    ran = rcs("codegen", "--root", ".", cwd=tmp_path)
    assert ran.status == 1 and "nested deeper than 64 levels" in ran.stderr


def test_codegen_reports_a_fifo_among_its_inputs(tmp_path: Path) -> None:
    rcs_schemas(tmp_path)
    os.mkfifo(tmp_path / "schemas/odr/extra.schema.json")
    ran = rcs("codegen", "--root", ".", cwd=tmp_path, guard=20)
    assert ran.status == 1
    assert "schemas/odr/extra.schema.json:0: cannot read: not a regular file (a FIFO)" in ran.stderr


def test_a_jsonl_file_is_read_line_by_line_whatever_its_first_line_holds(tmp_path: Path) -> None:
    # The suffix decides: JSON Lines whose records are not objects are each a violation on their line.
    (tmp_path / "two.jsonl").write_text("[1]\n[2]\n")
    ran = rcs("validate", "--kind", "research/telemetry", "two.jsonl", cwd=tmp_path)
    assert ran.status == 1
    assert ran.stdout.splitlines()[:2] == [
        'two.jsonl: SchemaViolationError: [1] is not of type "object" (at line 1: $)',
        'two.jsonl: SchemaViolationError: [2] is not of type "object" (at line 2: $)',
    ]


def test_one_json_object_on_one_line_is_a_document_not_json_lines(tmp_path: Path) -> None:
    # A one-line .json file with its final newline has no second line: it is a document, and its
    # errors carry no line number.
    (tmp_path / "one.json").write_text('{"run_id": 1}\n')
    ran = rcs("validate", "--kind", "research/telemetry", "one.json", cwd=tmp_path)
    assert ran.status == 1
    assert "one.json: SchemaViolationError: Property 'run_id' is not allowed by the schema (at $.run_id)" in ran.stdout


def test_a_bare_kind_name_two_domains_share_lists_both_full_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # No two domains share a kind name today; a user's own schemas can (a second "config").
    from rcs_contracts.engine import collect, project

    twin = dict(project.kinds())
    twin["mine/literature_map"] = twin["evidence/literature_map"]
    monkeypatch.setattr(project, "kinds", lambda: twin)
    collection = collect.collect(["x.json"], "literature_map", None, None)
    assert collection.usage == [
        "artifact kind 'literature_map' is ambiguous; use one of: evidence/literature_map, mine/literature_map"
    ]
