"""Versions: the bump a domain's changes need, against the bump its contract table made.

With the default mode, ``backward``, a backward-incompatible change needs a major bump (consumers
that upgrade first would reject data they accepted), a forward-incompatible one a minor bump, a
compatible one a patch. ``forward`` swaps the two (producers upgrade first); ``full`` makes both
major. A claim with no witness counts as the rules claim it: the gate fails closed (SPEC.md 2.7).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rcs_contracts.codegen.contracts import semver
from rcs_contracts.codegen.evolution.compare import BACKWARD, FORWARD

MODES = ("backward", "forward", "full")
LEVELS = ("none", "patch", "minor", "major")
_MAJOR = {"backward": {BACKWARD}, "forward": {FORWARD}, "full": {BACKWARD, FORWARD}}


def needed(claims: Iterable[frozenset[str]], mode: str) -> str:
    """The least bump that covers changes with these claims (one set per change)."""
    level = 0
    for found in claims:
        if found & _MAJOR[mode]:
            return "major"
        level = max(level, 2 if found else 1)
    return LEVELS[level]


def made(old: str, new: str) -> str | None:
    """The bump from ``old`` to ``new`` (``none`` when equal), or None when ``new`` is lower."""
    a, b = semver(old), semver(new)
    if b < a:
        return None
    if b[0] > a[0]:
        return "major"
    if b[1] > a[1]:
        return "minor"
    return "patch" if b[2] > a[2] else "none"


def next_version(old: str, level: str) -> str:
    """The lowest version ``level`` above ``old``."""
    major, minor, patch = semver(old)
    if level == "major":
        return f"{major + 1}.0.0"
    if level == "minor":
        return f"{major}.{minor + 1}.0"
    if level == "patch":
        return f"{major}.{minor}.{patch + 1}"
    return old


@dataclass(frozen=True)
class Verdict:
    """One domain's versions and whether the new one covers its changes."""

    domain: str
    old: str | None
    new: str | None
    needed: str
    made: str | None

    @property
    def ok(self) -> bool:
        """The new version is at least the bump the changes need (nothing to hold without both)."""
        if self.old is None or self.new is None:
            return True
        return self.made is not None and LEVELS.index(self.made) >= LEVELS.index(self.needed)

    @property
    def advice(self) -> str:
        """One sentence for the report."""
        if self.new is None:
            return f"{self.domain}: no contract version to check (add schemas/{self.domain}/contract.yaml)"
        if self.old is None:
            return f"{self.domain}: contract {self.new} is new; nothing to compare it with"
        if self.made is None:
            return f"{self.domain}: contract_version went down, {self.old} -> {self.new}"
        if self.ok:
            return f"{self.domain}: contract {self.old} -> {self.new} covers the changes ({self.needed} needed)"
        least = next_version(self.old, self.needed)
        return (
            f"{self.domain}: the changes need a {self.needed} bump (at least {least}), "
            f"but contract_version is {self.new}"
        )
