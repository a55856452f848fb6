"""Benchmark `rcs codegen` against running the datamodel-codegen CLI once per schema file.

    .venv/bin/python bench/codegen.py [--quick] [--repeat N] [--strict]

Works on a temporary copy of the project (the real tree is never touched) and times:

  (a) rcs codegen --check     on the unchanged copy (should only re-hash, not render);
  (b) rcs codegen             after deleting COPY/generated, so every output is rendered;
  (c) reference               `datamodel-codegen --input FILE ...` once per schemas/<domain>/*.schema.json
                              (schemas/tables excluded), the per-file times summed per run.

Bars: check < 1 s, full < 3 s (medians). Each command is run once untimed first (warm-up).
"""

from __future__ import annotations

import filecmp
import shutil
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
FULL_BAR = 3.0


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


def reference_schemas(copy: Path) -> list[Path]:
    """schemas/*/*.schema.json of the copy, without the rule-table schemas in schemas/tables."""
    found = sorted(p for p in copy.glob("schemas/*/*.schema.json") if p.parent.name != "tables")
    if not found:
        raise BenchError("no schemas/<domain>/*.schema.json files found")
    return found


def same_tree(a: Path, b: Path) -> list[str]:
    """Relative paths of *.py files that differ between two generated/ trees (or exist in one only)."""
    names = {p.relative_to(a) for p in a.rglob("*.py")} | {p.relative_to(b) for p in b.rglob("*.py")}
    return sorted(
        str(n) for n in names
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
        schemas = reference_schemas(copy)

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

        # (c) reference: one datamodel-codegen process per schema file, summed per run
        def reference_run() -> float:
            total = 0.0
            for schema in schemas:
                total += run(
                    [
                        dmcg, "--input", schema.relative_to(copy), "--input-file-type", "jsonschema",
                        # a directory: schemas with cross-file $refs make several modules
                        "--output", out_dir / f"{schema.parent.name}_{schema.name.removesuffix('.schema.json')}",
                        "--output-model-type", "pydantic_v2.BaseModel",
                        "--formatters", "builtin", "--disable-timestamp",
                    ],
                    cwd=copy,
                )
            return total

        reference_run()  # warm-up
        ref = Timing(f"reference: datamodel-codegen x{len(schemas)} files", [reference_run() for _ in range(n_ref)])

    print_header(f"rcs codegen benchmark ({'quick' if args.quick else 'full'}; temp copy of {ROOT.name}/; "
                 f"{len(schemas)} schema files)")
    print(timing_table([check, full, ref]))
    print()
    print("ratios (median / median):")
    print(f"  rcs full  / reference = {full.median / ref.median:.2f}  ({ref.median / full.median:.1f}x faster)")
    print(f"  rcs check / reference = {check.median / ref.median:.2f}  ({ref.median / check.median:.1f}x faster)")
    print(f"  rcs check / rcs full  = {check.median / full.median:.2f}")
    if was_stale:
        print("  note: the working tree's generated/ was stale (rcs codegen --check exit 1);"
              " the copy was regenerated before timing")
    elif differing:
        print(f"  note: regenerated generated/ differs from the working tree's in: {', '.join(differing)}")
    else:
        print("  regenerated generated/ is byte-identical to the working tree's")
    print()
    print("bars:")
    ok = bar("check < 1 s", check.median < CHECK_BAR, f"median {check.median:.3f}s")
    ok &= bar("full < 3 s", full.median < FULL_BAR, f"median {full.median:.3f}s")
    return ok


if __name__ == "__main__":
    main_wrapper(bench)
