"""Regular expressions from users, run on a linear-time engine: Rust's ``regex`` crate.

The crate (reached through pydantic-core, which rcs depends on already) guarantees matching in time
linear in the text, whatever the pattern: ``(a+)+$`` on a megabyte costs what ``a`` does. It has no
backtracking constructs, so look-around (``(?=``, ``(?!``, ``(?<=``, ``(?<!``) and backreferences
(``\\1``) are refused when the pattern is compiled, with the engine's message naming the construct.

Its syntax is Python's for everything else patterns normally use, with Unicode semantics as in
Python's ``re`` on str: ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are Unicode-aware, ``(?s)``, ``(?i)``,
``(?m)`` and ``(?x)`` are inline flags, ``*?`` is lazy. Differences a user may meet: ``$`` without
``(?m)`` matches only at the very end (Python's also before a final newline), ``\\Z`` is spelled
``\\z``, and the word characters of ``\\w``/``\\b`` follow Unicode (UTS #18: letters, marks, digits,
connector punctuation) where Python counts ``str.isalnum()`` and ``_``; a combining mark is a word
character here and not in Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from pydantic_core import SchemaError, SchemaValidator, core_schema


class PatternError(ValueError):
    """A pattern the linear-time engine cannot compile; ``detail`` is the engine's reason."""

    def __init__(self, pattern: str, detail: str) -> None:
        super().__init__(detail)
        self.pattern = pattern
        self.detail = detail


def _reason(error: SchemaError) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("error: "):
            return line.removeprefix("error: ")
    return lines[-1] if lines else "does not compile"


@dataclass(frozen=True)
class LinearPattern:
    """A compiled pattern; ``search`` says whether it matches anywhere in a text."""

    pattern: str
    _validator: SchemaValidator = field(repr=False, compare=False)

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text`` (lone surrogates are read as U+FFFD)."""
        if not text.isascii():
            text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return self._validator.isinstance_python(text)

    def search_valid(self, text: str) -> bool:
        """``search`` for a text already known to hold no lone surrogate (see ``valid_text``): many
        patterns over one text pay for that conversion once."""
        return self._validator.isinstance_python(text)


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate read as U+FFFD, as ``LinearPattern.search`` reads it."""
    return text if text.isascii() else text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


@lru_cache(maxsize=256)
def compile_linear(pattern: str) -> LinearPattern:
    """``pattern`` compiled for linear-time search; raises PatternError naming what is unsupported."""
    if not pattern.isascii():
        try:
            pattern.encode("utf-8")
        except UnicodeEncodeError:
            raise PatternError(pattern, "a lone surrogate is not text") from None
    try:
        validator = SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine="rust-regex"))
    except SchemaError as exc:
        raise PatternError(pattern, _reason(exc)) from None
    return LinearPattern(pattern, validator)
