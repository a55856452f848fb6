#!/usr/bin/env python3
"""A scripted stand-in for `codex exec`: no model, a fixed plan of edits to the toy mission.

It reads the instruction snapshot on stdin (and ignores it), then, by iteration number
($RCS_AUTORESEARCH_ITERATION), sets TERMS in src/pi.py, commits, and writes the candidate file
($RCS_AUTORESEARCH_CANDIDATE_FILE) with base_commit = $RCS_AUTORESEARCH_LAST_KEPT_COMMIT.
"""

import datetime
import json
import os
import re
import subprocess
import sys

# iteration -> (TERMS, description); None = report noop. A worse value is discarded, a better one kept.
PLAN = {1: (40, "more terms"), 2: (10, "fewer terms (worse)"), 3: (400, "many more terms"), 4: (400, None)}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout.strip()


def main() -> None:
    sys.stdin.read()
    iteration = int(os.environ["RCS_AUTORESEARCH_ITERATION"])
    base = os.environ["RCS_AUTORESEARCH_LAST_KEPT_COMMIT"]
    terms, description = PLAN.get(iteration, (0, None))
    candidate = {"status": "noop", "candidate_commit": None, "base_commit": base,
                 "description": "nothing left to try", "notes": [],
                 "created_at": datetime.datetime.now(datetime.UTC).isoformat()}
    if description is not None:
        with open("src/pi.py", encoding="utf-8") as handle:
            text = handle.read()
        with open("src/pi.py", "w", encoding="utf-8") as handle:
            handle.write(re.sub(r"TERMS = \d+", f"TERMS = {terms}", text))
        git("-c", "user.name=fake worker", "-c", "user.email=fake@example.invalid",
            "commit", "-q", "-am", description)
        candidate.update(status="candidate", candidate_commit=git("rev-parse", "HEAD"),
                         description=description, notes=[f"TERMS = {terms}"])
    with open(os.environ["RCS_AUTORESEARCH_CANDIDATE_FILE"], "w", encoding="utf-8") as handle:
        json.dump(candidate, handle)


if __name__ == "__main__":
    main()
