#!/usr/bin/env python3
"""A fake `codex` for the tests: each iteration does what a JSON plan says.

$FAKE_CODEX_PLAN names a JSON object {"<iteration>": step, "default": step}. A step's keys, applied
in this order (all optional):

  write      {path: text}   files to write in the worktree
  commit     message        `git add -A && git commit` (a list of messages commits several times)
  detach     true           `git checkout --detach`
  dirty      {path: text}   files written after committing (left uncommitted)
  index_lock true           leave an index.lock in the worktree's git dir
  candidate  object|null    the candidate file: null writes none; else these fields override the
                            defaults (status candidate, candidate_commit HEAD, base_commit the last
                            kept commit, description, notes [], created_at now); "base_commit":
                            "STALE" uses the worktree's first commit
  raw        text           write this text as the candidate file instead
  hostile    kind           make the candidate file hostile instead: "fifo" (a FIFO nobody writes),
                            "devzero" (a symlink to /dev/zero), "huge" (2 MiB of JSON whitespace)
  ready      path           touch this file (tests wait for it)
  signal     name           send this signal to the supervisor (our parent), then keep going
  sleep      seconds        sleep (a hang, for timeouts and signals)
  die        name           end by this signal, sent to itself (a worker killed by a signal)
  exit       code           exit status (default 0)

It also records its argv and stdin in $FAKE_CODEX_LOG/<iteration>.json when that is set.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def publish(path: Path, text: str) -> None:
    """Write a file others read while this process runs atomically: they see nothing or all of it."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text)
    os.replace(temp, path)


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def main() -> int:
    stdin = sys.stdin.read()
    iteration = os.environ["RCS_AUTORESEARCH_ITERATION"]
    log = os.environ.get("FAKE_CODEX_LOG")
    if log:
        Path(log).mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k.startswith("RCS_AUTORESEARCH_")}
        publish(Path(log, f"{iteration}.json"), json.dumps({"argv": sys.argv, "stdin": stdin, "env": env}))
    plan = json.loads(Path(os.environ["FAKE_CODEX_PLAN"]).read_text())
    step = plan.get(iteration, plan.get("default", {}))
    for path, text in step.get("write", {}).items():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    messages = step.get("commit", [])
    for message in [messages] if isinstance(messages, str) else messages:
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", message)
    if step.get("detach"):
        git("checkout", "-q", "--detach")
    for path, text in step.get("dirty", {}).items():
        Path(path).write_text(text)
    if step.get("index_lock"):
        Path(git("rev-parse", "--path-format=absolute", "--git-path", "index.lock")).write_text("")
    candidate_path = Path(os.environ["RCS_AUTORESEARCH_CANDIDATE_FILE"])
    if "hostile" in step:
        candidate_path.unlink(missing_ok=True)
        if step["hostile"] == "fifo":
            os.mkfifo(candidate_path)
        elif step["hostile"] == "devzero":
            os.symlink("/dev/zero", candidate_path)
        else:
            candidate_path.write_text(" " * (2 << 20) + "{}")
    elif "raw" in step:
        candidate_path.write_text(step["raw"])
    elif step.get("candidate", {}) is not None:
        candidate = {
            "status": "candidate",
            "candidate_commit": git("rev-parse", "HEAD"),
            "base_commit": os.environ["RCS_AUTORESEARCH_LAST_KEPT_COMMIT"],
            "description": f"iteration {iteration}",
            "notes": [],
            "created_at": datetime.datetime.now(datetime.UTC).isoformat(),
        }
        candidate.update(step.get("candidate", {}))
        if candidate["base_commit"] == "STALE":
            candidate["base_commit"] = git("rev-list", "--max-parents=0", "HEAD").splitlines()[0]
        candidate_path.write_text(json.dumps(candidate))
    if "ready" in step:
        publish(Path(step["ready"]), str(os.getpid()))
    if "signal" in step:
        os.kill(os.getppid(), getattr(signal, step["signal"]))
    if "sleep" in step:
        time.sleep(step["sleep"])
    if "die" in step:
        os.kill(os.getpid(), getattr(signal, step["die"]))
    return int(step.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
