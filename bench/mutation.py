"""Mutation testing of the hand-written runtime: does some test fail when one operator changes?

A small AST mutator (standard library ``ast`` only). Each mutant changes exactly one node of one
module: a comparison operator, ``is``/``is not``, ``in``/``not in``, ``and``/``or``, a removed
``not``, ``True``/``False``, an integer constant (n -> n + 1), a string constant (+ "X"), or a
dropped guard (the body of ``if cond: raise ...`` / ``if cond: yield ...`` replaced by ``pass``).
Only the changed span of the source is rewritten, and the result is checked to parse to exactly
the mutated tree; every other character of the module stays as written.

Everything runs in a temporary copy of the project (``TMP/main``, with ``TMP/shared`` linking to
the real ``../shared``); the real tree is never written. Tests are selected per mutant from a
per-test line coverage collected once (a tiny ``sys.settrace`` pytest plugin, also active in the
``python -m runtime.cli`` children the tests start). A control run then checks that those tests
pass with nothing mutated. Each mutant's tests run fastest first with ``pytest -x`` in a fork of a
warm server process (one per ``--jobs`` worker), so no mutant pays for the interpreter's imports.

    .venv/bin/python bench/mutation.py [--module PATH]... [--list] [--max N] [--jobs N] [--strict]
                                       [--sample N [--seed S]]

``--sample N`` runs at most N mutants per module, drawn with a fixed seed, and prints the kill rate
of the sample with its 95% Wilson interval: the route for modules whose covering tests run real
processes for minutes (autoresearch), where every mutant would take hours in all.

Output: per module ``mutants killed survived kill-rate``, the total, then every survivor as
``path:line: original -> mutant``. Exit 0; 1 with ``--strict`` when a runtime module is below 90%;
2 on a usage error or when the setup fails; 130 when interrupted (Ctrl-C or SIGTERM) while
mutants run, after printing the table of the mutants that finished.
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
import io
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAR = 0.90
MIN_TIMEOUT = 30.0
TIMEOUT_FACTOR = 10.0
# Copied into the temporary project: everything but these (caches, the venv, git's own files).
SKIP_COPY = {
    ".git",
    ".venv",
    ".mutation-cache",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    "__pycache__",
}
# Tests that run the compiler (tests/codegen) or the draft 2020-12 suite (tests/conformance): added
# when a codegen module is mutated. The tool's own tests never run the runtime.
CODEGEN_TESTS = ("tests/codegen", "tests/conformance")
NOT_RUNTIME_TESTS = (*CODEGEN_TESTS, "tests/test_mutation_tool.py")


def runtime_tests(root: Path) -> list[str]:
    """Every test file and folder under ``tests/`` that may run a runtime module, in name order: read
    from the tree, so a new test file is never left out of the selection."""
    found = [
        p.relative_to(root).as_posix()
        for p in sorted((root / "tests").iterdir())
        if (any(p.glob("test_*.py")) if p.is_dir() else p.name.startswith("test_") and p.suffix == ".py")
    ]
    return [t for t in found if t not in NOT_RUNTIME_TESTS]

COMPARE_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
LOGGERS = {"log", "logger", "logging", "LOG", "LOGGER"}
# Keyword arguments that are a command's documentation (argparse's help text, usage and names of
# values): prose, not behaviour, so not mutated, as docstrings are not.
DOC_KEYWORDS = {"help", "description", "epilog", "usage", "metavar"}


class UsageError(Exception):
    """An expected failure: reported as one line, no traceback."""


# --- mutants -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """One change to one node: ``index`` is the node's position in a pre-order walk of the module."""

    path: str  # relative to the project root
    index: int
    variant: int  # which change (for a Compare: which operator)
    kind: str
    line: int
    end_line: int
    stmt_line: int
    original: str
    mutated: str


def _walk(tree: ast.AST) -> Iterator[tuple[int, ast.AST, list[ast.AST]]]:
    """Every node in a deterministic pre-order, with its index and its ancestors."""
    index = 0
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        yield index, node, parents
        index += 1
        children = list(ast.iter_child_nodes(node))
        stack.extend((child, [*parents, node]) for child in reversed(children))


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring expressions of the module, classes and functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                found.add(id(first.value))
    return found


def _excluded_subtrees(tree: ast.AST) -> set[int]:
    """ids of nodes whose whole subtree is never mutated: annotations, TYPE_CHECKING blocks,
    ``__all__``, ``__main__`` guards, asserts (type narrowing), logging calls, and the documentation
    keywords of a call (``help=``, ``description=``, ... : ``DOC_KEYWORDS``)."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            roots.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
            if isinstance(node.target, ast.Name) and node.target.id == "__all__":
                roots.append(node)
        elif isinstance(node, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                roots.append(node)
        elif isinstance(node, ast.If):
            test = ast.unparse(node.test)
            if test in {"TYPE_CHECKING", "typing.TYPE_CHECKING"} or test.startswith("__name__ =="):
                roots.append(node)
        elif isinstance(node, ast.Assert):
            roots.append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id in LOGGERS:
                roots.append(node)
        elif isinstance(node, ast.keyword) and node.arg in DOC_KEYWORDS:
            roots.append(node.value)
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            roots.append(node.format_spec)
    excluded: set[int] = set()
    for root in roots:
        excluded.update(id(n) for n in ast.walk(root))
    return excluded


def _changes(node: ast.AST) -> list[tuple[str, str]]:
    """The possible changes of one node as (kind, description); empty when none applies."""
    if isinstance(node, ast.Compare):
        return [("compare", f"{i}") for i, op in enumerate(node.ops) if type(op) in COMPARE_SWAP]
    if isinstance(node, ast.BoolOp):
        return [("boolop", "")]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [("not", "")]
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool):
            return [("bool", "")]
        if isinstance(value, int):
            return [("int", "")]
        if isinstance(value, str | bytes):
            return [("string", "")]
        return []
    if isinstance(node, ast.If) and len(node.body) == 1:
        only = node.body[0]
        if isinstance(only, ast.Raise) or (
            isinstance(only, ast.Expr) and isinstance(only.value, ast.Yield | ast.YieldFrom)
        ):
            return [("guard", "")]
    return []


def _apply(node: ast.AST, kind: str, variant: int) -> ast.AST:
    """The mutated replacement of ``node`` (a changed copy)."""
    new = copy.deepcopy(node)
    if kind == "compare":
        assert isinstance(new, ast.Compare)
        new.ops[variant] = COMPARE_SWAP[type(new.ops[variant])]()
    elif kind == "boolop":
        assert isinstance(new, ast.BoolOp)
        new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
    elif kind == "not":
        assert isinstance(new, ast.UnaryOp)
        return new.operand
    elif kind == "bool":
        assert isinstance(new, ast.Constant)
        new.value = not new.value
    elif kind == "int":
        assert isinstance(new, ast.Constant) and isinstance(new.value, int)
        new.value = new.value + 1
    elif kind == "string":
        assert isinstance(new, ast.Constant)
        if isinstance(new.value, bytes):
            new.value = new.value + b"X"
        else:
            assert isinstance(new.value, str)
            new.value = new.value + "X"
    elif kind == "guard":
        assert isinstance(new, ast.If)
        new.body = [ast.Pass()]
    return new


def _fragment(node: ast.AST, kind: str) -> str:
    """A one-line source fragment of a node (a guard shows only its head and its body)."""
    if kind == "guard":
        assert isinstance(node, ast.If)
        body = ast.unparse(node.body[0]).splitlines()[0]
        return f"if {ast.unparse(node.test)}: {body}"
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 100 else text[:97] + "..."


class _Replace(ast.NodeTransformer):
    """Replaces the node at one pre-order index (same walk as ``_walk``)."""

    def __init__(self, index: int, replacement: ast.AST) -> None:
        self.index = index
        self.replacement = replacement

    def run(self, tree: ast.Module) -> ast.Module:
        target = next(node for i, node, _ in _walk(tree) if i == self.index)
        self.target = target
        result = self.visit(tree)
        assert isinstance(result, ast.Module)
        return result

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            return self.replacement
        return super().generic_visit(node)


EQUIVALENT = re.compile(r"#\s*mutation:\s*equivalent\b\W*(\S.*)?$")


def equivalent_lines(source: str) -> dict[int, str]:
    """Lines marked ``# mutation: equivalent: <why>``: line -> the reason (empty when none given).

    A mutant that no test can kill because nothing observable changes (a cache size, ``strict=``
    on a zip whose lengths are equal by construction) is marked where it stands, with the reason,
    instead of being counted as a survivor; the table counts the marked mutants per module. A
    marker on a comment line of its own marks the next line of code. Every mutant of the marked
    line is left out, so a line is marked only when all of them are equivalent.
    """
    marked: dict[int, str] = {}
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and (match := EQUIVALENT.match(token.string)):
            line = token.start[0]
            if token.line.lstrip().startswith("#"):  # a comment line of its own: the next code line
                line += 1
                while line <= len(lines) and (not lines[line - 1].strip() or lines[line - 1].lstrip().startswith("#")):
                    line += 1
            marked[line] = (match[1] or "").strip()
    return marked


def mutants_of(path: str, source: str, *, keep_marked: bool = False) -> list[Mutant]:
    """Every mutant of one module, in a deterministic order; those starting on a line marked
    equivalent (``equivalent_lines``) only with ``keep_marked``."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    excluded = _excluded_subtrees(tree)
    marked = {} if keep_marked else equivalent_lines(source)
    found: list[Mutant] = []
    for index, node, parents in _walk(tree):
        if id(node) in excluded or id(node) in docstrings:
            continue
        if getattr(node, "lineno", None) in marked:
            continue
        if isinstance(node, ast.Constant) and parents and isinstance(parents[-1], ast.MatchValue):
            continue  # a match pattern's literal: the unparsed pattern could change its meaning
        stmt = next((p for p in reversed([*parents, node]) if isinstance(p, ast.stmt)), None)
        for kind, detail in _changes(node):
            variant = int(detail) if detail else 0
            mutated = _apply(node, kind, variant)
            original_text = _fragment(node, kind)
            if kind == "guard":
                assert isinstance(node, ast.If)
                mutated_text = f"if {ast.unparse(node.test)}: pass"
            elif kind == "compare":
                mutated_text = _fragment(mutated, kind)
            else:
                mutated_text = _fragment(mutated, kind)
            line = getattr(node, "lineno", 1)
            found.append(
                Mutant(
                    path=path,
                    index=index,
                    variant=variant,
                    kind=kind,
                    line=line,
                    end_line=(node.test.end_lineno or line)
                    if isinstance(node, ast.If)
                    else (getattr(node, "end_lineno", None) or line),
                    stmt_line=stmt.lineno if stmt is not None else line,
                    original=original_text,
                    mutated=mutated_text,
                )
            )
    return found


def _char_offset(lines: list[str], starts: list[int], line: int, byte_col: int) -> int:
    """The character offset of an ast position (1-based line, UTF-8 byte column) in the source."""
    return starts[line - 1] + len(lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8"))


def mutated_source(source: str, mutant: Mutant) -> str:
    """The module with exactly this mutant spliced into its text; every other character unchanged.

    Only the changed span is rewritten: ``(`` + the unparsed changed node + ``)``, or ``pass`` for
    the body of a dropped guard. Python 3.11 gives the parts of an f-string no positions of their
    own, so a change inside one rewrites the whole (outermost) f-string. Because the rest of the
    module is its original text, the unmutated module needs no baseline run of its own. The result
    must parse to the original tree with exactly this one node changed, or ValueError is raised.
    """
    walked = list(_walk(ast.parse(source)))
    _, node, parents = walked[mutant.index]
    index_of = {id(n): i for i, n, _ in walked}
    replacement = _apply(node, mutant.kind, mutant.variant)
    changed = _Replace(mutant.index, replacement).run(ast.parse(source))
    changed_nodes = [n for _, n, _ in _walk(changed)]
    if mutant.kind == "guard":
        assert isinstance(node, ast.If)
        span: ast.AST = node.body[0]
        text = "pass"
    else:
        span = next((p for p in parents if isinstance(p, ast.JoinedStr)), node)
        text = "(" + ast.unparse(changed_nodes[index_of[id(span)]]) + ")"
    assert isinstance(span, ast.stmt | ast.expr)  # statements and expressions carry their positions
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    begin = _char_offset(lines, starts, span.lineno, span.col_offset)
    end = _char_offset(lines, starts, span.end_lineno or span.lineno, span.end_col_offset or 0)
    result = source[:begin] + text + source[end:]
    if ast.dump(ast.parse(result)) != ast.dump(changed):
        raise ValueError(f"{mutant.path}:{mutant.line}: the spliced text is not the mutated tree")
    return result


# --- the temporary project and the coverage ------------------------------------------------------

# The line tracer both coverage scripts install: it records (file, line) of the files under
# _PREFIXES into the set _current[0], which the script defines (and the plugin switches per test).
TRACER = """
_wanted = {}


def _local(frame, event, arg):
    if event == "line":
        _current[0].add((frame.f_code.co_filename, frame.f_lineno))
    return _local


def _global(frame, event, arg):
    name = frame.f_code.co_filename
    hit = _wanted.get(name)
    if hit is None:
        # A copy of the project a test makes (and runs rcs from) carries the mutant too.
        hit = _wanted[name] = name.startswith(_PREFIXES) or name.endswith(_SUFFIXES)
    if hit:
        _current[0].add((name, frame.f_lineno))
        return _local
    return None


sys.settrace(_global)
threading.settrace(_global)
"""

PLUGIN = (
    '''\
"""Per-test line coverage of the mutated modules (loaded with -p _mutcov)."""
import json, os, sys, threading, time
import pytest

_OUT = os.environ["RCS_MUTCOV_DIR"]
_PREFIXES = tuple(json.loads(os.environ["RCS_MUTCOV_PREFIXES"]))
_SUFFIXES = tuple(json.loads(os.environ["RCS_MUTCOV_SUFFIXES"]))
os.environ["RCS_MUTCOV_MAIN"] = str(os.getpid())
_lines = {}  # context -> set of (file, line)
_current = [_lines.setdefault("", set())]
_durations = {}
_outcomes = {}
_shared = {}  # test -> the module- or class-scoped fixtures it uses ("<baseid>::<name>")
'''
    + TRACER
    + """

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # Re-installed for every test: hypothesis (and other tracers) may have replaced or cleared it.
    sys.settrace(_global)
    threading.settrace(_global)
    _current[0] = _lines.setdefault(item.nodeid, set())
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        _shared[item.nodeid] = sorted(
            f"{defs[-1].baseid}::{name}"
            for name, defs in info.name2fixturedefs.items()
            if defs and defs[-1].scope in ("module", "class", "package")
        )
    start = time.perf_counter()
    yield
    _durations[item.nodeid] = time.perf_counter() - start
    _current[0] = _lines[""]


def pytest_runtest_logreport(report):
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    else:
        _outcomes.setdefault(report.nodeid, "passed")


def pytest_sessionfinish(session):
    sys.settrace(None)
    data = {
        "lines": {ctx: sorted(lines) for ctx, lines in _lines.items()},
        "durations": _durations,
        "outcomes": _outcomes,
        "shared": _shared,
    }
    with open(os.path.join(_OUT, "main.json"), "w") as handle:
        json.dump(data, handle)
"""
)

CHILD_HOOK = (
    '''\
"""Line coverage in a child process (python -m runtime.cli), attributed to PYTEST_CURRENT_TEST."""
import atexit, json, os, sys, threading

_PREFIXES = tuple(json.loads(os.environ["RCS_MUTCOV_PREFIXES"]))
_SUFFIXES = tuple(json.loads(os.environ["RCS_MUTCOV_SUFFIXES"]))
_current = [set()]
_seen = _current[0]
'''
    + TRACER
    + """
def _write():
    context = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    path = os.path.join(os.environ["RCS_MUTCOV_DIR"], f"child-{os.getpid()}-{id(_seen)}.json")
    try:
        with open(path, "w") as handle:
            json.dump({"context": context, "lines": sorted(_seen)}, handle)
    except OSError:
        pass


atexit.register(_write)
"""
)

HOOK_LINE = (
    '\nif __import__("os").environ.get("RCS_MUTCOV_DIR") and __import__("os").environ.get("RCS_MUTCOV_MAIN") '
    '!= str(__import__("os").getpid()): __import__("runpy").run_path(__import__("os").environ["RCS_MUTCOV_HOOK"])\n'
)


# The fork server: one warm interpreter per project copy. It imports the heavy libraries and the
# generated models once; for every mutant it forks, the child forgets the project's own modules
# (except generated/, which no mutant touches) and runs pytest in-process. Starting a fresh
# interpreter per mutant cost about 3 s of imports; a fork costs milliseconds.
WORKER = '''\
"""rcs mutation fork server: reads {"tests": [...], "timeout": s} lines, answers {"status", "seconds"}."""
import importlib, json, os, signal, sys, time

_ROOT = os.getcwd() + os.sep
_KEEP = (_ROOT + "generated" + os.sep,)
_LOG = sys.argv[1]
import pytest, hypothesis, pydantic, jsonschema_rs, yaml, regex  # noqa: E401  the warm imports
for _dirpath, _dirs, _files in sorted(os.walk(_ROOT + "generated")):
    _dirs.sort()
    for _name in sorted(_files):
        if _name.endswith(".py"):
            _module = os.path.relpath(os.path.join(_dirpath, _name[:-3]), _ROOT).replace(os.sep, ".")
            importlib.import_module(_module.removesuffix(".__init__"))
_child = [0]


def _stop(signum, frame):
    if _child[0]:
        try:
            os.killpg(_child[0], signal.SIGKILL)
        except OSError:
            pass
    os._exit(1)


signal.signal(signal.SIGTERM, _stop)
print(json.dumps({"ready": True}), flush=True)
for _line in sys.stdin:
    _request = json.loads(_line)
    _start = time.perf_counter()
    _pid = os.fork()
    if _pid == 0:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for _name, _mod in list(sys.modules.items()):
            _file = getattr(_mod, "__file__", None) or ""
            if _file.startswith(_ROOT) and not _file.startswith(_KEEP):
                del sys.modules[_name]
        _out = os.open(_LOG, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        _null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(_null, 0)
        os.dup2(_out, 1)
        os.dup2(_out, 2)
        try:
            _code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--no-header", *_request["tests"]]))
        except BaseException:
            _code = 3
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_code)
    _child[0] = _pid
    _deadline = _start + _request["timeout"]
    _status = None
    while True:
        _done, _wait = os.waitpid(_pid, os.WNOHANG)
        if _done:
            _status = os.waitstatus_to_exitcode(_wait)
            break
        if time.perf_counter() > _deadline:
            try:
                os.killpg(_pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(_pid, 0)
            break
        time.sleep(0.005)
    _child[0] = 0
    _verdict = "timeout" if _status is None else ("passed" if _status in (0, 5) else "failed")
    print(json.dumps({"status": _verdict, "seconds": time.perf_counter() - _start}), flush=True)
'''


@dataclass
class Coverage:
    """Which tests run which lines, and how long each test took."""

    lines: dict[str, dict[int, set[str]]]  # path -> line -> test ids
    import_lines: dict[str, set[int]]  # path -> lines run with no test current (imports)
    durations: dict[str, float]
    failing: set[str]
    shared: dict[str, list[str]] = field(default_factory=dict)  # test -> module/class-scoped fixtures

    importers: dict[str, list[str]] = field(default_factory=dict)  # path -> modules importing it
    once: dict[str, set[int]] = field(default_factory=dict)  # path -> lines one process runs once
    test_files: dict[str, list[str]] = field(default_factory=dict)  # path -> test files importing it

    def tests_of_file(self, path: str) -> set[str]:
        return {test for tests in self.lines.get(path, {}).values() for test in tests}


PACKAGE = "rcs_contracts"
IMPORT_ROOTS = ("runtime", "engine", "base", "safeio", "codegen")


def module_name(path: str) -> str:
    """``runtime/phase1/index.py`` -> ``runtime.phase1.index``; a package's ``__init__`` is the package."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: str, source: str) -> set[str]:
    """Every module ``source`` names in an import, relative ones resolved, ``from P import m``
    giving both ``P`` and ``P.m`` (``m`` may be a module or a name; only real modules match later)."""
    package = module_name(path).split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    # The installed package holds the project's folders: rcs_contracts.runtime.x is runtime/x.py.
    return {name.removeprefix(PACKAGE + ".") for name in found}


def test_files_importing(paths: Sequence[str], test_dirs: Sequence[str], root: Path) -> dict[str, list[str]]:
    """For each of ``paths``, the test files under ``test_dirs`` that import it directly."""
    wanted = {module_name(p): p for p in paths}
    found: dict[str, list[str]] = {p: [] for p in paths}
    for entry in test_dirs:
        base = root / entry
        for file in sorted([base] if base.is_file() else base.rglob("test_*.py")):
            relative = file.relative_to(root).as_posix()
            for module in imported_modules(relative, file.read_text(encoding="utf-8")):
                target = wanted.get(module)
                if target is not None and relative not in found[target]:
                    found[target].append(relative)
    return found


def importers_of(paths: Sequence[str], root: Path) -> dict[str, list[str]]:
    """For each of ``paths``, the modules of runtime/, safeio/ and codegen/ that import it directly.

    Their tests are the ones a mutant of an import-time line (a constant) must run: the value is
    read where it is imported, and the module itself may have no line a test runs."""
    wanted = {module_name(p): p for p in paths}
    found: dict[str, list[str]] = {p: [] for p in paths}
    for part in IMPORT_ROOTS:
        for file in sorted((root / part).rglob("*.py")):
            relative = file.relative_to(root).as_posix()
            for module in imported_modules(relative, file.read_text(encoding="utf-8")):
                target = wanted.get(module)
                if target is not None and target != relative and relative not in found[target]:
                    found[target].append(relative)
    return found


CACHE_DIR = ROOT / ".mutation-cache"
COVERAGE_FORMAT = 2  # 2: each test's module- and class-scoped fixtures
CACHED_PARTS = ("runtime", "engine", "base", "safeio", "generated", "codegen", "tests", "schemas")


def coverage_key(paths: Sequence[str], test_dirs: Sequence[str]) -> str:
    """A hash of everything the coverage depends on: the module and test lists and every source file."""
    digest = hashlib.sha256(json.dumps([COVERAGE_FORMAT, list(paths), list(test_dirs)]).encode())
    for part in CACHED_PARTS:
        for file in sorted((ROOT / part).rglob("*")):
            if file.is_file() and "__pycache__" not in file.parts and file.suffix in {".py", ".json", ".yaml", ".j2"}:
                digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def cached_coverage(workspace: Workspace, paths: Sequence[str], test_dirs: Sequence[str]) -> Coverage:
    """The coverage of an earlier run over the very same files (``.mutation-cache/``), or a new run."""
    importers = importers_of(paths, ROOT)
    # The importers are traced too: their tests are selected by mutants of import-time lines.
    traced = list(dict.fromkeys([*paths, *(i for p in paths for i in importers[p])]))
    cache = CACHE_DIR / f"coverage-{coverage_key(traced, test_dirs)}.json"
    if cache.exists():
        data = json.loads(cache.read_text())
        print(f"coverage: reused {cache.name} ({len(data['durations'])} tests)", flush=True)
        lines = {f: {int(n): set(t) for n, t in by.items()} for f, by in data["lines"].items()}
        imports = {f: set(ns) for f, ns in data["imports"].items()}
        once, users = once_lines(paths, ROOT), test_files_importing(paths, test_dirs, ROOT)
        return Coverage(
            lines, imports, data["durations"], set(data["failing"]), data["shared"], importers, once, users
        )
    coverage = workspace.collect_coverage(traced, test_dirs)
    coverage.importers, coverage.once = importers, once_lines(paths, ROOT)
    coverage.test_files = test_files_importing(paths, test_dirs, ROOT)
    CACHE_DIR.mkdir(exist_ok=True)
    record = {
        "lines": {f: {str(n): sorted(t) for n, t in by.items()} for f, by in coverage.lines.items()},
        "imports": {f: sorted(ns) for f, ns in coverage.import_lines.items()},
        "durations": coverage.durations,
        "failing": sorted(coverage.failing),
        "shared": coverage.shared,
    }
    temporary = cache.with_suffix(".tmp")
    temporary.write_text(json.dumps(record))
    temporary.replace(cache)  # atomic: a run killed mid-write leaves no half cache
    return coverage


def copy_project(dest: Path) -> None:
    """Copy the project (no caches, no venv, no git) to ``dest``."""

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {name for name in names if name in SKIP_COPY}

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)


class Workspace:
    """The temporary project: ``TMP/main`` plus ``TMP/shared`` and the coverage tools."""

    def __init__(self, base: Path, python: str, verbose: bool) -> None:
        self.base = base
        self.main = base / "main"
        self.tools = base / "tools"
        self.python = python
        self.verbose = verbose
        self.stamp = int(time.time()) + 10  # a fresh mtime for every write: no stale .pyc
        self.server: subprocess.Popen[str] | None = None

    def prepare(self) -> None:
        copy_project(self.main)
        shared = ROOT.parent / "shared"
        if shared.exists():
            (self.base / "shared").symlink_to(shared)
        self.tools.mkdir()
        (self.tools / "_mutcov.py").write_text(PLUGIN)
        (self.tools / "_mutcov_child.py").write_text(CHILD_HOOK)

    def env(self, extra_path: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RCS_MUTCOV", "PYTEST_"))}
        env["PYTHONPATH"] = str(self.main) + (os.pathsep + extra_path if extra_path else "")
        env.pop("PYTHONSAFEPATH", None)
        env["PYTHONHASHSEED"] = "0"
        return env

    def write(self, relative: str, text: str) -> None:
        """Write a module of the copy with a new mtime, so that no cached bytecode is reused."""
        target = self.main / relative
        target.write_text(text)
        self.stamp += 2
        os.utime(target, (self.stamp, self.stamp))

    def pytest(
        self, tests: Sequence[str], timeout: float | None, env: dict[str, str] | None = None, plugin: bool = False
    ) -> tuple[str, float, str]:
        """Run pytest on ``tests`` in the copy: ("passed" | "failed" | "timeout", seconds, output tail)."""
        command = [self.python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "--no-header"]
        if plugin:
            command = [self.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header", "-p", "_mutcov"]
        command.extend(tests)
        start = time.perf_counter()
        try:
            done = subprocess.run(
                command,
                cwd=self.main,
                env=env or self.env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.perf_counter() - start, ""
        elapsed = time.perf_counter() - start
        tail = "\n".join(done.stdout.decode("utf-8", "replace").splitlines()[-15:])
        if done.returncode == 0:
            return "passed", elapsed, tail
        if done.returncode == 5:  # nothing collected
            return "passed", elapsed, tail
        return "failed", elapsed, tail

    def start(self) -> None:
        """Start this copy's fork server (once) and wait until it has done its imports."""
        if self.server is not None:
            return
        script = self.tools / "_mutserver.py"
        if not script.exists():
            self.tools.mkdir(exist_ok=True)
            script.write_text(WORKER)
        self.server = subprocess.Popen(
            [self.python, str(script), str(self.tools / "last-run.txt")],
            cwd=self.main,
            env=self.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        assert self.server.stdout is not None
        if not self.server.stdout.readline():
            raise UsageError(f"the fork server of {self.main} did not start")

    def ask(self, tests: Sequence[str], timeout: float) -> tuple[str, float]:
        """Run ``tests`` with ``pytest -x`` in a fork of the warm server: (status, seconds)."""
        self.start()
        assert self.server is not None and self.server.stdin is not None and self.server.stdout is not None
        self.server.stdin.write(json.dumps({"tests": list(tests), "timeout": timeout}) + "\n")
        self.server.stdin.flush()
        answer = self.server.stdout.readline()
        if not answer:
            raise UsageError(f"the fork server of {self.main} stopped")
        reply = json.loads(answer)
        return str(reply["status"]), float(reply["seconds"])

    def last_output(self) -> str:
        """The tail of the last forked pytest run's output."""
        try:
            text = (self.tools / "last-run.txt").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-15:])

    def close(self) -> None:
        """Stop the fork server and whatever test it is running."""
        if self.server is None:
            return
        if self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.server = None

    def collect_coverage(self, paths: Sequence[str], test_dirs: Sequence[str]) -> Coverage:
        """Run ``test_dirs`` once with the tracer, in-process and in child processes."""
        cache = self.base / "coverage.json"
        out = self.base / "cov"
        out.mkdir(exist_ok=True)
        init = self.main / "runtime" / "__init__.py"
        original_init = init.read_text()
        init.write_text(original_init + HOOK_LINE)
        prefixes = [str(self.main / p) for p in paths]
        env = self.env(str(self.tools))
        env.update(
            RCS_MUTCOV_DIR=str(out),
            RCS_MUTCOV_PREFIXES=json.dumps(prefixes),
            RCS_MUTCOV_SUFFIXES=json.dumps([os.sep + os.path.join(*p.split("/")) for p in paths]),
            RCS_MUTCOV_HOOK=str(self.tools / "_mutcov_child.py"),
        )
        try:
            status, seconds, tail = self.pytest(list(test_dirs), None, env=env, plugin=True)
        finally:
            self.write("runtime/__init__.py", original_init)
        main = out / "main.json"
        if not main.exists():
            raise UsageError(f"the coverage run wrote nothing (pytest: {status})\n{tail}")
        data = json.loads(main.read_text())
        lines: dict[str, dict[int, set[str]]] = {}
        imports: dict[str, set[int]] = {}
        prefix = str(self.main) + os.sep

        def add(context: str, pairs: list[list[object]]) -> None:
            for filename, line in pairs:
                assert isinstance(filename, str) and isinstance(line, int)
                relative = project_relative(filename, prefix, paths)
                if relative is None:
                    continue
                if context:
                    lines.setdefault(relative, {}).setdefault(line, set()).add(context)
                else:
                    imports.setdefault(relative, set()).add(line)

        for context, pairs in data["lines"].items():
            add(context, pairs)
        children = 0
        for child in sorted(out.glob("child-*.json")):
            try:
                record = json.loads(child.read_text())
            except (OSError, ValueError):
                continue
            children += 1
            add(record["context"], record["lines"])
        failing = {test for test, outcome in data["outcomes"].items() if outcome == "failed"}
        coverage = Coverage(lines, imports, data["durations"], failing, data["shared"])
        cache.write_text(json.dumps({"seconds": seconds, "children": children}))
        print(
            f"coverage: {len(data['durations'])} tests in {seconds:.0f} s, {children} child processes traced"
            + (f", {len(failing)} failing tests left out: {sorted(failing)[:5]}" if failing else ""),
            flush=True,
        )
        return coverage


def project_relative(filename: str, prefix: str, paths: Sequence[str]) -> str | None:
    """The project path of a traced file: under the project copy (``prefix``), or one of ``paths``
    in a copy of the project a test made elsewhere (the mutant was copied with it); else None."""
    if filename.startswith(prefix):
        # Imported through the package's links (rcs_contracts/runtime -> runtime): the same file.
        return filename[len(prefix) :].replace(os.sep, "/").removeprefix(PACKAGE + "/")
    for path in paths:
        if filename.endswith(os.sep + os.path.join(*path.split("/"))):
            return path
    return None


# --- running -------------------------------------------------------------------------------------


@dataclass
class Result:
    """What happened to one mutant."""

    mutant: Mutant
    status: str  # killed | timeout | survived | uncovered | error
    seconds: float = 0.0
    tests: int = 0


@dataclass
class ModuleReport:
    """The mutants of one module and their fate."""

    path: str
    results: list[Result] = field(default_factory=list)
    note: str = ""
    planned: int = 0
    population: int = 0  # mutants of the module; more than ``planned`` when --sample drew some
    marked: int = 0  # mutants on lines marked equivalent, not run

    @property
    def sampled(self) -> bool:
        return self.planned < self.population

    @property
    def killed(self) -> int:
        return sum(r.status in {"killed", "timeout"} for r in self.results)

    @property
    def survived(self) -> int:
        return sum(r.status in {"survived", "uncovered"} for r in self.results)

    @property
    def rate(self) -> float:
        counted = self.killed + self.survived
        return self.killed / counted if counted else 1.0


CACHING_DECORATORS = frozenset({"cache", "lru_cache", "cached_property"})


def cached_lines(source: str) -> set[int]:
    """The lines of the functions whose result is cached (``@cache``, ``@lru_cache``,
    ``@cached_property``): in one test process their bodies run once, inside whichever test called
    them first, so, like a line run at import time, they say nothing about which tests depend on them."""
    found: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in CACHING_DECORATORS:
                found.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return found


def module_level_lines(source: str) -> set[int]:
    """The lines that run when the module is imported: its top-level statements and class bodies,
    with the decorators and defaults of its functions, but not the functions' bodies.

    In-process, a module is imported once, inside whichever test imported it first (or before any
    test): what those lines compute (a constant, a compiled table) is credited to that test alone.
    """
    found: set[int] = set()

    def add(part: ast.expr | ast.stmt | ast.keyword | None) -> None:
        if part is not None:
            found.update(range(part.lineno, (part.end_lineno or part.lineno) + 1))

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for expression in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
                    add(expression)
                found.add(node.lineno)
            elif isinstance(node, ast.ClassDef):
                for expression in [*node.decorator_list, *node.bases]:
                    add(expression)
                for keyword in node.keywords:
                    add(keyword)
                found.add(node.lineno)
                visit(node.body)
            else:
                add(node)

    visit(ast.parse(source).body)
    return found


def once_lines(paths: Sequence[str], root: Path) -> dict[str, set[int]]:
    """For each of ``paths`` (a file under ``root``), the lines one process runs once: at import
    time, or in a function whose result is cached."""
    found: dict[str, set[int]] = {}
    for path in paths:
        source = root / path
        if source.is_file():
            text = source.read_text(encoding="utf-8")
            found[path] = cached_lines(text) | module_level_lines(text)
    return found


def select_tests(mutant: Mutant, coverage: Coverage) -> list[str]:
    """The tests that run the mutated lines, fastest first; at import time or in a cached function:
    every test of the file."""
    by_line = coverage.lines.get(mutant.path, {})
    chosen: set[str] = set()
    lines = {*range(mutant.line, mutant.end_line + 1), mutant.stmt_line}
    for line in lines:
        chosen.update(by_line.get(line, ()))
    # A line run at import time is credited to a test only when a child process imported the
    # module during it, or to the one in-process test that imported it first (found from the
    # source: the module-level lines). So such a line selects every test that runs any line of
    # the module, not only those.
    # Its value is read where it is imported, so the tests of the importing modules run too.
    if lines & (coverage.import_lines.get(mutant.path, set()) | coverage.once.get(mutant.path, set())):
        chosen |= coverage.tests_of_file(mutant.path)
        for importer in coverage.importers.get(mutant.path, ()):
            chosen |= coverage.tests_of_file(importer)
        # A test may use what the module defines (a frozen dataclass, say) without running any of
        # its lines: the tests of every test file that imports it run too.
        files = set(coverage.test_files.get(mutant.path, ()))
        chosen |= {test for test in coverage.durations if test.split("::", 1)[0] in files}
    # A module-scoped fixture runs once, inside the first test that asks for it, so its lines are
    # that test's; the tests that only assert on what it produced ran none. They all run.
    fixtures = {f for test in chosen for f in coverage.shared.get(test, ())}
    if fixtures:
        chosen |= {test for test, used in coverage.shared.items() if fixtures.intersection(used)}
    chosen -= coverage.failing
    return fastest_files_first(chosen, coverage.durations)


def fastest_files_first(tests: Iterable[str], durations: Mapping[str, float]) -> list[str]:
    """``tests`` file by file, the cheapest file first, each file's tests fastest first.

    Never interleaved across files: pytest tears a module-scoped fixture down when the next test
    is from another module, so an order sorted by test duration alone set a costly fixture up
    again for every run of its tests (tests/research/test_web.py's 25 CLI sessions each time),
    and the mutant "timed out" without any test noticing it.
    """
    by_file: dict[str, list[str]] = {}
    for test in tests:
        by_file.setdefault(test.split("::", 1)[0], []).append(test)
    cost = {f: sum(durations.get(t, 0.0) for t in ts) for f, ts in by_file.items()}
    ordered: list[str] = []
    for file in sorted(by_file, key=lambda f: (cost[f], f)):
        ordered.extend(sorted(by_file[file], key=lambda t: (durations.get(t, 0.0), t)))
    return ordered


def discover(selected: Sequence[str]) -> list[str]:
    """The modules to mutate: ``--module`` paths, or every module of runtime/."""
    if selected:
        found: list[str] = []
        for given in selected:
            path = Path(given)
            absolute = path if path.is_absolute() else (ROOT / path)
            try:
                relative = absolute.resolve().relative_to(ROOT)
            except ValueError:
                raise UsageError(f"--module {given}: not inside the project {ROOT}") from None
            if absolute.is_dir():
                found.extend(str(p.relative_to(ROOT)) for p in sorted(absolute.rglob("*.py")))
            elif absolute.suffix == ".py" and absolute.is_file():
                found.append(str(relative))
            else:
                raise UsageError(f"--module {given}: no such Python file or directory")
        return list(dict.fromkeys(found))
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "runtime").rglob("*.py"))


def print_table(reports: Sequence[ModuleReport]) -> None:
    """The per-module table, the total and every survivor."""
    width = max([len(r.path) for r in reports] + [6])
    print(f"\n{'module':<{width}}  mutants  killed  survived  kill-rate")
    total = ModuleReport("total")
    for report in reports:
        total.results.extend(report.results)
        notes = [report.note] if report.note else []
        if report.marked:
            notes.append(f"{report.marked} marked equivalent")
        note = f"  ({'; '.join(notes)})" if notes else ""
        if not report.results:  # no mutant, or not reached: never shown as a rate
            print(f"{report.path:<{width}}  {report.planned:>7}  {'-':>6}  {'-':>8}  {'-':>9}{note}")
            continue
        mark = "" if report.rate >= BAR else "  < 90%"
        if report.sampled:
            low, high = wilson_interval(report.killed, report.killed + report.survived)
            note = f"  (sample of {report.planned}/{report.population}; 95% CI {low:.0%}-{high:.0%})" + note
        print(
            f"{report.path:<{width}}  {len(report.results):>7}  {report.killed:>6}  {report.survived:>8}"
            f"  {report.rate:>8.1%}{mark}{note}"
        )
    print(f"{'total':<{width}}  {len(total.results):>7}  {total.killed:>6}  {total.survived:>8}  {total.rate:>8.1%}")
    timeouts = sum(r.status == "timeout" for r in total.results)
    if timeouts:
        print(f"({timeouts} mutants timed out and count as killed)")
    survivors = [r for r in total.results if r.status in {"survived", "uncovered"}]
    if survivors:
        print(f"\nsurvivors ({len(survivors)}):")
        for result in survivors:
            m = result.mutant
            why = " [not covered]" if result.status == "uncovered" else ""
            print(f"{m.path}:{m.line}: {m.original} -> {m.mutated}{why}")


def wilson_interval(killed: int, counted: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a kill rate measured on a sample of ``counted`` mutants."""
    if counted == 0:
        return 0.0, 1.0
    p = killed / counted
    centre = (p + z * z / (2 * counted)) / (1 + z * z / counted)
    half = z * ((p * (1 - p) / counted + z * z / (4 * counted * counted)) ** 0.5) / (1 + z * z / counted)
    return max(0.0, centre - half), min(1.0, centre + half)


def draw_sample(todo: Sequence[Mutant], size: int | None, seed: int) -> list[Mutant]:
    """At most ``size`` of the mutants, drawn uniformly with a fixed seed, in source order.

    Sampling is for modules whose tests are too slow to run every mutant (autoresearch runs real
    supervisor sessions); the table then says it is a sample and gives the interval.
    """
    if size is None or len(todo) <= size:
        return list(todo)
    chosen = set(random.Random(f"{seed}:{todo[0].path}").sample(range(len(todo)), size))
    return [m for i, m in enumerate(todo) if i in chosen]


def run(args: argparse.Namespace) -> int:
    paths = discover(args.module)
    sources = {path: (ROOT / path).read_text() for path in paths}
    mutants: dict[str, list[Mutant]] = {}
    for path in paths:
        try:
            mutants[path] = mutants_of(path, sources[path])
        except SyntaxError as exc:
            raise UsageError(f"{path}:{exc.lineno}: cannot parse: {exc.msg}") from None
    if args.list:
        for path in paths:
            for m in mutants[path]:
                print(f"{m.path}:{m.line}: [{m.kind}] {m.original} -> {m.mutated}")
        marked = sum(len(mutants_of(p, sources[p], keep_marked=True)) - len(mutants[p]) for p in paths)
        counts = ", ".join(f"{p} {len(mutants[p])}" for p in paths) + (
            f"; {marked} more marked equivalent, not listed" if marked else ""
        )
        print(f"\n{sum(len(v) for v in mutants.values())} mutants: {counts}")
        return 0
    budget = args.max
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="rcs-mutation-"))
    workspace = Workspace(base, sys.executable, args.verbose)
    workers = [workspace]
    try:
        workspace.prepare()
        test_dirs = runtime_tests(ROOT)
        if any(p.startswith("codegen/") for p in paths):
            test_dirs.extend(CODEGEN_TESTS)
        if args.tests:
            test_dirs = list(args.tests)
        print(f"project copy: {workspace.main}; collecting coverage over {' '.join(test_dirs)}", flush=True)
        coverage = cached_coverage(workspace, paths, test_dirs)
        reports = [ModuleReport(path) for path in paths]
        plan: dict[str, list[Mutant]] = {}
        for path in paths:
            todo = draw_sample(mutants[path], args.sample, args.seed)
            if budget is not None:
                todo = todo[: max(budget, 0)]
                budget -= len(todo)
            plan[path] = todo
        workers = make_workers(workspace, args.jobs)
        check_baseline(workspace, coverage, [p for p in paths if plan[p]])
        interrupted = False
        for report in reports:
            report.planned = len(plan[report.path])
            # --max cuts a smoke run short; only --sample makes the module's row a sample.
            drawn = len(draw_sample(mutants[report.path], args.sample, args.seed))
            report.population = len(mutants[report.path]) if drawn < len(mutants[report.path]) else report.planned
            report.marked = len(mutants_of(report.path, sources[report.path], keep_marked=True)) - len(
                mutants[report.path]
            )
            if not plan[report.path]:
                report.note = "no mutants"
        # Cheapest modules first (mutants x the baseline time of their tests), so that a run cut
        # short has measured as many modules as it could; the table keeps the path order.
        order = sorted(reports, key=lambda r: (estimated_cost(plan[r.path], coverage), r.path))
        for report in order:
            path = report.path
            todo = plan[path]
            if not todo:
                continue
            print(f"{path}: {len(todo)} mutants, {len(coverage.tests_of_file(path))} tests", flush=True)
            try:
                run_module(workers, coverage, sources[path], todo, args.verbose, report.results)
            except KeyboardInterrupt:
                interrupted = True
                report.note = f"interrupted after {len(report.results)} of {len(todo)} mutants"
                for other in order[order.index(report) + 1 :]:
                    if plan[other.path]:
                        other.note = "not reached"
                break
            print(f"{path}: {report.killed}/{len(report.results)} killed ({report.rate:.1%})", flush=True)
        print_table(reports)
        elapsed = time.perf_counter() - started
        print(f"\nrun time: {elapsed / 60:.1f} min" + (" (interrupted: partial numbers)" if interrupted else ""))
        below = [r for r in reports if r.path.startswith("runtime/") and r.results and r.rate < BAR]
        if interrupted:
            return 130
        return 1 if args.strict and below else 0
    finally:
        for worker in workers:
            worker.close()
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def estimated_cost(todo: Sequence[Mutant], coverage: Coverage) -> float:
    """Seconds the mutants would take if none were killed early: each runs all its covering tests."""
    return sum(sum(coverage.durations.get(t, 1.0) for t in select_tests(m, coverage)) for m in todo)


def check_baseline(workspace: Workspace, coverage: Coverage, paths: Sequence[str]) -> None:
    """The control: every selected test passes through the fork server with nothing mutated.

    A test that fails here would 'kill' every mutant it runs, so a failure stops the run.
    """
    chosen = set().union(*(coverage.tests_of_file(p) for p in paths)) - coverage.failing if paths else set()
    tests = fastest_files_first(chosen, coverage.durations)
    if not tests:
        return
    print(f"control: {len(tests)} tests, nothing mutated", flush=True)
    status, seconds = workspace.ask(tests, max(MIN_TIMEOUT, TIMEOUT_FACTOR * sum(coverage.durations.values())))
    print(f"control: {status} in {seconds:.0f} s", flush=True)
    if status != "passed":
        raise UsageError(
            f"the unmutated project fails its tests in the fork server ({status}):\n" + workspace.last_output()
        )


def make_workers(workspace: Workspace, jobs: int) -> list[Workspace]:
    """``jobs`` project copies (the first is ``workspace``), each with its own fork server."""
    workers = [workspace]
    for n in range(1, jobs):
        extra = Workspace(workspace.base / f"w{n}", workspace.python, workspace.verbose)
        extra.base.mkdir(exist_ok=True)
        copy_project(extra.main)
        shared = ROOT.parent / "shared"
        if shared.exists():
            (extra.base / "shared").symlink_to(shared)
        workers.append(extra)
    return workers


def run_module(
    workers: Sequence[Workspace],
    coverage: Coverage,
    source: str,
    todo: Sequence[Mutant],
    verbose: bool,
    sink: list[Result],
) -> None:
    """Run each mutant of one module into ``sink``, one at a time per worker (project copy).

    Results land in ``sink`` as they come (in the mutants' order at the end), so an interrupt
    (Ctrl-C or SIGTERM) keeps every finished mutant; the workers' fork servers are then stopped.
    """
    pending: queue.Queue[Mutant] = queue.Queue()
    for mutant in todo:
        pending.put(mutant)
    stop = threading.Event()
    lock = threading.Lock()
    failure: list[BaseException] = []

    def work(worker: Workspace) -> None:
        try:
            while not stop.is_set():
                try:
                    mutant = pending.get_nowait()
                except queue.Empty:
                    return
                result = run_one(worker, coverage, source, mutant, verbose)
                with lock:
                    sink.append(result)
        except BaseException as exc:  # reported by the main thread
            if not stop.is_set():
                failure.append(exc)
            stop.set()
        finally:
            worker.write(todo[0].path, source)

    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    try:
        while any(thread.is_alive() for thread in threads):
            for thread in threads:
                thread.join(timeout=0.2)
    except KeyboardInterrupt:
        stop.set()
        for worker in workers:
            worker.close()
        for thread in threads:
            thread.join()
        raise
    if failure:
        raise failure[0]
    order = {(m.index, m.variant): i for i, m in enumerate(todo)}
    sink.sort(key=lambda r: order[(r.mutant.index, r.mutant.variant)])


def run_one(workspace: Workspace, coverage: Coverage, source: str, mutant: Mutant, verbose: bool) -> Result:
    """Write one mutant into a project copy and run its covering tests, fastest first, ``-x``."""
    tests = select_tests(mutant, coverage)
    if not tests:
        return Result(mutant, "uncovered")
    timeout = max(MIN_TIMEOUT, TIMEOUT_FACTOR * (2.0 + sum(coverage.durations.get(t, 1.0) for t in tests)))
    try:
        text = mutated_source(source, mutant)
    except (ValueError, TypeError, RecursionError) as exc:  # the splice did not give the mutated tree
        print(f"  {mutant.path}:{mutant.line}: cannot write the mutant ({exc})", flush=True)
        return Result(mutant, "error")
    workspace.write(mutant.path, text)
    status, seconds = workspace.ask(tests, timeout)
    outcome = {"passed": "survived", "failed": "killed", "timeout": "timeout"}[status]
    if verbose or outcome == "survived":
        print(
            f"  {mutant.path}:{mutant.line}: {mutant.original} -> {mutant.mutated}: {outcome}"
            f" ({len(tests)} tests, {seconds:.1f} s)",
            flush=True,
        )
    return Result(mutant, outcome, seconds, len(tests))


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="PATH",
        help="a module or directory to mutate (repeatable; default: all of runtime/)",
    )
    parser.add_argument("--list", action="store_true", help="only list the mutants")
    parser.add_argument("--jobs", type=int, default=1, help="parallel workers (default 1)")
    parser.add_argument("--max", type=int, default=None, metavar="N", help="run at most N mutants (a smoke run)")
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="at most N mutants per module, drawn with a fixed seed; the table gives a 95%% interval",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a runtime module is below 90%%")
    parser.add_argument(
        "--tests",
        action="append",
        default=[],
        metavar="PATH",
        help="test paths for the coverage run (default: every test directory of the runtime)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary project")
    parser.add_argument("--verbose", action="store_true", help="print every mutant's outcome")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.max is not None and args.max < 0:
        parser.error("--max must be at least 0")
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        return run(args)
    except UsageError as exc:
        print(f"mutation.py: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mutation.py: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
