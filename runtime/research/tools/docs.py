"""The ``docs`` tool: BM25 search over a local folder of ``.txt``, ``.md`` and ``.json`` papers.

The folder is read and indexed once, when the tool is made, with the Phase 1 chunker and index, so
a team can research its own papers offline. Each file is a section labelled by its path (a Phase 1
paper in ``.json`` gives one section per paper section, ``path#label``). The sandbox: the tool reads
only inside its folder; a file that resolves outside it (a symlink out) makes every call a sandbox
violation rather than being read, and a file over the hard size limit is one too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generated.phase1.errors import Phase1Error
from generated.research import errors as E
from generated.research.policy import RESPONSE_BYTES
from runtime import json_text
from runtime.phase1.pipeline import IngestedPaper, ingest_document
from runtime.phase1.text import query_tokens
from safeio import files

SUFFIXES = (".txt", ".md", ".json")
NAME = "docs"


class DocsTool:
    """Search a folder's documents; ``search`` is called only by the adapter."""

    name = NAME

    def __init__(self, folder: str | Path, max_bytes: int = RESPONSE_BYTES) -> None:
        root = Path(folder)
        if not root.is_dir():
            raise E.docs_not_a_directory(path=str(folder))
        self.root = root.resolve()
        self.max_bytes = max_bytes
        self.violation: Exception | None = None
        sections: list[tuple[str, str]] = []
        for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES):
            relative = path.relative_to(root).as_posix()
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):  # a dangling link or a loop: nothing to read
                continue
            if not real.is_relative_to(self.root):
                self.violation = E.sandbox_forbidden_path(tool=NAME, path=relative)
                break
            if not real.is_file():
                continue
            try:
                raw = files.read_bytes(real, max_bytes, relative)
            except files.TooLarge:
                self.violation = E.sandbox_output_too_large(tool=NAME, limit=max_bytes)
                break
            # Others' files: undecodable bytes become U+FFFD rather than losing the file.
            text = files.without_bom(raw).decode("utf-8", "replace")
            sections.extend(_sections(relative, text))
        self.paper: IngestedPaper | None = None
        if sections and self.violation is None:
            try:
                self.paper = ingest_document(NAME, sections)
            except Phase1Error:  # nothing indexable (text that normalises to nothing): no sources
                self.paper = None

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The best ``limit`` chunks for ``query``: locator ``path#chunk_id``, the chunk's text."""
        if self.violation is not None:
            raise self.violation
        if self.paper is None or not query_tokens(query):
            return []
        from runtime.phase1.pipeline import retrieve

        chunks = {c.chunk_id: c for c in self.paper.chunks}
        items = []
        for hit in retrieve(query, self.paper, limit).hits:
            chunk = chunks[hit.chunk_id]
            items.append(
                {
                    "locator": f"{chunk.section.split('#', 1)[0]}#{chunk.chunk_id}",
                    "title": chunk.section,
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
    if not isinstance(found, list):
        return []
    pairs = []
    seen: set[str] = set()
    for section in found:
        if isinstance(section, dict) and isinstance(section.get("label"), str) and isinstance(section.get("text"), str):
            label = section["label"].strip()
            if section["text"].strip() and label and label.casefold() not in seen:  # a repeated label: the first
                seen.add(label.casefold())
                pairs.append((f"{relative}#{label}", section["text"]))
    return pairs
