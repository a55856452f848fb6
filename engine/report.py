"""Report: render collected results as text or JSON (nothing is validated or decided here)."""

from __future__ import annotations

import json

from rcs_contracts.engine.collect import Collection
from rcs_contracts.generated.cli import messages as M
from rcs_contracts.safeio.terminal import printable, printable_json


def text(collection: Collection) -> str:
    """One line per violation, ``PATH: ErrorClass: message (at LOCATION)``, then a summary line.

    Paths, messages (which quote the artifact's values) and locations are others' text: control
    characters in them are escaped, so no file can print a line of its own.
    """
    lines: list[str] = []
    for result in collection.results:
        for v in result.violations:
            where = f" (at {v.location})" if v.location != "$" else ""
            lines.append(printable(f"{result.path}: {v.error}: {v.message}{where}"))
        if result.crashed is not None:
            lines.append(printable(f"{result.path}: {M.crash_error()}: {result.crashed}"))
    lines.append(summary(collection))
    return "\n".join(lines) + "\n"


def summary(collection: Collection) -> str:
    """The closing summary line; files that could not be checked are counted apart, never as valid."""
    results = collection.results
    valid = sum(1 for r in results if r.valid)
    unchecked = sum(1 for r in results if r.unchecked is not None)
    crashed = sum(1 for r in results if r.crashed is not None)
    counts = {
        "files": len(results),
        "valid": valid,
        "invalid": len(results) - valid - unchecked - crashed,
        "violations": sum(len(r.violations) for r in results),
    }
    if crashed:
        return M.summary_crashed(**counts, unchecked=unchecked, crashed=crashed)
    return M.summary_unchecked(**counts, unchecked=unchecked) if unchecked else M.summary(**counts)


def as_json(collection: Collection) -> str:
    """A JSON list of ``{path, kind, valid, errors: [{error, message, location}]}``.

    A file that could not be checked is ``valid: false`` with one ``UsageError`` entry saying why;
    one that hit an internal error, with one ``InternalError`` entry (the run exits 3).
    """
    payload = []
    for r in collection.results:
        errors = [{"error": v.error, "message": v.message, "location": v.location} for v in r.violations]
        if r.unchecked is not None:
            errors.append({"error": M.not_checked_error(), "message": r.unchecked, "location": "$"})
        if r.crashed is not None:
            errors.append({"error": M.crash_error(), "message": r.crashed, "location": "$"})
        payload.append({"path": r.path, "kind": r.kind, "valid": r.valid, "errors": errors})
    return printable_json(json.dumps(payload, indent=2, ensure_ascii=False)) + "\n"
