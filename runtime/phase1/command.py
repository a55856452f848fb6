"""``rcs phase1 summarize PAPER.json --query "..." [--top-k N] [--format text|json]``."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from rcs_contracts.base.exit_status import EXIT_OK, EXIT_USAGE
from rcs_contracts.engine import inputs, kinds, validation
from rcs_contracts.generated._support import RcsError, format_location
from rcs_contracts.generated.cli import messages as M
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.generated.phase1.config import MODES
from rcs_contracts.generated.phase1.paper_schema import KIND as PAPER_KIND
from rcs_contracts.generated.phase1.paper_schema import Paper
from rcs_contracts.runtime.phase1.pipeline import ingest_document, summarise_ingested
from rcs_contracts.safeio import files
from rcs_contracts.safeio.terminal import printable, printable_json


def load_paper(path: str) -> Paper:
    """A paper file validated against its schema from its JSON text (R-GEN-3)."""
    model = validation.validate(kinds.resolve(PAPER_KIND), inputs.read_bytes(path, Input.PAPER), validation.Context())
    assert isinstance(model, Paper)
    return model


def run(path: str, query: str, top_k: int, output: str, out: TextIO, err: TextIO) -> int:
    """Summarise one paper for one query; exit 2 with the reason for any invalid input."""
    try:
        paper = load_paper(path)
    except OSError as exc:
        print(printable(M.phase1_prefix(problem=M.unreadable(path=path, reason=files.reason(exc)))), file=err)
        return EXIT_USAGE
    except RcsError as exc:
        where = f" (at {format_location(exc.location)})" if exc.location else ""
        print(printable(M.phase1_prefix(problem=M.phase1_bad_paper(path=path, detail=f"{exc}{where}"))), file=err)
        return EXIT_USAGE
    sections = [(s.label, s.text) for s in paper.sections]
    try:
        ingested = ingest_document(paper.paper_id, sections)
        result = summarise_ingested(ingested, query, MODES[0], top_k)
    except RcsError as exc:  # the contract's ValueErrors: empty paper or query, top_k, labels
        print(printable(M.phase1_prefix(problem=str(exc))), file=err)
        return EXIT_USAGE
    if output == "json":
        document = result.model_dump(mode="json")  # mutation: equivalent: a result holds only JSON types
        out.write(printable_json(json.dumps(document, indent=2, ensure_ascii=False)) + "\n")
        return EXIT_OK
    section_of = {c.chunk_id: c.section for c in ingested.chunks}
    lines = [
        M.phase1_header(
            paper_id=result.paper_id,
            bullets=result.summary_bullet_count,
            unsupported=result.unsupported_bullet_count,
            retrieved=len(result.retrieved_chunk_ids),
            query=query,
        )
    ]
    for bullet in result.summary.bullets:
        cited = ", ".join(f"{cid} ({section_of[cid]})" for cid in bullet.chunk_ids)
        lines.append(f"- {bullet.text}" + (f"  [{cited}]" if cited else ""))
    # Paper text is others' text: one line per bullet, with any control character escaped.
    out.write("\n".join(printable(line) for line in lines) + "\n")
    return EXIT_OK


def main(path: str, query: str, top_k: int, output: str) -> int:
    """Entry point used by ``runtime.cli``."""
    return run(path, query, top_k, output, sys.stdout, sys.stderr)
