"""Property tests: whatever the input, a contract error or success, never a crash (hypothesis).

Each accept/reject property prints and bounds its share of accepted examples (tests/valid_share.py;
shown with ``pytest -s``), so a strategy cannot drift into testing rejection only.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rcs_contracts.generated.evidence.budgets import CHARGED, CLOCK, LIMIT_TYPES, PER_STAGE
from rcs_contracts.runtime.cli import main
from rcs_contracts.runtime.evidence import (
    BudgetPolicy,
    BudgetTracker,
    ContractViolationError,
    EvidenceStore,
    PartialResult,
    iter_violations,
    validate_artifact,
)
from tests import json_data
from tests.conftest import ROOT
from tests.json_data import paths
from tests.valid_share import Share

EXAMPLES = ROOT / "examples" / "evidence"
BUNDLE = EXAMPLES / "bundle.json"
GOLDEN = {
    "evidence/literature_map": EXAMPLES / "valid" / "literature_map.json",
    "evidence/structured_report": EXAMPLES / "valid" / "structured_report.json",
    "evidence/experiment_plan": EXAMPLES / "valid" / "experiment_plan.json",
    "evidence/evidence_bundle": BUNDLE,
}
DOCS = {kind: json.loads(path.read_text(encoding="utf-8")) for kind, path in GOLDEN.items()}
STORE = EvidenceStore.read(BUNDLE)
ERROR_NAMES = {
    "SchemaViolationError",
    "ArtifactIntegrityError",
    "EvidenceValidationError",
    "ClaimPolicyViolationError",
}
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# The same examples on every run, so that the printed valid share is a fixed number.
TALLIED = settings(SETTINGS, derandomize=True)

json_values = json_data.json_values()


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str]:
    """A golden document with one mutation: drop, retype, flip, duplicate, or raw byte damage; or, so
    that the success path is always among the examples, none (the golden document itself)."""
    kind = draw(st.sampled_from(sorted(DOCS)))
    doc = copy.deepcopy(DOCS[kind])
    how = draw(st.sampled_from(["none", "drop", "retype", "flip", "duplicate", "bytes", "truncate"]))
    if how == "none":
        return kind, json.dumps(doc, ensure_ascii=False)
    if how in ("bytes", "truncate"):
        text = json.dumps(doc, ensure_ascii=False)
        cut = draw(st.integers(0, len(text)))
        if how == "truncate":
            return kind, text[:cut]
        junk = draw(st.text(max_size=5))
        return kind, text[:cut] + junk + text[cut + len(junk) :]
    target = draw(st.sampled_from(paths(doc)[1:]))
    parent = doc
    for part in target[:-1]:
        parent = parent[part]
    last = target[-1]
    if how == "drop":
        del parent[last]
    elif how == "retype":
        parent[last] = draw(json_values)
    elif how == "flip":
        value = parent[last]
        if isinstance(value, bool):
            parent[last] = not value
        elif isinstance(value, int | float):
            parent[last] = -value - 1
        elif isinstance(value, str):
            parent[last] = value[::-1] + draw(st.text(max_size=3))
        else:
            parent[last] = type(value)()
    elif isinstance(parent, list):
        parent.insert(last, copy.deepcopy(parent[last]))
    else:
        parent[last + "_copy" if isinstance(last, str) else last] = copy.deepcopy(parent[last])
    return kind, json.dumps(doc, ensure_ascii=False)


def _golden_text(kind: str) -> str:
    """The unmutated golden document of ``kind`` as mutated() writes it."""
    return json.dumps(DOCS[kind], ensure_ascii=False)


def test_validate_artifact_raises_only_contract_errors() -> None:
    share = Share("validate_artifact on mutated goldens")

    @TALLIED
    @given(case=mutated())
    def check(case: tuple[str, str]) -> None:
        kind, text = case
        evidence = None if kind.endswith("evidence_bundle") else STORE
        try:
            validate_artifact(kind, text, evidence=evidence)
        except ContractViolationError as error:
            share.count(False)
            assert str(error)
            assert type(error).__name__ in ERROR_NAMES
            first = next(iter(iter_violations(kind, text, evidence=evidence)))
            assert (type(first), str(first)) == (type(error), str(error))
        else:
            share.count(True)
            assert list(iter_violations(kind, text, evidence=evidence)) == []
            return
        assert text != _golden_text(kind), "a golden document was rejected"

    check()
    share.check()


def test_cli_exits_0_1_or_2_without_traceback(tmp_path_factory: pytest.TempPathFactory) -> None:
    share = Share("rcs validate on mutated goldens")

    @TALLIED
    @given(case=mutated())
    def check(case: tuple[str, str]) -> None:
        kind, text = case
        path: Path = tmp_path_factory.mktemp("m") / "artifact.json"
        path.write_text(text, encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        args = ["validate", "--kind", kind, "--format", "json", str(path)]
        if not kind.endswith("evidence_bundle"):
            args[1:1] = ["--evidence", str(BUNDLE)]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(args)
        share.count(status == 0)
        assert status in (0, 1, 2), err.getvalue()
        assert status == 0 or text != _golden_text(kind), "a golden document was rejected"
        assert "Traceback" not in err.getvalue() and "internal error" not in err.getvalue()
        [result] = json.loads(out.getvalue())
        assert result["valid"] is (status == 0)
        assert all(e["error"] in ERROR_NAMES and e["message"] for e in result["errors"])

    check()
    share.check()


@SETTINGS
@given(raw=st.binary(max_size=200))
def test_random_bytes_never_crash(raw: bytes, tmp_path_factory: Any) -> None:
    # A crash fuzz only: random bytes are never a valid artifact. test_cli_exits_0_1_or_2_without_traceback
    # is its companion that reaches exit 0.
    path: Path = tmp_path_factory.mktemp("b") / "junk.json"
    path.write_bytes(raw)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["validate", str(path)]) in (0, 1, 2)
        assert main(["validate", "--kind", "structured_report", str(path)]) in (1, 2)
    assert "internal error" not in err.getvalue()


budget_names = st.sampled_from(
    [
        "max_connector_calls",
        "max_time_seconds",
        "max_tokens",
        "max_retries_per_stage",
        "max_evidence_items_ingested",
        "max_bogus",
    ]
)
amounts = st.integers(-2, 50) | st.floats(-1, 50) | st.just(math.inf) | st.booleans()
stages = st.none() | st.sampled_from(["a", "b"])
# A charge the budget table allows (a chargeable name, a whole non-negative amount, a stage exactly
# where the budget counts stages), so that charges are also accepted, not only refused as misuse.
well_formed = st.sampled_from(sorted(CHARGED)).flatmap(
    lambda name: st.tuples(
        st.just(name),
        st.integers(0, 6),
        st.sampled_from(["a", "b"]) if name in PER_STAGE else st.none(),
        st.floats(0, 3),
    )
)


def _well_formed(name: str, amount: object, stage: str | None) -> bool:
    """Whether the budget table allows this charge, so that it can be refused only for exceeding a budget."""
    if name not in CHARGED or (stage is not None) != (name in PER_STAGE) or isinstance(amount, bool):
        return False
    kinds = (int,) if LIMIT_TYPES[name] is int else (int, float)
    return isinstance(amount, kinds) and math.isfinite(amount) and amount >= 0


def test_budget_tracker_never_overspends() -> None:
    share = Share("budget charges")

    @TALLIED
    @given(
        mode=st.sampled_from(["fail", "finalize_partial"]),
        limits=st.lists(st.integers(0, 40), min_size=4, max_size=4),
        seconds=st.floats(0, 20),
        steps=st.lists(well_formed | st.tuples(budget_names, amounts, stages, st.floats(0, 3)), max_size=25),
    )
    def check(mode: str, limits: list[int], seconds: float, steps: list[Any]) -> None:
        policy = BudgetPolicy(
            max_connector_calls=limits[0],
            max_time_seconds=seconds,
            max_tokens=limits[1],
            max_retries_per_stage=limits[2],
            max_evidence_items_ingested=limits[3],
            mode=mode,  # type: ignore[arg-type]
        )
        limit_of = {name: getattr(policy, name) for name in LIMIT_TYPES}
        now = [0.0]
        tracker = BudgetTracker(policy, clock=lambda: now[0])
        sticky: PartialResult | None = None
        for name, amount, stage, tick in steps:
            now[0] += tick
            allowed = _well_formed(name, amount, stage)
            before = tracker.used(name, stage) if allowed else 0
            # R-EV-7: of the budgets a charge would exceed (its own, or the clock), the first in
            # contract order is the one reported.
            exceeded = [
                budget
                for budget in LIMIT_TYPES
                if allowed
                and ((budget == name and before + amount > limit_of[budget]) or (budget in CLOCK and now[0] > seconds))
            ]
            try:
                result = tracker.charge(name, amount, stage)
            except ContractViolationError as error:
                share.count(False)
                if allowed:  # refused only for exceeding, and only raised in fail mode
                    assert type(error).__name__ == "BudgetExceededError" and mode == "fail", error
                    assert exceeded and error.params["budget_name"] == exceeded[0], (exceeded, error)
                else:
                    assert type(error).__name__ == "BudgetUsageError", error
                continue
            assert allowed, (name, amount, stage)  # misuse is refused, exhausted or not
            share.count(result is None)
            if sticky is not None:
                assert result is sticky
            elif exceeded:
                assert mode == "finalize_partial" and result is not None and result.budget_name == exceeded[0]
                assert result.reason.startswith("Budget exceeded: ")
                sticky = result
            else:
                assert result is None and tracker.used(name, stage) == before + amount
        for name, limit in (
            ("max_connector_calls", limits[0]),
            ("max_tokens", limits[1]),
            ("max_evidence_items_ingested", limits[3]),
        ):
            assert tracker.used(name) <= limit
        for stage in ("a", "b"):
            assert tracker.used("max_retries_per_stage", stage) <= limits[2]

    check()
    share.check()
