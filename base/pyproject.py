"""The ``[tool.rcs]`` table of a project's ``pyproject.toml``, read the same way by the compiler
(``codegen/config.py``, which checks every setting) and by ``rcs validate`` (``engine/project.py``,
which needs only where the compiled package is).
"""

from __future__ import annotations

import re
from typing import Any

FILE = "pyproject.toml"
MAX_BYTES = 1024 * 1024  # a project file, not data: the cap only keeps a FIFO from hanging
PACKAGE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
DEFAULT_GENERATED = "generated"


class ConfigShapeError(ValueError):
    """``tool`` or ``tool.rcs`` is there but is not a table; ``str()`` says which."""


def rcs_table(data: Any) -> dict[str, Any] | None:
    """The ``[tool.rcs]`` table of parsed TOML, or None when the file has none."""
    tool = data.get("tool") if isinstance(data, dict) else None
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigShapeError("[tool] must be a table")
    table = tool.get("rcs")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigShapeError("[tool.rcs] must be a table")
    return table


def default_package(generated: str) -> str:
    """The import name of the generated folder when the project names none: the folder, dotted."""
    return generated.strip("/").replace("/", ".")
