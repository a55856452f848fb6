"""Experiment: the injection filter's rule gates on Rust's regex crate instead of one RE2 set.

    .venv/bin/python bench/rust_gates.py

Not part of rcs: a measured design that was rejected (SPEC 12.4), kept so the numbers can be run
again. The crate is the one rcs already carries through pydantic-core (``safeio/regex.py``); unlike
RE2 it skips to the literal strings a pattern must start with (memchr, Teddy), so a gate whose
words are missing costs next to nothing. Each gate is searched alone, on the lowered 4 KB pieces of
the corpora's benign prose and of Python's documentation, read once in a fresh process and then
again: first as the gate is written, then relaxed so that every search can start from a literal:
each top-level alternative searched apart, without the elements before its first literal (a
sentence start, a class, an optional word). The relaxed gates match wherever the gates do (a
suffix of a concatenation matches wherever the whole does, in the same text); the script checks it
on every labelled corpus text, counts the pieces each passes, and prints the times beside the
whole scan's budget at the 20 MB/s bar.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import yaml
from pydantic_core import SchemaValidator, core_schema

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from research import CORPORA, THROUGHPUT_BAR, _benign_pieces, _documentation_pieces  # noqa: E402

from rcs_contracts.runtime.research import injection  # noqa: E402

Element = tuple[list[str], list[str]]  # an atom's tokens, its quantifier's tokens


def tokens(pattern: str) -> list[str]:
    """The pattern's tokens: an escape, a whole character class, or one character."""
    found, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\":
            found.append(pattern[i : i + 2])
            i += 2
        elif pattern[i] == "[":
            j = i + 1 + (pattern[i + 1] == "^")
            j += pattern[j] == "]"  # a ']' first in a class is a literal
            while pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            found.append(pattern[i : j + 1])
            i = j + 1
        else:
            found.append(pattern[i])
            i += 1
    return found


def alternatives(toks: list[str]) -> list[list[str]]:
    """The top-level alternatives of a token list."""
    found: list[list[str]] = [[]]
    depth = 0
    for tok in toks:
        depth += (tok == "(") - (tok == ")")
        if tok == "|" and depth == 0:
            found.append([])
        else:
            found[-1].append(tok)
    return found


def elements(toks: list[str]) -> list[Element]:
    """A concatenation's elements: each atom (a token or a whole group) with its quantifier."""
    found: list[Element] = []
    i = 0
    while i < len(toks):
        j = i
        if toks[i] == "(":
            depth = 0
            while True:
                depth += (toks[j] == "(") - (toks[j] == ")")
                if depth == 0:
                    break
                j += 1
        atom, i = toks[i : j + 1], j + 1
        quantifier: list[str] = []
        if i < len(toks) and toks[i] in ("*", "+", "?"):
            quantifier, i = [toks[i]], i + 1
        elif i < len(toks) and toks[i] == "{":
            end = toks.index("}", i)
            quantifier, i = toks[i : end + 1], end + 1
        if quantifier and i < len(toks) and toks[i] == "?":  # lazy
            quantifier, i = [*quantifier, "?"], i + 1
        found.append((atom, quantifier))
    return found


def starts_with_literal(atom: list[str], quantifier: list[str]) -> bool:
    """Whether every match of the element starts with a literal character."""
    if quantifier and (quantifier[0] in ("*", "?") or "".join(quantifier).startswith("{0")):
        return False
    if len(atom) == 1:
        tok = atom[0]
        return tok.isalnum() or (tok.startswith("\\") and not tok[1].isalpha())
    if atom[:3] != ["(", "?", ":"]:
        return False
    inner = alternatives(atom[3:-1])
    return all(parts and starts_with_literal(*parts[0]) for parts in map(elements, inner))


def relaxed(pattern: str) -> list[str]:
    """Patterns, one per top-level alternative, that match wherever ``pattern`` does, each starting
    at its first element that begins with a literal (with the word boundary before it)."""
    found = []
    for alternative in alternatives(tokens(pattern)):
        parts = elements(alternative)
        k = next((i for i, part in enumerate(parts) if starts_with_literal(*part)), 0)
        if k and parts[k - 1][0] == ["\\b"]:
            k -= 1
        found.append("".join("".join(atom) + "".join(q) for atom, q in parts[k:]))
    return found


def _rust(pattern: str) -> SchemaValidator:
    return SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine="rust-regex"))


def soundness(gates: list[str]) -> int:
    """How many (text, gate) pairs the relaxed gates miss on every labelled corpus text (0 is sound)."""
    texts: list[str] = []
    for name in CORPORA:
        path = ROOT / "tests" / "research" / name
        if path.exists():
            texts += [e["text"].lower() for e in yaml.safe_load(path.read_text(encoding="utf-8"))["entries"]]
    misses = 0
    for gate in gates:
        whole, parts = _rust(gate), [_rust(p) for p in relaxed(gate)]
        misses += sum(whole.isinstance_python(t) and not any(p.isinstance_python(t) for p in parts) for t in texts)
    return misses


def timings(text: str) -> dict[str, float]:
    """Seconds for every gate over every piece: as written (first and second read), then relaxed."""
    pieces = [p.lower() for p in (_benign_pieces() if text == "corpus" else _documentation_pieces())]
    gates = list(injection._rules()[1].patterns)
    written = [_rust(g) for g in gates]
    loose = [[_rust(p) for p in relaxed(g)] for g in gates]
    times: dict[str, float] = {"mb": sum(len(p.encode()) for p in pieces) / 1e6}
    for read in ("first", "second"):
        start = time.perf_counter()
        for piece in pieces:
            for gate in written:
                gate.isinstance_python(piece)
        times[read] = time.perf_counter() - start
    start = time.perf_counter()
    passes = sum(any(p.isinstance_python(piece) for p in parts) for piece in pieces for parts in loose)
    times["relaxed"] = time.perf_counter() - start
    times["relaxed_passes"] = passes
    return times


def main() -> int:
    """Print soundness, then the timings of each text from a fresh process."""
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(timings(sys.argv[2])))
        return 0
    gates = list(injection._rules()[1].patterns)
    misses = soundness(gates)
    print(f"relaxed gates sound on every corpus text: {misses} miss(es) over {len(gates)} gates")
    for text in ("corpus", "documentation"):
        # A fresh process each: nothing has read the text before.
        command = [sys.executable, str(Path(__file__).resolve()), "--child", text]
        got = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        budget = got["mb"] / THROUGHPUT_BAR * 1000
        print(
            f"{text} ({got['mb']:.2f} MB, 4 KB pieces): gates as written {got['first'] * 1000:.0f} ms first read "
            f"({got['mb'] / got['first']:.1f} MB/s), {got['second'] * 1000:.0f} ms second; relaxed "
            f"{got['relaxed'] * 1000:.0f} ms ({got['relaxed_passes']:.0f} gate passes to confirm); "
            f"the whole scan's budget at {THROUGHPUT_BAR:.0f} MB/s: {budget:.0f} ms"
        )
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
