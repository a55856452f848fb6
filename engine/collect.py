"""Collect: run every file given to ``rcs validate`` and gather results (nothing is printed here)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rcs_contracts.engine import inputs, json_text, kinds, validation
from rcs_contracts.generated._support import Kind, RcsError, format_location
from rcs_contracts.generated.cli import messages as M
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.generated.evidence.errors import ErrorCode as EvidenceCode
from rcs_contracts.safeio import files


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
    """The outcome for one file: its kind (when known), its violations, or why it was not checked.

    ``crashed`` is an unexpected error while checking it (a bug in rcs): the file is reported with
    it, every other file is still checked, and the run exits 3.
    """

    path: str
    kind: str | None
    violations: tuple[Violation, ...] = ()
    unchecked: str | None = None
    crashed: str | None = None

    @property
    def valid(self) -> bool:
        """True only for a file that was checked and has no violation (fail closed)."""
        return self.unchecked is None and self.crashed is None and not self.violations


@dataclass
class Collection:
    """Everything ``rcs validate`` found: results per file and usage problems (exit 2)."""

    results: list[FileResult] = field(default_factory=list)
    usage: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)

    def skip(self, path: str, kind: str | None, problem: str) -> FileResult:
        """Record a file that could not be checked; it counts as a usage problem, never as valid."""
        self.usage.append(problem)
        return FileResult(path, kind, unchecked=problem)


_CANDIDATES = (".json", ".jsonl")


def _why_not(path: Path, kind: str) -> str:
    """Why a path that is not a regular file or a directory cannot be checked, in words."""
    name = str(path)
    if kind == files.LOOP:
        return str(files.SymlinkLoop(name))
    if kind == files.DANGLING:
        return str(files.DanglingLink(name))
    if kind == files.UNREADABLE:
        try:
            path.stat()
        except OSError as exc:
            return files.reason(exc)
    return str(files.NotRegularFile(name, kind))


# One entry of the work list: a file to check, or the result of one that cannot be.
Item = Path | FileResult


def _walk(top: Path, collection: Collection, items: list[Item], seen: set[tuple[int, int]]) -> None:
    """Depth first, names sorted at each level (the order of sorting by path parts), links followed.

    Iterative (a tree may be deeper than Python's stack), and each real directory is walked once
    (``seen``), however many links lead to it: a link back up is a loop, reported; a second way
    into a directory already walked adds nothing, so links cannot make the walk grow exponentially.

    Fail closed: a ``*.json``/``*.jsonl`` entry that is not a regular file, a dangling or looping
    link (it may have been a directory) and a directory that cannot be listed are each an unchecked
    result, never silently left out.
    """
    stack: list[tuple[Iterator[os.DirEntry[str]], frozenset[tuple[int, int]]]] = []
    listed = _listing(top, collection, items)
    if listed is not None:
        stack.append((listed, frozenset(seen)))
    while stack:
        entries, ancestors = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        path = Path(entry.path)
        if entry.name.endswith(_CANDIDATES) and entry.is_file(follow_symlinks=False):
            items.append(path)  # the common case, known from the listing without a stat call
            continue
        try:
            info = entry.stat()
        except OSError:
            kind = files.kind_of(path)
            if kind in (files.LOOP, files.DANGLING) or entry.name.endswith(_CANDIDATES):
                reason = _why_not(path, kind)
                items.append(collection.skip(entry.path, None, M.unreadable(path=entry.path, reason=reason)))
            continue
        if stat.S_ISDIR(info.st_mode):
            key = (info.st_dev, info.st_ino)
            if key in ancestors:
                reason = str(files.SymlinkLoop(entry.path))
                items.append(collection.skip(entry.path, None, M.unreadable(path=entry.path, reason=reason)))
            elif key not in seen:
                seen.add(key)
                inner = _listing(path, collection, items)
                if inner is not None:
                    stack.append((inner, ancestors | {key}))
        elif entry.name.endswith(_CANDIDATES):
            if stat.S_ISREG(info.st_mode):
                items.append(path)
            else:
                reason = str(files.NotRegularFile(entry.path, files.describe(info.st_mode)))
                items.append(collection.skip(entry.path, None, M.unreadable(path=entry.path, reason=reason)))


def _listing(directory: Path, collection: Collection, items: list[Item]) -> Iterator[os.DirEntry[str]] | None:
    """The entries of ``directory`` sorted by name, or None (and an unchecked result) when unlistable."""
    try:
        with os.scandir(directory) as listing:
            return iter(sorted(listing, key=lambda e: e.name))
    except OSError as exc:
        name = str(directory)
        items.append(collection.skip(name, None, M.unreadable(path=name, reason=files.reason(exc))))
        return None


def expand(paths: Iterable[str], collection: Collection) -> list[Item]:
    """What to check: each file given, and every ``*.json``/``*.jsonl`` below each directory given.

    Anything that cannot be checked is already a result (unchecked, counted, exit status 2).
    """
    items: list[Item] = []
    for given in paths:
        path = Path(given)
        kind = files.kind_of(path)
        if kind == files.DIR:
            found: list[Item] = []
            info = path.stat()
            _walk(path, collection, found, {(info.st_dev, info.st_ino)})
            if not found:
                collection.usage.append(M.no_files(path=given))
            items.extend(found)
        elif kind == files.FILE:
            items.append(path)
        elif kind == files.MISSING:
            collection.usage.append(M.no_such_path(path=given))
        else:
            items.append(collection.skip(given, None, M.unreadable(path=given, reason=_why_not(path, kind))))
    return items


def declared_schema(raw: bytes) -> tuple[str | None, str | None]:
    """The ``$schema`` string of a JSON object text, and the parse failure when it is not JSON.

    Parsed with pydantic-core's parser, which the validation uses too, so that both report the same
    line and column and both survive deep nesting and huge numbers.
    """
    try:
        data: Any = json_text.read(raw)
    except json_text.JsonTextError as exc:
        return None, str(exc)
    if isinstance(data, dict) and isinstance(data.get("$schema"), str):
        return data["$schema"], None
    return None, None


def check_file(path: Path, kind: Kind | None, context: validation.Context, collection: Collection) -> FileResult:
    """Validate one file; problems that stop it being checked go to ``collection.usage`` too.

    Whatever goes wrong inside, the batch goes on: an unexpected error becomes this file's result.
    """
    try:
        return _check_file(path, kind, context, collection)
    except Exception as exc:  # a bug in rcs: report it on this file and check every other one
        detail = str(exc).splitlines()[0] if str(exc) else ""
        collection.crashes.append(M.file_crashed(path=str(path), kind=type(exc).__name__, detail=detail))
        return FileResult(str(path), kind.kind if kind else None, crashed=f"{type(exc).__name__}: {detail}")


def _check_file(path: Path, kind: Kind | None, context: validation.Context, collection: Collection) -> FileResult:
    name = str(path)
    try:
        raw = inputs.read_bytes(path, Input.ARTIFACT)
    except OSError as exc:
        return collection.skip(name, None, M.unreadable(path=name, reason=files.reason(exc)))
    if path.suffix == ".jsonl" or looks_like_json_lines(raw):
        return check_lines(name, raw, kind, context, collection)
    return check_text(name, raw, kind, context, collection)


def looks_like_json_lines(raw: bytes) -> bool:
    """Several lines whose first line alone is a JSON object: JSON Lines whatever the file is called.

    (A pretty-printed JSON document starts with a lone "{", so it never looks like this.)
    """
    first, newline, rest = raw.lstrip().partition(b"\n")
    if not newline or not rest.strip():
        return False
    try:
        return isinstance(json_text.read(first), dict)
    except json_text.JsonTextError:
        return False


def check_lines(
    name: str, raw: bytes, kind: Kind | None, context: validation.Context, collection: Collection
) -> FileResult:
    """A JSON Lines file: each non-blank line is one artifact; locations start with its line number."""
    violations: list[Violation] = []
    kinds_seen: set[str] = set()
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        result = check_text(f"{name}:{number}", line, kind, context, collection)
        if result.unchecked is not None:
            return FileResult(name, result.kind, tuple(violations), result.unchecked)
        if result.kind is not None:
            kinds_seen.add(result.kind)
        violations.extend(replace(v, location=f"line {number}: {v.location}") for v in result.violations)
    found_kind = kind.kind if kind is not None else ", ".join(sorted(kinds_seen)) or None
    return FileResult(name, found_kind, tuple(violations))


def check_text(
    name: str, raw: bytes, kind: Kind | None, context: validation.Context, collection: Collection
) -> FileResult:
    """Validate one JSON text."""
    if kind is None:
        ref, broken = declared_schema(raw)
        if broken is not None:
            errors = validation.rules_for(M.DEFAULT_DOMAIN).errors
            return FileResult(name, None, (Violation.of(errors.json_syntax(detail=broken)),))
        found = kinds.kind_from_schema_ref(ref) if ref is not None else None
        if found is None:
            return collection.skip(name, None, M.no_kind(path=name))
        kind = found
    errors_found = list(validation.violations(kind, raw, context))
    for error in errors_found:
        if error.code == EvidenceCode.EVIDENCE_STORE_REQUIRED:
            problem = M.evidence_required(path=name, count=int(error.params["count"]))
            return collection.skip(name, kind.kind, problem)
    return FileResult(name, kind.kind, tuple(Violation.of(e) for e in errors_found))


@dataclass(frozen=True)
class EvidenceLoaders:
    """The evidence domain's readers, handed in by the command line (the engine knows no domain):
    ``store`` builds an EvidenceStore from a bundle's bytes once the bundle is valid, ``policy``
    reads a claim policy file (raising RcsError for a bad one)."""

    store: Callable[[bytes], Any]
    policy: Callable[[str], Any]


def load_evidence(bundle: str, collection: Collection, loaders: EvidenceLoaders) -> Any:
    """The EvidenceStore of a bundle file; on failure the bundle's violations become a result."""
    # Imported here: a run without --evidence never loads the evidence models.
    from rcs_contracts.generated.evidence.evidence_bundle_schema import KIND as BUNDLE_KIND

    try:
        raw = inputs.read_bytes(bundle, Input.EVIDENCE_BUNDLE)
    except FileNotFoundError:
        collection.usage.append(M.no_such_path(path=bundle))
        return None
    except OSError as exc:
        collection.usage.append(M.unreadable(path=bundle, reason=files.reason(exc)))
        return None
    # A bundle is one JSON document, whatever its lines look like: read once, checked and loaded as such.
    result = check_text(bundle, raw, kinds.resolve(BUNDLE_KIND), validation.Context(), collection)
    if result.unchecked is not None:
        return None
    if not result.valid:
        collection.results.append(result)
        collection.usage.append(M.bad_bundle(path=bundle, count=len(result.violations)))
        return None
    return loaders.store(raw)


def load_policy(path: str, collection: Collection, loaders: EvidenceLoaders) -> Any:
    """A claim policy from a YAML file; on failure a result and a usage problem."""
    from rcs_contracts.generated.evidence.claim_policy_schema import KIND as POLICY_KIND

    try:
        return loaders.policy(path)
    except FileNotFoundError:
        collection.usage.append(M.no_such_path(path=path))
    except OSError as exc:
        collection.usage.append(M.unreadable(path=path, reason=files.reason(exc)))
    except RcsError as exc:
        collection.results.append(FileResult(path, POLICY_KIND, (Violation.of(exc),)))
        collection.usage.append(M.bad_claim_policy(path=path, count=1))
    return None


Progress = Callable[[int, int], None]


def collect(
    paths: list[str],
    kind_name: str | None,
    evidence: str | None,
    claim_policy: str | None,
    progress: Progress | None = None,
    loaders: EvidenceLoaders | None = None,
) -> Collection:
    """Validate every file under ``paths``; stop early only for problems that make results meaningless.

    ``progress(done, total)`` is called after each file when given. ``loaders`` read ``evidence``
    and ``claim_policy``, and must be given with either.
    """
    if (evidence is not None or claim_policy is not None) and loaders is None:
        raise TypeError("collect: evidence or a claim policy needs the evidence domain's loaders")
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
    store = load_evidence(evidence, collection, loaders) if evidence is not None and loaders else None
    policy = load_policy(claim_policy, collection, loaders) if claim_policy is not None and loaders else None
    if collection.usage:
        return collection
    context = validation.Context(evidence=store, claim_policy=policy)
    items = expand(paths, collection)
    for done, item in enumerate(items, 1):
        collection.results.append(item if isinstance(item, FileResult) else check_file(item, kind, context, collection))
        if progress is not None:
            progress(done, len(items))
    return collection
