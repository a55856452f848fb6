"""Fixtures for rcs autoresearch: real git repositories in temp dirs, the real CLI, a fake codex."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

HERE = Path(__file__).resolve().parent
FAKE = HERE / "fake_codex.py"
IDENTITY = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

NOOP = {"candidate": {"status": "noop", "candidate_commit": None}}
SANDBOX = """---
evaluator:
  command: {command}
  format: json
  keep_policy: {policy}
  timeout_seconds: {eval_timeout}
worker:
  timeout_seconds: {worker_timeout}
---
Evaluate with mission/evaluator.py.
"""


def git(cwd: Path, *args: str) -> str:
    """stdout of a git command (raises on failure)."""
    env = {**os.environ, **IDENTITY}
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True, env=env).stdout


@dataclass
class Lab:
    """A repository with a mission, a fake codex plan, and the real `rcs autoresearch`."""

    root: Path
    repo: Path
    plan: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def set_plan(self, plan: dict[str, Any]) -> None:
        """Steps of the fake codex by iteration (see fake_codex.py)."""
        plan = {"default": NOOP, **plan}  # a plan that runs out stops the run (R-AR-4 noop limit)
        self.plan = plan
        (self.root / "plan.json").write_text(json.dumps(plan))

    def environment(self) -> dict[str, str]:
        """The environment of the CLI."""
        return {
            **os.environ,
            **IDENTITY,
            "RCS_CODEX_BIN": str(FAKE),
            "FAKE_CODEX_PLAN": str(self.root / "plan.json"),
            "FAKE_CODEX_LOG": str(self.root / "codex-log"),
            "PYTHONPATH": str(ROOT),
            **self.env,
        }

    def argv(self, *args: str) -> list[str]:
        """The command line of `rcs autoresearch ARGS`."""
        return [sys.executable, "-m", "rcs_contracts.runtime.cli", "autoresearch", *args]

    def rcs(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Run `rcs autoresearch ARGS` in the repository and wait."""
        return subprocess.run(
            self.argv(*args), cwd=self.repo, env=self.environment(), capture_output=True, text=True, timeout=timeout
        )

    def start(self, *args: str) -> subprocess.Popen[str]:
        """Start `rcs autoresearch ARGS` without waiting."""
        return subprocess.Popen(
            self.argv(*args), cwd=self.repo, env=self.environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )

    def run_dirs(self) -> list[Path]:
        """Every run directory, oldest first."""
        logs = self.repo / ".rcs/logs/autoresearch"
        return sorted(p for p in logs.iterdir() if p.is_dir()) if logs.exists() else []

    def only_run(self) -> Path:
        """The one run directory."""
        runs = self.run_dirs()
        assert len(runs) == 1, runs
        return runs[0]

    def manifest(self, run: Path | None = None) -> dict[str, Any]:
        """The run's manifest.json."""
        return json.loads(((run or self.only_run()) / "manifest.json").read_text())

    def ledger(self, run: Path | None = None) -> list[dict[str, Any]]:
        """The run's ledger entries."""
        return json.loads(((run or self.only_run()) / "iteration-ledger.json").read_text())["entries"]

    def decisions(self, run: Path | None = None) -> list[str]:
        """The decision of every ledger entry."""
        return [e["decision"] for e in self.ledger(run)]

    def worktree(self, run: Path | None = None) -> Path:
        """The run's worktree."""
        return Path(self.manifest(run)["worktree"])

    def lock(self) -> Path:
        """The repository's lock file."""
        return self.repo / ".rcs/state/autoresearch-state.json"

    def wait_for(self, path: Path, timeout: float = 30) -> str:
        """Wait until ``path`` has content, and return it (a file that exists may not be written yet)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                text = path.read_text()
            except FileNotFoundError:
                text = ""
            if text:
                return text
            assert time.monotonic() < deadline, f"timed out waiting for content in {path}"
            time.sleep(0.02)


def make_repo(root: Path, *, policy: str = "score_improvement", command: str = "python3 mission/evaluator.py",
              eval_timeout: float = 30, worker_timeout: float = 30, mode: str = "ok", score: str = "0") -> Path:
    """A git repository with a committed mission directory and the tests' evaluator."""
    repo = root / "repo"
    (repo / "mission").mkdir(parents=True)
    (repo / "mission/mission.md").write_text("# Mission\nRaise score.txt.\n")
    (repo / "mission/sandbox.md").write_text(
        SANDBOX.format(command=command, policy=policy, eval_timeout=eval_timeout, worker_timeout=worker_timeout)
    )
    shutil.copy(HERE / "evaluator.py", repo / "mission/evaluator.py")
    (repo / "mode.txt").write_text(mode + "\n")
    (repo / "score.txt").write_text(score + "\n")
    (repo / "user-file.txt").write_text("the user's own file\n")
    git(root, "init", "-q", "-b", "main", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "mission")
    return repo


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    """A fresh lab; kills stray process groups the test may leave."""
    lab = Lab(tmp_path, make_repo(tmp_path))
    lab.set_plan({})
    yield lab


def score_step(score: float, mode: str = "ok", **extra: Any) -> dict[str, Any]:
    """A plan step that commits a new score (and evaluator mode)."""
    return {"write": {"score.txt": f"{score}\n", "mode.txt": f"{mode}\n"}, "commit": f"score {score}", **extra}


def at_kept_and_clean(lab: Lab) -> None:
    """R-AR-9: the run's worktree is on its branch, at the last kept commit, and clean."""
    manifest = lab.manifest()
    worktree = Path(manifest["worktree"])
    assert git(worktree, "symbolic-ref", "HEAD").strip() == f"refs/heads/{manifest['branch']}"
    assert git(worktree, "rev-parse", "HEAD").strip() == manifest["last_kept_commit"]
    assert git(worktree, "status", "--porcelain", "--untracked-files=all").strip() == ""


def pid_alive(pid: int) -> bool:
    """Whether a process exists (and is not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


__all__ = ["Lab", "at_kept_and_clean", "git", "make_repo", "pid_alive", "score_step"]
