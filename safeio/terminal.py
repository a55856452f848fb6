"""Text from others made safe to print: control characters escaped, so nothing can forge a line.

A file name, an artifact's value quoted in a message, a worker's description: any of them may hold
a newline (a forged result line), an ANSI escape (colours, cursor moves, a retitled terminal) or a
bidirectional override (text that reads differently than it is). ``printable`` spells each such
character as a Python-style escape (``\\n``, ``\\x1b``, ``\\u202e``); everything else is kept.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, the line/paragraph separators and the bidirectional controls.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, separator and bidi-control character escaped (one line out)."""
    return _UNSAFE.sub(_escape, text)


# What json.dumps leaves raw that a terminal acts on: DEL, C1 controls, separators, bidi controls.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable_json(text: str) -> str:
    """JSON text whose strings hold no raw C1, separator or bidi-control character (``\\uXXXX`` instead).

    ``json.dumps`` already escapes C0 controls; the others are legal raw in JSON but not safe on a
    terminal. Outside strings JSON text has none of them, so the result is the same JSON value.
    """
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
