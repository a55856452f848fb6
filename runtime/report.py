"""Report: render collected results as text or JSON (nothing is validated or decided here)."""

from __future__ import annotations

import json

from generated.cli import messages as M
from runtime.collect import Collection


def text(collection: Collection) -> str:
    """One line per violation, ``PATH: ErrorClass: message (at LOCATION)``, then a summary line."""
    lines: list[str] = []
    for result in collection.results:
        for v in result.violations:
            where = f" (at {v.location})" if v.location != "$" else ""
            lines.append(f"{result.path}: {v.error}: {v.message}{where}")
    lines.append(summary(collection))
    return "\n".join(lines) + "\n"


def summary(collection: Collection) -> str:
    """The closing summary line."""
    results = collection.results
    valid = sum(1 for r in results if r.valid)
    return M.summary(
        files=len(results),
        valid=valid,
        invalid=len(results) - valid,
        violations=sum(len(r.violations) for r in results),
    )


def as_json(collection: Collection) -> str:
    """A JSON list of ``{path, kind, valid, errors: [{error, message, location}]}``."""
    payload = [
        {
            "path": r.path,
            "kind": r.kind,
            "valid": r.valid,
            "errors": [{"error": v.error, "message": v.message, "location": v.location} for v in r.violations],
        }
        for r in collection.results
    ]
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
