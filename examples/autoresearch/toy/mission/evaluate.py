"""The toy mission's evaluator: one JSON object on stdout, logs on stderr."""

import json
import math
import sys
import time

sys.path.insert(0, "src")
from pi import approx_pi

start = time.perf_counter()
value = approx_pi()
seconds = time.perf_counter() - start
error = abs(value - math.pi)
print(f"approx_pi() = {value!r} in {seconds * 1000:.2f} ms", file=sys.stderr)
with open("run.log", "a", encoding="utf-8") as log:  # a runtime artifact: excluded from git status
    log.write(f"{value!r} {seconds:.6f}\n")
print(json.dumps({"pass": error < 0.5 and seconds < 0.05, "score": -error}))
