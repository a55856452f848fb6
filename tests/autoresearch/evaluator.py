"""The tests' evaluator: behaviour chosen by mode.txt in the worktree, score from score.txt.

Modes: ok, fail (pass=false), noscore (pass without a score), logs (a log line before the JSON),
crash (exit 3), hang (sleep), grandchild (leaves a sleeping child holding stdout; its pid goes to
$EVAL_PID_FILE), droppings (untracked files and a read-only directory in the worktree), ready (touch
$EVAL_READY then sleep: for signal tests).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def publish(path: str, text: str) -> None:
    """Write a file the tests wait on atomically: a reader sees nothing or all of it."""
    temp = f"{path}.{os.getpid()}.tmp"
    Path(temp).write_text(text)
    os.replace(temp, path)


mode = Path("mode.txt").read_text().strip() if Path("mode.txt").exists() else "ok"
score = float(Path("score.txt").read_text()) if Path("score.txt").exists() else 0.0
print(f"evaluating mode={mode} score={score}", file=sys.stderr)
if mode == "hang":
    time.sleep(60)
if mode == "ready":
    publish(os.environ["EVAL_READY"], str(os.getpid()))
    time.sleep(60)
if mode == "grandchild":
    child = subprocess.Popen(["sleep", "60"])
    publish(os.environ["EVAL_PID_FILE"], str(child.pid))
if mode == "droppings":
    Path("junk.txt").write_text("junk")
    Path("build/ro").mkdir(parents=True, exist_ok=True)
    Path("build/ro/out.bin").write_text("x")
    os.chmod("build/ro", 0o500)
    Path("run.log").write_text("kept: a runtime artifact\n")
if mode == "logs":
    print("starting evaluation")
if mode == "crash":
    sys.exit(3)
result = {"pass": mode != "fail"}
if mode != "noscore":
    result["score"] = score
print(json.dumps(result))
