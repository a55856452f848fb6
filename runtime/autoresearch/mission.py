"""A mission directory: its repository, its two files, and the evaluator contract of sandbox.md.

The contract is read once, at launch, from the user's checkout and stored in the manifest (R-AR-5);
nothing a worker later does to ``sandbox.md`` in its worktree can change it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from rcs_contracts.engine import inputs
from rcs_contracts.generated._support import RcsError
from rcs_contracts.generated.autoresearch import config as C
from rcs_contracts.generated.autoresearch import errors as E
from rcs_contracts.generated.autoresearch.manifest_schema import EvaluatorContract
from rcs_contracts.generated.autoresearch.sandbox_schema import KIND as SANDBOX_KIND
from rcs_contracts.generated.autoresearch.sandbox_schema import SandboxFrontmatter, Worker
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.runtime.autoresearch import files, git
from rcs_contracts.safeio import yaml_data

_FENCE = "---"


@dataclass(frozen=True)
class Mission:
    """Everything a launch needs from the mission directory."""

    repo: Path  # the main working tree: the lock, the run logs and the lanes live beside it
    checkout: Path  # the working tree holding the mission (the main one, or a linked worktree)
    directory: Path
    slug: str
    mission_text: str
    sandbox_text: str
    evaluator: EvaluatorContract
    worker_timeout_seconds: float

    @property
    def relative_dir(self) -> str:
        """The mission directory relative to the repository root (``.`` for the root itself)."""
        return self.directory.relative_to(self.checkout).as_posix() or "."


def slug(name: str) -> str:
    """A branch- and path-safe slug: lower-case ASCII letters and digits joined by single hyphens."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text or "mission"


def frontmatter(text: str, path: Path) -> SandboxFrontmatter:
    """The validated YAML frontmatter of sandbox.md (between a first line ``---`` and the next ``---``)."""
    # Only \n, \r\n and \r end a line: str.splitlines would also break at U+2028, NEL and others, which
    # the YAML reader refuses raw (SPEC 11.2) and must therefore see.
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].strip() != _FENCE:
        raise E.bad_frontmatter(path=str(path), detail="the file must start with a '---' line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        raise E.bad_frontmatter(path=str(path), detail="no closing '---' line") from None
    source = "\n".join(lines[1:end])
    try:
        data = yaml_data.load(source)
        # YAML read as JSON data only: nothing to coerce. No RecursionError here: the YAML reader
        # spends several frames per level of nesting and refuses deep data before json would.
        as_json = json.dumps(data)
    except yaml_data.YamlError as exc:
        # Lines of the file: the frontmatter starts on its second line.
        raise E.bad_frontmatter(path=str(path), detail=f"line {exc.line + 1}: {exc.problem}") from None
    try:
        return files.parse_model(as_json, SANDBOX_KIND, SandboxFrontmatter)
    except RcsError as exc:
        where = f" at {'/'.join(map(str, exc.location))}" if exc.location else ""
        raise E.bad_frontmatter(path=str(path), detail=f"{exc}{where}") from None


def load(path: str) -> Mission:
    """Read and check a mission directory; raises MissionError with what to fix."""
    directory = Path(path).resolve()
    if not directory.is_dir():
        raise E.no_mission_dir(path=path)
    checkout = git.toplevel(directory)
    if checkout is None:
        raise E.not_in_git_repo(path=path)
    repo = git.main_root(checkout)
    assert repo is not None  # inside a working tree, so inside a repository with a main one
    if git.commit_of(checkout, "HEAD") is None:
        raise E.no_commits(repo=str(checkout))
    texts: dict[str, str] = {}
    for name in (C.MISSION_FILE, C.SANDBOX_FILE):
        file = directory / name
        try:
            texts[name] = inputs.read_text(file, Input.MISSION)
        except FileNotFoundError:
            raise E.missing_mission_file(path=str(file)) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise E.bad_frontmatter(path=str(file), detail=str(exc)) from None
    sandbox_path = directory / C.SANDBOX_FILE
    front = frontmatter(texts[C.SANDBOX_FILE], sandbox_path)
    ev = front.evaluator
    keep = ev.keep_policy if isinstance(ev.keep_policy, str) else C.DEFAULT_KEEP_POLICY
    timeout = ev.timeout_seconds if isinstance(ev.timeout_seconds, float | int) else C.EVALUATOR_TIMEOUT_SECONDS
    worker_timeout = C.WORKER_TIMEOUT_SECONDS
    if isinstance(front.worker, Worker) and isinstance(front.worker.timeout_seconds, float | int):
        worker_timeout = float(front.worker.timeout_seconds)
    contract = files.build(
        EvaluatorContract,
        {
            "command": ev.command,
            "format": ev.format,
            "keep_policy": keep,
            "timeout_seconds": float(timeout),
            "sandbox_sha256": hashlib.sha256(texts[C.SANDBOX_FILE].encode("utf-8")).hexdigest(),
        },
    )
    # The lane starts from HEAD: a mission that is not committed as it stands would not be the one run.
    relative = directory.relative_to(checkout).as_posix() or "."
    pending = git.dirty_paths(checkout, relative)
    if pending:
        raise E.mission_not_committed(path=path, paths=", ".join(git.shown(p) for p in pending[:5]))
    tracked = git.run(checkout, "ls-tree", "--name-only", "HEAD", "--", *C.RUNTIME_ARTIFACTS).split()
    if tracked:
        raise E.runtime_artifact_tracked(repo=str(checkout), paths=", ".join(tracked))
    return Mission(
        repo=repo,
        checkout=checkout,
        directory=directory,
        slug=slug(directory.name if directory != repo else repo.name),
        mission_text=texts[C.MISSION_FILE],
        sandbox_text=texts[C.SANDBOX_FILE],
        evaluator=contract,
        worker_timeout_seconds=worker_timeout,
    )
