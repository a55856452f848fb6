"""Whose compiled kinds the engine judges by: rcs's own, or a user project's (SPEC.md 2.6).

A project names the import package of its compiled models and tables in its ``pyproject.toml``
(``[tool.rcs] package``; ``rcs codegen`` writes it under ``[tool.rcs] generated``). ``use(root)``
puts the project root on the import path and makes that package the one ``rcs validate`` reads:
its kinds (``<package>.kinds``), its schema documents (``<package>._documents``) and its domains'
error tables. Only rcs's own domains have hand-written rules (``runtime/<domain>/checks.py``); a
user's domain is judged by its schemas, in its own error classes. Until ``use`` is called, the
package is rcs's own.
"""

from __future__ import annotations

import importlib
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from rcs_contracts.base.about import GENERATED_PACKAGE
from rcs_contracts.safeio import files

CONFIG = "pyproject.toml"
_MAX_BYTES = 1024 * 1024  # a project file, not data: the cap only keeps a FIFO from hanging


class ProjectError(Exception):
    """The project cannot be used; ``str()`` says why in one line."""


_active = GENERATED_PACKAGE
_forget: list[Callable[[], None]] = []


def package() -> str:
    """The import name of the compiled package in use."""
    return _active


def is_rcs() -> bool:
    """Whether the package in use is rcs's own (its domains have their hand-written rules)."""
    return _active == GENERATED_PACKAGE


def on_change(forget: Callable[[], None]) -> Callable[[], None]:
    """Register a cache to clear when another project is used (returns ``forget``)."""
    _forget.append(forget)
    return forget


def configured(root: Path) -> str | None:
    """The package ``root``'s pyproject.toml names under ``[tool.rcs]``, or None when it names none."""
    path = root / CONFIG
    if files.kind_of(path) == "missing":
        return None
    try:
        data = tomllib.loads(files.read_text(path, _MAX_BYTES, CONFIG))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProjectError(f"{path}: cannot read [tool.rcs]: {exc}") from None
    table = data.get("tool", {}).get("rcs", {})
    found = table.get("package") if isinstance(table, dict) else None
    return found if isinstance(found, str) and found else None


def use(root: Path) -> str:
    """Judge by the project at ``root`` (see the module docstring); returns its package."""
    global _active
    name = configured(root)
    if name is None:
        raise ProjectError(f"{root / CONFIG}: no [tool.rcs] package names the project's compiled kinds")
    if name != GENERATED_PACKAGE:
        where = str(root.resolve())
        if where not in sys.path:
            sys.path.insert(0, where)
        try:
            importlib.import_module(f"{name}.kinds")
        except ImportError as exc:
            raise ProjectError(f"{root}: cannot import {name}.kinds ({exc}); run rcs codegen there first") from None
    if name != _active:
        _active = name
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
