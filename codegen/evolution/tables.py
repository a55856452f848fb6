"""Compare two versions of a rule table: codes, messages, orders and values (SPEC.md 2.7).

A rule table is behaviour, not a shape, so the classes here are the contract's, not an instance's:

* an entry removed or renamed (a list of records is matched by its identifying field: ``code``,
  ``id``, ``name``, ...) breaks whoever relies on it: backward;
* an entry added is new behaviour old consumers do not know: forward;
* a list whose order changed (a priority, a precedence, a section order) is backward: the order is
  the rule in these tables;
* a message whose placeholders changed breaks its callers: backward; its wording alone does not;
* any other value changed (a default, a limit, a flag) is backward;
* prose (``description``, ``doc``, ``trigger``, ...) and the contract table itself are compatible:
  the version is what the diff checks, not a change.

No witness applies: a table is judged by the code generated from it, not by a schema.
"""

from __future__ import annotations

import string
from typing import Any

from rcs_contracts.codegen import research_tables
from rcs_contracts.codegen.evolution.compare import BACKWARD, FORWARD, NONE, Change, text
from rcs_contracts.codegen.positions import escape

# Fields that explain a rule without being one.
PROSE = frozenset({"description", "doc", "trigger", "meaning", "note", "notes", "title", "help", "comment", "why"})
# Fields that name a record in a list, in order of preference.
IDENTITIES = ("code", "id", "name", "key", "reason", "budget", "section", "tier", "tool", "kind", "version")
# Fields holding message templates: a change of their placeholders breaks callers.
TEMPLATES = frozenset({"message", "template", "text"})
CONTRACT = "contract"


def _placeholders(value: str) -> frozenset[str] | None:
    try:
        return frozenset(name for _, name, _, _ in string.Formatter().parse(value) if name)
    except ValueError:
        return None


def _identity(items: list[Any]) -> str | None:
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in IDENTITIES:
        values = [i.get(key) for i in items]
        if all(isinstance(v, str | int) and not isinstance(v, bool) for v in values) and len(set(values)) == len(
            values
        ):
            return key
    return None


class _Walk:
    def __init__(self, file: str, table: str) -> None:
        self.file = file
        self.table = table
        self.found: list[Change] = []

    def emit(self, ptr: str, keyword: str, claims: frozenset[str], summary: str) -> None:
        self.found.append(Change(self.file, ptr, ptr, keyword, claims, summary))

    def value(self, old: Any, new: Any, ptr: str, field: str, label: str = "") -> None:
        """``ptr`` finds the line; ``label`` names the place for a reader (records by their identity)."""
        if old == new and type(old) is type(new):
            return
        where = f"{self.table}{label}" if label else self.table
        if isinstance(old, dict) and isinstance(new, dict):
            self.mapping(old, new, ptr, label)
        elif isinstance(old, list) and isinstance(new, list):
            self.sequence(old, new, ptr, field, label)
        elif field in PROSE:
            self.emit(ptr, field, NONE, f"{where} reworded")
        elif field in TEMPLATES and isinstance(old, str) and isinstance(new, str):
            before, after = _placeholders(old), _placeholders(new)
            if before == after:
                self.emit(ptr, field, NONE, f"{where} reworded (same placeholders)")
            else:
                shown = ", ".join(sorted((before or frozenset()) ^ (after or frozenset())))
                self.emit(ptr, field, frozenset({BACKWARD}), f"{where}: message placeholders changed ({shown})")
        else:
            self.emit(ptr, field, frozenset({BACKWARD}), f"{where} changed: {text(old)} -> {text(new)}")

    def mapping(self, old: dict[str, Any], new: dict[str, Any], ptr: str, label: str) -> None:
        for key in sorted(set(old) | set(new), key=str):
            at = f"{ptr}/{escape(key)}"
            where = f"{self.table}{label}/{escape(key)}"
            if key in old and key in new:
                self.value(old[key], new[key], at, str(key), f"{label}/{escape(key)}")
            elif str(key) in PROSE:
                self.emit(at, str(key), NONE, f"{where} {'added' if key in new else 'removed'}")
            elif key in new:
                self.emit(at, str(key), frozenset({FORWARD}), f"{where} added")
            else:
                self.emit(at, str(key), frozenset({BACKWARD}), f"{where} removed")

    def sequence(self, old: list[Any], new: list[Any], ptr: str, field: str, label: str) -> None:
        where = f"{self.table}{label}"
        key = _identity(old) if _identity(old) == _identity(new) else None
        if key is None:
            if sorted(map(text, old)) == sorted(map(text, new)):
                self.emit(ptr, field, frozenset({BACKWARD}), f"{where} reordered: {text(old)} -> {text(new)}")
                return
            for item in [i for i in old if text(i) not in set(map(text, new))]:
                self.emit(ptr, field, frozenset({BACKWARD}), f"{where}: {text(item)} removed")
            for item in [i for i in new if text(i) not in set(map(text, old))]:
                self.emit(ptr, field, frozenset({FORWARD}), f"{where}: {text(item)} added")
            kept_old = [text(i) for i in old if text(i) in set(map(text, new))]
            kept_new = [text(i) for i in new if text(i) in set(map(text, old))]
            if kept_old != kept_new:
                self.emit(ptr, field, frozenset({BACKWARD}), f"{where} reordered")
            return
        before = {item[key]: (index, item) for index, item in enumerate(old)}
        after = {item[key]: (index, item) for index, item in enumerate(new)}
        for name in [n for n in before if n not in after]:
            index = before[name][0]
            self.emit(f"{ptr}/{index}", field, frozenset({BACKWARD}), f"{where}: {key} {text(name)} removed")
        for name in [n for n in after if n not in before]:
            index = after[name][0]
            self.emit(f"{ptr}/{index}", field, frozenset({FORWARD}), f"{where}: {key} {text(name)} added")
        kept_old = [n for n in before if n in after]
        kept_new = [n for n in after if n in before]
        if kept_old != kept_new:
            self.emit(ptr, field, frozenset({BACKWARD}), f"{where} reordered: {text(kept_old)} -> {text(kept_new)}")
        for name in kept_new:
            self.value(
                before[name][1], after[name][1], f"{ptr}/{after[name][0]}", field, f"{label}/{escape(str(name))}"
            )


def table_changes(file: str, table: str, kind: str, old: Any, new: Any) -> list[Change]:
    """Every change between two versions of the rule table ``table`` (``<domain>/<name>``)."""
    if kind == CONTRACT:
        return []
    walk = _Walk(file, table)
    before = research_tables.versioned_content(kind, old)
    after = research_tables.versioned_content(kind, new)
    walk.value(before, after, "", "")
    if not walk.found and _raw(old) != _raw(new):
        # SPEC 12.5: what the version does not cover (the injection rules) is tuned against corpora
        walk.emit("", "", NONE, f"{table} changed outside what its contract version covers (tuning)")
    return walk.found


def _raw(data: Any) -> Any:
    return {k: v for k, v in data.items() if k not in ("$schema", "contract_version")}
