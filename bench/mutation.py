"""Mutation testing of the hand-written runtime: does some test fail when one operator changes?

A small AST mutator (standard library ``ast`` only). Each mutant changes exactly one node of one
module: a comparison operator, ``is``/``is not``, ``in``/``not in``, ``and``/``or``, a removed
``not``, ``True``/``False``, an integer constant (n -> n + 1), a string constant (+ "X"), or a
dropped guard (the body of ``if cond: raise ...`` / ``if cond: yield ...`` replaced by ``pass``).
The mutated module is ``ast.unparse`` of the whole tree, so each module is first checked unmutated
in its unparsed form (the unparse itself must be harmless).

Everything runs in a temporary copy of the project (``TMP/main``, with ``TMP/shared`` linking to
the real ``../shared``); the real tree is never written. Tests are selected per mutant from a
per-test line coverage collected once (a tiny ``sys.settrace`` pytest plugin, also active in the
``python -m runtime.cli`` children the tests start), and run with ``pytest -x``.

    .venv/bin/python bench/mutation.py [--module PATH]... [--list] [--max N] [--jobs N] [--strict]

Output: per module ``mutants killed survived kill-rate``, the total, then every survivor as
``path:line: original -> mutant``. Exit 0; 1 with ``--strict`` when a runtime module is below 90%;
2 on a usage error or when the setup fails.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAR = 0.90
MIN_TIMEOUT = 30.0
TIMEOUT_FACTOR = 10.0
# Copied into the temporary project: everything but these (caches, the venv, git's own files).
SKIP_COPY = {".git", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "__pycache__"}
# Test directories whose tests may run a runtime module (tests/conformance runs the JSON Schema
# suite, tests/codegen the compiler; both are added when a codegen module is mutated).
RUNTIME_TESTS = (
    "tests/test_batch.py",
    "tests/test_public_api.py",
    "tests/test_readme.py",
    "tests/test_verdict.py",
    "tests/autoresearch",
    "tests/corpus",
    "tests/evidence",
    "tests/hostile",
    "tests/odr",
    "tests/phase1",
)
CODEGEN_TESTS = ("tests/codegen", "tests/conformance")

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
    ``__all__``, ``__main__`` guards, asserts (type narrowing) and logging calls."""
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


def mutants_of(path: str, source: str) -> list[Mutant]:
    """Every mutant of one module, in a deterministic order."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    excluded = _excluded_subtrees(tree)
    found: list[Mutant] = []
    for index, node, parents in _walk(tree):
        if id(node) in excluded or id(node) in docstrings:
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


def mutated_source(source: str, mutant: Mutant) -> str:
    """``ast.unparse`` of the module with exactly this mutant applied."""
    tree = ast.parse(source)
    node = next(n for i, n, _ in _walk(tree) if i == mutant.index)
    replacement = _apply(node, mutant.kind, mutant.variant)
    return ast.unparse(_Replace(mutant.index, replacement).run(tree)) + "\n"


def baseline_source(source: str) -> str:
    """``ast.unparse`` of the unmutated module (what every mutant is compared against)."""
    return ast.unparse(ast.parse(source)) + "\n"


# --- the temporary project and the coverage ------------------------------------------------------

# The line tracer both coverage scripts install: it records (file, line) of the files under
# _PREFIXES into the set _current[0], which the script defines (and the plugin switches per test).
TRACER = '''
_wanted = {}


def _local(frame, event, arg):
    if event == "line":
        _current[0].add((frame.f_code.co_filename, frame.f_lineno))
    return _local


def _global(frame, event, arg):
    name = frame.f_code.co_filename
    hit = _wanted.get(name)
    if hit is None:
        hit = _wanted[name] = name.startswith(_PREFIXES)
    if hit:
        _current[0].add((name, frame.f_lineno))
        return _local
    return None


sys.settrace(_global)
threading.settrace(_global)
'''

PLUGIN = '''\
"""Per-test line coverage of the mutated modules (loaded with -p _mutcov)."""
import json, os, sys, threading, time
import pytest

_OUT = os.environ["RCS_MUTCOV_DIR"]
_PREFIXES = tuple(json.loads(os.environ["RCS_MUTCOV_PREFIXES"]))
os.environ["RCS_MUTCOV_MAIN"] = str(os.getpid())
_lines = {}  # context -> set of (file, line)
_current = [_lines.setdefault("", set())]
_durations = {}
_outcomes = {}
''' + TRACER + '''

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # Re-installed for every test: hypothesis (and other tracers) may have replaced or cleared it.
    sys.settrace(_global)
    threading.settrace(_global)
    _current[0] = _lines.setdefault(item.nodeid, set())
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
    }
    with open(os.path.join(_OUT, "main.json"), "w") as handle:
        json.dump(data, handle)
'''

CHILD_HOOK = '''\
"""Line coverage in a child process (python -m runtime.cli), attributed to PYTEST_CURRENT_TEST."""
import atexit, json, os, sys, threading

_PREFIXES = tuple(json.loads(os.environ["RCS_MUTCOV_PREFIXES"]))
_current = [set()]
_seen = _current[0]
''' + TRACER + '''
def _write():
    context = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    path = os.path.join(os.environ["RCS_MUTCOV_DIR"], f"child-{os.getpid()}-{id(_seen)}.json")
    try:
        with open(path, "w") as handle:
            json.dump({"context": context, "lines": sorted(_seen)}, handle)
    except OSError:
        pass


atexit.register(_write)
'''

HOOK_LINE = (
    '\nif __import__("os").environ.get("RCS_MUTCOV_DIR") and __import__("os").environ.get("RCS_MUTCOV_MAIN") '
    '!= str(__import__("os").getpid()): __import__("runpy").run_path(__import__("os").environ["RCS_MUTCOV_HOOK"])\n'
)


@dataclass
class Coverage:
    """Which tests run which lines, and how long each test took."""

    lines: dict[str, dict[int, set[str]]]  # path -> line -> test ids
    import_lines: dict[str, set[int]]  # path -> lines run with no test current (imports)
    durations: dict[str, float]
    failing: set[str]

    def tests_of_file(self, path: str) -> set[str]:
        return {test for tests in self.lines.get(path, {}).values() for test in tests}


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
                if not filename.startswith(prefix):
                    continue
                relative = filename[len(prefix) :]
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
        coverage = Coverage(lines, imports, data["durations"], failing)
        cache.write_text(json.dumps({"seconds": seconds, "children": children}))
        print(
            f"coverage: {len(data['durations'])} tests in {seconds:.0f} s, {children} child processes traced"
            + (f", {len(failing)} failing tests left out: {sorted(failing)[:5]}" if failing else ""),
            flush=True,
        )
        return coverage


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


def select_tests(mutant: Mutant, coverage: Coverage) -> list[str]:
    """The tests that run the mutated lines, fastest first; at import time: every test of the file."""
    by_line = coverage.lines.get(mutant.path, {})
    chosen: set[str] = set()
    for line in {*range(mutant.line, mutant.end_line + 1), mutant.stmt_line}:
        chosen.update(by_line.get(line, ()))
    if not chosen:
        imported = coverage.import_lines.get(mutant.path, set())
        if any(line in imported for line in {*range(mutant.line, mutant.end_line + 1), mutant.stmt_line}):
            chosen = coverage.tests_of_file(mutant.path)
    chosen -= coverage.failing
    return sorted(chosen, key=lambda t: (coverage.durations.get(t, 0.0), t))


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
        mark = "" if report.rate >= BAR else "  < 90%"
        note = f"  ({report.note})" if report.note else ""
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
        counts = ", ".join(f"{p} {len(mutants[p])}" for p in paths)
        print(f"\n{sum(len(v) for v in mutants.values())} mutants: {counts}")
        return 0
    budget = args.max
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="rcs-mutation-"))
    try:
        workspace = Workspace(base, sys.executable, args.verbose)
        workspace.prepare()
        test_dirs = list(RUNTIME_TESTS)
        if any(p.startswith("codegen/") for p in paths):
            test_dirs.extend(CODEGEN_TESTS)
        if args.tests:
            test_dirs = list(args.tests)
        print(f"project copy: {workspace.main}; collecting coverage over {' '.join(test_dirs)}", flush=True)
        coverage = workspace.collect_coverage(paths, test_dirs)
        reports = [ModuleReport(path) for path in paths]
        plan: dict[str, list[Mutant]] = {}
        for path in paths:
            todo = mutants[path]
            if budget is not None:
                todo = todo[: max(budget, 0)]
                budget -= len(todo)
            plan[path] = todo
        notes = check_baseline(workspace, coverage, [p for p in paths if plan[p]], sources)
        for report in reports:
            report.note = notes.get(report.path, "")
        interrupted = False
        for report in reports:
            path = report.path
            todo = plan[path]
            if not todo or report.note:
                continue
            print(f"{path}: {len(todo)} mutants, {len(coverage.tests_of_file(path))} tests", flush=True)
            try:
                run_module(workspace, coverage, sources[path], todo, args.jobs, args.verbose, report.results)
            except KeyboardInterrupt:
                interrupted = True
                report.note = f"interrupted after {len(report.results)} of {len(todo)} mutants"
                break
            finally:
                workspace.write(path, sources[path])
            print(f"{path}: {report.killed}/{len(report.results)} killed ({report.rate:.1%})", flush=True)
        print_table(reports)
        elapsed = time.perf_counter() - started
        print(f"\nrun time: {elapsed / 60:.1f} min" + (" (interrupted: partial numbers)" if interrupted else ""))
        below = [r for r in reports if r.path.startswith("runtime/") and r.results and r.rate < BAR]
        return 1 if args.strict and below else 0
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def check_baseline(
    workspace: Workspace, coverage: Coverage, paths: Sequence[str], sources: dict[str, str]
) -> dict[str, str]:
    """Run the tests of ``paths`` against their unparsed, unmutated modules: the unparse must be harmless.

    All modules at once first; only when that fails, one by one. Returns a note per failing module.
    """
    if not paths:
        return {}
    notes: dict[str, str] = {}

    def tests_of(group: Sequence[str]) -> list[str]:
        chosen = set().union(*(coverage.tests_of_file(p) for p in group)) - coverage.failing
        return sorted(chosen, key=lambda t: (coverage.durations.get(t, 0.0), t))

    for path in paths:
        workspace.write(path, baseline_source(sources[path]))
    try:
        tests = tests_of(paths)
        print(f"baseline: the {len(paths)} modules unparsed, {len(tests)} tests", flush=True)
        status, seconds, tail = workspace.pytest(tests, None) if tests else ("passed", 0.0, "")
        print(f"baseline: {status} in {seconds:.0f} s", flush=True)
        if status == "passed":
            return notes
        for path in paths:  # which module's unparse breaks a test
            for other in paths:
                workspace.write(other, sources[other])
            workspace.write(path, baseline_source(sources[path]))
            status, _, tail = workspace.pytest(tests_of([path]), None)
            if status != "passed":
                notes[path] = "the unparsed, unmutated module fails its tests: skipped"
                print(f"{path}: {notes[path]}\n{tail}", flush=True)
        return notes
    finally:
        for path in paths:
            workspace.write(path, sources[path])


def run_module(
    workspace: Workspace,
    coverage: Coverage,
    source: str,
    todo: Sequence[Mutant],
    jobs: int,
    verbose: bool,
    sink: list[Result],
) -> None:
    """Run each mutant of one module into ``sink`` (``jobs`` > 1: one project copy per worker)."""
    if jobs <= 1:
        for mutant in todo:
            sink.append(run_one(workspace, coverage, source, mutant, verbose))
        return
    workers = [workspace]
    for n in range(1, jobs):
        extra = Workspace(workspace.base / f"w{n}", workspace.python, verbose)
        if not extra.main.exists():
            extra.base.mkdir(exist_ok=True)
            copy_project(extra.main)
            shared = ROOT.parent / "shared"
            if shared.exists():
                (extra.base / "shared").symlink_to(shared)
        workers.append(extra)
    chunks = [list(todo[i::jobs]) for i in range(jobs)]

    def work(n: int) -> list[Result]:
        try:
            return [run_one(workers[n], coverage, source, m, verbose) for m in chunks[n]]
        finally:
            workers[n].write(todo[0].path, source)

    with ThreadPoolExecutor(jobs) as pool:
        done = [r for rs in pool.map(work, range(jobs)) for r in rs]
    order = {(m.index, m.variant): i for i, m in enumerate(todo)}
    sink.extend(sorted(done, key=lambda r: order[(r.mutant.index, r.mutant.variant)]))


def run_one(workspace: Workspace, coverage: Coverage, source: str, mutant: Mutant, verbose: bool) -> Result:
    """Write one mutant into the copy and run its tests."""
    tests = select_tests(mutant, coverage)
    if not tests:
        return Result(mutant, "uncovered")
    timeout = max(MIN_TIMEOUT, TIMEOUT_FACTOR * (2.0 + sum(coverage.durations.get(t, 1.0) for t in tests)))
    try:
        text = mutated_source(source, mutant)
    except (ValueError, TypeError, RecursionError) as exc:  # unparse refused the tree
        print(f"  {mutant.path}:{mutant.line}: cannot unparse the mutant ({exc})", flush=True)
        return Result(mutant, "error")
    workspace.write(mutant.path, text)
    status, seconds, _ = workspace.pytest(tests, timeout)
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
