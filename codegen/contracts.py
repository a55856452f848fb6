"""Contract tables (``<domain>/contract.yaml``): a version per domain and what each version changed.

The table is the truth ``rcs schema diff`` holds the changes to (SPEC.md 2.7); here only its own
consistency: one per domain, and a changelog that starts at the current version and goes back in
strictly falling versions, so the generated CHANGELOG section reads newest first.
"""

from __future__ import annotations

from collections.abc import Iterator

from rcs_contracts.codegen.diagnostics import Diagnostic
from rcs_contracts.codegen.sources import Domain

KIND = "contract"


def semver(text: str) -> tuple[int, int, int]:
    """``"1.2.3"`` as ``(1, 2, 3)`` (the table schema allows nothing else)."""
    major, minor, patch = text.split(".")
    return int(major), int(minor), int(patch)


def version(domain: Domain) -> str | None:
    """The domain's contract version, or None when it has no contract table."""
    for table in domain.tables:
        if table.kind == KIND:
            found: str = table.content["contract_version"]
            return found
    return None


def lint(domain: Domain) -> Iterator[Diagnostic]:
    """The contract table rules of one domain."""
    tables = [t for t in domain.tables if t.kind == KIND]
    for extra in tables[1:]:
        where = extra.source.lines.get("/$schema", 1)
        yield Diagnostic(
            extra.source.rel, where, f"a second contract table in {domain.name} ({tables[0].source.rel} is the one)"
        )
    if not tables:
        return
    table = tables[0]
    lines = table.source.lines
    current = table.content["contract_version"]
    entries = table.content["changelog"]
    if entries[0]["version"] != current:
        message = f"the changelog must start with contract_version {current}'s entry, not {entries[0]['version']}'s"
        yield Diagnostic(table.source.rel, lines.get("/changelog/0/version", 1), message)
    for index in range(1, len(entries)):
        newer, older = entries[index - 1]["version"], entries[index]["version"]
        if semver(older) >= semver(newer):
            message = f"changelog versions must fall, newest first: {older} after {newer}"
            yield Diagnostic(table.source.rel, lines.get(f"/changelog/{index}/version", 1), message)
