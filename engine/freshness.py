"""Whether the schemas and rule tables on disk are still the ones the kinds in use were compiled from.

``rcs validate`` judges by the compiled package (its models and schema documents), not by the files
under ``schemas/``: a schema edited after the last ``rcs codegen`` would otherwise be a check that
silently did not happen. The package's ``_catalog`` lists the schemas and rule tables the compiler
read with the sha256 of their bytes (not pyproject.toml nor resources); ``changed()`` names those
whose bytes are now different, missing or unreadable, and validate warns (SPEC.md 6). A file added
since is not in the catalog: a document naming its kind is refused as an unknown kind already.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from rcs_contracts.base.sources import SOURCE_MAX_BYTES
from rcs_contracts.engine import project
from rcs_contracts.safeio import files


class _Compiled(Protocol):
    """What a catalog entry needs here: the file's path from the root and the sha256 compiled."""

    @property
    def file(self) -> str: ...

    @property
    def sha256(self) -> str: ...


def changed(root: Path, entries: Sequence[_Compiled]) -> list[str]:
    """The files of ``entries`` whose bytes under ``root`` are not the ones compiled, in catalog
    order: edited, removed, unreadable, or larger than the compiler reads (it could not have)."""
    stale = []
    for entry in entries:
        try:
            raw = files.read_bytes(root / entry.file, SOURCE_MAX_BYTES, "a schema or rule table")
        except OSError:
            stale.append(entry.file)
            continue
        if hashlib.sha256(raw).hexdigest() != entry.sha256:
            stale.append(entry.file)
    return stale


def named(stale: Sequence[str], shown: int = 3) -> str:
    """The first ``shown`` files, and how many more: one line however many changed."""
    listed = ", ".join(stale[:shown])
    return listed if len(stale) <= shown else f"{listed} and {len(stale) - shown} more"


def changed_in_use() -> tuple[Path, list[str]]:
    """Where the package in use was compiled (the folder ``rcs codegen`` ran in), and ``changed()``
    for it: rcs's own files ship inside the package (in a checkout, links to the project's), a
    project's lie under its root. A catalog that cannot be imported (a merge conflict, a hand
    edit) is itself named: the package no longer says what it was compiled from."""
    from rcs_contracts.engine.export import home

    root = project.root()
    folder = home() if root is None else root
    shown = (folder / "schemas").resolve().parent if root is None else root
    name = f"{project.package()}._catalog"
    try:
        entries = project.module("_catalog").FILES
    except Exception as exc:
        if isinstance(exc, ModuleNotFoundError) and exc.name == name:
            return shown, []  # compiled before catalogs existed: nothing to compare with
        return shown, [_catalog_file(folder, name)]
    return shown, changed(folder, entries)


def _catalog_file(folder: Path, name: str) -> str:
    """The catalog module's file, from the root when the package lies under it."""
    module_file = Path(*name.split(".")).with_suffix(".py")
    return module_file.as_posix() if (folder / module_file).exists() else name
