"""Project settings: the ``[tool.rcs]`` table of ``pyproject.toml`` at the project root.

::

    [tool.rcs]
    house-style = true            # the house-style lint rules (default on); correctness rules are always on
    annotations = ["x-internal"]  # keywords to accept as annotations besides draft 2020-12's own
    schemas = "schemas"           # where the schemas and rule tables are (a folder under the root)
    generated = "generated"       # where the compiled models and tables go (a folder under the root)
    package = "generated"         # its import name, from the root (rcs itself: "rcs_contracts.generated")
    spec = "SPEC.md"              # the file whose generated sections codegen keeps

    [tool.rcs.resources]          # documents that schemas may $ref, served from the project, never fetched
    "https://example.com/schemas/" = "vendor/example"

Every setting is optional; an unknown key is an error (a typo must not switch a rule off silently).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rcs_contracts.codegen.diagnostics import CompileError, Diagnostic
from rcs_contracts.safeio import files

FILE = "pyproject.toml"
MAX_BYTES = 1024 * 1024  # a project file, not data: the cap only keeps a FIFO from hanging the build
_KEYS = frozenset({"house-style", "annotations", "resources", "schemas", "generated", "package", "spec"})
_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_TOML_LINE = re.compile(r"at line (\d+)")


@dataclass(frozen=True)
class Settings:
    """What a project asks of the compiler."""

    house_style: bool = True
    annotations: frozenset[str] = frozenset()
    resources: tuple[tuple[str, str], ...] = field(default=())  # (URI prefix, directory relative to the root)
    schemas: str = "schemas"  # a folder relative to the root, posix
    generated: str = "generated"  # a folder relative to the root, posix
    package: str = "generated"  # the import name of that folder, with the root on the path
    spec: str = "SPEC.md"  # a file relative to the root, posix

    def fingerprint(self) -> str:
        """A stable text of the settings (they decide what passes lint, so they are part of every stamp)."""
        return repr((self.house_style, sorted(self.annotations), self.resources, self.package))


def _line(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(needle):
            return number
    return 1


def load(root: Path) -> Settings:
    """The settings of the project at ``root`` (defaults when it has no ``[tool.rcs]``)."""
    path = root / FILE
    if files.kind_of(path) == "missing":
        return Settings()
    try:
        text = files.read_text(path, MAX_BYTES, FILE)
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise CompileError([Diagnostic(FILE, 1, f"cannot read: {getattr(exc, 'strerror', None) or exc}")]) from None
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        raise CompileError([Diagnostic(FILE, int(found[1]) if found else 1, f"invalid TOML: {exc}")]) from None
    table: Any = data.get("tool", {}).get("rcs", {})
    if not isinstance(table, dict):
        raise CompileError([Diagnostic(FILE, _line(text, "[tool"), "[tool.rcs] must be a table")])
    problems: list[Diagnostic] = []
    for key in sorted(set(table) - _KEYS):
        problems.append(Diagnostic(FILE, _line(text, key), f"unknown setting tool.rcs.{key} (known: {sorted(_KEYS)})"))
    house = table.get("house-style", True)
    if not isinstance(house, bool):
        problems.append(Diagnostic(FILE, _line(text, "house-style"), "tool.rcs.house-style must be true or false"))
    annotations = table.get("annotations", [])
    if not isinstance(annotations, list) or not all(isinstance(a, str) and a for a in annotations):
        problems.append(Diagnostic(FILE, _line(text, "annotations"), "tool.rcs.annotations must be a list of names"))
        annotations = []
    resources = table.get("resources", {})
    pairs: list[tuple[str, str]] = []
    if not isinstance(resources, dict):
        problems.append(Diagnostic(FILE, _line(text, "resources"), "tool.rcs.resources must be a table"))
    else:
        for prefix, directory in sorted(resources.items()):
            where = _line(text, f'"{prefix}"')
            if not isinstance(directory, str) or not (root / directory).is_dir():
                problems.append(Diagnostic(FILE, where, f"resources: {directory!r} is not a directory under the root"))
            elif not prefix.endswith("/") or ":" not in prefix:
                problems.append(Diagnostic(FILE, where, f"resources: {prefix!r} must be an absolute URI ending in '/'"))
            else:
                pairs.append((prefix, Path(directory).as_posix()))
    places = {}
    for key, default in (("schemas", "schemas"), ("generated", "generated"), ("spec", "SPEC.md")):
        value = table.get(key, default)
        if not _inside(value):
            message = f"tool.rcs.{key} must be a relative path inside the root"
            problems.append(Diagnostic(FILE, _line(text, key), message))
            value = default
        places[key] = Path(value).as_posix()
    package = table.get("package", places["generated"].replace("/", "."))
    if not isinstance(package, str) or not _PACKAGE.fullmatch(package):
        problems.append(Diagnostic(FILE, _line(text, "package"), "tool.rcs.package must be a dotted import name"))
        package = "generated"
    if problems:
        raise CompileError(problems)
    return Settings(
        house_style=bool(house),
        annotations=frozenset(annotations),
        resources=tuple(pairs),
        schemas=places["schemas"],
        generated=places["generated"],
        package=package,
        spec=places["spec"],
    )


def _inside(value: object) -> bool:
    """A relative path with no '..' (codegen writes nothing outside the paths the project names)."""
    if not isinstance(value, str) or not value or "\\" in value:
        return False
    path = Path(value)
    return not path.is_absolute() and ".." not in path.parts and path.as_posix() not in (".", "")
