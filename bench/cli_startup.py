"""Benchmark the start-up time of the rcs command: `rcs --version` and `rcs --help` against `python -c pass`.

    .venv/bin/python bench/cli_startup.py [--quick] [--repeat N] [--strict]

Times 20 runs of each (5 with --quick) after one untimed warm-up and reports the medians.
`python -c pass` (the venv's interpreter) is the floor no Python CLI can beat; the difference is
what rcs itself costs before doing any work. Bars: `rcs --version` and `rcs --help` medians < 0.15 s.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    ROOT,
    Timing,
    bar,
    check_root,
    find_exe,
    main_wrapper,
    parser,
    print_header,
    repeats,
    run,
    timing_table,
)

BAR = 0.15


def bench() -> bool:
    args = parser(__doc__.splitlines()[0]).parse_args()
    check_root()
    rcs = find_exe("rcs")
    python = find_exe(Path(sys.executable).name)
    n = repeats(args, full=20, quick=5)

    timings: list[Timing] = []
    commands = (
        ("rcs --version", [rcs, "--version"]),
        ("rcs --help", [rcs, "--help"]),
        ("python -c pass (floor)", [python, "-c", "pass"]),
    )
    for label, cmd in commands:
        run(cmd, cwd=ROOT)  # warm-up
        timings.append(Timing(label, [run(cmd, cwd=ROOT) for _ in range(n)]))
    version, rcs_t, floor = timings

    print_header(f"rcs CLI start-up benchmark ({'quick' if args.quick else 'full'})")
    print(timing_table(timings))
    print()
    print(
        f"rcs --help / python -c pass = {rcs_t.median / floor.median:.1f}x; "
        f"rcs's own start-up cost = {1000 * (rcs_t.median - floor.median):.0f} ms above the floor"
    )
    print()
    print("bars:")
    version_ok = bar("rcs --version < 0.15 s", version.median < BAR, f"median {version.median:.3f}s")
    return bar("rcs --help < 0.15 s", rcs_t.median < BAR, f"median {rcs_t.median:.3f}s") and version_ok


if __name__ == "__main__":
    main_wrapper(bench)
