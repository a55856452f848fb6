"""The official JSON-Schema-Test-Suite (draft 2020-12) through rcs's own compile and validate path.

    python conformance/suite.py [--suite DIR] [--report FILE.json] [--markdown]

Every group of ``tests/draft2020-12/*.json`` (required) and ``tests/draft2020-12/optional/format/``
(the formats rcs asserts) becomes a schema file ``schemas/<domain>/g<NNN>.schema.json`` of a
throwaway project, one domain per suite file, with the house-style lint switched off and the
suite's ``remotes/`` served as ``[tool.rcs.resources]``. The real ``rcs codegen`` compiles it; each
test's data becomes a file, checked by the real ``rcs validate --kind <domain>/g<NNN> --format json``
(run in-process by a worker that has the project's ``generated/`` first on its path).

A group lint refuses is "refused"; a test is "agreed" when rcs's verdict is the suite's, a "false
accept" or "false reject" otherwise, and a "crash" when rcs exits 3 or raises. The run fails (exit
1) on any disagreement or refusal outside ``EXPECTED`` below, and when an expected one no longer
happens (the list stays true). SPEC.md chapter 3 explains each entry.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SUITE = ROOT.parent / "shared" / "json-schema-test-suite"
REMOTE_PREFIX = "http://localhost:1234/draft2020-12/"
# The throwaway project holds rcs's own schemas too: the command line needs every domain's tables.
# rcs's own schemas beside the suite's, and its code with the links of rcs_contracts/ to it: the
# project's rcs_contracts.generated is the one its codegen writes.
PROJECT_PARTS = (
    "schemas",
    "claim_policy.yaml",
    "base",
    "safeio",
    "codegen",
    "engine",
    "runtime",
    "rcs_contracts",
)

# Where rcs departs from the suite on purpose (SPEC.md 3.2). Refused groups: (file, group) -> the
# lint message it must be refused with. Deviations: file -> what its disagreements must all be.
EXPECTED_REFUSALS = {
    ("enum.json", "empty enum"): "'enum: []' allows no value at all",
    ("minContains.json", "maxContains < minContains"): "minContains 3 is above maxContains 1",
    ("optional/format/unknown.json", "unknown format"): "format 'unknown' is not one rcs asserts",
}
ANNOTATION_ONLY_FORMATS = "format.json"  # rcs asserts formats; this file expects annotation only


@dataclass
class Tally:
    """Counts for one suite file."""

    tests: int = 0
    agreed: int = 0
    false_accepts: int = 0
    false_rejects: int = 0
    crashes: int = 0
    refused: int = 0
    notes: list[str] = field(default_factory=list)


def snake(stem: str) -> str:
    """additionalProperties -> additional_properties, if-then-else -> if_then_else."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", stem).replace("-", "_").lower()


def suite_files(suite: Path, optional: bool = False) -> list[tuple[str, Path]]:
    """(name relative to tests/draft2020-12, path) of every file the runner feeds."""
    base = suite / "tests" / "draft2020-12"
    files = sorted(base.glob("*.json")) + sorted((base / "optional" / "format").glob("*.json"))
    if optional:
        files += sorted((base / "optional").glob("*.json"))
    return [(p.relative_to(base).as_posix(), p) for p in files]


def domain_of(name: str) -> str:
    """The domain a suite file becomes (required files ``suite_*``, format files ``format_*``)."""
    stem = snake(Path(name).stem)
    if name.startswith("optional/format/"):
        return f"format_{stem}"
    return f"optional_{stem}" if name.startswith("optional/") else f"suite_{stem}"


def build_project(suite: Path, dest: Path, optional: bool = False) -> dict[str, tuple[str, dict[str, Any]]]:
    """Write the throwaway project; returns kind -> (suite file, group)."""
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, dest / part, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / part)
    shutil.copytree(suite / "remotes" / "draft2020-12", dest / "resources" / "draft2020-12")
    (dest / "pyproject.toml").write_text(
        # rcs's own code compiling into its own package: the project is rcs (codegen refuses the name else).
        '[project]\nname = "rcs-contracts"\n\n'
        '[tool.rcs]\nhouse-style = false\npackage = "rcs_contracts.generated"\n\n[tool.rcs.resources]\n'
        f'"{REMOTE_PREFIX}" = "resources/draft2020-12"\n',
        encoding="utf-8",
    )
    groups: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, path in suite_files(suite, optional):
        domain = domain_of(name)
        (dest / "schemas" / domain).mkdir(parents=True)
        for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            stem = f"g{index:03d}"
            text = json.dumps(group["schema"], indent=2, ensure_ascii=False) + "\n"
            (dest / "schemas" / domain / f"{stem}.schema.json").write_text(text, encoding="utf-8")
            groups[f"{domain}/{stem}"] = (name, group)
            for number, test in enumerate(group["tests"]):
                data = dest / "data" / domain / stem / f"t{number:02d}.json"
                data.parent.mkdir(parents=True, exist_ok=True)
                data.write_text(json.dumps(test["data"], ensure_ascii=False), encoding="utf-8")
    return groups


def environment(project: Path) -> dict[str, str]:
    """The project first on the path: its rcs_contracts is its own code, compiling into its generated/."""
    return dict(os.environ, PYTHONPATH=str(project), PYTHONDONTWRITEBYTECODE="1")


_DIAGNOSTIC = re.compile(
    r"^schemas/(?P<domain>[a-z0-9_]+)/(?P<stem>g[0-9]{3})\.schema\.json:(?P<line>\d+): (?P<msg>.*)$"
)


def compile_project(project: Path) -> dict[str, list[str]]:
    """Run ``rcs codegen`` until it compiles; each refused group is removed. Returns kind -> messages."""
    refused: dict[str, list[str]] = {}
    for _ in range(5):
        done = subprocess.run(
            [sys.executable, "-m", "rcs_contracts.runtime.cli", "codegen", "--root", str(project), "--quiet"],
            cwd=project,
            env=environment(project),
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            return refused
        found = False
        for line in done.stderr.splitlines():
            match = _DIAGNOSTIC.match(line)
            if match is None:
                continue
            kind = f"{match['domain']}/{match['stem']}"
            refused.setdefault(kind, []).append(match["msg"])
            (project / "schemas" / match["domain"] / f"{match['stem']}.schema.json").unlink(missing_ok=True)
            shutil.rmtree(project / "data" / match["domain"] / match["stem"], ignore_errors=True)
            found = True
        if not found:
            raise SystemExit(f"rcs codegen failed on the suite project:\n{done.stdout}{done.stderr}")
    raise SystemExit("rcs codegen kept refusing groups; giving up")


WORKER = r"""
import contextlib, io, json, sys
from pathlib import Path
from rcs_contracts.runtime import cli
jobs = json.loads(sys.stdin.read())
out = {}
for kind, files in jobs.items():
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
            status = cli.main(["validate", "--kind", kind, "--format", "json", *files])
        report = json.loads(buffer.getvalue())
        out[kind] = {"status": status, "results": {r["path"]: r for r in report}}
    except BaseException as exc:  # the runner counts it as a crash of every file of the group
        out[kind] = {"status": "raised", "error": f"{type(exc).__name__}: {exc}"}
print(json.dumps(out))
"""


def validate_all(project: Path, kinds: list[str]) -> dict[str, Any]:
    """Run ``rcs validate`` once per kind over its test files, in one worker process."""
    jobs = {
        kind: sorted(str(p) for p in (project / "data" / kind).glob("t*.json"))
        for kind in kinds
        if (project / "data" / kind).is_dir()
    }
    done = subprocess.run(
        [sys.executable, "-c", WORKER],
        input=json.dumps(jobs),
        cwd=project,
        env=environment(project),
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"the validate worker failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def binding(name: str) -> bool:
    """Whether a disagreement in this suite file fails the run (the required suite and the formats)."""
    return not name.startswith("optional/") or name.startswith("optional/format/")


def judge(
    groups: dict[str, tuple[str, dict[str, Any]]], refused: dict[str, list[str]], runs: dict[str, Any], project: Path
) -> tuple[dict[str, Tally], list[str], list[str]]:
    """Per-file tallies, every problem that fails the run, and what the other optional files showed."""
    tallies: dict[str, Tally] = {}
    failing: list[str] = []
    informational: list[str] = []
    seen_refusals: set[tuple[str, str]] = set()
    for kind, (name, group) in sorted(groups.items()):
        problems = failing if binding(name) else informational
        tally = tallies.setdefault(name, Tally())
        tests = group["tests"]
        tally.tests += len(tests)
        key = (name, group["description"])
        if kind in refused:
            tally.refused += len(tests)
            expected = EXPECTED_REFUSALS.get(key)
            messages = "; ".join(refused[kind])
            if expected is None or expected not in messages:
                problems.append(f"{name}: {group['description']!r} refused by lint: {messages}")
            else:
                seen_refusals.add(key)
                tally.notes.append(f"refused: {group['description']}")
            continue
        run = runs.get(kind, {"status": "raised", "error": "not run"})
        for number, test in enumerate(tests):
            path = str(project / "data" / kind / f"t{number:02d}.json")
            result = run.get("results", {}).get(path)
            crashed = run["status"] == "raised" or result is None or any(
                e["error"] in ("InternalError", "UsageError") for e in result["errors"]
            )
            what = f"{name}: {group['description']!r} / {test['description']!r}"
            if crashed:
                tally.crashes += 1
                problems.append(f"{what}: crash ({run.get('error') or (result and result['errors'])})")
                continue
            if result["valid"] == test["valid"]:
                tally.agreed += 1
                continue
            if test["valid"]:
                tally.false_rejects += 1
                if name == ANNOTATION_ONLY_FORMATS and isinstance(test["data"], str):
                    continue  # rcs asserts formats (SPEC 3.2)
                problems.append(f"{what}: false reject: {result['errors']}")
            else:
                tally.false_accepts += 1
                problems.append(f"{what}: false accept")
    for key in EXPECTED_REFUSALS:
        if key not in seen_refusals:
            failing.append(f"expected refusal did not happen (update EXPECTED_REFUSALS and SPEC): {key}")
    if not tallies.get(ANNOTATION_ONLY_FORMATS, Tally()).false_rejects:
        failing.append(f"{ANNOTATION_ONLY_FORMATS}: its annotation-only tests should be rejected (formats asserted)")
    return tallies, failing, informational


def markdown(tallies: dict[str, Tally]) -> str:
    """The README table: one row per suite file, then the totals."""
    lines = [
        "| suite file | tests | agreed | false accepts | false rejects | crashes | refused by lint |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    total = Tally()
    for name, t in sorted(tallies.items(), key=lambda kv: (kv[0].startswith("optional/"), kv[0])):
        lines.append(
            f"| `{name}` | {t.tests} | {t.agreed} | {t.false_accepts} | {t.false_rejects} | {t.crashes} | {t.refused} |"
        )
        for attr in ("tests", "agreed", "false_accepts", "false_rejects", "crashes", "refused"):
            setattr(total, attr, getattr(total, attr) + getattr(t, attr))
    lines.append(
        f"| **all** | **{total.tests}** | **{total.agreed}** | **{total.false_accepts}** | **{total.false_rejects}** | "
        f"**{total.crashes}** | **{total.refused}** |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the suite; exit 0 when rcs agrees with it everywhere but the documented departures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", type=Path, default=DEFAULT_SUITE, help="the JSON-Schema-Test-Suite checkout")
    parser.add_argument("--report", type=Path, help="write per-test results as JSON here")
    parser.add_argument("--markdown", action="store_true", help="print the README table")
    parser.add_argument("--keep", action="store_true", help="keep the throwaway project (its path is printed)")
    parser.add_argument(
        "--optional",
        action="store_true",
        help="also feed the other optional files (big numbers, regex dialect, ...): reported, never failing the run",
    )
    args = parser.parse_args(argv)
    if not (args.suite / "tests" / "draft2020-12").is_dir():
        print(f"conformance: no draft 2020-12 suite under {args.suite}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    project = Path(tempfile.mkdtemp(prefix="rcs-conformance-"))
    try:
        groups = build_project(args.suite, project, args.optional)
        files = len(suite_files(args.suite, args.optional))
        print(f"conformance: {len(groups)} groups from {files} files", file=sys.stderr)
        refused = compile_project(project)
        compiled = time.perf_counter()
        print(f"conformance: compiled in {compiled - started:.1f}s ({len(refused)} group(s) refused)", file=sys.stderr)
        runs = validate_all(project, [k for k in groups if k not in refused])
        tallies, problems, informational = judge(groups, refused, runs, project)
        print(f"conformance: validated in {time.perf_counter() - compiled:.1f}s", file=sys.stderr)
    finally:
        if args.keep:
            print(f"conformance: project kept at {project}", file=sys.stderr)
        else:
            shutil.rmtree(project, ignore_errors=True)
    if args.report:
        args.report.write_text(json.dumps({k: vars(v) for k, v in sorted(tallies.items())}, indent=2) + "\n")
    if args.markdown:
        sys.stdout.write(markdown(tallies))
    for note in informational:
        print(f"  (optional, not binding) {note}", file=sys.stderr)
    counted = [t for name, t in tallies.items() if binding(name)]
    total_tests = sum(t.tests for t in counted)
    agreed = sum(t.agreed for t in counted)
    print(f"conformance: {agreed}/{total_tests} tests agreed; {len(problems)} unexpected problem(s)", file=sys.stderr)
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
