"""Where a ``[tool.rcs]`` setting is written in ``pyproject.toml``, for ``file:line`` diagnostics.

TOML can put a setting in several places: under ``[tool.rcs]`` or one of its sub-tables
(``[tool.rcs.resources]``), as a dotted key under ``[tool]`` (``rcs.package = ...``) or at the top
(``tool.rcs.package = ...``), or inside an inline table (``resources = { "https://x/" = "v" }``).
Only those places are searched: another tool's ``package`` or a key that merely starts with the
name (``packages``) is not the setting. Lines are counted as TOML counts them, at line feeds only.
When the setting is not found (a value TOML accepted in a shape this does not read) the line of the
``[tool.rcs]`` header stands in, else line 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_HEADER = re.compile(r"\s*\[\[?\s*([^\]#]*?)\s*\]")
_NAME = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_RCS = r"""(?:rcs|"rcs"|'rcs')"""
_TOOL = r"""(?:tool|"tool"|'tool')"""
_DOT = r"\s*\.\s*"
_RCS_TABLE = re.compile(rf"{_TOOL}{_DOT}{_RCS}(?:{_DOT}{_NAME})*$")
_TOOL_TABLE = re.compile(rf"{_TOOL}$")
# What a line must start with, before the setting's own key, in each kind of table.
_LEAD = {"rcs": "", "tool": rf"{_RCS}{_DOT}", "top": rf"{_TOOL}{_DOT}{_RCS}{_DOT}"}


def _places(text: str) -> Iterator[tuple[int, str, str]]:
    """(line number, line, the lead its keys need) of every line that can hold a setting: the lines
    of ``[tool.rcs]`` and its sub-tables, of ``[tool]`` and of the top table; comment lines left out."""
    kind: str | None = "top"
    for number, line in enumerate(text.split("\n"), 1):
        header = _HEADER.match(line)
        if header is not None:
            name = header[1]
            kind = "rcs" if _RCS_TABLE.match(name) else "tool" if _TOOL_TABLE.match(name) else None
            if kind == "rcs":
                yield number, line, "header"
            continue
        if kind is not None and not line.lstrip().startswith("#"):
            yield number, line, kind


def header_line(text: str) -> int:
    """The line of the first ``[tool.rcs...]`` header, else 1."""
    return next((number for number, _, kind in _places(text) if kind == "header"), 1)


def find(text: str, key: str) -> int | None:
    """The line where the setting ``key`` (``package``, ``house-style``) is given, or None."""
    spelled = rf"""(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')\s*="""
    patterns = {kind: re.compile(rf"\s*{lead}{spelled}") for kind, lead in _LEAD.items()}
    for number, line, kind in _places(text):
        if kind != "header" and patterns[kind].match(line):
            return number
    return None


def line_of(text: str, key: str) -> int:
    """``find``, or the header's line when the setting is not found."""
    found = find(text, key)
    return header_line(text) if found is None else found


def prefix_line(text: str, prefix: str) -> int:
    """The line where the resource ``prefix`` is a key: its own line in ``[tool.rcs.resources]``, or
    mid-line in an inline table; the header's line when it is not found."""
    quoted = (f'"{prefix}"', f"'{prefix}'")
    for number, line, kind in _places(text):
        if kind != "header" and any(q in line for q in quoted):
            return number
    return header_line(text)
