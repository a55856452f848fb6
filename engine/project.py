"""Whose compiled kinds the engine judges by: rcs's own, or a user project's (SPEC.md 2.6).

A project names the import package of its compiled models and tables in its ``pyproject.toml``
(``[tool.rcs] package``; ``rcs codegen`` writes it under ``[tool.rcs] generated``). ``use(root)``
puts the project root on the import path and makes that package the one ``rcs validate`` reads:
its kinds (``<package>.kinds``), its schema documents (``<package>._documents``) and its domains'
error tables. Only rcs's own domains have hand-written rules (``runtime/<domain>/checks.py``); a
user's domain is judged by its schemas, in its own error classes. Until ``use`` is called, the
package is rcs's own. ``find(start)`` is the nearest folder at or above ``start`` whose
``pyproject.toml`` has a ``[tool.rcs]`` table (as ruff and pytest find their settings).
"""

from __future__ import annotations

import importlib
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from rcs_contracts.base import pyproject
from rcs_contracts.base.about import GENERATED_PACKAGE
from rcs_contracts.safeio import files

CONFIG = pyproject.FILE


class ProjectError(Exception):
    """The project cannot be used; ``str()`` says why in one line."""


_active = GENERATED_PACKAGE
_active_root: Path | None = None  # None: rcs's own package, wherever it is installed
_forget: list[Callable[[], None]] = []
_ours: set[str] = set()  # top-level names of the project packages imported so far


def package() -> str:
    """The import name of the compiled package in use."""
    return _active


def root() -> Path | None:
    """The root of the project in use, or None for rcs's own package (its files are in the package)."""
    return _active_root


def is_rcs() -> bool:
    """Whether the package in use is rcs's own (its domains have their hand-written rules)."""
    return _active == GENERATED_PACKAGE


def on_change(forget: Callable[[], None]) -> Callable[[], None]:
    """Register a cache to clear when another project is used (returns ``forget``)."""
    _forget.append(forget)
    return forget


def _table(root: Path) -> dict[str, Any] | None:
    path = root / CONFIG
    if files.kind_of(path) == "missing":
        return None
    try:
        return pyproject.rcs_table(tomllib.loads(files.read_text(path, pyproject.MAX_BYTES, CONFIG)))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, pyproject.ConfigShapeError) as exc:
        raise ProjectError(f"{path}: cannot read [tool.rcs]: {exc}") from None


def configured(root: Path) -> str | None:
    """The package of the project at ``root``: ``[tool.rcs] package``, or its generated folder
    dotted, as ``rcs codegen`` reads it; None when its pyproject.toml has no ``[tool.rcs]``."""
    table = _table(root)
    if table is None:
        return None
    generated = table.get("generated", pyproject.DEFAULT_GENERATED)
    name = table.get("package", pyproject.default_package(generated) if isinstance(generated, str) else None)
    if not isinstance(name, str) or not pyproject.PACKAGE_NAME.fullmatch(name):
        raise ProjectError(f"{root / CONFIG}: tool.rcs.package must be a dotted import name, not {name!r}")
    return name


def find(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` whose pyproject.toml has ``[tool.rcs]``."""
    for folder in (start, *start.parents):
        if files.kind_of(folder / CONFIG) != "missing" and _table(folder) is not None:
            return folder
    return None


def _drop(name: str) -> None:
    """Forget every imported module of package ``name``: another project's may share the name."""
    for module_name in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module_name]
    importlib.invalidate_caches()


def _load(root: Path, name: str) -> None:
    """Import the project's compiled package from ``root``, and every model module its kinds
    name, so a package that is missing, broken or stale is refused here, not halfway through."""
    top = name.split(".")[0]
    taken = sys.modules.get(top)
    if taken is not None and top not in _ours:
        origin = getattr(taken, "__file__", None) or next(iter(getattr(taken, "__path__", [])), "built in")
        raise ProjectError(
            f"{root}: the package name {top!r} is taken by {origin}, which rcs uses; name another package"
        )
    _ours.add(top)
    where = str(root)
    if where in sys.path:
        sys.path.remove(where)
    sys.path.insert(0, where)
    _drop(top)
    rerun = f"run rcs codegen in {root}"
    try:
        kinds = importlib.import_module(f"{name}.kinds")
    except ModuleNotFoundError as exc:
        raise ProjectError(f"{root}: cannot import {name}.kinds ({exc}); {rerun} first") from None
    except Exception as exc:  # a syntax error, a failing import: the compiled package is broken
        raise ProjectError(
            f"{root}: the compiled package {name} is broken ({type(exc).__name__}: {exc}); {rerun}"
        ) from None
    origin = Path(kinds.__file__ or "").resolve()
    if not origin.is_relative_to(root):
        raise ProjectError(f"{root}: {name}.kinds is {origin}, not the project's own; {rerun}, or name another package")
    try:
        for kind in kinds.KINDS.values():
            importlib.import_module(kind.module)
    except Exception as exc:
        raise ProjectError(
            f"{root}: the compiled package {name} is stale or broken ({type(exc).__name__}: {exc}); {rerun}"
        ) from None


def use(root: Path) -> str:
    """Judge by the project at ``root`` (see the module docstring); returns its package."""
    global _active, _active_root
    if not root.is_dir():
        raise ProjectError(f"{root}: no such directory")
    root = root.resolve()
    name = configured(root)
    if name is None:
        raise ProjectError(f"{root / CONFIG}: no [tool.rcs] table names the project's compiled kinds")
    if name == GENERATED_PACKAGE:
        target: Path | None = None  # rcs's own kinds, as this rcs was built
    else:
        target = root
        _load(root, name)
    if (name, target) != (_active, _active_root):
        _active, _active_root = name, target
        for forget in _forget:
            forget()
    return name


def module(name: str) -> ModuleType:
    """``<package in use>.<name>``."""
    return importlib.import_module(f"{_active}.{name}")


def kinds() -> Mapping[str, Any]:
    """The kinds of the package in use, by ``<domain>/<name>``."""
    found: Mapping[str, Any] = module("kinds").KINDS
    return found
