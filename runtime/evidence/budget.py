"""Budgets (run safety): a tracker that refuses charges past their limits (R-EV-7).

Budget names, their order, what measures each, and the modes all come from budgets.yaml.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from rcs_contracts.generated.evidence import errors as E
from rcs_contracts.generated.evidence.budgets import (
    BUDGET_NAMES,
    CLOCK,
    LIMIT_TYPES,
    PER_STAGE,
    RAISING_MODES,
    BudgetPolicy,
)
from rcs_contracts.generated.evidence.partial_result_schema import PartialResult

Number = int | float


def _plain(value: Number) -> Number:
    """Whole floats print as integers (limit=30, not limit=30.0), so messages read as configured."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


class BudgetTracker:
    """Counts usage against a BudgetPolicy.

    ``charge`` returns None when the charge fits, raises BudgetExceededError in ``fail`` mode, and in
    ``finalize_partial`` mode returns a PartialResult whose reason is the same message. A refused
    charge is not counted; the message's ``used`` is what the charge would have made it. In
    ``finalize_partial`` mode the first exhaustion is sticky: every later charge returns the very
    same PartialResult. Elapsed time is read from ``clock`` (monotonic, injectable) since creation
    and checked on every charge. When one charge exceeds several budgets, the first in the table
    wins.
    """

    __slots__ = ("_clock", "_exhausted", "_policy", "_stage_usage", "_start", "_usage")

    def __init__(self, policy: BudgetPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self._policy = policy
        self._clock = clock
        self._start = clock()
        self._usage: dict[str, Number] = {}
        self._stage_usage: dict[tuple[str, str], Number] = {}
        self._exhausted: PartialResult | None = None

    @property
    def policy(self) -> BudgetPolicy:
        """The policy this tracker enforces."""
        return self._policy

    @property
    def exhausted(self) -> PartialResult | None:
        """The sticky PartialResult once a budget ran out in finalize_partial mode."""
        return self._exhausted

    def elapsed(self) -> float:
        """Seconds since the tracker was created, by its clock."""
        return self._clock() - self._start

    def used(self, name: str, stage: str | None = None) -> Number:
        """Usage so far of a budget (of one stage for per-stage budgets; elapsed time for clock ones)."""
        self._check_call(name, 0, stage, charging=False)
        if name in CLOCK:
            return self.elapsed()
        if name in PER_STAGE:
            return self._stage_usage.get((name, stage or ""), 0)
        return self._usage.get(name, 0)

    def _check_call(self, name: str, amount: object, stage: str | None, charging: bool) -> None:
        if name not in LIMIT_TYPES:
            raise E.unknown_budget(budget_name=str(name), known=", ".join(BUDGET_NAMES))
        if charging and name in CLOCK:
            raise E.budget_not_chargeable(budget_name=name)
        if name in PER_STAGE and stage is None and charging:
            raise E.budget_stage_required(budget_name=name)
        if name not in PER_STAGE and stage is not None:
            raise E.budget_stage_unexpected(budget_name=name, stage=str(stage))
        wanted = LIMIT_TYPES[name]
        valid_type = isinstance(amount, int) if wanted is int else isinstance(amount, int | float)
        if (
            isinstance(amount, bool)
            or not valid_type
            # mutation: equivalent: no chargeable budget is a float today (the clock one is not charged)
            or (isinstance(amount, float) and not math.isfinite(amount))
            or amount < 0  # type: ignore[operator]
        ):
            raise E.budget_amount(budget_name=name, amount=repr(amount))

    def charge(self, name: str, amount: Number = 1, stage: str | None = None) -> PartialResult | None:
        """Charge ``amount`` to budget ``name`` (per ``stage`` where the budget counts stages)."""
        self._check_call(name, amount, stage, charging=True)
        if self._exhausted is not None:
            return self._exhausted
        key = (name, stage or "")
        current = self._stage_usage.get(key, 0) if stage is not None else self._usage.get(name, 0)
        elapsed = self.elapsed()
        for budget in BUDGET_NAMES:
            limit: Number = getattr(self._policy, budget)
            if budget == name:
                would = current + amount
                if would > limit:
                    return self._refuse(budget, limit, would)
            elif budget in CLOCK and elapsed > limit:
                return self._refuse(budget, limit, elapsed)
        if stage is not None:
            self._stage_usage[key] = current + amount
        else:
            self._usage[name] = current + amount
        return None

    def check_time(self) -> PartialResult | None:
        """Check elapsed time alone (for loops that charge nothing); same outcomes as ``charge``."""
        if self._exhausted is not None:
            return self._exhausted
        for budget in BUDGET_NAMES:
            limit: Number = getattr(self._policy, budget)
            if budget in CLOCK and self.elapsed() > limit:
                return self._refuse(budget, limit, self.elapsed())
        return None

    def _refuse(self, budget: str, limit: Number, used: Number) -> PartialResult:
        limit, used = _plain(limit), _plain(used)
        error = E.budget_exceeded(budget_name=budget, limit=limit, used=used)
        if self._policy.mode in RAISING_MODES:
            raise error
        self._exhausted = PartialResult(partial=True, reason=str(error), budget_name=budget, limit=limit, used=used)
        return self._exhausted
