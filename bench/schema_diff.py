"""Benchmark `rcs schema diff` on the whole project, and set it beside jsoncompat on the single-keyword edit table.

    .venv/bin/python bench/schema_diff.py [--quick] [--repeat N] [--strict]

(1) The project: copies `schemas/`, `claim_policy.yaml`, `pyproject.toml` and `examples/` into a
    scratch git repository (with `rcs_contracts/generated -> ../generated`, so that the project's
    `package = "rcs_contracts.generated"` resolves), commits it, then commits a small edit set
    across four domains (an enum value removed, a maxLength lowered, an optional property added to
    an open object, an error message reworded with the same placeholders) and times, in the
    repository, `rcs schema diff --against HEAD~1` with witnesses and with `--no-witness`. Each must
    exit 1 (the contract versions were not raised) and print a "breaking" line.
    5 timed runs each (2 with `--quick`) after an untimed warm-up.

(2) The edit table of `tests/codegen/schema_edits.py` (`EDITS`): every edit that changes a schema
    (rule-table edits and the two whole-kind edits are skipped: jsoncompat compares one schema with
    another) is given to `jsoncompat.check_compat(old, new, role)`, "deserializer" for backward
    (new reader, old data) and "serializer" for forward, and to rcs in process, as
    `tests/codegen/test_schema_diff_edits.py` runs it: `diff.run(root, "HEAD", "backward",
    witnesses=True)` on a fresh repository holding the committed base and the edited working tree,
    in a child process that imports only rcs and the test's helpers (the witness search draws
    constants from every local module loaded, this script included).
    Counted per tool: the table's proved breaks (status "breaking") each direction finds, and the
    false alarms (a direction flagged that the table lists no claim for). rcs counts a direction as
    flagged when it reports a witness-proved "breaking" entry in it. `--quick`: the first 20 edits.

Bars: `rcs schema diff` median < 2 s with witnesses, < 0.5 s with `--no-witness`. The edit table
has no bar. The scratch files live in a `tempfile` directory; the project tree is never written to.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    ROOT,
    BenchError,
    Timing,
    bar,
    check_root,
    find_exe,
    main_wrapper,
    parser,
    print_header,
    repeats,
    run,
    table,
    timing_table,
)

sys.path.insert(0, str(ROOT))

try:
    import jsoncompat
except ImportError:  # the comparison tool is not a project dependency (it is in the `bench` extra)
    print(
        f"schema_diff.py: error: jsoncompat is not installed; run `{sys.executable} -m pip install jsoncompat==0.3.1`",
        file=sys.stderr,
    )
    sys.exit(2)

from tests.codegen.schema_edits import BREAKS, EDITS, Edit, base

COPIED = ("schemas", "claim_policy.yaml", "pyproject.toml", "examples")
GIT_USER = ("-c", "user.name=bench", "-c", "user.email=bench@example.org")
GIT_TIMEOUT = 120
WITNESS_BAR = 2.0
NO_WITNESS_BAR = 0.5
QUICK_EDITS = 20
BACKWARD, FORWARD = "backward", "forward"
# jsoncompat's role for each direction: a new reader of old data (backward), a new writer for old readers (forward)
ROLES: tuple[tuple[str, Literal["deserializer", "serializer"]], ...] = (
    (BACKWARD, "deserializer"),
    (FORWARD, "serializer"),
)

Pairs = list[tuple[str, dict[str, Any], dict[str, Any]]]  # (kind, old schema, new schema) of each kind an edit changes

# The rcs pass runs in a child that imports only rcs and the test's helpers: the witness search
# (hypothesis) draws constants from the source of every local module loaded, so this script's own
# strings and numbers would change its draws (see README). argv: project root, scratch folder,
# the edit names as JSON. One JSON line per edit: directions with a proved break, unproved claims.
RCS_CHILD = """
import json, shutil, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from rcs_contracts.codegen.evolution import diff
from tests.codegen.schema_edits import EDITS, base, write_project
from tests.codegen.test_schema_diff_edits import committed_base
scratch, names = Path(sys.argv[2]), json.loads(sys.argv[3])
by_name = {e.name: e for e in EDITS}
warm = scratch / "warm-up"
warm.mkdir()
committed_base(warm)
diff.run(warm, "HEAD", "backward", witnesses=True)  # imports and first compilation, untimed
for i, name in enumerate(names):
    root = scratch / f"edit-{i:02d}"
    root.mkdir()
    committed_base(root)
    kinds, tables = base()
    by_name[name].change(kinds, tables)
    write_project(root, kinds, tables)
    started = time.perf_counter()
    try:
        entries = diff.run(root, "HEAD", "backward", witnesses=True).entries
        row = {
            "breaking": sorted({e.direction for e in entries if e.status == "breaking"}),
            "possibly": [[e.direction, e.summary] for e in entries if e.status == "possibly"],
        }
    except Exception as exc:
        row = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    row.update(name=name, seconds=time.perf_counter() - started)
    print(json.dumps(row), flush=True)
    shutil.rmtree(root)
"""

# The second commit of the project: (file, text replaced, replacement, what it is). Each text must
# occur exactly once in its file.
PROJECT_EDITS: tuple[tuple[str, str, str, str], ...] = (
    (
        "schemas/evidence/literature_map.schema.json",
        '"type": {"enum": ["paper", "dataset", "code"]}',
        '"type": {"enum": ["paper", "dataset"]}',
        'enum value "code" removed from MapNode.type',
    ),
    (
        "schemas/research/request.schema.json",
        '"maxLength": 4000',
        '"maxLength": 2000',
        "maxLength of ResearchRequest.query lowered 4000 -> 2000",
    ),
    (
        "schemas/autoresearch/evaluator_result.schema.json",
        '"type": "object", "additionalProperties": true}',
        '"type": "object", "additionalProperties": true, "properties": {"notes": {"type": "string"}}}',
        "optional string property 'notes' added to the open object EvaluatorResult.details",
    ),
    (
        "schemas/odr/errors.yaml",
        'message: "Unknown {what}: {value} (known: {known})"',
        'message: "Unknown {what} {value}; known: {known}"',
        "TRACE_UNKNOWN_CODE message reworded, same placeholders",
    ),
)


# ---------------------------------------------------------------------------------------------
# (1) rcs schema diff on the project


def _git(repo: Path, *args: str) -> None:
    proc = subprocess.run(
        ["git", "-C", str(repo), *GIT_USER, *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=GIT_TIMEOUT,
    )
    if proc.returncode != 0:
        raise BenchError(f"git {' '.join(args)} exited {proc.returncode} in {repo}:\n{proc.stderr[-2000:]}")


def make_repository(repo: Path) -> None:
    """A git repository at ``repo``: the project's inputs committed, then PROJECT_EDITS committed on top."""
    repo.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in COPIED:
        src = ROOT / name
        if not src.exists():
            raise BenchError(f"{src} is missing; cannot copy the project")
        if src.is_dir():
            shutil.copytree(src, repo / name, ignore=ignore)
        else:
            shutil.copy2(src, repo / name)
    # pyproject's package = "rcs_contracts.generated" must resolve to the generated folder.
    (repo / "rcs_contracts").mkdir()
    (repo / "rcs_contracts" / "generated").symlink_to(Path("..") / "generated")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    for rel, old, new, _ in PROJECT_EDITS:
        path = repo / rel
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise BenchError(f"{rel}: expected exactly one {old!r} to edit, found {text.count(old)}")
        path.write_text(text.replace(old, new), encoding="utf-8")
    _git(repo, "commit", "-qam", "edits across domains")


def checked_output(cmd: Sequence[object], repo: Path) -> str:
    """Run ``cmd`` once in ``repo``; it must exit 1 and print a "breaking" line. Its standard output."""
    proc = subprocess.run([str(c) for c in cmd], cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    if proc.returncode != 1 or "breaking" not in proc.stdout:
        tail = "\n".join(out.splitlines()[-20:])
        raise BenchError(
            f"{' '.join(map(str, cmd[1:]))} exited {proc.returncode} (expected 1, with a 'breaking' line) "
            f"in {repo}:\n{tail}"
        )
    return proc.stdout


def time_project(rcs: Path, repo: Path, n: int) -> tuple[list[Timing], list[str]]:
    """Timings of ``rcs schema diff --against HEAD~1`` with and without witnesses, and each one's report."""
    cmds = {
        "rcs schema diff --against HEAD~1": [rcs, "schema", "diff", "--against", "HEAD~1"],
        "rcs schema diff --against HEAD~1 --no-witness": [rcs, "schema", "diff", "--against", "HEAD~1", "--no-witness"],
    }
    timings: list[Timing] = []
    reports: list[str] = []
    for label, cmd in cmds.items():
        reports.append(checked_output(cmd, repo))  # the warm-up, its output checked
        timings.append(Timing(label, [run(cmd, cwd=repo, expect=1) for _ in range(n)]))
    return timings, reports


# ---------------------------------------------------------------------------------------------
# (2) the single-keyword edit table


@dataclass
class Tally:
    """What one tool made of the edit table."""

    tool: str
    expected: dict[str, int] = field(default_factory=lambda: {BACKWARD: 0, FORWARD: 0})
    found: dict[str, int] = field(default_factory=lambda: {BACKWARD: 0, FORWARD: 0})
    seconds: float = 0.0
    missed: list[str] = field(default_factory=list)  # "direction edit" of each proved break not flagged
    false_alarms: dict[str, list[str]] = field(default_factory=lambda: {BACKWARD: [], FORWARD: []})
    on_possibly: list[str] = field(default_factory=list)  # flagged where the table has an unproved claim
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # anything else worth printing under the table

    def count(self, edit: Edit, flagged: set[str]) -> None:
        """Add one edit: the directions the tool flagged, against the table's ``expect``."""
        listed = {direction for direction, _ in edit.expect}
        proved = {direction for direction, status in edit.expect if status == BREAKS}
        for direction in (BACKWARD, FORWARD):
            if direction in proved:
                self.expected[direction] += 1
                if direction in flagged:
                    self.found[direction] += 1
                else:
                    self.missed.append(f"{direction} {edit.name}")
            elif direction in flagged and direction in listed:
                self.on_possibly.append(f"{direction} {edit.name}")
            elif direction in flagged:
                self.false_alarms[direction].append(edit.name)

    @property
    def n_false_alarms(self) -> int:
        """False alarms in both directions."""
        return sum(len(names) for names in self.false_alarms.values())

    def details(self) -> list[str]:
        """The lines that name the edits behind the counts."""
        lines = [f"missed ({len(self.missed)}): {'; '.join(self.missed)}"] if self.missed else []
        for direction, names in self.false_alarms.items():
            if names:
                lines.append(f"false alarms, {direction} ({len(names)}): {'; '.join(names)}")
        if self.on_possibly:
            lines.append(f"on 'possibly' ({len(self.on_possibly)}): {'; '.join(self.on_possibly)}")
        lines += [f"error: {error}" for error in self.errors]
        return [*lines, *self.notes]


def schema_pairs(edit: Edit) -> Pairs | str:
    """The (kind, old schema, new schema) of each kind ``edit`` changes, or why it is skipped."""
    old_kinds, _ = base()
    new_kinds, new_tables = base()
    edit.change(new_kinds, new_tables)
    if set(old_kinds) != set(new_kinds):
        return "kind"
    changed = [(k, old_kinds[k], new_kinds[k]) for k in sorted(old_kinds) if old_kinds[k] != new_kinds[k]]
    return changed or "table"


def _without_id(schema: dict[str, Any], drop: tuple[str, ...] = ()) -> str:
    # jsoncompat resolves "#/$defs/..." against a relative $id and then refuses the reference.
    return json.dumps({k: v for k, v in schema.items() if k != "$id" and k not in drop})


def _flags(pairs: Pairs, drop: tuple[str, ...] = ()) -> set[str]:
    """The directions jsoncompat calls incompatible for any of ``pairs`` (root keywords ``drop``ped)."""
    flagged: set[str] = set()
    for _, old, new in pairs:
        for direction, role in ROLES:
            if not jsoncompat.check_compat(_without_id(old, drop), _without_id(new, drop), role):
                flagged.add(direction)
    return flagged


def jsoncompat_pass(edits: Sequence[tuple[Edit, Pairs]]) -> Tally:
    """jsoncompat on every schema pair: one Tally, its time the sum of the ``check_compat`` calls."""
    tally = Tally(f"jsoncompat {version('jsoncompat')}")
    for edit, pairs in edits:
        flagged: set[str] = set()
        failed: list[str] = []
        for _, old, new in pairs:
            before, after = _without_id(old), _without_id(new)
            for direction, role in ROLES:
                started = time.perf_counter()
                try:
                    ok = jsoncompat.check_compat(before, after, role)
                except Exception as exc:  # any failure of the tool is counted, not fatal
                    failed.append(f"{role}: {type(exc).__name__}: {str(exc)[:100]}")
                    ok = True
                tally.seconds += time.perf_counter() - started
                if not ok:
                    flagged.add(direction)
        if failed:
            tally.errors.append(f"{edit.name}: {'; '.join(failed)} (counted as not flagged)")
        tally.count(edit, flagged)
    return tally


def false_alarms_without(tally: Tally, edits: Sequence[tuple[Edit, Pairs]], keyword: str) -> str:
    """How many of jsoncompat's false alarms remain when ``keyword`` is dropped from both schemas'
    roots (the base order schema has `dependentRequired`; the alarms are checked again without it)."""
    pairs = {edit.name: found for edit, found in edits}
    left = 0
    for direction, names in tally.false_alarms.items():
        for name in names:
            if any(old.get(keyword) is None or old.get(keyword) != new.get(keyword) for _, old, new in pairs[name]):
                left += 1  # nothing to drop, or the edit is to the keyword itself
                continue
            try:
                left += direction in _flags(pairs[name], (keyword,))
            except Exception:  # the tool failing again: the alarm is not explained
                left += 1
    return f"false alarms left when `{keyword}` is dropped from both schemas: {left} of {tally.n_false_alarms}"


def rcs_pass(
    edits: Sequence[tuple[Edit, Pairs]],
    scratch: Path,
    progress: Callable[[int, int], None],
) -> Tally:
    """rcs on every edit, as the test runs it, in a child process (RCS_CHILD); its time the sum of the
    ``diff.run`` calls."""
    tally = Tally("rcs (diff.run, witnesses)")
    by_name = {edit.name: edit for edit, _ in edits}
    log = scratch / "child-stderr.txt"
    with log.open("wb") as err:
        child = subprocess.Popen(
            [sys.executable, "-c", RCS_CHILD, str(ROOT), str(scratch), json.dumps(list(by_name))],
            cwd=scratch,
            stdout=subprocess.PIPE,
            stderr=err,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert child.stdout is not None
        done = 0
        for line in child.stdout:
            row = json.loads(line)
            edit = by_name[row["name"]]
            tally.seconds += row["seconds"]
            if "error" in row:
                tally.errors.append(f"{edit.name}: {row['error']}")
            tally.count(edit, set(row.get("breaking", [])))
            for direction, summary in row.get("possibly", []):
                if any(d == direction and s == BREAKS for d, s in edit.expect):
                    tally.notes.append(f"{edit.name}: {direction} possibly ({summary})")
            done += 1
            progress(done, len(edits))
    if child.wait() != 0 or done != len(edits):
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:])
        raise BenchError(f"the rcs edit-table child exited {child.returncode} after {done} edits:\n{tail}")
    return tally


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\r  rcs edit table: {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def tally_table(tallies: Sequence[Tally]) -> str:
    """One row per tool."""
    return table(
        ["tool", "backward breaks", "forward breaks", "false alarms", "on 'possibly'", "errors", "time"],
        [
            [
                t.tool,
                f"{t.found[BACKWARD]}/{t.expected[BACKWARD]}",
                f"{t.found[FORWARD]}/{t.expected[FORWARD]}",
                str(t.n_false_alarms),
                str(len(t.on_possibly)),
                str(len(t.errors)),
                f"{t.seconds:.3f}s",
            ]
            for t in tallies
        ],
    )


# ---------------------------------------------------------------------------------------------


def bench() -> bool:
    """Run both parts, print the tables and the bars; True when every bar is met."""
    args = parser(__doc__.splitlines()[0]).parse_args()
    check_root()
    rcs = find_exe("rcs")
    n = repeats(args, full=5, quick=2)
    chosen = EDITS[:QUICK_EDITS] if args.quick else EDITS

    with tempfile.TemporaryDirectory(prefix="rcs-bench-schema-diff-") as tmp:
        scratch = Path(tmp)
        # Hypothesis (the witness search) keeps a cache folder in the working directory unless told.
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(scratch / "hypothesis")
        repo = scratch / "project"
        make_repository(repo)
        timings, reports = time_project(rcs, repo, n)

        kept: list[tuple[Edit, Pairs]] = []
        skipped: dict[str, list[str]] = {"table": [], "kind": []}
        for edit in chosen:
            pairs = schema_pairs(edit)
            if isinstance(pairs, str):
                skipped[pairs].append(edit.name)
            else:
                kept.append((edit, pairs))
        if not kept:
            raise BenchError("no schema edit in tests/codegen/schema_edits.py EDITS")
        jsoncompat_pass(kept)  # warm-up
        runs = [jsoncompat_pass(kept) for _ in range(n)]
        js = runs[-1]
        js.seconds = statistics.median(r.seconds for r in runs)
        if js.n_false_alarms:
            js.notes.append(false_alarms_without(js, kept, "dependentRequired"))
        print(f"running rcs on {len(kept)} edits (about 1 s each) ...", file=sys.stderr, flush=True)
        edits_dir = scratch / "edits"
        edits_dir.mkdir()
        rc = rcs_pass(kept, edits_dir, _progress)

    print_header(
        f"rcs schema diff benchmark ({'quick' if args.quick else 'full'}; scratch git repository of {ROOT.name}/)"
    )
    print("(1) rcs schema diff --against HEAD~1 on the project, after one commit of:")
    for rel, _, _, what in PROJECT_EDITS:
        print(f"  {rel}: {what}")
    print()
    print(timing_table(timings))
    print()
    with_w, without_w = timings
    print(f"ratio with witnesses / --no-witness (medians) = {with_w.median / without_w.median:.1f}")
    print("report (with witnesses):")
    for line in reports[0].splitlines():
        print(f"  {line}")
    print(f"  --no-witness: {reports[1].splitlines()[-1].removeprefix('rcs schema diff: ')}")
    print()
    total_edits = len(chosen)
    print(
        f"(2) the edit table of tests/codegen/schema_edits.py: {len(kept)} schema edits of {total_edits}"
        f"{f' (--quick: the first {QUICK_EDITS} of {len(EDITS)})' if args.quick else ''}; skipped: "
        f"{len(skipped['table'])} rule-table edits, {len(skipped['kind'])} whole-kind edits "
        f"({', '.join(skipped['kind']) or 'none'})"
    )
    print(
        "    breaks: the table's witness-proved breaks a tool flags / the table's count; false alarms: a direction\n"
        "    flagged where the table lists no claim; on 'possibly': a direction flagged where the table has an\n"
        "    unproved claim (neither right nor wrong); time: jsoncompat median of "
        f"{n} passes, rcs one pass (git setup excluded)"
    )
    print(tally_table([js, rc]))
    for t in (js, rc):
        print(f"  {t.tool}:")
        for line in t.details() or ["every proved break flagged, nothing else"]:
            print(textwrap.fill(line, width=118, initial_indent="    ", subsequent_indent="      "))
    print()
    print("bars:")
    ok = bar(f"with witnesses < {WITNESS_BAR:g} s", with_w.median < WITNESS_BAR, f"median {with_w.median:.3f}s")
    ok &= bar(
        f"--no-witness < {NO_WITNESS_BAR:g} s", without_w.median < NO_WITNESS_BAR, f"median {without_w.median:.3f}s"
    )
    return ok


if __name__ == "__main__":
    main_wrapper(bench)
