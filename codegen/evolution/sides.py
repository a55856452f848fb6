"""The two sides of a diff: the working tree, and what it is compared against.

``--against`` names a git revision of the repository holding the project (``HEAD~1``, ``main``,
``v1.2.0``), a project folder (holding ``schemas/``), or a bundle ``rcs schema export`` wrote (the
same layout, with ``catalog.json``). A revision's files are read with ``git`` into a temporary
folder (only the schemas folder, the root tables and ``pyproject.toml``) and loaded there by the
compiler's own loader, exactly as ``rcs codegen`` would have read them at that revision.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from rcs_contracts.codegen import config
from rcs_contracts.codegen.diagnostics import CompileError
from rcs_contracts.codegen.sources import ROOT_TABLES, Project, SourceFile, Table, load

GIT_TIMEOUT = 60  # seconds for one git command on the project's own repository


class SideError(Exception):
    """A side cannot be read; ``str()`` says why in one line."""


@dataclass(frozen=True)
class Side:
    """One version of a project: its inputs, as the compiler loaded them."""

    label: str
    project: Project

    @cached_property
    def kinds(self) -> Mapping[str, SourceFile]:
        """Artifact schemas by kind (``<domain>/<name>``)."""
        return {f"{d.name}/{s.stem}": s for d in self.project.domains for s in d.schemas}

    @cached_property
    def tables(self) -> Mapping[str, Table]:
        """Rule tables by ``<domain>/<name>`` (a root table counts in its schema's domain)."""
        return {f"{d.name}/{t.source.stem}": t for d in self.project.domains for t in d.tables}

    @cached_property
    def documents(self) -> Mapping[str, Any]:
        """Every schema document and resource the engine would hold, by URI."""
        found = {s.uri: s.data for s in self.project.all_schemas}
        found.update({r.uri: r.source.data for r in self.project.resources})
        return found


def _loaded(root: Path, label: str, writing: bool = False) -> Side:
    try:
        return Side(label, load(root, writing))
    except CompileError as exc:
        first = exc.diagnostics[0]
        more = f" (and {len(exc.diagnostics) - 1} more)" if len(exc.diagnostics) > 1 else ""
        raise SideError(f"cannot read the schemas of {label}: {first}{more}") from None


def working(root: Path) -> Side:
    """The project as it is on disk."""
    return _loaded(root, "the working tree", writing=True)


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=GIT_TIMEOUT, check=False)
    except FileNotFoundError:
        raise SideError("git is not installed, so a revision cannot be read") from None
    except subprocess.TimeoutExpired:
        raise SideError(f"git {args[0]} took longer than {GIT_TIMEOUT} s") from None


def _revision(root: Path, ref: str) -> str | None:
    if ref.startswith("-"):
        return None
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    return done.stdout.decode().strip() if done.returncode == 0 else None


def _wanted(root: Path, commit: str, prefix: str) -> list[str]:
    """The paths (from the repository's top) the compiler reads at ``commit``."""
    settings = config.Settings()
    shown = _git(root, "show", f"{commit}:{prefix}{config.FILE}")
    if shown.returncode == 0:
        try:
            table = tomllib.loads(shown.stdout.decode("utf-8")).get("tool", {}).get("rcs", {})
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise SideError(f"{config.FILE} at {commit[:12]} cannot be read: {exc}") from None
        schemas = table.get("schemas", settings.schemas) if isinstance(table, dict) else settings.schemas
        resources = table.get("resources", {}) if isinstance(table, dict) else {}
        folders = (
            [schemas, *(v for v in resources.values() if isinstance(v, str))]
            if isinstance(resources, dict)
            else [schemas]
        )
    else:
        folders = [settings.schemas]
    candidates = [config.FILE, *ROOT_TABLES, *(f for f in folders if isinstance(f, str))]
    listed = _git(root, "ls-tree", "--name-only", commit, "--", *(prefix + c for c in candidates))
    return sorted(set(listed.stdout.decode("utf-8").splitlines()))


def revision(root: Path, ref: str) -> Side:
    """The project as it was at git revision ``ref``."""
    commit = _revision(root, ref)
    if commit is None:
        raise SideError(f"{ref!r} is neither a folder nor a git revision of the repository at {root}")
    prefix = _git(root, "rev-parse", "--show-prefix").stdout.decode("utf-8").strip()
    paths = _wanted(root, commit, prefix)
    if not paths:
        raise SideError(f"{ref} has no schemas folder at {prefix or 'the repository top'}")
    archived = _git(root, "archive", "--format=tar", commit, "--", *paths)
    if archived.returncode != 0:
        raise SideError(f"git archive {ref}: {archived.stderr.decode('utf-8', 'replace').strip()}")
    with tempfile.TemporaryDirectory(prefix="rcs-against-") as temp:
        with tarfile.open(fileobj=io.BytesIO(archived.stdout)) as tar:
            tar.extractall(temp, filter="data")
        return _loaded(Path(temp) / prefix, ref)


def against(root: Path, ref: str) -> Side:
    """The other side: a folder when ``ref`` names one, else a git revision."""
    folder = Path(ref)
    if folder.is_dir():
        return _loaded(folder.resolve(), str(folder))
    return revision(root, ref)
