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
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rcs_contracts.base import pyproject
from rcs_contracts.base.about import DISTRIBUTION, PACKAGE
from rcs_contracts.codegen.diagnostics import CompileError, Diagnostic
from rcs_contracts.codegen.setting_lines import find, header_line, prefix_line
from rcs_contracts.codegen.setting_lines import line_of as _line
from rcs_contracts.safeio import files

FILE = pyproject.FILE
MAX_BYTES = pyproject.MAX_BYTES
_KEYS = frozenset({"house-style", "annotations", "resources", "schemas", "generated", "package", "spec"})
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


def load(root: Path, writing: bool = True) -> Settings:
    """The settings of the project at ``root`` (defaults when it has no ``[tool.rcs]``).

    ``writing``: the settings are for writing outputs, so what they name to write is checked too
    (a diff reads another version's inputs only, from wherever that version lies).
    """
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
    try:
        table: dict[str, Any] = pyproject.rcs_table(data) or {}
    except pyproject.ConfigShapeError as exc:
        raise CompileError([Diagnostic(FILE, header_line(text), str(exc))]) from None
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
            where = prefix_line(text, prefix)
            if not _inside(directory) or not (root / directory).is_dir():
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
    if writing:
        problems.extend(_apart(places, [d for _, d in pairs], text))
    package = table.get("package", pyproject.default_package(places["generated"]))
    if not isinstance(package, str) or not pyproject.PACKAGE_NAME.fullmatch(package):
        # Not given, the package is the generated folder dotted: the error is that setting's.
        where = find(text, "package") or _line(text, "generated")
        problems.append(Diagnostic(FILE, where, "tool.rcs.package must be a dotted import name"))
        package = "generated"
    elif writing:
        problems.extend(_importable(root, data, package, places["generated"], text))
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


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _apart(places: dict[str, str], resources: list[str], text: str) -> list[Diagnostic]:
    """What codegen writes must not be what it reads: the generated folder and the spec file stay
    clear of the schemas, the resources, the project file and each other (codegen removes stale
    files in the generated folder, and rewrites the spec)."""
    found = []
    generated, spec = places["generated"], places["spec"]
    for name, other in [("schemas", places["schemas"]), *(("resources", r) for r in resources)]:
        if _overlap(generated, other):
            message = f"tool.rcs.generated ({generated}) must not overlap the {name} folder ({other})"
            found.append(Diagnostic(FILE, _line(text, "generated"), message))
    read = [("schemas", places["schemas"]), ("generated", generated), *(("resources", r) for r in resources)]
    for name, folder in read:
        if _overlap(spec, folder):
            message = f"tool.rcs.spec ({spec}) must not lie in the {name} folder ({folder})"
            found.append(Diagnostic(FILE, _line(text, "spec"), message))
    if spec in (FILE, *ROOT_FILES):
        found.append(Diagnostic(FILE, _line(text, "spec"), f"tool.rcs.spec must not be {spec}, which codegen reads"))
    return found


def _importable(root: Path, data: Any, package: str, generated: str, text: str) -> list[Diagnostic]:
    """The package must be the generated folder as imported from the root, and not a name that
    Python or rcs already answers to (the project's kinds would silently not be the ones read)."""
    where = find(text, "package") or _line(text, "generated")
    as_folder = (root / Path(*package.split("."))).resolve()
    if as_folder != (root / generated).resolve():
        message = f"tool.rcs.package {package!r} must name the generated folder {generated!r} as imported from the root"
        return [Diagnostic(FILE, where, message)]
    top = package.split(".")[0]
    if top in sys.stdlib_module_names:
        return [Diagnostic(FILE, where, f"tool.rcs.package {package!r} would shadow Python's own module {top!r}")]
    name = data.get("project", {}).get("name") if isinstance(data.get("project"), dict) else None
    if top == PACKAGE and name != DISTRIBUTION:
        return [Diagnostic(FILE, where, f"tool.rcs.package {package!r} is rcs's own package name; choose another")]
    return []


# Files at the root that codegen reads (the spec must not be one of them).
ROOT_FILES = ("claim_policy.yaml",)


def _inside(value: object) -> bool:
    """A relative path with no '..' (codegen writes nothing outside the paths the project names)."""
    if not isinstance(value, str) or not value or "\\" in value or "\x00" in value:
        return False
    path = Path(value)
    return not path.is_absolute() and ".." not in path.parts and path.as_posix() not in (".", "")
