"""YAML for rule tables: safe, and a duplicate key is an error instead of "the last one wins".

Shared by the compiler (rule tables) and the runtime (claim-policy files), so both read a table the
same way.
"""

from __future__ import annotations

from typing import Any

import yaml


class StrictLoader(yaml.SafeLoader):
    """A safe loader that rejects duplicate mapping keys."""


def _construct_mapping(loader: StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {seen[key]})", key_node.start_mark
            )
        seen[key] = line
    return loader.construct_mapping(node, deep=True)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load(text: str) -> Any:
    """Parse one YAML document strictly; raises ``yaml.YAMLError`` (or RecursionError when absurdly deep)."""
    loader = StrictLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def problem(error: yaml.YAMLError, text: str) -> tuple[int, str]:
    """The 1-based line and a one-line description of a YAML error."""
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        return (mark.line + 1 if mark is not None else 1), str(error.problem)
    if isinstance(error, yaml.reader.ReaderError):  # a character YAML does not allow; it has no mark
        return text[: error.position].count("\n") + 1, f"unacceptable character {error.character!r}"
    return 1, str(error).replace("\n", " ")
