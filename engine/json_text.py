"""Reading JSON text the way every rcs verdict does (I-JSON, RFC 7493, where JSON leaves it open).

pydantic-core's parser reads the text, as ``model_validate_json`` does, so the engine and the
models see the same value: duplicate member names keep the last value; a lone surrogate escape
(``"\\ud800"``) is invalid JSON; integers of any size stay exact; ``NaN``/``Infinity`` are not JSON;
one leading byte-order mark is ignored. A number too large for a double (``1e400``) is refused
here: the parser would make it infinite, and no JSON Schema engine judges an infinity faithfully.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pydantic_core

from rcs_contracts.generated.cli import messages as M
from rcs_contracts.safeio import files

# A literal reaches a double's limit (about 1.8e308) only with 100 or more digits in a row or an
# exponent of three or more digits: with every digit made "0" (and "E" "e"), both are plain byte
# searches, so only a text that may hold such a literal has its parsed value searched for infinities.
_DIGITS = bytes.maketrans(b"123456789E", b"000000000e")
_LONG_EXPONENT = re.compile(rb"e\+?000")
# mutation: equivalent: an overflowing literal whose exponent has at most two digits has 210 or more
# digits in a row (309 with no exponent), so any count up to 210 finds them all; it only decides
# how often a parsed value is searched
_RUN_DIGITS = 100
_LONG_RUN = b"0" * _RUN_DIGITS


def _may_overflow(raw: bytes) -> bool:
    digits = raw.translate(_DIGITS)
    return _LONG_RUN in digits or _LONG_EXPONENT.search(digits) is not None


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


OVERFLOW = M.json_overflow()


def read(text: str | bytes) -> Any:
    """The JSON value of ``text``, overflowing numbers not yet looked for; raises JsonTextError.

    One leading byte-order mark is ignored (RFC 8259 8.1 allows it), as in every input rcs reads.
    """
    data: str | bytes
    if isinstance(text, bytes):
        data = files.without_bom(text)
    else:
        data = text = text.removeprefix("\ufeff")
        if not text.isascii():
            # pydantic-core encodes a str itself (its messages count bytes either way) and answers
            # one holding a lone surrogate with a TypeError that names no reason.
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError as bad:
                code = f"{ord(text[bad.start]):04X}"
                raise JsonTextError(M.json_lone_surrogate(code=code, index=bad.start)) from None
    try:
        return pydantic_core.from_json(
            data,
            allow_inf_nan=False,
            # mutation: equivalent: the cache of short strings only saves memory and time; hostile
            # text would fill it with strings no later read uses
            cache_strings=False,
        )
    except ValueError as exc:
        raise JsonTextError(str(exc)) from None


def overflows(text: str | bytes, value: Any) -> bool:
    """Whether ``value`` (read from ``text``) holds a number that overflowed to infinity."""
    raw = text.encode("utf-8") if isinstance(text, str) else text  # read() refused any lone surrogate
    return _may_overflow(raw) and _has_infinity(value)


def parse(text: str | bytes) -> Any:
    """The JSON value of ``text``; raises JsonTextError (an overflowing number included)."""
    value = read(text)
    if overflows(text, value):
        raise JsonTextError(OVERFLOW)
    return value
