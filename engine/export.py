"""``rcs schema path`` and ``rcs schema export DIR``: the schemas and rule tables as any language loads them.

The files ship inside the package (``rcs_contracts/schemas``, ``rcs_contracts/claim_policy.yaml``;
in a checkout, links to the project's own). The export copies each one the compiler read, checks
its bytes are the ones this build compiled (``generated/_catalog.py``), and writes
``catalog.json`` beside them: kind, file, ``$id``, version and sha256 of each. Every ``$id`` is
unique across domains and every ``$ref`` between files is relative (SPEC.md 2.1), so a registry
given every schema of the bundle keyed by ``$id`` resolves them all with no network.

Nothing half-written is left: the bundle is written into a new folder beside ``DIR`` and then
takes its place; a ``DIR`` that exists must be empty or an earlier export (it holds
``catalog.json``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rcs_contracts
from rcs_contracts.base.about import DISTRIBUTION, VERSION
from rcs_contracts.base.sources import SOURCE_MAX_BYTES
from rcs_contracts.generated._catalog import FILES, Entry
from rcs_contracts.generated._documents import FORMAT_SHAPES
from rcs_contracts.safeio import files

CATALOG = "catalog.json"
FORMAT = 1  # the catalog's own layout; a reader refuses a format it does not know
DRAFT = "https://json-schema.org/draft/2020-12/schema"


class ExportError(Exception):
    """The bundle cannot be written as asked; ``str()`` says why in one line. ``stale``: a shipped
    file differs from what this build compiled (rather than the folder being unwritable)."""

    def __init__(self, message: str, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


def home() -> Path:
    """Where the shipped files lie (the package's folder: ``schemas/`` and the root tables in it)."""
    return Path(rcs_contracts.__file__).resolve().parent


def schemas_path() -> Path:
    """The folder of the shipped schemas and rule tables, resolved (a checkout: the project's own)."""
    return (home() / "schemas").resolve()


def catalog(entries: tuple[Entry, ...] = FILES) -> dict[str, Any]:
    """The catalog of a bundle: what each file is, by path from the bundle's root."""
    files = []
    for e in entries:
        item: dict[str, Any] = {"file": e.file, "role": e.role, "sha256": e.sha256}
        item.update({k: v for k, v in (("kind", e.kind), ("schema", e.schema), ("id", e.id)) if v})
        item["version"] = e.version or VERSION
        files.append(item)
    # A format's text must match its shape (the whole text) besides the format's own checks: RFC
    # 3339's grammar exactly, where validators commonly also take ISO 8601's space or "+0100".
    formats = {name: {"shape": shape} for name, shape in sorted(FORMAT_SHAPES.items())}
    return {
        "format": FORMAT,
        "producer": {"name": DISTRIBUTION, "version": VERSION},
        "draft": DRAFT,
        "formats": formats,
        "files": files,
    }


@dataclass(frozen=True)
class Exported:
    """What an export wrote: the folder and how many files (the catalog not counted)."""

    folder: Path
    files: int


def _read_checked(source: Path, entry: Entry) -> bytes:
    try:
        raw = files.read_bytes(source, SOURCE_MAX_BYTES, "a schema or rule table")
    except OSError as exc:
        raise ExportError(f"{entry.file}: cannot read: {exc.strerror or exc}") from None
    if hashlib.sha256(raw).hexdigest() != entry.sha256:
        raise ExportError(f"{entry.file} changed since this build's `rcs codegen`: run it, then export", stale=True)
    return raw


def _may_replace(folder: Path) -> None:
    if not folder.exists() and not folder.is_symlink():
        return
    if folder.is_symlink() or not folder.is_dir():
        raise ExportError(f"{folder}: exists and is not a folder")
    if any(folder.iterdir()) and not (folder / CATALOG).is_file():
        raise ExportError(f"{folder}: not empty and not an earlier export (no {CATALOG}); nothing written")


def export(folder: Path, entries: tuple[Entry, ...] = FILES, source: Path | None = None) -> Exported:
    """Write the bundle into ``folder`` (see the module docstring); raises ExportError."""
    source = home() if source is None else source
    folder = Path(os.path.abspath(folder))
    try:
        _may_replace(folder)
    except OSError as exc:  # a parent that cannot be searched: what is there cannot be known
        raise ExportError(f"{folder}: cannot write: {exc.strerror or exc}") from None
    bodies = {e.file: _read_checked(source / e.file, e) for e in entries}
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    except OSError as exc:  # a parent that is a file, read-only, or a file system such as /proc
        raise ExportError(f"{folder}: cannot write: {exc.strerror or exc}") from None
    try:
        for name, raw in bodies.items():
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(raw)
        text = json.dumps(catalog(entries), indent=2, ensure_ascii=False) + "\n"
        (staging / CATALOG).write_text(text, encoding="utf-8")
        old = None
        if folder.exists():
            old = folder.with_name(f".{folder.name}-old-{staging.name}")
            folder.rename(old)
        staging.rename(folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise ExportError(f"{folder}: cannot write: {exc.strerror or exc}") from None
    return Exported(folder, len(bodies))
