"""The ``rcs`` command. Thin: parse arguments, import the subcommand's modules lazily, exit.

    rcs codegen [--check] [--root DIR]
    rcs validate [--kind KIND] [--evidence BUNDLE.json] [--claim-policy FILE] [--format text|json] PATH...

Exit status of ``rcs validate``: 0 all valid, 1 any violation, 2 usage or unreadable input.
"""

from __future__ import annotations

import argparse
import sys

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def _parser() -> argparse.ArgumentParser:
    from codegen.cli import build_parser as codegen_parser

    parser = argparse.ArgumentParser(
        prog="rcs",
        description="Schema-first contract compiler and runtime for research-agent systems.",
        epilog="Run `rcs COMMAND --help` for the options of each command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    codegen_parser(commands.add_parser("codegen", help="compile schemas and rule tables into generated/"))
    validate = commands.add_parser(
        "validate",
        help="validate artifacts against their schemas and contract rules",
        description=(
            'Validate JSON artifacts. The kind of each file comes from --kind or from its "$schema" '
            "property (…/<domain>/<name>.schema.json). Artifacts that cite evidence need --evidence. "
            "Exit status: 0 all valid, 1 any violation, 2 usage error or unreadable input."
        ),
    )
    validate.add_argument(
        "paths", nargs="+", metavar="PATH", help="a JSON file, or a directory (every *.json below it)"
    )
    validate.add_argument("--kind", help="artifact kind, <domain>/<name> or a unique <name> (e.g. structured_report)")
    validate.add_argument("--evidence", metavar="BUNDLE.json", help="evidence bundle that citations resolve against")
    validate.add_argument(
        "--claim-policy", metavar="FILE", help="claim policy YAML (default: the compiled claim_policy.yaml)"
    )
    validate.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    return parser


def _progress(done: int, total: int) -> None:
    """A self-overwriting counter on a terminal's stderr, for long runs only."""
    if total >= 500 and (done % 250 == 0 or done == total):
        end = "\n" if done == total else ""
        print(f"\rrcs validate: {done}/{total} files", end=end, file=sys.stderr, flush=True)


def _validate(args: argparse.Namespace) -> int:
    from runtime import collect, report

    progress = _progress if sys.stderr.isatty() else None
    collection = collect.collect(args.paths, args.kind, args.evidence, args.claim_policy, progress)
    sys.stdout.write(report.as_json(collection) if args.format == "json" else report.text(collection))
    for problem in collection.usage:
        print(f"rcs validate: {problem}", file=sys.stderr)
    if collection.usage:
        return EXIT_USAGE
    return EXIT_OK if all(r.valid for r in collection.results) else EXIT_INVALID


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rcs`` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "codegen":
            from codegen.cli import run

            return run(args.root, args.check, args.quiet)
        return _validate(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # a bug in rcs: say so in one line rather than a traceback
        print(f"rcs: internal error: {type(exc).__name__}: {exc} (please report this)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
