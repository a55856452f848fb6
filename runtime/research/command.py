"""``rcs research run REQUEST.json [--docs DIR] [--web URL] [--format text|json] [--telemetry FILE]
[--evidence-out BUNDLE.json] [--flag on|off]``.

Prints the response: text (the answer with its citations, or the clarify, unknown or downgrade
sentence) or the response document as JSON. Exit 0 whenever a response was produced (a downgrade is
a response), 2 for bad input. The stop reason is never printed (R-RS-8): it is in the telemetry file.
Output paths are checked before any tool runs (one file named twice, a missing or unwritable folder,
a folder); the response is printed before they are written, and a pipe or device (``/dev/stdout``)
is written to, never replaced. A write that still fails is reported with exit 2.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import TextIO

from pydantic import BaseModel

from rcs_contracts.base.exit_status import EXIT_OK, EXIT_USAGE
from rcs_contracts.engine import inputs, kinds, validation
from rcs_contracts.generated._support import RcsError, format_location
from rcs_contracts.generated.cli import messages as M
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.generated.research.request_schema import KIND as REQUEST_KIND
from rcs_contracts.generated.research.request_schema import ResearchRequest
from rcs_contracts.generated.research.response_schema import ResearchResponse
from rcs_contracts.runtime.research.adapter import make_tools
from rcs_contracts.runtime.research.evidence import to_evidence
from rcs_contracts.runtime.research.session import run_research
from rcs_contracts.safeio import files
from rcs_contracts.safeio.terminal import printable, printable_json


def _fail(err: TextIO, problem: str) -> int:
    print(printable(M.research_prefix(problem=problem)), file=err)
    return EXIT_USAGE


def _dump(model: BaseModel) -> str:
    # mutation: equivalent: these documents hold only JSON types, and "$schema" (the one alias) is never set
    data = model.model_dump(mode="json", by_alias=True)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def run(
    path: str,
    docs: str | None,
    web: str | None,
    output: str,
    telemetry: str | None,
    evidence_out: str | None,
    enabled: bool,
    out: TextIO,
    err: TextIO,
) -> int:
    """Run one research request; exit 2 with the reason for any invalid input."""
    try:
        model = validation.validate(
            kinds.resolve(REQUEST_KIND), inputs.read_bytes(path, Input.RESEARCH_REQUEST), validation.Context()
        )
    except OSError as exc:
        return _fail(err, M.unreadable(path=path, reason=files.reason(exc)))
    except RcsError as exc:
        where = f" (at {format_location(exc.location)})" if exc.location else ""
        return _fail(err, M.research_bad_request(path=path, detail=f"{exc}{where}"))
    assert isinstance(model, ResearchRequest)
    try:
        tools = make_tools(docs=docs, web=web)
    except RcsError as exc:
        return _fail(err, str(exc))
    # The outputs are bad input too, found before any tool runs (a call may cost budget units).
    if telemetry is not None and evidence_out is not None and files.same_file(telemetry, evidence_out):
        return _fail(err, M.research_same_output(path=evidence_out))
    for target in [path for path in (telemetry, evidence_out) if path is not None]:
        try:
            files.check_output(target)
        except OSError as exc:
            return _fail(err, M.research_write_failed(path=target, reason=files.reason(exc)))
    if not tools:  # a valid run (the router is still asked), but never what a user meant to do
        print(M.research_no_tool(), file=err)
    result = run_research(model, tools, enabled=enabled)
    _print(result.response, output, out)
    writes: list[tuple[str, str]] = []
    if telemetry is not None:
        writes.append((telemetry, _dump(result.telemetry)))
    if evidence_out is not None:
        captured = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        writes.append((evidence_out, _dump(to_evidence(result.bundle, result.response, captured))))
    for target, text in writes:
        try:
            files.write_output(target, text)
        except OSError as exc:  # named by the path asked for: the temporary file's name means nothing
            return _fail(err, M.research_write_failed(path=target, reason=files.reason(exc)))
    return EXIT_OK


def _print(response: ResearchResponse, output: str, out: TextIO) -> None:
    """The response as the user asked for it (printed before the output files are written, so that
    a write that fails after all loses nothing)."""
    if output == "json":
        out.write(printable_json(_dump(response)))
        return
    lines = [M.research_header(action=response.action, text=response.text)]
    number = {s.source_id: i for i, s in enumerate(response.sources, 1)}
    for bullet in response.bullets:
        lines.append(f"- {bullet.text} " + "".join(f"[{number[sid]}]" for sid in bullet.source_ids))
    for source in response.sources:
        lines.append(f"[{number[source.source_id]}] {source.locator}" + (f" ({source.title})" if source.title else ""))
    # Source text is others' text: one line each, with any control character escaped.
    out.write("\n".join(printable(line) for line in lines) + "\n")


def main(
    path: str,
    docs: str | None,
    web: str | None,
    output: str,
    telemetry: str | None,
    evidence_out: str | None,
    flag: str,
) -> int:
    """Entry point used by ``runtime.cli``."""
    return run(path, docs, web, output, telemetry, evidence_out, flag == "on", sys.stdout, sys.stderr)
