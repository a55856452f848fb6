"""Builders for architect and auditor outputs (free of code-leak words)."""

from __future__ import annotations

from typing import Any

from rcs_contracts.runtime.odr import ODRConfig, ODRState, run_round

AUDITOR = (
    "### CRITIQUE\n- retention window unclear\n### PATCHES\n- name the window\n"
    "### EDGE_CASES\n- legal hold\n### TEST_GAPS\n- purge timing\n"
)


def architect(requirement: str, changelog: str = "- revised") -> str:
    """An architect output around ``requirement``."""
    return (
        f"### REQUIREMENT\n{requirement}\n### CHANGELOG\n{changelog}\n"
        "### ASSUMPTIONS\n- storage is durable\n### OPEN_QUESTIONS\n- who approves deletion?\n"
    )


def words(prefix: str, count: int, start: int = 1) -> list[str]:
    """Distinct alphabetic words: ``prefix`` plus a letter suffix."""
    return [f"{prefix}{chr(ord('a') + (i // 26))}{chr(ord('a') + (i % 26))}" for i in range(start, start + count)]


def run(requirements: list[str], **config: Any) -> ODRState:
    """Run one round per requirement (auditor fixed) until a stop."""
    state = ODRState(config=ODRConfig(**config))
    for requirement in requirements:
        state = run_round(state, architect(requirement), AUDITOR)
    return state


# Word sets for k=1 (R-ODR-2 with shingle_k=1 is plain word-set Jaccard):
# J(A, B) = 5/15, J(A2, A) = 8/12, J(A2, B) = 7/13.
A = " ".join(words("w", 10))
B = " ".join(words("w", 5) + words("z", 5))
A2 = " ".join(words("w", 8) + words("z", 2))
