"""How many examples of a property test were valid and how many rejected, so neither side can silently vanish.

A hypothesis test body runs once per example, so the tally cannot live in it. The pattern: a plain
test function makes a ``Share``, defines its property as an inner ``@given`` function that calls
``share.count(...)`` once per verdict, calls that inner function (hypothesis-decorated functions take
no arguments), then calls ``share.check()``, which prints the share (visible with ``pytest -s``) and
fails when either side falls under the floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class Share:
    """The valid and rejected verdicts one property test saw, and the least share each side must have."""

    name: str
    minimum: float = 0.1  # a share under this means the strategy has drifted to one side
    valid: int = 0
    rejected: int = 0

    def count(self, accepted: bool) -> None:
        """Record one verdict."""
        if accepted:
            self.valid += 1
        else:
            self.rejected += 1

    def check(self) -> None:
        """Print the share and assert that each side reached the floor (at least one example, always)."""
        total = self.valid + self.rejected
        print(f"{self.name}: {self.valid}/{total} valid, {self.rejected}/{total} rejected")
        floor = max(1, math.ceil(self.minimum * total))
        assert self.valid >= floor, f"{self.name}: {self.valid}/{total} valid, fewer than {floor}"
        assert self.rejected >= floor, f"{self.name}: {self.rejected}/{total} rejected, fewer than {floor}"
