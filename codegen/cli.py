"""``rcs codegen [--check] [--root DIR]``: load -> lint -> render -> write or check.

Exit status: 0 up to date (or written), 1 lint errors or (with --check) stale outputs, 2 usage.
The compiler's modules are imported inside ``run`` so that ``rcs --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from rcs_contracts.base.about import INSTALL_CODEGEN
from rcs_contracts.safeio.terminal import printable

# The import names of the `codegen` extra's packages (pyproject.toml).
COMPILER_MODULES = ("datamodel_code_generator", "jinja2", "jsonschema")
# ... and those `rcs schema diff` adds for its witness search (codegen/evolution/witness.py).
WITNESS_MODULES = ("hypothesis", "hypothesis_jsonschema")


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Add the codegen options to ``parser`` (or a new one)."""
    parser = parser or argparse.ArgumentParser(prog="rcs codegen")
    parser.description = (
        "Compile schemas/<domain>/*.schema.json and the YAML rule tables (claim_policy.yaml, "
        "schemas/<domain>/*.yaml; schemas/ may be another folder: [tool.rcs] schemas) into strict Pydantic "
        "models and dispatch tables under generated/ (or the "
        "folder [tool.rcs] generated names, imported as [tool.rcs] package), and refresh the generated sections "
        "of SPEC.md ([tool.rcs] spec). Problems are printed as file:line: message and nothing "
        "is written. Correctness rules always apply (2020-12 metaschema, resolvable $refs, known keywords, "
        "asserted formats, nothing that cannot be meant); house-style rules end in [house style] and are "
        "switched off with `house-style = false` under [tool.rcs] in the root's pyproject.toml (SPEC.md 2.1)."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; print a unified diff of stale outputs and exit 1 if anything is stale",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path("."),
        help="project root holding schemas/ or the folder [tool.rcs] schemas names (default: the current directory)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    return parser


def run(root: Path, check: bool, quiet: bool = False) -> int:
    """Run the compiler on ``root``; returns the exit status."""
    started = time.perf_counter()
    # The compiler's extra, looked for before any of it is imported: some of its modules are only
    # imported once a schema needs rendering, which would fail as a defect in rcs, not as a missing install.
    missing = next((name for name in COMPILER_MODULES if importlib.util.find_spec(name) is None), None)
    if missing is not None:
        print(
            f"rcs codegen: the compiler is not installed ({missing} is missing); install it with: {INSTALL_CODEGEN}",
            file=sys.stderr,
        )
        return 2
    from rcs_contracts.codegen import render, sources, write
    from rcs_contracts.codegen.diagnostics import CompileError

    try:
        project = sources.load(root)
        for folder in () if quiet else project.skipped:
            note = f"rcs codegen: {printable(folder)}/ skipped: a folder whose name starts with _ is not a domain"
            print(note, file=sys.stderr)
        # Every stamp matching means these exact inputs, with this exact compiler, already passed
        # lint and rendered to what is on disk: nothing to lint or render again.
        if write.is_fresh(project.root, render.plan(project)):
            if not quiet:
                print(f"rcs codegen: up to date ({time.perf_counter() - started:.2f}s)")
            return 0
        from rcs_contracts.codegen import lint

        problems = lint.check(project)
        if problems:
            raise CompileError(problems)
        rendered = render.render(project)
    except CompileError as exc:
        for diagnostic in exc.diagnostics:
            print(printable(str(diagnostic)), file=sys.stderr)
        print(f"rcs codegen: {len(exc.diagnostics)} problem(s); nothing written", file=sys.stderr)
        return 1
    delta = write.changes(project.root, rendered)
    if check:
        if delta.files:
            sys.stdout.write(delta.diff())
            print(f"rcs codegen --check: {len(delta.files)} file(s) stale; run `rcs codegen`", file=sys.stderr)
            return 1
        if not quiet:
            print(f"rcs codegen: up to date ({time.perf_counter() - started:.2f}s)")
        return 0
    blocked = write.obstacles(project.root, delta)
    if blocked:
        for problem in blocked:
            print(f"rcs codegen: {printable(problem)}", file=sys.stderr)
        print(f"rcs codegen: {len(blocked)} place(s) cannot be written; nothing written", file=sys.stderr)
        return 2
    try:
        written, removed = write.apply(project.root, delta)
    except OSError as exc:  # the disk failed under us: each file is replaced whole or not at all
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"rcs codegen: cannot write: {printable(where + (exc.strerror or str(exc)))}", file=sys.stderr)
        return 2
    if not quiet:
        print(
            f"rcs codegen: {written} file(s) written, {removed} removed, "
            f"{len(rendered.outputs)} outputs and {len(rendered.sections)} SPEC.md sections in all "
            f"({time.perf_counter() - started:.2f}s)"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point for ``python -m codegen``."""
    args = build_parser().parse_args(argv)
    return run(args.root, args.check, args.quiet)
