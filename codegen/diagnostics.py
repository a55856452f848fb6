"""Compiler diagnostics: one problem in one input file, printed as ``file:line: message``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Diagnostic:
    """A problem found while loading or linting an input file."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class CompileError(Exception):
    """Raised when the compiler cannot go on; carries every diagnostic found so far."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("\n".join(str(d) for d in diagnostics))
        self.diagnostics = tuple(diagnostics)
