"""Benchmark the supervisor overhead of `rcs autoresearch` per iteration, with an instant worker and evaluator.

    .venv/bin/python bench/autoresearch.py [--quick] [--repeat N] [--strict] [--iterations N] [--files N] [--profile]

Setup (untimed, in a tempfile directory): a throwaway git repository of 5,000 small files
(--files; 50 directories x 100 files of one line each), a `score.txt` holding 0 and a mission
directory `mission/` (mission.md, sandbox.md), committed once and repacked. Each timed run works
on a fresh copy of it, so every run launches into the same repository state.

  worker     RCS_CODEX_BIN names a /bin/sh script (run as `<bin> exec --sandbox danger-full-access -`)
             that discards its stdin, writes the iteration's score to score.txt (+i on odd
             iterations, -i on even ones), `git commit -am`s it and writes candidate.json with
             printf: so odd iterations beat the kept score and are kept, even ones are discarded
             (half keep, half discard; both paths of the supervisor are exercised).
  evaluator  `read s < score.txt; printf '{"pass": true, "score": %s}' "$s"`: /bin/sh builtins only.

Each timed run is `rcs autoresearch mission --max-iterations N` (N = --iterations, default 20;
plus the baseline, iteration 0) in the repository, timed from outside with time.perf_counter; it
must exit 0, record N + 1 ledger entries and decide exactly the expected keep/discard sequence.
3 runs (1 with --quick) after an untimed warm-up run of 2 iterations. From the run's ledger
(iteration-ledger.json: worker_seconds, evaluator_seconds, started_at, finished_at per entry):

  total       (wall time - sum of worker_seconds - sum of evaluator_seconds) / N: everything the
              supervisor itself costs, launch included, spread over the N iterations.
  launch      command start -> the baseline entry's started_at: interpreter start-up and imports,
              mission load, lock, `git worktree add` of the 5,000 files, excludes, first state files.
  steady      (finished_at[N] - finished_at[0] - worker and evaluator seconds of 1..N) / N: the
              per-iteration cost of the loop alone (prepare, instruction snapshot, spawning the
              worker, integrity checks, spawning the evaluator, keep or preserve + reset, ledger,
              results.tsv and manifest writes). Also shown per iteration (median/min/max), and
              split into kept and discarded iterations.
  baseline / tail  the rest: the baseline's own bookkeeping, and from the last entry to exit.

The launch is also split at the manifest's created_at (worktree ready / first state files). For
reference it times, outside the supervisor, `rcs --help` (the start-up floor), `git worktree add`
of the same repository on its own (the floor of the launch) and the worker script run directly.
With --profile, one more run goes under `python -m cProfile -o FILE -m runtime.cli autoresearch
...` and its top functions by cumulative and own time are printed.

Caveat: the supervisor's worker_seconds / evaluator_seconds are measured around
Popen.wait(timeout=...), which polls with sleeps growing to 50 ms; the delay between a child's
exit and the next poll is counted as worker/evaluator time, so it is not in the overhead here.

Bar: the median steady-state overhead < 0.3 s per iteration (the one-time launch excluded; the
total including it is printed next to it).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    ROOT,
    BenchError,
    bar,
    check_root,
    find_exe,
    main_wrapper,
    parser,
    print_header,
    repeats,
    run,
    table,
)

STEADY_BAR = 0.3  # seconds of supervisor overhead per iteration, launch excluded
FILES_PER_DIR = 100
WARMUP_ITERATIONS = 2
IDENTITY = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}

WORKER = r"""#!/bin/sh
# An instant stand-in for `codex exec`: one edit, one commit, the candidate file; no model.
cat >/dev/null
i=$RCS_AUTORESEARCH_ITERATION
if [ $((i % 2)) -eq 1 ]; then s=$i; d="score up to $i"; else s=-$i; d="score down to -$i"; fi
printf '%s\n' "$s" > score.txt
git -c user.name=bench -c user.email=bench@example.invalid commit -q -am "$d" || exit 1
head=$(git rev-parse HEAD) || exit 1
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
f='{"status": "candidate", "candidate_commit": "%s", "base_commit": "%s", '
f="$f"'"description": "%s", "notes": [], "created_at": "%s"}\n'
printf "$f" "$head" "$RCS_AUTORESEARCH_LAST_KEPT_COMMIT" "$d" "$now" > "$RCS_AUTORESEARCH_CANDIDATE_FILE"
"""

EVALUATOR = """read s < score.txt; printf '{"pass": true, "score": %s}\\n' "$s\""""

MISSION_MD = "# Mission: a higher score\n\nRaise the number in `score.txt`. One change per session; commit it.\n"
SANDBOX_MD = (
    "---\n"
    "evaluator:\n"
    f"  command: {json.dumps(EVALUATOR)}\n"
    "  format: json\n"
    "  keep_policy: score_improvement\n"
    "  timeout_seconds: 60\n"
    "worker:\n"
    "  timeout_seconds: 60\n"
    "---\n"
    "# Sandbox\n\nEdit `score.txt` only.\n"
)


def expected_decisions(iterations: int) -> list[str]:
    """baseline (score 0), then odd iterations raise the score (keep) and even ones lower it (discard)."""
    return ["baseline"] + ["keep" if i % 2 else "discard" for i in range(1, iterations + 1)]


def git(cwd: Path, *args: str) -> None:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, env={**os.environ, **IDENTITY}, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        raise BenchError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.decode(errors='replace').strip()}")


def build_template(path: Path, n_files: int) -> int:
    """The repository every run copies; returns the number of tracked files."""
    path.mkdir(parents=True)
    dirs = max(1, -(-n_files // FILES_PER_DIR))
    written = 0
    for d in range(dirs):
        sub = path / f"d{d:03d}"
        sub.mkdir()
        for f in range(min(FILES_PER_DIR, n_files - written)):
            (sub / f"f{f:03d}.txt").write_text(f"file {d}/{f}\n", encoding="utf-8")
            written += 1
    (path / "score.txt").write_text("0\n", encoding="utf-8")
    (path / "mission").mkdir()
    (path / "mission" / "mission.md").write_text(MISSION_MD, encoding="utf-8")
    (path / "mission" / "sandbox.md").write_text(SANDBOX_MD, encoding="utf-8")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "bench repository")
    git(path, "repack", "-a", "-d", "-q")
    git(path, "prune-packed")
    return written + 3


def fresh_copy(template: Path, scratch: Path, name: str) -> Path:
    """A copy of the template repository in its own directory (the worktrees go beside it).

    Followed by os.sync(), so the supervisor's first fsync does not also pay for flushing the copy.
    """
    repo = scratch / name / "repo"
    shutil.copytree(template, repo, symlinks=True)
    os.sync()
    return repo


def parse_time(text: str) -> float:
    return dt.datetime.fromisoformat(text).timestamp()


@dataclass
class RunResult:
    """One timed `rcs autoresearch` run and what its ledger says."""

    wall: float
    worker: list[float]  # per entry, iteration 0..N
    evaluator: list[float]
    started: list[float]  # epoch seconds
    finished: list[float]
    decisions: list[str]
    created: float  # epoch seconds: the manifest's created_at (worktree made, state not yet written)
    t0: float  # epoch seconds at the command's start and end
    t1: float

    @property
    def n(self) -> int:
        return len(self.decisions) - 1

    @property
    def total(self) -> float:
        """(wall - worker - evaluator) / N, launch included."""
        return (self.wall - sum(self.worker) - sum(self.evaluator)) / self.n

    @property
    def launch(self) -> float:
        return self.started[0] - self.t0

    @property
    def to_worktree(self) -> float:
        """Command start -> manifest created_at: start-up, imports, mission, lock, worktree add, excludes."""
        return self.created - self.t0

    @property
    def baseline(self) -> float:
        return self.finished[0] - self.started[0] - self.evaluator[0]

    def cycle(self, i: int) -> float:
        """Supervisor time of iteration i: from the previous entry to this one, minus worker and evaluator."""
        return self.finished[i] - self.finished[i - 1] - self.worker[i] - self.evaluator[i]

    @property
    def cycles(self) -> list[float]:
        return [self.cycle(i) for i in range(1, self.n + 1)]

    @property
    def steady(self) -> float:
        return (self.finished[self.n] - self.finished[0] - sum(self.worker[1:]) - sum(self.evaluator[1:])) / self.n

    @property
    def tail(self) -> float:
        return self.t1 - self.finished[self.n]


def rcs_autoresearch(
    argv_prefix: list[str], repo: Path, worker: Path, iterations: int, extra: list[str] | None = None
) -> RunResult:
    """Run `<argv_prefix> autoresearch mission --max-iterations N` in ``repo``; check and read its ledger."""
    argv = [*argv_prefix, "autoresearch", "--max-iterations", str(iterations), "mission", *(extra or [])]
    env = {**os.environ, "RCS_CODEX_BIN": str(worker)}
    t0 = time.time()
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=repo, capture_output=True, stdin=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - started
    t1 = time.time()
    if proc.returncode != 0:
        raise BenchError(
            f"`{' '.join(argv)}` exited {proc.returncode} in {repo}:\n"
            f"--- stdout (tail) ---\n{_tail(proc.stdout)}\n--- stderr (tail) ---\n{_tail(proc.stderr)}"
        )
    ledgers = sorted((repo / ".rcs" / "logs" / "autoresearch").glob("*/iteration-ledger.json"))
    if len(ledgers) != 1:
        raise BenchError(f"expected one run's ledger under {repo}/.rcs/logs/autoresearch, found {len(ledgers)}")
    entries = json.loads(ledgers[0].read_text(encoding="utf-8"))["entries"]
    manifest = json.loads((ledgers[0].parent / "manifest.json").read_text(encoding="utf-8"))
    decisions = [e["decision"] for e in entries]
    if decisions != expected_decisions(iterations):
        reasons = "; ".join(f"{e['iteration']}: {e['decision']} ({e['reason']})" for e in entries[:6])
        raise BenchError(f"unexpected decisions {decisions} (expected keep/discard alternating): {reasons}")
    return RunResult(
        wall=wall,
        worker=[float(e["worker_seconds"]) for e in entries],
        evaluator=[float(e["evaluator_seconds"]) for e in entries],
        started=[parse_time(e["started_at"]) for e in entries],
        finished=[parse_time(e["finished_at"]) for e in entries],
        decisions=decisions,
        created=parse_time(manifest["created_at"]),
        t0=t0,
        t1=t1,
    )


def _tail(data: bytes, lines: int = 20) -> str:
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


def time_worktree_add(template: Path, scratch: Path, n: int) -> list[float]:
    """`git worktree add -b B W HEAD` of the template repository alone, n times on fresh copies."""
    samples: list[float] = []
    for k in range(n):
        repo = fresh_copy(template, scratch, f"wt-{k}")
        started = time.perf_counter()
        git(repo, "worktree", "add", "--quiet", "-b", "bench", str(repo.parent / "wt"), "HEAD")
        samples.append(time.perf_counter() - started)
    return samples


def time_worker_alone(template: Path, scratch: Path, worker: Path, n: int) -> list[float]:
    """The worker script run directly in a copy of the repository, n times (it commits each time)."""
    repo = fresh_copy(template, scratch, "worker-alone")
    candidate = repo.parent / "candidate.json"
    samples: list[float] = []
    for i in range(1, n + 1):
        env = {
            **os.environ,
            "RCS_AUTORESEARCH_ITERATION": str(i),
            "RCS_AUTORESEARCH_CANDIDATE_FILE": str(candidate),
            "RCS_AUTORESEARCH_LAST_KEPT_COMMIT": "0" * 40,
            "RCS_AUTORESEARCH_RUN_ID": "bench",
        }
        started = time.perf_counter()
        proc = subprocess.run(
            [str(worker), "exec", "--sandbox", "danger-full-access", "-"],
            cwd=repo,
            input=b"instructions\n",
            capture_output=True,
            env=env,
        )
        samples.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise BenchError(f"the fake worker failed on its own: {_tail(proc.stderr)}")
    json.loads(candidate.read_text(encoding="utf-8"))  # it must write valid JSON
    return samples


def profile_run(python: Path, template: Path, scratch: Path, worker: Path, iterations: int, top: int = 25) -> str:
    """One run under `python -m cProfile -o FILE -m runtime.cli`; the top functions by cumulative time."""
    repo = fresh_copy(template, scratch, "profile")
    out = scratch / "autoresearch.prof"
    result = rcs_autoresearch(
        [str(python), "-m", "cProfile", "-o", str(out), "-m", "rcs_contracts.runtime.cli"], repo, worker, iterations
    )
    buffer = io.StringIO()
    stats = pstats.Stats(str(out), stream=buffer)
    stats.sort_stats("cumulative").print_stats(top)
    buffer.write("\n--- by own time ---\n")
    stats.sort_stats("tottime").print_stats(top)
    lines = [
        f"one run under cProfile: wall {result.wall:.2f}s, total overhead {result.total:.3f}s/iteration, "
        f"steady {result.steady:.3f}s/iteration (the profiler inflates Python calls; subprocess waits are real)",
        buffer.getvalue().replace(str(ROOT) + "/", ""),
    ]
    return "\n".join(lines)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def spread(label: str, values: list[float]) -> list[str]:
    """A table row: median, min, max, count."""
    return [label, ms(statistics.median(values)), ms(min(values)), ms(max(values)), str(len(values))]


def bench() -> bool:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=20, metavar="N", help="worker iterations per run (default 20)")
    p.add_argument("--files", type=int, default=5000, metavar="N", help="files in the repository (default 5000)")
    p.add_argument("--profile", action="store_true", help="one more run under cProfile; print the top functions")
    args: argparse.Namespace = p.parse_args()
    check_root()
    if args.iterations < 2 or args.files < 1:
        raise BenchError("--iterations must be at least 2 and --files at least 1")
    rcs = find_exe("rcs")
    python = find_exe(Path(sys.executable).name)
    if shutil.which("git") is None:
        raise BenchError("git is not on PATH")
    n_runs = repeats(args, full=3, quick=1)
    n_ref = 3 if args.quick else 5
    n = args.iterations

    with tempfile.TemporaryDirectory(prefix="rcs-bench-autoresearch-") as temp:
        scratch = Path(temp)
        template = scratch / "template"
        tracked = build_template(template, args.files)
        worker = scratch / "fake-worker.sh"
        worker.write_text(WORKER, encoding="utf-8")
        worker.chmod(0o755)

        rcs_autoresearch([str(rcs)], fresh_copy(template, scratch, "warmup"), worker, WARMUP_ITERATIONS)
        results = [
            rcs_autoresearch([str(rcs)], fresh_copy(template, scratch, f"run-{k}"), worker, n) for k in range(n_runs)
        ]
        run([rcs, "--help"], cwd=ROOT)  # warm-up
        help_times = [run([rcs, "--help"], cwd=ROOT) for _ in range(n_ref)]
        wt_add = time_worktree_add(template, scratch, n_ref)
        worker_alone = time_worker_alone(template, scratch, worker, 2 * n_ref)
        profile = profile_run(python, template, scratch, worker, n) if args.profile else None

    def med(values: list[float]) -> float:
        return statistics.median(values)

    print_header(f"rcs autoresearch supervisor overhead benchmark ({'quick' if args.quick else 'full'})")
    print(
        f"repository: {tracked:,} tracked files; {n} worker iterations + the baseline per run; "
        f"{n_runs} timed run(s) after a {WARMUP_ITERATIONS}-iteration warm-up"
    )
    print()
    columns: list[tuple[str, Callable[[RunResult], float], Callable[[float], str]]] = [
        ("wall", lambda r: r.wall, lambda v: f"{v:.2f}s"),
        ("worker Σ", lambda r: sum(r.worker), lambda v: f"{v:.2f}s"),
        ("evaluator Σ", lambda r: sum(r.evaluator), lambda v: f"{v:.3f}s"),
        ("launch", lambda r: r.launch, ms),
        ("baseline", lambda r: r.baseline, ms),
        ("tail", lambda r: r.tail, ms),
        ("steady/iter", lambda r: r.steady, ms),
        ("total/iter", lambda r: r.total, ms),
    ]
    rows = [[f"run {k}", *(fmt(get(r)) for _, get, fmt in columns)] for k, r in enumerate(results, 1)]
    if len(results) > 1:
        rows.append(["median", *(fmt(med([get(r) for r in results])) for _, get, fmt in columns)])
    print(table(["run", *(name for name, _, _ in columns)], rows))
    print("  steady/iter = supervisor time per iteration, the one-time launch excluded (the bar);")
    print(f"  total/iter  = (wall - worker Σ - evaluator Σ) / {n}: launch, baseline and tail included")
    print()

    cycles = [c for r in results for c in r.cycles]
    kept = [r.cycle(i) for r in results for i in range(1, r.n + 1) if r.decisions[i] == "keep"]
    dropped = [r.cycle(i) for r in results for i in range(1, r.n + 1) if r.decisions[i] == "discard"]
    print("per iteration (all timed runs pooled; from one ledger entry's finished_at to the next):")
    print(
        table(
            ["part", "median", "min", "max", "samples"],
            [
                spread("supervisor, every iteration", cycles),
                spread("supervisor, kept", kept),
                spread("supervisor, discarded", dropped),
                spread("worker (ledger)", [w for r in results for w in r.worker[1:]]),
                spread("evaluator (ledger)", [e for r in results for e in r.evaluator[1:]]),
            ],
        )
    )
    print()
    print("launch (one-time) and references outside the supervisor:")
    print(
        table(
            ["measurement", "median", "min", "max", "runs"],
            [
                spread("launch: start -> worktree ready", [r.to_worktree for r in results]),
                spread("launch: first state files", [r.launch - r.to_worktree for r in results]),
                spread("rcs --help (start-up floor)", help_times),
                spread(f"git worktree add ({tracked:,} files)", wt_add),
                spread("fake worker script alone", worker_alone),
            ],
        )
    )
    print()
    if profile is not None:
        print(profile)
        print()
    steady = med([r.steady for r in results])
    total = med([r.total for r in results])
    print("bars:")
    return bar(
        f"steady-state supervisor overhead < {STEADY_BAR} s/iteration",
        steady < STEADY_BAR,
        f"median {steady:.3f}s/iteration (launch excluded; {total:.3f}s/iteration with launch, baseline and tail)",
    )


if __name__ == "__main__":
    main_wrapper(bench)
