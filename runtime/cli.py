"""The ``rcs`` command. Thin: parse arguments, import the subcommand's modules lazily, exit.

    rcs codegen [--check] [--root DIR]
    rcs validate [--kind KIND] [--evidence BUNDLE.json] [--claim-policy FILE] [--format text|json] PATH...

Exit status of ``rcs validate``: 0 all valid, 1 any violation, 2 usage or unreadable input,
3 an internal error while checking some file (reported on that file; every other file is checked).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import io
import os
import signal
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rcs_contracts.engine.collect import Collection

from rcs_contracts.base.exit_status import EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM, EXIT_USAGE


def _parser() -> argparse.ArgumentParser:
    from rcs_contracts.base.about import VERSION_LINE
    from rcs_contracts.codegen.cli import build_parser as codegen_parser
    from rcs_contracts.generated.autoresearch.config import (
        BRANCH_PREFIX,
        CODEX_BINARY_ENV,
        CODEX_DEFAULT_ARGS,
        CODEX_SANDBOX_FLAGS,
        KEEP_POLICIES,
        LOGS_DIR,
        STATE_FILE,
        WORKTREE_PREFIX,
        WORKTREES_SUFFIX,
    )
    from rcs_contracts.generated.odr.stop_rules import StopReason
    from rcs_contracts.generated.phase1.config import DEFAULT_TOP_K, NOT_STATED

    parser = argparse.ArgumentParser(
        prog="rcs",
        description="Schema-first contract compiler and runtime for research-agent systems.",
        epilog="Run `rcs COMMAND --help` for the options of each command.",
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    codegen_parser(commands.add_parser("codegen", help="compile schemas and rule tables into generated/"))
    validate = commands.add_parser(
        "validate",
        help="validate artifacts against their schemas and contract rules",
        description=(
            'Validate JSON artifacts. The kind of each file comes from --kind or from its "$schema" '
            "property (…/<domain>/<name>.schema.json). Artifacts that cite evidence need --evidence. "
            "Verdicts follow the schemas as last compiled by `rcs codegen`; a warning on stderr names any schema "
            "or rule table changed since. "
            "Exit status: 0 all valid, 1 any violation, 2 usage error or unreadable input, 3 an internal error on "
            "some file (reported on that file; every other file is still checked)."
        ),
    )
    validate.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a JSON file, a JSON Lines file (*.jsonl: one artifact per line), or a directory (every *.json and "
        "*.jsonl below it)",
    )
    validate.add_argument(
        "--project",
        metavar="DIR",
        help=(
            "judge by the kinds of the project at DIR, compiled by `rcs codegen` there (its pyproject.toml's "
            "[tool.rcs] says where); default: the nearest folder at or above the current one whose pyproject.toml "
            "has [tool.rcs], else rcs's own kinds"
        ),
    )
    validate.add_argument("--kind", help="artifact kind, <domain>/<name> or a unique <name> (e.g. structured_report)")
    validate.add_argument("--evidence", metavar="BUNDLE.json", help="evidence bundle that citations resolve against")
    validate.add_argument(
        "--claim-policy", metavar="FILE", help="claim policy YAML (default: the compiled claim_policy.yaml)"
    )
    validate.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    odr = commands.add_parser("odr", help="ODR v1: the Architect/Auditor distillation round runner")
    odr_commands = odr.add_subparsers(dest="odr_command", metavar="ODR_COMMAND", required=True)
    odr_run = odr_commands.add_parser(
        "run",
        help="run rounds from a JSON Lines file and print the trace",
        description=(
            'Each line of ROUNDS.jsonl is one round: {"architect": "...", "auditor": "..."}. Prints one trace '
            "record per round (JSON Lines) on stdout and a summary on stderr; stops reading at the first stop "
            f"reason ({', '.join(StopReason)}). Exit status: 0 when the rounds ran (whether or not a stop reason "
            "fired), 2 for bad input (with the line number)."
        ),
    )
    odr_run.add_argument("rounds", metavar="ROUNDS.jsonl", help="the rounds, one JSON object per line")
    odr_run.add_argument("--config", metavar="CONFIG.json", help="run configuration (default: the schema defaults)")
    phase1 = commands.add_parser("phase1", help="Phase 1: ingest one paper, retrieve, summarise with citations")
    phase1_commands = phase1.add_subparsers(dest="phase1_command", metavar="PHASE1_COMMAND", required=True)
    summarize = phase1_commands.add_parser(
        "summarize",
        help="summarise a paper for a query, each bullet citing its chunk ids",
        description=(
            'PAPER.json is {"paper_id": ..., "sections": [{"label": ..., "text": ...}]}. Retrieves the top-k chunks '
            "by BM25 and prints one extractive bullet per chunk with the chunk ids and sections it comes from "
            f'(or "{NOT_STATED}"). Exit status: 0 on success, 2 for invalid input (with the reason).'
        ),
    )
    summarize.add_argument("paper", metavar="PAPER.json", help="the paper to summarise")
    summarize.add_argument("--query", required=True, help="what to summarise the paper for")
    summarize.add_argument(
        "--top-k", type=int, default=DEFAULT_TOP_K, help=f"chunks to retrieve (default {DEFAULT_TOP_K})"
    )
    summarize.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or the JSON PipelineResult"
    )
    research = commands.add_parser(
        "research", help="Phase 18: bounded, non-agentic research over local docs and a web search endpoint"
    )
    research_commands = research.add_subparsers(dest="research_command", metavar="RESEARCH_COMMAND", required=True)
    research_run = research_commands.add_parser(
        "run",
        help="answer one research request from its sources, or say why not",
        description=(
            'REQUEST.json is {"query": ..., "requested_mode": "research", "tier": "PRO", "env": "prod", '
            '"already_clarified": false} (schemas/research/request.schema.json). The router grants research by tier '
            "and environment; the query's clauses are searched with the tier's tools under the policy caps; the "
            "answer quotes the sources it cites. When research cannot run or finds nothing usable, the response "
            "says so (ask to clarify, unknown, or the downgrade); the reason is only in --telemetry. "
            "Exit status: 0 whenever a response was produced, 2 for invalid input."
        ),
    )
    research_run.add_argument("request", metavar="REQUEST.json", help="the research request")
    research_run.add_argument("--docs", metavar="DIR", help="a folder of .txt, .md and .json papers (the docs tool)")
    research_run.add_argument("--web", metavar="URL", help="a SearxNG-compatible search endpoint (the web tool)")
    research_run.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or JSON")
    research_run.add_argument("--telemetry", metavar="FILE", help="write the telemetry record (stop reason, calls)")
    research_run.add_argument(
        "--evidence-out", metavar="BUNDLE.json", help="write the sources as an evidence bundle (for validate)"
    )
    research_run.add_argument(
        "--flag", choices=("on", "off"), default="on", help="the research feature flag (off: research is disabled)"
    )
    schema = commands.add_parser(
        "schema",
        help="the schemas and rule tables, for other languages: where they are, or an exported bundle",
        description=(
            "The schemas and rule tables this rcs enforces ship inside it. `rcs schema path` prints their folder; "
            "`rcs schema export DIR` writes every one, with catalog.json (kind, file, $id, version, sha256 of "
            "each), into DIR: a bundle any language loads with no network (SPEC.md 2.4). Exit status: 0 done, "
            "1 a shipped file differs from what this build compiled, 2 DIR cannot be written. `rcs schema diff "
            "--against REF` compares a project's schemas with REF's and says which version bump the changes need "
            "(SPEC.md 2.7; see rcs schema diff --help)."
        ),
    )
    schema_commands = schema.add_subparsers(dest="schema_command", metavar="SCHEMA_COMMAND", required=True)
    schema_commands.add_parser("path", help="print the folder of the shipped schemas and rule tables")
    export = schema_commands.add_parser("export", help="write every schema and rule table, with catalog.json, into DIR")
    export.add_argument("folder", metavar="DIR", help="an empty or new folder, or an earlier export to replace")
    from rcs_contracts.codegen.evolution.cli import build_parser as diff_parser

    diff_parser(
        schema_commands.add_parser(
            "diff", help="what changed since REF, whom it breaks (with a witness), and the version bump it needs"
        )
    )
    auto = commands.add_parser(
        "autoresearch",
        help="supervise one coding-agent session per iteration, keeping, discarding or resetting its commit",
        usage="rcs autoresearch [--max-iterations N] <mission-dir> [codex-args...]\n"
        "       rcs autoresearch [--max-iterations N] --resume <run-id> [codex-args...]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            f"A thin supervisor. Each iteration runs `codex exec {' '.join(CODEX_DEFAULT_ARGS)} <codex-args> -` in\n"
            "the run's git worktree with an instruction snapshot on stdin, reads the candidate.json the session\n"
            "leaves, runs the mission's evaluator, and keeps the commit or resets to the last kept one. The\n"
            "worktree is a throwaway lane, hence that default; any sandbox flag among the codex args\n"
            f"({', '.join(sorted(CODEX_SANDBOX_FLAGS))}) replaces it.\n\n"
            "MISSION-DIR (inside a git repository) holds mission.md and sandbox.md, whose YAML frontmatter\n"
            "names evaluator.command, evaluator.format: json and optionally evaluator.keep_policy\n"
            f"({' | '.join(KEEP_POLICIES)}).\n\n"
            "A fresh launch makes:\n"
            f"  branch     {BRANCH_PREFIX}<mission-slug>/<run-tag>\n"
            f"  worktree   <repo>{WORKTREES_SUFFIX}/{WORKTREE_PREFIX}<mission-slug>-<run-tag>\n"
            f"  run files  <repo>/{LOGS_DIR}/<run-id>/ (manifest, ledger, candidate, latest result)\n"
            f"  lock       <repo>/{STATE_FILE} (one active run per repository)\n\n"
            "Everything after the mission directory (or the run id) goes to codex; put rcs options first.\n"
            f"{CODEX_BINARY_ENV} names another worker binary. Ctrl-C stops cleanly; the run stays resumable."
        ),
        epilog="Exit status: 0 stopped by its rules (abort, noop limit, --max-iterations); 1 needs an operator; "
        "2 refused (bad mission, lock held, resume refused); 130/143 interrupted by SIGINT/SIGTERM.",
    )
    auto.add_argument("--resume", metavar="RUN_ID", help="continue a run from its manifest and last kept commit")
    auto.add_argument(
        "--max-iterations", type=_positive, metavar="N", help="stop (resumable) after N worker iterations"
    )
    auto.add_argument("args", nargs=argparse.REMAINDER, metavar="...", help="<mission-dir> [codex-args...]")
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer: {text}")
    return value


def _progress(done: int, total: int) -> None:
    """A self-overwriting counter on a terminal's stderr, for long runs only."""
    if total >= 500 and (done % 250 == 0 or done == total):
        end = "\n" if done == total else ""
        print(f"\rrcs validate: {done}/{total} files", end=end, file=sys.stderr, flush=True)


def exit_status(collection: Collection) -> int:
    """0 every file checked and valid, 1 any violation, 2 any usage problem, 3 any internal error (it wins)."""
    if collection.crashes:
        return EXIT_INTERNAL
    if collection.usage:
        return EXIT_USAGE
    return EXIT_OK if all(r.valid for r in collection.results) else EXIT_INVALID


def _schema(args: argparse.Namespace) -> int:
    from rcs_contracts.engine import export
    from rcs_contracts.generated.cli import messages as M
    from rcs_contracts.safeio.terminal import printable

    if args.schema_command == "path":
        print(printable(str(export.schemas_path())))
        return EXIT_OK
    try:
        done = export.export(args.folder)
    except export.ExportError as exc:
        print(printable(M.export_refused(reason=str(exc))), file=sys.stderr)
        return EXIT_INVALID if exc.stale else EXIT_USAGE
    print(printable(M.export_written(count=done.files, catalog=export.CATALOG, folder=str(done.folder))))
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    from rcs_contracts.engine import collect, report
    from rcs_contracts.generated.cli import messages as M
    from rcs_contracts.safeio.terminal import printable

    progress = _progress if sys.stderr.isatty() else None
    from pathlib import Path

    from rcs_contracts.engine import project

    try:
        if args.project is not None:
            project.use(Path(args.project))
        else:
            found = project.find(Path.cwd())
            if found is not None:
                project.use(found)
    except project.ProjectError as exc:
        print(printable(M.usage_prefix(problem=M.unusable_project(reason=str(exc)))), file=sys.stderr)
        return EXIT_USAGE
    loaders = None
    if args.evidence is not None or args.claim_policy is not None:
        from rcs_contracts.runtime.evidence.policy import load_claim_policy
        from rcs_contracts.runtime.evidence.store import EvidenceStore

        loaders = collect.EvidenceLoaders(store=EvidenceStore.from_bundle, policy=load_claim_policy)
    from rcs_contracts.engine import freshness

    # Verdicts come from the compiled package: say so when the files it was compiled from moved on.
    compiled_in, changed = freshness.changed_in_use()
    if changed:
        print(printable(M.schemas_changed(files=freshness.named(changed), root=str(compiled_in))), file=sys.stderr)
    collection = collect.collect(args.paths, args.kind, args.evidence, args.claim_policy, progress, loaders)
    # The status is decided before anything is written, so a closed pipe cannot change it.
    status = exit_status(collection)
    try:
        sys.stdout.write(report.as_json(collection) if args.format == "json" else report.text(collection))
        sys.stdout.flush()
    except BrokenPipeError:
        # Keep Python from complaining again at exit about the pipe it cannot flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    for problem in collection.usage:
        print(printable(M.usage_prefix(problem=problem)), file=sys.stderr)
    for crash in collection.crashes:
        print(printable(M.usage_prefix(problem=crash)), file=sys.stderr)
    return status


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: what the encoding cannot show becomes ``\\uXXXX`` (a JSON escape too)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    out = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:  # a UTF-16 surrogate pair, as JSON spells it
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), error.end


class _Guarded(io.TextIOBase):
    """A standard stream that never raises: once writing fails (a closed pipe, a full disk, a closed
    descriptor) the rest of the output is dropped, and the exit status already decided stands."""

    def __init__(self, stream: TextIO | None) -> None:
        self._stream = stream
        self._failed = stream is None

    def write(self, text: str) -> int:
        if not self._failed:
            try:
                assert self._stream is not None
                self._stream.write(text)
            except (OSError, ValueError):
                self._fail()
        return len(text)

    def flush(self) -> None:
        if not self._failed:
            try:
                assert self._stream is not None
                self._stream.flush()
            except (OSError, ValueError):
                self._fail()

    def _fail(self) -> None:
        self._failed = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            # Python flushes the real stream again at exit: give it somewhere harmless to go.
            assert self._stream is not None
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())

    def isatty(self) -> bool:
        try:
            return not self._failed and self._stream is not None and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._stream is None:
            raise OSError("no stream")
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"


def _tolerant_output() -> None:
    """Output can never change the exit status already decided, nor crash rcs.

    Characters the output encoding cannot show (``PYTHONIOENCODING=ascii``) are written as
    ``\\uXXXX``, which keeps JSON output valid JSON; a closed pipe, a full disk or a closed
    descriptor drop the output instead of raising (``_Guarded``).
    """
    codecs.register_error("rcs-json-escape", _json_escape)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="rcs-json-escape")
    sys.stdout = _Guarded(sys.stdout)
    sys.stderr = _Guarded(sys.stderr)


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM ends a command as SIGINT does, with its own status (autoresearch installs its own)."""
    raise SystemExit(EXIT_SIGTERM)


def _codex_args_verbatim(arguments: list[str]) -> list[str]:
    """``arguments`` with a ``--`` after ``autoresearch --resume RUN_ID`` and the rcs options before it.

    argparse starts a REMAINDER only at a positional argument, so codex args after a run id that
    begin with a dash (``--resume run-1 --sandbox workspace-write``) were refused as rcs options;
    everything after the run id is codex's, as after the mission directory.
    """
    if arguments[:1] != ["autoresearch"]:
        return arguments
    index, resumed = 1, False
    while index < len(arguments):
        token = arguments[index]
        if token == "--":
            return arguments
        if token in ("--resume", "--max-iterations") and index + 1 < len(arguments):
            resumed |= token == "--resume"
            index += 2
        elif token.startswith(("--resume=", "--max-iterations=")):
            resumed |= token.startswith("--resume=")
            index += 1
        else:
            break
    if not resumed or index >= len(arguments):
        return arguments
    return [*arguments[:index], "--", *arguments[index:]]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rcs`` console script."""
    arguments = sys.argv[1:] if argv is None else argv
    if argv is None:  # the console script, not a caller in-process: the streams and handlers are ours
        _tolerant_output()
        if arguments[:1] in (["validate"], ["odr"], ["phase1"], ["research"]):
            # Nothing of these needs cleaning up, and a long call inside Rust (a 16 MiB document, a
            # regex over a long round) would hold a Python handler off: the kernel's default ends
            # them at once, as 130/143 to the shell.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        else:
            signal.signal(signal.SIGTERM, _terminate)
    try:
        if arguments == ["--version"]:  # before the parser, which imports the generated tables
            from rcs_contracts.base.about import VERSION_LINE

            print(VERSION_LINE)
            return EXIT_OK
        if arguments[:2] == ["schema", "diff"]:
            # A compiler tool: it reads the schemas, not generated/, which may be stale or broken.
            from rcs_contracts.codegen.evolution.cli import main as diff_main

            return diff_main(arguments[2:])
        if arguments[:1] == ["codegen"]:
            # The compiler must run even when generated/ is stale or broken (a removed constant, a bad
            # hand edit): it is what repairs it, so it is reached without importing generated/.
            from rcs_contracts.codegen.cli import main as codegen_main

            return codegen_main(arguments[1:])
        args = _parser().parse_args(_codex_args_verbatim(arguments))
        if args.command == "phase1":
            from rcs_contracts.runtime.phase1.command import main as phase1_main

            return phase1_main(args.paper, args.query, args.top_k, args.format)
        if args.command == "research":
            from rcs_contracts.runtime.research.command import main as research_main

            return research_main(
                args.request, args.docs, args.web, args.format, args.telemetry, args.evidence_out, args.flag
            )
        if args.command == "autoresearch":
            from rcs_contracts.runtime.autoresearch.command import main as autoresearch_main

            return autoresearch_main(args.args, args.resume, args.max_iterations)
        if args.command == "schema":
            return _schema(args)
        if args.command == "odr":
            from rcs_contracts.runtime.odr.command import main as odr_main

            return odr_main(args.rounds, args.config)
        return _validate(args)
    except KeyboardInterrupt:
        return EXIT_SIGINT
    except Exception as exc:  # a bug in rcs: say so in one line rather than a traceback
        from rcs_contracts.generated.cli import messages as M
        from rcs_contracts.safeio.terminal import printable

        print(printable(M.internal_error(kind=type(exc).__name__, detail=str(exc))), file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
