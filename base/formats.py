"""Format checks the engine runs beside its own: a date, time or date-time must also have the
ASCII shape ``FORMAT_SHAPES`` gives it (SPEC.md 3.1), so that no digit of another script passes.

Shared by the verdict (``engine/verdict.py``) and the compiler's witness search, which must judge
an instance exactly as ``rcs validate`` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import jsonschema_rs


def shaped(name: str, shape: str) -> Callable[[str], bool]:
    """The engine's own test of format ``name``, and the text has ``shape`` (ASCII digits only)."""
    pattern = re.compile(shape)
    builtin = jsonschema_rs.validator_for({"format": name}, validate_formats=True)

    def check(value: str) -> bool:
        return pattern.fullmatch(value) is not None and bool(builtin.is_valid(value))

    return check


def checks(shapes: Mapping[str, str]) -> dict[str, Callable[[str], bool]]:
    """One check per format name, for ``jsonschema_rs.validator_for(formats=...)``."""
    return {name: shaped(name, shape) for name, shape in shapes.items()}
