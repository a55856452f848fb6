"""The evidence store: immutable snapshots and the snippets cut from them (R-EV-1, R-EV-2, R-EV-6).

Every way in (the constructor, ``add_*``, ``from_bundle``) checks what it takes in: hashes,
offsets, snippet text, duplicate ids. Citations resolve ``snippet_id -> snippet -> snapshot``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from rcs_contracts.generated._support import Location
from rcs_contracts.generated.evidence import errors as E
from rcs_contracts.generated.evidence.evidence_bundle_schema import KIND as BUNDLE_KIND
from rcs_contracts.generated.evidence.evidence_bundle_schema import (
    EvidenceBundle,
    EvidenceRef,
    EvidenceSnapshot,
    EvidenceSnippet,
)


def content_hash(raw_text: str) -> str:
    """Lowercase hex SHA-256 of ``raw_text`` encoded as UTF-8 (R-EV-1)."""
    return hashlib.sha256(raw_text.encode("utf-8")).hexdigest()


def snapshot_violations(snapshot: EvidenceSnapshot, location: Location = ()) -> Iterator[E.ContractViolationError]:
    """A snapshot whose hash does not match its text is rejected (R-EV-1)."""
    actual = content_hash(snapshot.raw_text)
    if actual != snapshot.content_hash:
        yield E.snapshot_hash_mismatch(
            snapshot_id=snapshot.snapshot_id, content_hash=snapshot.content_hash, actual=actual, location=location
        )


def snippet_violations(
    snippet: EvidenceSnippet, snapshot: EvidenceSnapshot | None, location: Location = ()
) -> Iterator[E.ContractViolationError]:
    """Offsets and text of a snippet against its snapshot (R-EV-2)."""
    if snapshot is None:
        yield E.unknown_snapshot(snapshot_id=snippet.snapshot_id, location=location + ("snapshot_id",))
        return
    length = len(snapshot.raw_text)
    if not 0 <= snippet.start_char < snippet.end_char <= length:
        yield E.snippet_offsets(
            snippet_id=snippet.snippet_id,
            start_char=snippet.start_char,
            end_char=snippet.end_char,
            length=length,
            location=location,
        )
    elif snapshot.raw_text[snippet.start_char : snippet.end_char] != snippet.snippet_text:
        yield E.snippet_text_mismatch(snippet_id=snippet.snippet_id, location=location + ("snippet_text",))


class EvidenceStore:
    """Snapshots and snippets by id; nothing invalid gets in and nothing is replaced."""

    __slots__ = ("_snapshots", "_snippets")

    def __init__(self, snapshots: Iterable[EvidenceSnapshot] = (), snippets: Iterable[EvidenceSnippet] = ()) -> None:
        self._snapshots: dict[str, EvidenceSnapshot] = {}
        self._snippets: dict[str, EvidenceSnippet] = {}
        for snapshot in snapshots:
            self.add_snapshot(snapshot)
        for snippet in snippets:
            self.add_snippet(snippet)

    @classmethod
    def from_bundle(cls, source: str | bytes | os.PathLike[str]) -> EvidenceStore:
        """A store from an evidence bundle (JSON text, or a path to it); raises the first violation."""
        from rcs_contracts.runtime.evidence.validate import validate_artifact

        bundle = validate_artifact(BUNDLE_KIND, source)
        assert isinstance(bundle, EvidenceBundle)
        return cls(bundle.snapshots, bundle.snippets)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> EvidenceStore:
        """A store from a bundle file."""
        return cls.from_bundle(Path(path))

    def add_snapshot(self, snapshot: EvidenceSnapshot) -> None:
        """Add a snapshot; its hash must match and its id must be new."""
        if snapshot.snapshot_id in self._snapshots:
            raise E.duplicate_id(what="snapshot", field="snapshot_id", value=snapshot.snapshot_id)
        for error in snapshot_violations(snapshot):
            raise error
        self._snapshots[snapshot.snapshot_id] = snapshot

    def add_snippet(self, snippet: EvidenceSnippet) -> None:
        """Add a snippet; its snapshot must be here, its offsets and text must agree, its id must be new."""
        if snippet.snippet_id in self._snippets:
            raise E.duplicate_id(what="snippet", field="snippet_id", value=snippet.snippet_id)
        for error in snippet_violations(snippet, self._snapshots.get(snippet.snapshot_id)):
            raise error
        self._snippets[snippet.snippet_id] = snippet

    @property
    def snapshots(self) -> tuple[EvidenceSnapshot, ...]:
        """Every snapshot, in insertion order."""
        return tuple(self._snapshots.values())

    @property
    def snippets(self) -> tuple[EvidenceSnippet, ...]:
        """Every snippet, in insertion order."""
        return tuple(self._snippets.values())

    def snapshot(self, snapshot_id: str) -> EvidenceSnapshot:
        """The snapshot with this id; EvidenceValidationError when there is none."""
        try:
            return self._snapshots[snapshot_id]
        except KeyError:
            raise E.unknown_snapshot(snapshot_id=snapshot_id) from None

    def snippet(self, snippet_id: str) -> EvidenceSnippet:
        """The snippet with this id; EvidenceValidationError (contract message) when there is none."""
        try:
            return self._snippets[snippet_id]
        except KeyError:
            raise E.unknown_snippet(snippet_id=snippet_id) from None

    def __len__(self) -> int:
        return len(self._snapshots) + len(self._snippets)

    def resolves(self, ref: EvidenceRef) -> bool:
        """True when ``ref_violations`` would find nothing (the common case, checked without generators)."""
        snippet = self._snippets.get(ref.snippet_id)
        if snippet is None or ref.snapshot_id != snippet.snapshot_id:
            return False
        start, end = ref.start_char, ref.end_char
        if not isinstance(start, int) and not isinstance(end, int):
            return True
        return isinstance(start, int) and isinstance(end, int) and snippet.start_char <= start < end <= snippet.end_char

    def ref_violations(self, ref: EvidenceRef, location: Location = ()) -> Iterator[E.ContractViolationError]:
        """Why ``ref`` does not resolve (R-EV-2); nothing when it does."""
        snippet = self._snippets.get(ref.snippet_id)
        if snippet is None:
            yield E.unknown_snippet(snippet_id=ref.snippet_id, location=location + ("snippet_id",))
            return
        if ref.snapshot_id != snippet.snapshot_id:
            yield E.ref_snapshot_mismatch(
                snippet_id=ref.snippet_id,
                snapshot_id=ref.snapshot_id,
                expected=snippet.snapshot_id,
                location=location + ("snapshot_id",),
            )
        start, end = ref.start_char, ref.end_char
        if isinstance(start, int) != isinstance(end, int):
            yield E.ref_offsets_incomplete(snippet_id=ref.snippet_id, location=location)
        elif (
            isinstance(start, int)
            and isinstance(end, int)
            and not (snippet.start_char <= start < end <= snippet.end_char)
        ):
            yield E.ref_offsets_outside_snippet(
                snippet_id=ref.snippet_id,
                start_char=start,
                end_char=end,
                snippet_start=snippet.start_char,
                snippet_end=snippet.end_char,
                location=location,
            )

    def resolve(self, ref: EvidenceRef) -> tuple[EvidenceSnippet, EvidenceSnapshot]:
        """``snippet_id -> snippet -> snapshot``; raises the first reason it does not resolve."""
        for error in self.ref_violations(ref):
            raise error
        snippet = self._snippets[ref.snippet_id]
        return snippet, self._snapshots[snippet.snapshot_id]


def bundle_violations(bundle: EvidenceBundle) -> Iterator[E.ContractViolationError]:
    """Every problem of a bundle, in document order: duplicates, hashes, offsets, text (R-EV-6)."""
    snapshots: dict[str, EvidenceSnapshot] = {}
    for index, snapshot in enumerate(bundle.snapshots):
        location: Location = ("snapshots", index)
        if snapshot.snapshot_id in snapshots:
            yield E.duplicate_id(
                what="snapshot", field="snapshot_id", value=snapshot.snapshot_id, location=location + ("snapshot_id",)
            )
            continue
        snapshots[snapshot.snapshot_id] = snapshot
        yield from snapshot_violations(snapshot, location)
    seen: set[str] = set()
    for index, snippet in enumerate(bundle.snippets):
        location = ("snippets", index)
        if snippet.snippet_id in seen:
            yield E.duplicate_id(
                what="snippet", field="snippet_id", value=snippet.snippet_id, location=location + ("snippet_id",)
            )
            continue
        seen.add(snippet.snippet_id)
        yield from snippet_violations(snippet, snapshots.get(snippet.snapshot_id), location)
