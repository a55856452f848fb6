"""What a run says about itself: results.tsv, the ledger summary for the worker, progress lines, the end table."""

from __future__ import annotations

from collections.abc import Sequence

from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch import messages as M
from rcs_contracts.generated.autoresearch.ledger_schema import LedgerEntry


def sanitise(text: str) -> str:
    """One TSV field: tabs, newlines and other control characters become single spaces (R-AR-7)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def number(value: float | None) -> str:
    """A score as text: ``-`` when absent, else the shortest repr that round-trips."""
    return "-" if value is None else repr(value)


def short(value: float | None) -> str:
    """A score for people: six significant digits, ``-`` when absent."""
    return "-" if value is None else f"{value:.6g}"


def _flag(value: bool | None) -> str:
    return "-" if value is None else str(value).lower()


def row(entry: LedgerEntry) -> dict[str, str]:
    """The results.tsv fields of one ledger entry (full SHAs, R-AR-7)."""
    return {
        "iteration": str(entry.iteration),
        "commit": entry.candidate_commit or entry.base_commit,
        "decision": entry.decision,
        "pass": _flag(entry.passed),
        "score": number(entry.score),
        "kept_score": number(entry.kept_score),
        "description": entry.description,
    }


def results_tsv(entries: Sequence[LedgerEntry]) -> str:
    """The whole results.tsv, rebuilt from the ledger so the two can never disagree."""
    lines = ["\t".join(C.RESULTS_COLUMNS)]
    for entry in entries:
        fields = row(entry)
        lines.append("\t".join(sanitise(fields[c]) for c in C.RESULTS_COLUMNS))
    return "\n".join(lines) + "\n"


def summary(entries: Sequence[LedgerEntry]) -> str:
    """The recent-ledger summary for the instruction snapshot, bounded in entries and characters."""
    lines = [
        f"- iteration {e.iteration}: {e.decision} ({sanitise(e.reason)}); score {number(e.score)}, "
        f"kept {number(e.kept_score)}; {sanitise(e.description) or '-'}"
        for e in entries[-C.LEDGER_SUMMARY_ENTRIES :]
    ]
    # The oldest goes first, but the newest stays (cut below if it alone is too long).
    while len(lines) > 1 and sum(len(line) + 1 for line in lines) - 1 > C.LEDGER_SUMMARY_CHARS:
        lines.pop(0)
    if lines and len(lines[-1]) > C.LEDGER_SUMMARY_CHARS:
        lines = [lines[-1][: C.LEDGER_SUMMARY_CHARS - 1] + "…"]
    return "\n".join(lines) if lines else M.no_history()


def progress(entry: LedgerEntry, elapsed: float) -> str:
    """The one line printed per iteration."""
    return M.progress(
        iteration=entry.iteration,
        decision=entry.decision,
        score=short(entry.score),
        kept=short(entry.kept_score),
        elapsed=f"{elapsed:.1f}",
        description=sanitise(entry.description)[:60],
    )


def table(entries: Sequence[LedgerEntry]) -> str:
    """A short aligned table of the run for the end of the command."""
    header = ("iter", "decision", "pass", "score", "kept", "commit", "description")
    rows = [
        (
            str(e.iteration),
            e.decision,
            _flag(e.passed),
            short(e.score),
            short(e.kept_score),
            (e.candidate_commit or e.base_commit)[:12],
            sanitise(e.description)[:48],
        )
        for e in entries
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        # mutation: equivalent: every row has the header's length, so strict= never has to check
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    )
