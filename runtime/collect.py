"""Collect: run every file given to ``rcs validate`` and gather results (nothing is printed here)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generated._support import Kind, RcsError, format_location
from generated.cli import messages as M
from runtime import kinds, validation

DEFAULT_DOMAIN = "evidence"  # whose SchemaViolationError reports a file too broken to have a kind


@dataclass(frozen=True)
class Violation:
    """One violation as reported: the error class name, its message and where."""

    error: str
    code: str
    message: str
    location: str

    @classmethod
    def of(cls, error: RcsError) -> Violation:
        """Report form of a contract error."""
        return cls(type(error).__name__, error.code, error.message, format_location(error.location))


@dataclass(frozen=True)
class FileResult:
    """The outcome for one file: its kind (when known) and its violations."""

    path: str
    kind: str | None
    violations: tuple[Violation, ...] = ()

    @property
    def valid(self) -> bool:
        """True when the file has no violation."""
        return not self.violations


@dataclass
class Collection:
    """Everything ``rcs validate`` found: results per file and usage problems (exit 2)."""

    results: list[FileResult] = field(default_factory=list)
    usage: list[str] = field(default_factory=list)


def expand(paths: Iterable[str], collection: Collection) -> list[Path]:
    """Files to check: each file given, and every ``*.json`` below each directory, sorted."""
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.json") if p.is_file())
            if not found:
                collection.usage.append(M.no_files(path=given))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            collection.usage.append(M.unreadable(path=given, reason="no such file or directory"))
    return files


def _declared_kind(raw: bytes) -> tuple[str | None, Any]:
    """The ``$schema`` of a JSON object text, and the parse failure if it is not JSON."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return None, exc
    if isinstance(data, dict) and isinstance(data.get("$schema"), str):
        return data["$schema"], None
    return None, None


def _syntax_violation(raw: bytes) -> Violation:
    errors = validation.rules_for(DEFAULT_DOMAIN).errors
    try:
        json.loads(raw)
        detail = "not a JSON object"
    except json.JSONDecodeError as exc:
        detail = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    except ValueError as exc:  # undecodable bytes
        detail = str(exc)
    return Violation.of(errors.json_syntax(detail=detail))


def check_file(path: Path, kind: Kind | None, context: validation.Context, collection: Collection) -> FileResult:
    """Validate one file; usage problems go to ``collection.usage``."""
    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        collection.usage.append(M.unreadable(path=name, reason=exc.strerror or str(exc)))
        return FileResult(name, None)
    if kind is None:
        ref, broken = _declared_kind(raw)
        if broken is not None:
            return FileResult(name, None, (_syntax_violation(raw),))
        found = kinds.kind_from_schema_ref(ref) if ref is not None else None
        if found is None:
            collection.usage.append(M.no_kind(path=name))
            return FileResult(name, None)
        kind = found
    errors = list(validation.violations(kind, raw, context))
    if any(e.code == "EVIDENCE_STORE_REQUIRED" for e in errors):
        count = next(int(e.params["count"]) for e in errors if e.code == "EVIDENCE_STORE_REQUIRED")
        collection.usage.append(M.evidence_required(path=name, count=count))
        return FileResult(name, kind.kind)
    return FileResult(name, kind.kind, tuple(Violation.of(e) for e in errors))


def load_evidence(bundle: str, collection: Collection) -> Any:
    """The EvidenceStore of a bundle file; on failure the bundle's violations become a result."""
    from runtime.evidence.store import EvidenceStore

    kind = kinds.resolve("evidence/evidence_bundle")
    result = check_file(Path(bundle), kind, validation.Context(), collection)
    if collection.usage:
        return None
    if not result.valid:
        collection.results.append(result)
        collection.usage.append(M.bad_bundle(path=bundle, count=len(result.violations)))
        return None
    return EvidenceStore.read(bundle)


def load_policy(path: str, collection: Collection) -> Any:
    """A claim policy from a YAML file; on failure a result and a usage problem."""
    from runtime.evidence.policy import load_claim_policy

    try:
        return load_claim_policy(path)
    except OSError as exc:
        collection.usage.append(M.unreadable(path=path, reason=exc.strerror or str(exc)))
    except RcsError as exc:
        collection.results.append(FileResult(path, "evidence/claim_policy", (Violation.of(exc),)))
        collection.usage.append(M.bad_bundle(path=path, count=1))
    return None


Progress = Callable[[int, int], None]


def collect(
    paths: list[str],
    kind_name: str | None,
    evidence: str | None,
    claim_policy: str | None,
    progress: Progress | None = None,
) -> Collection:
    """Validate every file under ``paths``; stop early only for problems that make results meaningless.

    ``progress(done, total)`` is called after each file when given.
    """
    collection = Collection()
    kind: Kind | None = None
    if kind_name is not None:
        try:
            kind = kinds.resolve(kind_name)
        except kinds.KindError as exc:
            if exc.problem == "ambiguous":
                collection.usage.append(M.ambiguous_kind(kind=exc.kind, candidates=", ".join(exc.candidates)))
            else:
                collection.usage.append(M.unknown_kind(kind=exc.kind, known=", ".join(exc.candidates)))
            return collection
    store = load_evidence(evidence, collection) if evidence is not None else None
    policy = load_policy(claim_policy, collection) if claim_policy is not None else None
    if collection.usage:
        return collection
    context = validation.Context(evidence=store, claim_policy=policy)
    files = expand(paths, collection)
    for done, path in enumerate(files, 1):
        collection.results.append(check_file(path, kind, context, collection))
        if progress is not None:
            progress(done, len(files))
    return collection
