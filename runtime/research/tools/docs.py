"""The ``docs`` tool: BM25 search over a local folder of ``.txt``, ``.md`` and ``.json`` papers.

The folder is read and indexed with the Phase 1 chunker and index on the first call, inside that
call's deadline, and kept for the calls after it (a tool made for a request research refuses reads
nothing). Each file is a section labelled by its path (a Phase 1 paper in ``.json`` gives one
section per paper section, ``path#label``; other JSON is searched as written). The sandbox: the
tool reads only inside its folder; a file that resolves outside it (a symlink out), a file over
the hard size limit, or a folder over the table's total makes the call a sandbox violation rather
than being read. Dangling links, link loops, special files and names that are not UTF-8 are
skipped. A folder the Phase 1 index refuses (two chunks with one id) is an unreadable result, never
an empty one (R-RS-4).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from rcs_contracts.engine import json_text
from rcs_contracts.generated.phase1.errors import ErrorCode as Phase1Code
from rcs_contracts.generated.phase1.errors import Phase1Error
from rcs_contracts.generated.research import errors as E
from rcs_contracts.generated.research.policy import DOCS_TOTAL_BYTES, RESPONSE_BYTES, TITLE_CHARS
from rcs_contracts.runtime.phase1.pipeline import IngestedPaper, ingest_document, retrieve
from rcs_contracts.runtime.phase1.text import query_tokens
from rcs_contracts.safeio import files

SUFFIXES = (".txt", ".md", ".json")
NAME = "docs"


def _walk(root: Path) -> list[Path]:
    """Every candidate file under ``root``, sorted, without recursion (a deep tree cannot overflow
    the stack) and without following directory links."""
    found = []
    for directory, subdirectories, names in os.walk(root, followlinks=False):
        subdirectories.sort()
        for name in names:
            if Path(name).suffix.lower() in SUFFIXES:
                found.append(Path(directory) / name)
    return sorted(found)


class DocsTool:
    """Search a folder's documents; ``search`` is called only by the adapter."""

    name = NAME

    def __init__(self, folder: str | Path, max_bytes: int = RESPONSE_BYTES) -> None:
        root = Path(folder)
        # Path("") is the working directory: an empty path is an unset variable, not a choice.
        if folder == "" or not root.is_dir():
            raise E.docs_not_a_directory(path=str(folder) or "''")
        self.root = root.resolve()
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._built = False
        self._failure: Exception | None = None
        self.paper: IngestedPaper | None = None
        self._paths: dict[str, str] = {}  # section label -> the file it came from

    def _build(self) -> None:
        sections: list[tuple[str, str]] = []
        labels: set[str] = set()
        total = 0
        for path in _walk(self.root):
            relative = path.relative_to(self.root).as_posix()
            try:
                relative.encode("utf-8")
                real = path.resolve(strict=True)
            except (OSError, RuntimeError, UnicodeError):  # dangling, a loop, or not a UTF-8 name
                continue
            if not real.is_relative_to(self.root):
                raise E.sandbox_forbidden_path(tool=NAME, path=relative)
            if not real.is_file():
                continue
            try:
                raw = files.read_bytes(real, self.max_bytes, relative)
            except files.TooLarge:
                raise E.sandbox_output_too_large(tool=NAME, limit=self.max_bytes) from None
            except OSError:
                continue
            total += len(raw)
            if total > DOCS_TOTAL_BYTES:
                raise E.sandbox_output_too_large(tool=NAME, limit=DOCS_TOTAL_BYTES)
            # Others' files: undecodable bytes become U+FFFD rather than losing the file.
            text = files.without_bom(raw).decode("utf-8", "replace")
            for label, body in _sections(relative, text):
                # Phase 1 compares labels case-folded; two files may differ only in case.
                unique, n = label, 2
                while unique.casefold() in labels:
                    unique, n = f"{label} ({n})", n + 1
                labels.add(unique.casefold())
                sections.append((unique, body))
                self._paths[unique] = relative
        if sections:
            try:
                self.paper = ingest_document(NAME, sections)
            except Phase1Error as exc:
                if exc.code != Phase1Code.EMPTY_PAPER:  # text that normalises to nothing has no sources
                    raise E.tool_result_invalid(tool=NAME, detail=str(exc)) from None

    def _ready(self) -> None:
        """Index the folder once (a call abandoned at its deadline may finish it for the next)."""
        with self._lock:
            if not self._built:
                try:
                    self._build()
                except E.ResearchError as exc:
                    self._failure = exc
                self._built = True
        if self._failure is not None:
            raise self._failure

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The best ``limit`` chunks for ``query``: locator ``path#chunk_id``, the chunk's text."""
        self._ready()
        if self.paper is None or not query_tokens(query):
            return []
        chunks = {c.chunk_id: c for c in self.paper.chunks}
        items = []
        for hit in retrieve(query, self.paper, limit).hits:
            chunk = chunks[hit.chunk_id]
            items.append(
                {
                    "locator": f"{self._paths.get(chunk.section, chunk.section)}#{chunk.chunk_id}",
                    "title": chunk.section[:TITLE_CHARS],
                    "content": chunk.text,
                    "metadata": {"chunk_id": chunk.chunk_id, "rank": hit.rank},
                }
            )
        return items


def _sections(relative: str, text: str) -> list[tuple[str, str]]:
    """The (label, text) sections of one file: the whole file, or a JSON paper's sections."""
    if not relative.lower().endswith(".json"):
        return [(relative, text)] if text.strip() else []
    try:
        data = json_text.parse(text)
    except (json_text.JsonTextError, RecursionError):  # not a paper: indexed as plain text
        return [(relative, text)] if text.strip() else []
    found = data.get("sections") if isinstance(data, dict) else None
    if not isinstance(found, list):  # JSON, but not a paper: its text is searched as written
        return [(relative, text)] if text.strip() else []
    pairs = []
    seen: set[str] = set()
    for section in found:
        if isinstance(section, dict) and isinstance(section.get("label"), str) and isinstance(section.get("text"), str):
            label = section["label"].strip()
            if section["text"].strip() and label and label.casefold() not in seen:  # a repeated label: the first
                seen.add(label.casefold())
                pairs.append((f"{relative}#{label}", section["text"]))
    return pairs
