"""Reading JSON text the way every rcs verdict does (I-JSON, RFC 7493, where JSON leaves it open).

pydantic-core's parser reads the text, as ``model_validate_json`` does, so the engine and the
models see the same value: duplicate member names keep the last value; a lone surrogate escape
(``"\\ud800"``) is invalid JSON; integers of any size stay exact; ``NaN``/``Infinity`` are not JSON.
A number too large for a double (``1e400``) is refused here: the parser would make it infinite,
and no JSON Schema engine judges an infinity faithfully.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pydantic_core

# Only a literal with a three-digit exponent or 300 digits can overflow a double: a cheap scan
# decides whether the parsed value needs a look for infinities at all.
_MAY_OVERFLOW = re.compile(rb"[eE][+]?0*[1-9][0-9]{2}|[0-9]{300}")


class JsonTextError(ValueError):
    """The text is not JSON rcs accepts; ``str()`` says why and where, without a prefix."""


def _has_infinity(value: Any) -> bool:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, float):
            if math.isinf(current):
                return True
        elif isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return False


def parse(text: str | bytes) -> Any:
    """The JSON value of ``text``; raises JsonTextError."""
    try:
        value = pydantic_core.from_json(text, allow_inf_nan=False)
    except ValueError as exc:
        raise JsonTextError(str(exc)) from None
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if _MAY_OVERFLOW.search(raw) is not None and _has_infinity(value):
        raise JsonTextError("a number is too large for a 64-bit float (I-JSON, RFC 7493 section 2.2)")
    return value
