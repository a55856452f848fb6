"""Text as the ODR contract sees it: newlines normalised, a leading byte-order mark dropped."""

from __future__ import annotations

BOM = "\ufeff"


def as_text(raw: object) -> str | None:
    """The text of a raw output: str, or bytes as UTF-8; bad bytes and lone surrogates become U+FFFD.

    Anything else (None, numbers, a released buffer) is None: no text.
    """
    try:
        if isinstance(raw, str):
            # A lone surrogate cannot be written as UTF-8 JSON; replace it rather than fail later.
            return raw if raw.isascii() else raw.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        if isinstance(raw, bytes | bytearray | memoryview):
            return bytes(raw).decode("utf-8", errors="replace")
    except ValueError:  # e.g. a released memoryview
        return None
    return None


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` become ``\\n`` (odr-v1.md, Determinism Rules 1)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalized(raw: object) -> str:
    """The normalised raw output recorded in the trace ('' for something that is not text)."""
    text = as_text(raw)
    return "" if text is None else normalize_newlines(text)
