"""Shared test data for JSON documents: a hypothesis strategy of JSON values and every path in one."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def json_values(max_int: int = 2**70, text: int = 20, leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON value: scalars (big integers, finite floats, text) nested in lists and objects."""
    scalars = (
        st.none() | st.booleans() | st.integers(-max_int, max_int) | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=text)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=leaves,
    )


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside a JSON document (the document itself first)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, sub in value.items():
            found.extend(paths(sub, (*prefix, key)))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            found.extend(paths(sub, (*prefix, index)))
    return found
