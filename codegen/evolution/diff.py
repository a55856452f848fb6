"""``rcs schema diff``: both sides compared, every claim searched for a witness, each domain's
version held to its changes (SPEC.md 2.7)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rcs_contracts.codegen.contracts import KIND as CONTRACT
from rcs_contracts.codegen.evolution import compare, sides, tables, versions
from rcs_contracts.codegen.evolution.compare import BACKWARD, FORWARD, Change
from rcs_contracts.codegen.evolution.witness import Search, Witness
from rcs_contracts.codegen.positions import line_of

EXAMPLES = "examples"  # a project folder of artifacts, tried first as hosts of witnesses


@dataclass(frozen=True)
class Entry:
    """One reported change in one direction (or once, when compatible)."""

    file: str
    line: int
    pointer: str
    subject: str  # the kind (``evidence/literature_map``) or rule table (``evidence/errors``)
    direction: str  # backward, forward, or compatible
    summary: str
    table: bool = False
    witness: Witness | None = None  # None: not searched (a rule table, or --no-witness)

    @property
    def status(self) -> str:
        """breaking, possibly (a claim no witness was found for), or compatible."""
        if self.direction == "compatible":
            return "compatible"
        return "possibly" if self.witness is not None and not self.witness.found else "breaking"

    @property
    def domain(self) -> str:
        """The domain the change belongs to."""
        return self.subject.split("/")[0]


@dataclass(frozen=True)
class Result:
    """Everything ``rcs schema diff`` reports."""

    against: str
    mode: str
    entries: tuple[Entry, ...]
    verdicts: tuple[versions.Verdict, ...]

    @property
    def ok(self) -> bool:
        """Every domain's contract version covers its changes."""
        return all(v.ok for v in self.verdicts)


@dataclass(frozen=True)
class _Found:
    change: Change
    subject: str
    lines: dict[str, int]
    table: bool = False
    kind_level: str | None = None  # "removed" / "added": the whole kind


def _collect(old: sides.Side, new: sides.Side) -> list[_Found]:
    found: list[_Found] = []
    for kind in sorted(set(old.kinds) | set(new.kinds)):
        before, after = old.kinds.get(kind), new.kinds.get(kind)
        if before is not None and after is not None:
            for change in compare.schema_changes(after.rel, before.data, after.data, kind):
                found.append(_Found(change, kind, after.lines))
        elif before is not None:
            change = Change(before.rel, "", "", "kind", frozenset({BACKWARD}), f"kind {kind} removed")
            found.append(_Found(change, kind, before.lines, kind_level="removed"))
        elif after is not None:
            change = Change(after.rel, "", "", "kind", frozenset({FORWARD}), f"kind {kind} added")
            found.append(_Found(change, kind, after.lines, kind_level="added"))
    for name in sorted(set(old.tables) | set(new.tables)):
        was, now = old.tables.get(name), new.tables.get(name)
        if was is not None and now is not None:
            if was.kind != now.kind:
                summary = f"rule table {name} is now a {now.kind} table, not a {was.kind} one"
                change = Change(now.source.rel, "/$schema", "", "$schema", frozenset({BACKWARD}), summary)
                found.append(_Found(change, name, now.source.lines, table=True))
                continue
            for change in tables.table_changes(now.source.rel, name, now.kind, was.source.data, now.source.data):
                found.append(_Found(change, name, now.source.lines, table=True))
        elif was is not None and was.kind != CONTRACT:
            change = Change(was.source.rel, "", "", "table", frozenset({BACKWARD}), f"rule table {name} removed")
            found.append(_Found(change, name, was.source.lines, table=True))
        elif now is not None and now.kind != CONTRACT:
            change = Change(now.source.rel, "", "", "table", frozenset({FORWARD}), f"rule table {name} added")
            found.append(_Found(change, name, now.source.lines, table=True))
    return found


def _version(side: sides.Side, domain: str) -> str | None:
    table = side.tables.get(f"{domain}/{CONTRACT}")
    found = table.content.get("contract_version") if table is not None else None
    return found if isinstance(found, str) else None


def run(
    root: Path,
    against: str,
    mode: str = "backward",
    witnesses: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Result:
    """Compare the project at ``root`` with ``against``; raises ``sides.SideError``."""
    new = sides.working(root)
    old = sides.against(root, against)
    found = _collect(old, new)
    search = Search(old, new, root / EXAMPLES) if witnesses else None  # compiles both sides' validators
    claims = sum(len(f.change.claims) for f in found if not f.table) if witnesses else 0
    done = 0
    entries: list[Entry] = []
    for item in found:
        change = item.change
        line = line_of(item.lines, change.pointer)
        if not change.claims:
            entries.append(
                Entry(change.file, line, change.pointer, item.subject, "compatible", change.summary, item.table)
            )
            continue
        for direction in sorted(change.claims):
            witness: Witness | None = None
            if search is not None and not item.table:
                if item.kind_level is not None:
                    witness = search.instance(old if item.kind_level == "removed" else new, item.subject)
                else:
                    witness = search.find(change, direction, item.subject)
                done += 1
                if progress is not None:
                    progress(done, claims)
            entries.append(
                Entry(change.file, line, change.pointer, item.subject, direction, change.summary, item.table, witness)
            )
    entries.sort(key=lambda e: (e.file, e.line, e.pointer, e.direction, e.summary))
    domains = sorted({e.domain for e in entries} | {d.name for d in new.project.domains})
    verdicts = []
    for domain in domains:
        changed = [f.change.claims for f in found if f.subject.split("/")[0] == domain]
        before, after = _version(old, domain), _version(new, domain)
        level = versions.needed(changed, mode)
        bump = versions.made(before, after) if before is not None and after is not None else None
        verdicts.append(versions.Verdict(domain, before, after, level, bump))
    return Result(against, mode, tuple(entries), tuple(verdicts))


def as_json(result: Result) -> dict[str, Any]:
    """The report as stable JSON (keys and order fixed; SPEC.md 2.7)."""
    changes = []
    for entry in result.entries:
        item: dict[str, Any] = {
            "file": entry.file,
            "line": entry.line,
            "pointer": entry.pointer,
            "subject": entry.subject,
            "class": entry.direction,
            "status": entry.status,
            "summary": entry.summary,
        }
        if entry.witness is not None and entry.witness.found:
            item["witness"] = {"kind": entry.witness.kind, "instance": entry.witness.instance}
        elif entry.witness is not None:
            item["reason"] = entry.witness.reason
        changes.append(item)
    domains = [
        {"domain": v.domain, "old": v.old, "new": v.new, "needed": v.needed, "made": v.made, "ok": v.ok}
        for v in result.verdicts
    ]
    return {"against": result.against, "mode": result.mode, "ok": result.ok, "changes": changes, "domains": domains}
