"""Experiment: the injection filter's rule gates read word by word instead of letter by letter.

    .venv/bin/python bench/word_gates.py

Not part of rcs: a measured design that was rejected (SPEC 12.4), kept so the numbers can be run
again. Each maximal run of ASCII word characters of the normalised text becomes one symbol (a
character of the Private Use Area): a word the rules spell has its own; any other word one shared
"other" symbol, or, when it starts, ends or holds a piece of a word that a rule reads partly (a rule
with no boundary on that side, "model" in "models"), that piece's own symbol (or one for several).
Nonword characters stay as they are. Every gate of the rule table is then translated, from Python's
parse of it, into a pattern over that text that matches wherever the gate matches (never fewer: a
sound over-approximation): a piece of pattern with finitely many strings is written out string by
string and each string cut into words; a word next to a piece that may extend it is read as the
words having it as prefix, suffix or infix; an alternation or an optional piece that makes two
words touch is split into the cases where they do and where they do not.

The script checks on every labelled corpus text that no gate the letters pass is missed on the
symbols, counts the passes the symbols add, and times RE2 over the symbols of the benign prose in
4 KB pieces, read once by new sets and then again (median of three), in one set or split into
several, beside the letter gates rcs uses. Tokenising happens in Python here and is timed apart.
Last, the whole scan's first read after ``prepare()`` in fresh processes (median of five) with the
rule gates answered at no cost, exactly or never: what the rest of the scan costs.
"""

from __future__ import annotations

import itertools
import re
import re._constants as sre  # type: ignore[import-not-found]  # the parse tree of Python's re (3.11+)
import re._parser as sre_parse  # type: ignore[import-not-found]
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import re2
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from research import CORPORA, _benign_pieces  # noqa: E402  (bench/ is the script's own folder)

from rcs_contracts.runtime.research import injection  # noqa: E402

Node = tuple[Any, ...]
Facts = tuple[bool, set[str], set[str], set[str]]  # what kinds() says of a piece
WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
PUA = "\ue000-\uf8ff"
OTHER, SEVERAL = "\ue000", "\ue001"
FIRST_SYMBOL = 0xE010
CAP = 3000  # strings a finite piece may have before it is treated as infinite
BOUNDARY, LINE_START, TEXT_START = "\x00", "\x01", "\x02"  # markers in written-out strings
MIN_PIECE = 2  # shorter pieces of words are read as any word (a one-letter piece is in most words)


def convert(parsed: Any, flags: int = 0) -> Node:
    """Python's parse of a pattern as nested tuples: lit, cls, seq, alt, rep, b (\\b), bol (^)."""
    out: list[Node] = []
    for op, av in parsed:
        if op == sre.LITERAL:
            out.append(("lit", chr(av)))
        elif op == sre.NOT_LITERAL:
            out.append(("cls", ((sre.LITERAL, av),), True))
        elif op == sre.IN:
            negated = any(o == sre.NEGATE for o, _ in av)
            out.append(("cls", tuple((o, a) for o, a in av if o != sre.NEGATE), negated))
        elif op == sre.BRANCH:
            out.append(("alt", [convert(b, flags) for b in av[1]]))
        elif op == sre.SUBPATTERN:
            out.append(convert(av[3], flags | av[1]))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            low, high, body = av
            top = None if high == sre.MAXREPEAT else high
            out.append(("rep", low, top, convert(body, flags), op == sre.MIN_REPEAT))
        elif op == sre.AT and av == sre.AT_BOUNDARY:
            out.append(("b",))
        elif op == sre.AT and av == sre.AT_BEGINNING:
            out.append(("bol", bool(flags & re.M)))
        else:
            raise ValueError(f"not handled: {op}")
    return ("seq", out) if len(out) != 1 else out[0]


def _in_class(node: Node, char: str) -> bool:
    _, items, negated = node
    code, hit = ord(char), False
    for op, a in items:
        hit = hit or (op == sre.LITERAL and a == code) or (op == sre.RANGE and a[0] <= code <= a[1])
    return bool(hit != negated)


def _class_chars(node: Node) -> list[str] | None:
    """The characters of a small positive class, else None."""
    _, items, negated = node
    if negated:
        return None
    chars: list[str] = []
    for op, a in items:
        if op == sre.LITERAL:
            chars.append(chr(a))
        elif a[1] - a[0] > 200:
            return None
        else:
            chars.extend(chr(c) for c in range(a[0], a[1] + 1))
    return chars


def _class_has_nonword(node: Node) -> bool:
    chars = _class_chars(node)
    return chars is None or any(c not in WORD_CHARS for c in chars)


def _escape_in_class(char: str) -> str:
    if char in "\\]^-[":
        return "\\" + char
    return char if char.isprintable() else f"\\x{{{ord(char):x}}}"


def _escape(char: str) -> str:
    return re.escape(char) if char.isprintable() else f"\\x{{{ord(char):x}}}"


def _class_items(node: Node) -> str:
    parts = []
    for op, a in node[1]:
        if op == sre.LITERAL:
            parts.append(_escape_in_class(chr(a)))
        else:
            parts.append(_escape_in_class(chr(a[0])) + "-" + _escape_in_class(chr(a[1])))
    return "".join(parts)


def _nonword_class(node: Node) -> str | None:
    """The class's nonword characters, as a class over the symbol text (symbols never in it)."""
    if node[2]:
        return f"[^{_class_items(node)}a-z0-9_{PUA}]"
    chars = _class_chars(node)
    if chars is None:
        return f"(?:(?![a-z0-9_])[{_class_items(node)}])"
    nonword = [c for c in chars if c not in WORD_CHARS]
    return "[" + "".join(_escape_in_class(c) for c in nonword) + "]" if nonword else None


def kinds(node: Node) -> Facts:
    """(nullable, kinds of a first character, of a last one, of any one): W word, N nonword."""
    tag = node[0]
    if tag == "lit":
        k = {"W"} if node[1] in WORD_CHARS else {"N"}
        return False, k, set(k), set(k)
    if tag == "cls":
        k = {"W"} if any(_in_class(node, c) for c in WORD_CHARS) else set()
        k |= {"N"} if _class_has_nonword(node) else set()
        return False, k, set(k), set(k)
    if tag in ("b", "bol"):
        return True, set(), set(), set()
    if tag == "rep":
        nullable, starts, ends, every = kinds(node[3])
        return nullable or node[1] == 0, starts, ends, every
    parts = [kinds(c) for c in node[1]]
    if tag == "alt":
        return (
            any(p[0] for p in parts),
            set().union(*(p[1] for p in parts)),
            set().union(*(p[2] for p in parts)),
            set().union(*(p[3] for p in parts)),
        )
    first: set[str] = set()
    last: set[str] = set()
    for part in parts:
        first |= part[1]
        if not part[0]:
            break
    for part in reversed(parts):
        last |= part[2]
        if not part[0]:
            break
    return all(p[0] for p in parts), first, last, set().union(*(p[3] for p in parts)) if parts else set()


def strings(node: Node) -> set[str] | None:
    """Every string a piece matches (with markers for its assertions), or None when too many."""
    tag = node[0]
    if tag == "lit":
        return {node[1]}
    if tag == "cls":
        chars = _class_chars(node)
        return set(chars) if chars is not None else None
    if tag == "b":
        return {BOUNDARY}
    if tag == "bol":
        return {LINE_START if node[1] else TEXT_START}
    if tag == "alt":
        out: set[str] = set()
        for child in node[1]:
            found = strings(child)
            if found is None or len(out | found) > CAP:
                return None
            out |= found
        return out
    if tag == "seq":
        out = {""}
        for child in node[1]:
            found = strings(child)
            if found is None or len(out) * len(found) > CAP:
                return None
            out = {a + b for a in out for b in found}
        return out
    if node[2] is None:
        return None
    body = strings(node[3])
    if body is None:
        return None
    out, current = set(), {""}
    for count in range(node[2] + 1):
        if count >= node[1]:
            out |= current
        if count < node[2]:
            if len(current) * len(body) > CAP:
                return None
            current = {a + b for a in current for b in body}
    return out if len(out) <= CAP else None


def nonempty(node: Node) -> Node | None:
    """A piece matching (at least) the non-empty matches of ``node``; None if it only matches empty."""
    tag = node[0]
    if tag in ("b", "bol"):
        return None
    if tag in ("lit", "cls"):
        return node
    if tag == "rep":
        if node[2] == 0:
            return None
        return ("rep", max(1, node[1]), node[2], node[3], node[4]) if not kinds(node[3])[0] else node
    if tag == "alt":
        branches = [b for b in (nonempty(c) for c in node[1]) if b is not None]
        return ("alt", branches) if branches else None
    cases = []
    for index, child in enumerate(node[1]):
        piece = nonempty(child)
        if piece is not None:
            cases.append(("seq", [*node[1][:index], piece, *node[1][index + 1 :]]))
    return ("alt", cases) if cases else None


def edge(node: Node, tail: bool) -> set[str]:
    """How a match of ``node`` ends (``tail``) or starts: 'safe' (a nonword character or an assertion
    there), 'unsafe' (a word character), 'empty' (nothing consumed and nothing asserted)."""
    tag = node[0]
    if tag in ("lit", "cls"):
        facts = kinds(node)
        found = facts[2] if tail else facts[1]
        return ({"safe"} if "N" in found else set()) | ({"unsafe"} if "W" in found else set())
    if tag in ("b", "bol"):
        return {"safe"}
    if tag == "rep":
        inner = edge(node[3], tail)
        return inner | {"empty"} if node[1] == 0 else inner
    if tag == "alt":
        return set().union(*(edge(c, tail) for c in node[1]))
    out: set[str] = set()
    for child in reversed(node[1]) if tail else node[1]:
        inner = edge(child, tail)
        out |= inner - {"empty"}
        if "empty" not in inner:
            return out
    return out | {"empty"}


def to_regex(node: Node) -> str:
    """Python's spelling of a piece (to test words against it)."""
    tag = node[0]
    if tag == "lit":
        return str(re.escape(node[1]))
    if tag == "cls":
        return "[" + ("^" if node[2] else "") + _class_items(node) + "]"
    if tag == "b":
        return r"\b"
    if tag == "bol":
        return "(?m:^)" if node[1] else "^"
    if tag == "alt":
        return "(?:" + "|".join(to_regex(c) for c in node[1]) + ")"
    if tag == "seq":
        return "".join(to_regex(c) for c in node[1])
    high = "" if node[2] is None else str(node[2])
    return f"(?:{to_regex(node[3])}){{{node[1]},{high}}}" + ("?" if node[4] else "")


def _literal_prefix(node: Node) -> str | None:
    out = ""
    for child in node[1] if node[0] == "seq" else [node]:
        if child[0] == "lit" and child[1] in WORD_CHARS:
            out += child[1]
        else:
            break
    return out or None


class Vocabulary:
    """The words the rules spell, and the pieces of words they read partly (probes)."""

    def __init__(self) -> None:
        self.words: dict[str, str] = {}
        self.probes: dict[tuple[str, str], str] = {}
        self.recording = True
        self._probes: list[tuple[str, str, str]] = []

    def add(self, word: str) -> None:
        """Give ``word`` a symbol of its own."""
        self.words.setdefault(word, chr(FIRST_SYMBOL + len(self.words)))

    def probe(self, kind: str, piece: str) -> str | None:
        """The symbol of the other words holding ``piece`` as ``kind`` (prefix, suffix, infix)."""
        if self.recording:
            self.probes.setdefault((kind, piece), "")
            return None
        return self.probes[(kind, piece)]

    def finish(self) -> None:
        """Number the probes after the words."""
        base = FIRST_SYMBOL + len(self.words)
        self.probes = {key: chr(base + i) for i, key in enumerate(sorted(self.probes))}
        self._probes = [(kind, piece, symbol) for (kind, piece), symbol in self.probes.items()]
        self.recording = False

    def symbol(self, word: str) -> str:
        """The symbol of one word of the text."""
        found = self.words.get(word)
        if found is not None:
            return found
        tests = {"prefix": word.startswith, "suffix": word.endswith, "infix": word.__contains__}
        hits = {symbol for kind, piece, symbol in self._probes if tests[kind](piece)}
        return OTHER if not hits else hits.pop() if len(hits) == 1 else SEVERAL


class Translator:
    """Gate patterns over characters to patterns over symbols, matching wherever they do."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary

    def _symbols(self, symbols: list[str]) -> str:
        unique = sorted(set(symbols))
        if not unique:
            return "(?!)"
        return unique[0] if len(unique) == 1 else "[" + "".join(unique) + "]"

    def word(self, regex: str, left: str, right: str, finite: bool, piece: str | None) -> str:
        """The symbols a word (or part of one, on an open side 'U') matching ``regex`` can be."""
        words = self.vocabulary.words
        if left == "D" and right == "D":
            whole = re.compile(f"(?:{regex})\\Z")
            found = [s for w, s in words.items() if whole.match(w)]
            kind = "prefix"
        elif left == "U" and right == "U":
            inside = re.compile(regex)
            found, kind = [s for w, s in words.items() if inside.search(w)], "infix"
        elif left == "U":
            ending = re.compile(f"(?:{regex})\\Z")
            found, kind = [s for w, s in words.items() if ending.search(w)], "suffix"
        else:
            starting = re.compile(regex)
            found, kind = [s for w, s in words.items() if starting.match(w)], "prefix"
        if finite and left == "D" and right == "D":
            return self._symbols(found)
        if piece is None or len(piece) < MIN_PIECE:
            return f"[{PUA}]"  # any word
        symbol = self.vocabulary.probe(kind, piece)
        return self._symbols([*found, SEVERAL, *([symbol] if symbol else [])])

    def written_out(self, text: str, left: str, right: str) -> str:
        """One string of a finite piece, cut into words and nonword characters."""
        pieces = re.findall(r"[a-z0-9_]+|[^a-z0-9_]", text)
        marks = (BOUNDARY, LINE_START, TEXT_START)
        out: list[str] = []
        kept = [p for p in pieces if p != BOUNDARY]
        for a, b in itertools.pairwise(kept):
            if a[0] in WORD_CHARS and b[0] in WORD_CHARS:
                return "(?!)"  # a boundary between two word characters: impossible
        for index, piece in enumerate(pieces):
            if piece in marks:
                out.append({LINE_START: "(?m:^)", TEXT_START: "^"}.get(piece, ""))
                continue
            if piece[0] not in WORD_CHARS:
                out.append(_escape(piece))
                continue
            if self.vocabulary.recording:
                self.vocabulary.add(piece)
            before = pieces[index - 1] if index else None
            after = pieces[index + 1] if index + 1 < len(pieces) else None
            open_left = left if before is None else "D"
            open_right = right if after is None else "D"
            if open_left == "D" and open_right == "D":
                out.append(self.vocabulary.words.get(piece, OTHER))
            else:
                out.append(self.word(re.escape(piece), open_left, open_right, True, piece))
        return "".join(out)

    def alternation(self, parts: list[str]) -> str:
        """Parts as one alternation (duplicates dropped, in a stable order)."""
        unique = sorted(set(parts))
        return unique[0] if len(unique) == 1 else "(?:" + "|".join(unique) + ")"

    def node(self, node: Node, left: str, right: str) -> str:
        """Translate ``node``; ``left``/``right``: 'D' when a word cannot continue past that side."""
        tag = node[0]
        nullable, _, _, every = kinds(node)
        finite = strings(node)
        if every == {"W"}:
            if finite is not None:
                return self.alternation([self.written_out(s, left, right) for s in finite])
            symbols = self.word(to_regex(node), left, right, False, _literal_prefix(node))
            return f"(?:{symbols})?" if nullable else symbols
        if finite is not None and tag != "cls":
            return self.alternation([self.written_out(s, left, right) for s in finite])
        if tag == "lit":
            return _escape(node[1])
        if tag == "cls":
            words = "".join(c for c in sorted(WORD_CHARS) if _in_class(node, c))
            parts = [p for p in (_nonword_class(node),) if p]
            if words:
                parts.append(self.word(f"[{words}]+", left, right, False, None))
            return "(?:" + "|".join(parts) + ")"
        if tag == "b":
            return ""
        if tag == "bol":
            return "(?m:^)" if node[1] else "^"
        if tag == "alt":
            return self.alternation([self.node(c, left, right) for c in node[1]])
        if tag == "rep":
            low, high, body, lazy = node[1], node[2], node[3], node[4]
            _, first, last, _ = kinds(body)
            touching = "W" in first and "W" in last
            inner = self.node(body, "U" if left == "U" or touching else "D", "U" if right == "U" or touching else "D")
            if touching:  # iterations may merge into fewer words: count loosely
                return f"(?:{inner})*"
            count = "*" if (high, low) == (None, 0) else "+" if (high, low) == (None, 1) else f"{{{low},{high or ''}}}"
            return f"(?:{inner}){count}" + ("?" if lazy else "")
        return self.sequence(node[1], left, right)

    def sequence(self, items: list[Node], left: str, right: str, depth: int = 0) -> str:
        """A concatenation: cases split where pieces make words touch, then word-adjacent groups."""
        facts = [kinds(c) for c in items]
        count = len(items)
        if depth < 8:
            for i, item in enumerate(items):
                touches = (i > 0 and "W" in facts[i - 1][2] and "W" in facts[i][1]) or (
                    i + 1 < count and "W" in facts[i][2] and "W" in facts[i + 1][1]
                )
                if touches and item[0] == "alt" and strings(item) is None and len(item[1]) <= 40:
                    cases = [[*items[:i], branch, *items[i + 1 :]] for branch in item[1]]
                    return self.alternation([self.sequence(c, left, right, depth + 1) for c in cases])
                if touches and item[0] == "seq":
                    return self.sequence([*items[:i], *item[1], *items[i + 1 :]], left, right, depth + 1)
            for i, j in self._touching(items, facts):
                if j > i + 1:  # the piece after i, when empty, makes i and j touch
                    piece = nonempty(items[i + 1])
                    cases = [[*items[: i + 1], *items[i + 2 :]]]
                    if piece is not None:
                        cases.append([*items[: i + 1], piece, *items[i + 2 :]])
                    return self.alternation([self.sequence(c, left, right, depth + 1) for c in cases])
        groups = self._groups(items, facts)
        out = []
        for low, high in groups:
            group_left = self._side(items, facts, low, left, True)
            group_right = self._side(items, facts, high, right, False)
            if low == high:
                out.append(self.node(items[low], group_left, group_right))
                continue
            group: Node = ("seq", items[low : high + 1])
            if strings(group) is not None or kinds(group)[3] <= {"W"}:
                out.append(self.node(group, group_left, group_right))
                continue
            for m in range(low, high + 1):  # words touch inside: each piece with open sides
                text = self.node(items[m], group_left if m == low else "U", group_right if m == high else "U")
                out.append(f"(?:{text})?" if kinds(items[m])[3] <= {"W"} else text)
        return "".join(out)

    @staticmethod
    def _touching(items: list[Node], facts: list[Facts]) -> Iterator[tuple[int, int]]:
        """Pairs i < j whose characters can fall into one word: i can end and j start with a word
        character, with only pieces between that can match nothing (and assert nothing)."""
        for i in range(len(items)):
            if "W" not in facts[i][2]:
                continue
            for j in range(i + 1, len(items)):
                if items[j][0] in ("b", "bol"):
                    break
                if "W" in facts[j][1]:
                    yield i, j
                if not facts[j][0]:
                    break

    @staticmethod
    def _groups(items: list[Node], facts: list[Facts]) -> list[tuple[int, int]]:
        """Maximal runs of items whose characters can fall into one word."""
        count = len(items)
        reach = list(range(count))
        for i, j in Translator._touching(items, facts):
            reach[i] = max(reach[i], j)
        groups, start = [], 0
        while start < count:
            end, m = reach[start], start
            while m <= end:
                end = max(end, reach[m])
                m += 1
            groups.append((start, end))
            start = end + 1
        return groups

    @staticmethod
    def _side(items: list[Node], facts: list[Any], index: int, outer: str, left_side: bool) -> str:
        if "W" not in facts[index][1 if left_side else 2]:
            return "D"
        rest: Node = ("seq", items[:index] if left_side else items[index + 1 :])
        found = edge(rest, left_side)
        if "unsafe" in found:
            return "U"
        return outer if "empty" in found else "D"


def translate(patterns: list[str]) -> tuple[Vocabulary, list[str]]:
    """The vocabulary and every pattern over symbols (a first pass collects the words and probes)."""
    trees = [convert(sre_parse.parse(p)) for p in patterns]
    vocabulary = Vocabulary()
    translator = Translator(vocabulary)
    for tree in trees:
        translator.node(tree, "U", "U")
    vocabulary.finish()
    return vocabulary, [translator.node(tree, "U", "U") for tree in trees]


_WORD = re.compile(r"[a-z0-9_]+")
_IN_PUA = re.compile(f"[{PUA}]")


def symbols_of(text: str, vocabulary: Vocabulary) -> str:
    """The normalised text with every word one symbol (Private Use characters of the text read as
    U+FFFD, which no rule names)."""
    return _WORD.sub(lambda m: vocabulary.symbol(m[0]), _IN_PUA.sub("\ufffd", text))


def _set(patterns: list[str]) -> Any:
    options = re2.Options()
    options.max_mem = 256 << 20
    options.never_capture = True
    compiled = re2.Set.SearchSet(options)
    for pattern in patterns:
        compiled.Add(pattern)
    compiled.Compile()
    return compiled


def ceiling(kind: str) -> float:
    """MB/s of the whole scan over the benign pieces, read once after prepare(), with the rule
    gates answered by an oracle computed beforehand (``oracle``: exactly the gates that match, at no
    cost) or by nothing (``none``: no rule can match): what the rest of the scan costs."""
    rules, gates = injection._rules()
    pieces = _benign_pieces()
    size = sum(len(p.encode()) for p in pieces) / 1e6
    letters = [re.compile(p) for p in gates.patterns]
    known = {}
    for piece in pieces:
        normal = injection.normalise(piece)[0]
        known[normal] = frozenset(i for i, gate in enumerate(letters) if gate.search(normal))

    class Answered:
        patterns = gates.patterns

        def matching(self, text: str) -> frozenset[int]:
            if kind == "none":
                return frozenset()
            found = known.get(text)
            return found if found is not None else frozenset(i for i, g in enumerate(letters) if g.search(text))

    injection._rules = lambda: (rules, Answered())  # type: ignore[assignment]
    injection.prepare()
    start = time.perf_counter()
    for piece in pieces:
        injection.scan_injection(piece)
    return size / (time.perf_counter() - start)


def main() -> int:
    if sys.argv[1:2] == ["--ceiling"]:
        print(f"{ceiling(sys.argv[2]):.2f}")
        return 0
    _, gates = injection._rules()
    start = time.perf_counter()
    vocabulary, translated = translate(list(gates.patterns))
    took = time.perf_counter() - start
    words, pieces_read = len(vocabulary.words), len(vocabulary.probes)
    print(f"{len(translated)} gates translated in {took:.1f} s: {words} words, {pieces_read} pieces of words")
    letters = [re2.compile(p) for p in gates.patterns]
    every = _set(translated)
    texts = []
    for name in CORPORA:
        path = ROOT / "tests" / "research" / name
        if path.exists():
            texts += [e["text"] for e in yaml.safe_load(path.read_text(encoding="utf-8"))["entries"]]
    missed = true = added = 0
    for text in texts:
        normal = injection.normalise(text)[0]
        on_symbols = set(every.Match(symbols_of(normal, vocabulary).encode()) or ())
        on_letters = {i for i, gate in enumerate(letters) if gate.search(normal)}
        missed += not on_letters <= on_symbols
        true += len(on_letters)
        added += len(on_symbols - on_letters)
    print(f"{len(texts)} corpus texts: {missed} with a gate missed on the symbols; {true} gate passes, {added} added")
    pieces = _benign_pieces()
    size = sum(len(p.encode()) for p in pieces) / 1e6
    normalised = [injection.normalise(p)[0] for p in pieces]
    start = time.perf_counter()
    symbolic = [symbols_of(n, vocabulary).encode() for n in normalised]
    rate = size / (time.perf_counter() - start)
    print(f"benign prose, {size:.2f} MB in 4 KB pieces: tokenising in Python {rate:.1f} MB/s")
    for sets in (1, 4, 16):
        firsts: list[float] = []
        seconds: list[float] = []
        for _ in range(3):  # new sets each time: a first read is of sets that have read nothing
            compiled = [_set(translated[j::sets]) for j in range(sets)]
            for rates in (firsts, seconds):
                start = time.perf_counter()
                for text in symbolic:
                    for one in compiled:
                        one.Match(text)
                rates.append(size / (time.perf_counter() - start))
        first, second = statistics.median(firsts), statistics.median(seconds)
        print(f"  RE2 over the symbols, {sets:2d} set(s): first read {first:6.1f} MB/s, second {second:6.1f} MB/s")
    rates = []
    for _ in range(2):
        start = time.perf_counter()
        for text in normalised:
            gates.matching(text)
        rates.append(size / (time.perf_counter() - start))
    print(f"  RE2 over the letters (rcs's gates): first read {rates[0]:6.1f} MB/s, second {rates[1]:6.1f} MB/s")
    print("the whole scan, first read after prepare(), in a fresh process, when the rule gates cost nothing:")
    for kind, what in (("oracle", "pass exactly where they match"), ("none", "never pass (no rules)")):
        command = [sys.executable, str(Path(__file__).resolve()), "--ceiling", kind]
        runs = [float(subprocess.run(command, capture_output=True, text=True, check=True).stdout) for _ in range(5)]
        print(f"  gates that {what}: median {statistics.median(runs):6.1f} MB/s of 5 processes")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
