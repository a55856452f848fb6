"""Benchmark `rcs codegen` against datamodel-codegen run as a user would: once per domain directory.

    .venv/bin/python bench/codegen.py [--quick] [--repeat N] [--strict]

Works on a temporary copy of the project (the real tree is never touched) and times:

  (a) rcs codegen --check     on the unchanged copy (should only re-hash, not render);
  (b) rcs codegen             after deleting COPY/generated, so every output is rendered (a process);
  (c) reference, CLI          `datamodel-codegen --input DIR ...` once per domain, DIR holding that
                              domain's *.schema.json (its rule tables are not JSON Schemas), the
                              per-domain times summed per run: 4 processes for 4 domains;
  (d) rcs, in process         `codegen.cli.run(COPY)` after deleting COPY/generated, timed inside one
                              warm Python process (imports and a first run untimed);
  (e) reference, in process   `datamodel_code_generator.generate(DIR, ...)` for every domain, timed
                              inside one warm Python process the same way.

rcs does more than the reference in that time: it also lints every schema, compiles the rule tables
into dispatch tables, renders the SPEC.md sections and the schema documents, and stamps every
output. Ratios are rcs time / reference time (below 1: rcs is faster).

Bars: check < 1 s; full < 1.5 s; rcs full / reference CLI <= 1 (medians).
Each command is run once untimed first (warm-up).
"""

from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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
    status,
    timing_table,
)

COPIED = ("pyproject.toml", "schemas", "codegen", "generated", "claim_policy.yaml", "SPEC.md")
CHECK_BAR = 1.0
FULL_BAR = 1.5
REFERENCE_OPTIONS = (
    "--input-file-type",
    "jsonschema",
    "--output-model-type",
    "pydantic_v2.BaseModel",
    "--formatters",
    "builtin",
    "--disable-timestamp",
)

# The in-process timers: each child imports its tool, runs it once untimed, then prints the wall
# time of each of N more runs as JSON. argv: N, then the tool's arguments.
RCS_IN_PROCESS = """
import json, shutil, sys, time
from pathlib import Path
from rcs_contracts.codegen.cli import run
n, root = int(sys.argv[1]), Path(sys.argv[2])
samples = []
for i in range(n + 1):
    shutil.rmtree(root / "generated")
    started = time.perf_counter()
    if run(root, check=False, quiet=True) != 0:
        sys.exit("rcs codegen failed")
    if i:
        samples.append(time.perf_counter() - started)
print(json.dumps(samples))
"""
REFERENCE_IN_PROCESS = """
import json, shutil, sys, time
from pathlib import Path
from datamodel_code_generator import DataModelType, Formatter, InputFileType, generate
n, out, inputs = int(sys.argv[1]), Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]]
samples = []
for i in range(n + 1):
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    for domain in inputs:
        generate(domain, input_file_type=InputFileType.JsonSchema, output=out / domain.name,
                 output_model_type=DataModelType.PydanticV2BaseModel, formatters=[Formatter.BUILTIN],
                 disable_timestamp=True)
    if i:
        samples.append(time.perf_counter() - started)
print(json.dumps(samples))
"""


def make_copy(dest: Path) -> None:
    """Copy the compiler's inputs and outputs into ``dest`` (caches left out)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        src = ROOT / name
        if not src.exists():
            raise BenchError(f"{src} is missing; cannot copy the project")
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        else:
            shutil.copy2(src, dest / name)


def reference_inputs(copy: Path, dest: Path) -> list[Path]:
    """One directory per domain under ``dest`` holding that domain's *.schema.json from the copy (the
    rule-table schemas in schemas/tables, and the YAML tables, are not models a user would generate)."""
    domains: list[Path] = []
    for schema in sorted(copy.glob("schemas/*/*.schema.json")):
        if schema.parent.name == "tables":
            continue
        target = dest / schema.parent.name
        if target not in domains:
            target.mkdir(parents=True)
            domains.append(target)
        shutil.copy2(schema, target / schema.name)
    if not domains:
        raise BenchError("no schemas/<domain>/*.schema.json files found")
    return domains


def in_process(script: str, args: list[object], cwd: Path, label: str) -> Timing:
    """Run a timer script (see RCS_IN_PROCESS) in a fresh interpreter; its samples as a Timing."""
    proc = subprocess.run(
        [sys.executable, "-c", script, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        raise BenchError(f"{label}: the in-process timer exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return Timing(label, [float(x) for x in json.loads(proc.stdout.splitlines()[-1])])


def same_tree(a: Path, b: Path) -> list[str]:
    """Relative paths of *.py files that differ between two generated/ trees (or exist in one only)."""
    names = {p.relative_to(a) for p in a.rglob("*.py")} | {p.relative_to(b) for p in b.rglob("*.py")}
    return sorted(
        str(n)
        for n in names
        if not ((a / n).is_file() and (b / n).is_file() and filecmp.cmp(a / n, b / n, shallow=False))
    )


def bench() -> bool:
    args = parser(__doc__.splitlines()[0]).parse_args()
    check_root()
    rcs = find_exe("rcs")
    dmcg = find_exe("datamodel-codegen")
    n_check = repeats(args, full=9, quick=3)
    n_full = repeats(args, full=5, quick=2)
    n_ref = repeats(args, full=3, quick=1)

    with tempfile.TemporaryDirectory(prefix="rcs-bench-codegen-") as tmp:
        copy = Path(tmp) / "project"
        copy.mkdir()
        make_copy(copy)
        out_dir = Path(tmp) / "reference-out"
        out_dir.mkdir()
        domains = reference_inputs(copy, Path(tmp) / "reference-in")
        n_schemas = sum(len(list(d.glob("*.schema.json"))) for d in domains)

        check_cmd = [rcs, "codegen", "--check", "--root", copy]
        full_cmd = [rcs, "codegen", "--root", copy]

        # (a) the unchanged tree. If the working tree's generated/ is stale (someone edited a schema
        # or the compiler without re-running codegen), bring the copy up to date first so that
        # --check measures the "nothing to do" path it is meant to.
        was_stale = status(check_cmd, cwd=copy) == 1
        if was_stale:
            run(full_cmd, cwd=copy)
        run(check_cmd, cwd=copy)  # warm-up; also proves the copy is fresh
        check = Timing("rcs codegen --check (unchanged)", [run(check_cmd, cwd=copy) for _ in range(n_check)])

        # (b) full render from scratch; the rmtree is outside the timed region
        full_samples: list[float] = []
        for i in range(n_full + 1):
            shutil.rmtree(copy / "generated")
            elapsed = run(full_cmd, cwd=copy)
            if i:  # the first run is the warm-up
                full_samples.append(elapsed)
        full = Timing("rcs codegen (generated/ deleted)", full_samples)
        differing = same_tree(ROOT / "generated", copy / "generated")
        run(check_cmd, cwd=copy)  # the regenerated tree must check clean

        # (c) reference, CLI: one datamodel-codegen process per domain directory, summed per run
        def reference_run() -> float:
            shutil.rmtree(out_dir)
            out_dir.mkdir()
            return sum(
                run([dmcg, "--input", domain, "--output", out_dir / domain.name, *REFERENCE_OPTIONS], cwd=copy)
                for domain in domains
            )

        reference_run()  # warm-up
        ref = Timing(
            f"reference CLI: datamodel-codegen x{len(domains)} domain dirs", [reference_run() for _ in range(n_ref)]
        )
        # (d), (e): in one warm process each
        in_rcs = in_process(RCS_IN_PROCESS, [n_full, copy], copy, "rcs in process: codegen.cli.run")
        in_ref = in_process(
            REFERENCE_IN_PROCESS,
            [n_full, Path(tmp) / "api-out", *domains],
            copy,
            f"reference in process: generate() x{len(domains)} domains",
        )
        run(check_cmd, cwd=copy)  # the in-process runs left a complete, fresh tree

    print_header(
        f"rcs codegen benchmark ({'quick' if args.quick else 'full'}; temp copy of {ROOT.name}/; "
        f"{n_schemas} schema files in {len(domains)} domains)"
    )
    print(f"datamodel-codegen {_version('datamodel-code-generator')}, options: {' '.join(REFERENCE_OPTIONS)}")
    print(timing_table([check, full, ref, in_rcs, in_ref]))
    print()
    print("ratios (rcs median / reference median; below 1 = rcs faster):")
    print(f"  rcs full (process)    / reference CLI (per domain) = {full.median / ref.median:.2f}")
    print(f"  rcs check (process)   / reference CLI (per domain) = {check.median / ref.median:.2f}")
    print(f"  rcs full (in process) / reference generate()       = {in_rcs.median / in_ref.median:.2f}")
    if was_stale:
        print(
            "  note: the working tree's generated/ was stale (rcs codegen --check exit 1);"
            " the copy was regenerated before timing"
        )
    elif differing:
        print(f"  note: regenerated generated/ differs from the working tree's in: {', '.join(differing)}")
    else:
        print("  regenerated generated/ is byte-identical to the working tree's")
    print()
    print("bars:")
    ok = bar("check < 1 s", check.median < CHECK_BAR, f"median {check.median:.3f}s")
    ok &= bar(f"full < {FULL_BAR:g} s", full.median < FULL_BAR, f"median {full.median:.3f}s")
    ok &= bar("full / reference CLI <= 1", full.median <= ref.median, f"{full.median / ref.median:.2f}")
    return ok


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    main_wrapper(bench)
