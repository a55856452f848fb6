"""The ``rcs schema diff`` command: parse, compare, report, exit (like ``rcs codegen``, it runs
even when generated/ is stale, and imports nothing of the runtime)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rcs_contracts.base.about import INSTALL_CODEGEN
from rcs_contracts.base.exit_status import EXIT_INVALID, EXIT_OK, EXIT_USAGE
from rcs_contracts.codegen.cli import COMPILER_MODULES, WITNESS_MODULES
from rcs_contracts.safeio.terminal import printable, printable_json

if TYPE_CHECKING:
    from rcs_contracts.codegen.evolution.diff import Result

DESCRIPTION = (
    "Compare every schema and rule table of the project with the same files at REF (a git revision "
    "such as HEAD~1 or main, a project folder, or a bundle `rcs schema export` wrote). Each change is "
    "printed as file:line: class: what changed. Backward-incompatible: something valid before is invalid now; "
    "forward-incompatible: something valid now was invalid before; each comes with a witness, an instance "
    'one side accepts and the other rejects, found and checked by the engine rcs validate runs ("possibly" '
    "when none was found, with the reason). Each domain's contract_version (schemas/<domain>/contract.yaml) "
    "must rise by the bump its changes need: with --mode backward (the default) major for backward-incompatible "
    "changes, minor for forward-incompatible ones, patch for the rest; forward swaps the two; full makes both "
    "major. Exit status: 0 every version covers its changes, 1 some domain needs a higher version, 2 REF or "
    "the project cannot be read (SPEC.md 2.7)."
)

STRING_SHOWN = 24  # characters a text report shows of a witness's long string (a lowered maxLength's, say)


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Add the diff options to ``parser`` (or a new one)."""
    parser = parser or argparse.ArgumentParser(prog="rcs schema diff")
    parser.description = DESCRIPTION
    parser.add_argument("--against", required=True, metavar="REF", help="a git revision, a project folder or an export")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")
    parser.add_argument(
        "--mode",
        choices=("backward", "forward", "full"),
        default="backward",
        help="which incompatibility needs a major bump: backward (consumers upgrade first; default), forward "
        "(producers upgrade first) or full (both)",
    )
    parser.add_argument("--no-witness", action="store_true", help="classify only; search no witnesses (faster)")
    parser.add_argument("--root", type=Path, default=Path("."), help="project root (default: the current directory)")
    return parser


def _progress(done: int, total: int) -> None:
    if total >= 5:
        end = "\n" if done == total else ""
        print(f"\rrcs schema diff: witnesses {done}/{total}", end=end, file=sys.stderr, flush=True)


def _abbreviated(value: Any) -> Any:
    """``value`` with every string longer than twice ``STRING_SHOWN`` cut to its start and length."""
    if isinstance(value, str) and len(value) > 2 * STRING_SHOWN:
        return f"{value[:STRING_SHOWN]}...[{len(value)} characters]"
    if isinstance(value, list):
        return [_abbreviated(item) for item in value]
    if isinstance(value, dict):
        return {_abbreviated(key): _abbreviated(item) for key, item in value.items()}
    return value


def text(result: Result) -> str:
    """The report as a compiler prints it: one line per change, then the versions, then a summary."""
    lines = []
    for entry in result.entries:
        head = f"{entry.file}:{entry.line}: "
        if entry.status == "compatible":
            lines.append(f"{head}compatible: {entry.summary}")
            continue
        label = "breaking" if entry.status == "breaking" else "possibly breaking"
        line = f"{head}{label} ({entry.direction}): {entry.summary}"
        if entry.witness is not None and entry.witness.found:
            shown = _abbreviated(entry.witness.instance)
            instance = json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
            line += f"; witness ({entry.witness.kind}): {instance}"
            if shown != entry.witness.instance:
                line += " (long strings shortened; --format json gives them whole)"
        elif entry.witness is not None:
            line += f"; no witness: {entry.witness.reason}"
        elif not entry.table:
            line += " (witness not searched)"
        lines.append(line)
    changed = {e.domain for e in result.entries}
    lines.extend(v.advice for v in result.verdicts if v.domain in changed or not v.ok)
    counts = {
        status: sum(e.status == status for e in result.entries) for status in ("breaking", "possibly", "compatible")
    }
    short = sum(not v.ok for v in result.verdicts)
    lines.append(
        f"rcs schema diff: {len(result.entries)} change(s) against {result.against}: {counts['breaking']} breaking, "
        f"{counts['possibly']} possibly breaking, {counts['compatible']} compatible; "
        + (
            f"{short} domain(s) need a higher contract_version"
            if short
            else "every contract_version covers its changes"
        )
    )
    return "".join(printable(line) + "\n" for line in lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``rcs schema diff``."""
    args = build_parser().parse_args(argv)
    # The codegen extra's packages; the witness search imports its two only when it runs.
    needed = (*COMPILER_MODULES, *(() if args.no_witness else WITNESS_MODULES))
    missing = next((name for name in needed if importlib.util.find_spec(name) is None), None)
    if missing is not None:
        print(f"rcs schema diff: needs the compiler ({missing} is missing): {INSTALL_CODEGEN}", file=sys.stderr)
        return EXIT_USAGE
    from rcs_contracts.codegen.evolution import diff, sides
    if not args.root.is_dir():
        print(printable(f"rcs schema diff: {args.root}: no such directory"), file=sys.stderr)
        return EXIT_USAGE
    progress = _progress if sys.stderr.isatty() and not args.no_witness else None
    try:
        result = diff.run(args.root.resolve(), args.against, args.mode, not args.no_witness, progress)
    except sides.SideError as exc:
        print(printable(f"rcs schema diff: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        sys.stdout.write(printable_json(json.dumps(diff.as_json(result), ensure_ascii=False, indent=2)) + "\n")
    else:
        sys.stdout.write(text(result))
    return EXIT_OK if result.ok else EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())
