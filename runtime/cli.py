"""The ``rcs`` command (placeholder)."""
import sys


def main(argv: list[str] | None = None) -> int:
    from codegen.cli import main as codegen_main
    args = sys.argv[1:] if argv is None else argv
    return codegen_main(args[1:])
