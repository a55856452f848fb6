"""Text as the ODR contract sees it: newlines normalised, a leading byte-order mark dropped."""

from __future__ import annotations

BOM = "\ufeff"


def as_text(raw: object) -> str | None:
    """The text of a raw output: str as is, bytes as UTF-8 (bad bytes replaced), anything else None."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bytes | bytearray | memoryview):
        return bytes(raw).decode("utf-8", errors="replace")
    return None


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` become ``\\n`` (odr-v1.md, Determinism Rules 1)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalized(raw: object) -> str:
    """The normalised raw output recorded in the trace ('' for something that is not text)."""
    text = as_text(raw)
    return "" if text is None else normalize_newlines(text)
