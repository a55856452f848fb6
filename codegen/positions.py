"""Line numbers for JSON pointers, so that diagnostics can say ``file:line``.

JSON and YAML files are both composed with PyYAML's composer (JSON is, in practice, a subset of
YAML) purely to learn where each node starts; the values themselves come from the real parsers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import yaml


def escape(token: str | int) -> str:
    """Escape one JSON-pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(parts: Iterable[str | int]) -> str:
    """Join path parts into a JSON pointer ('' is the whole document)."""
    return "".join("/" + escape(p) for p in parts)


def line_map(node: yaml.Node | None) -> dict[str, int]:
    """Map every JSON pointer in a composed YAML/JSON node tree to its 1-based line."""
    lines: dict[str, int] = {}
    if node is None:
        return lines
    stack: list[tuple[str, yaml.Node, int]] = [("", node, node.start_mark.line + 1)]
    while stack:
        ptr, current, line = stack.pop()
        lines.setdefault(ptr, line)
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                key = str(key_node.value)
                stack.append((ptr + "/" + escape(key), value_node, key_node.start_mark.line + 1))
        elif isinstance(current, yaml.SequenceNode):
            for index, item in enumerate(current.value):
                stack.append((ptr + "/" + str(index), item, item.start_mark.line + 1))
    return lines


def json_line_map(text: str) -> dict[str, int]:
    """Best-effort line map for a JSON text; empty when the composer cannot read it."""
    try:
        return line_map(yaml.compose(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return {}


def line_of(lines: dict[str, int], ptr: str) -> int:
    """The line of ``ptr`` or, failing that, of its nearest ancestor (1 for the document)."""
    while ptr:
        if ptr in lines:
            return lines[ptr]
        ptr = ptr.rsplit("/", 1)[0]
    return lines.get("", 1)


def first_problem(value: Any, problem: Callable[[Any], str | None], ptr: str = "") -> tuple[str, str] | None:
    """The pointer and description of the first member name or value (depth first) ``problem`` objects
    to; a member name that is not a string is always one (JSON has no other)."""
    said = problem(value)
    if said is not None:
        return ptr, said
    if isinstance(value, dict):
        for key, sub in value.items():
            said = problem(key) if isinstance(key, str) else f"the key {key!r} is not a string"
            if said is not None:
                return ptr, said
            found = first_problem(sub, problem, f"{ptr}/{escape(key)}")
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            found = first_problem(sub, problem, f"{ptr}/{index}")
            if found is not None:
                return found
    return None
