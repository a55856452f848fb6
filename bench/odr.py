"""Benchmark the ODR round runner in-process: rounds/second on typical outputs, and 1 MB worst cases.

    .venv/bin/python bench/odr.py [--quick] [--repeat N] [--strict]

Everything runs in this process (`from runtime.odr import ...`), timed with time.perf_counter:

  (1) typical rounds   64 generated architect/auditor pairs of ~1-3 KB each (all required headers,
                       no code-leak words, the REQUIREMENT rewritten by ~40% every round), fed in a
                       cycle to run_round with max_rounds=50 (and once with the default config,
                       max_rounds=8); the state is reset whenever it stops, and every stop must be
                       MAX_ROUNDS. Batches of 2,000 rounds (500 with --quick), 7 batches (3).
  (2) 1 MB adversarial `run_round(ODRState(), text, ok_auditor)` for each of a set of 1 MiB texts
                       built against the default code-leak patterns (unclosed and overlapping ```
                       fences, backtick runs, keyword letters with no word boundary, one ``` then
                       1 MiB with no closing fence, ...), 7 runs each (3) after one warm-up.
                       The table also shows the code-leak check alone (all patterns, both sides)
                       and each pattern's search of the architect text, so a slow input says
                       whether the time goes to a pattern or to the rest of the round (parsing).
  (3) 1 MB parser      parse_architect / parse_auditor on a 1 MiB leak-free, well-formed output
                       (reported, no bar).

Bar: the worst median of (2) over all inputs < 0.2 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, BenchError, bar, check_root, main_wrapper, parser, print_header, repeats, table

sys.path.insert(0, str(ROOT))

from rcs_contracts.runtime.odr import ODRConfig, ODRState, parse_architect, parse_auditor, run_round
from rcs_contracts.runtime.odr.core import code_leaks, compiled_patterns

WORST_BAR = 0.2  # seconds, median run_round on the slowest 1 MiB input
MIB = 1 << 20
N_PAIRS = 64
BIG_MAX_ROUNDS = 50

# --- typical rounds --------------------------------------------------------------------------------
# Words that the default code-leak patterns match as whole words must not appear here: def, class,
# import, fn, let, const, interface, type, npm, pip, cargo, docker, venv, node_modules (and no ```).
# build_pairs() checks every generated output with the real patterns anyway.

SUBJECTS = (
    "the ingestion service",
    "the billing module",
    "each tenant",
    "the audit log",
    "the scheduler",
    "the export job",
    "every operator",
    "the search index",
    "the retry queue",
    "the report builder",
    "the session store",
    "the rate limiter",
    "the evidence store",
    "the notification relay",
    "the archive worker",
    "the policy engine",
    "the metrics collector",
    "the upload gateway",
)
VERBS = (
    "must reject",
    "must record",
    "shall expose",
    "must retain",
    "should batch",
    "must encrypt",
    "shall validate",
    "must deduplicate",
    "should compress",
    "must sign",
    "shall throttle",
    "must reconcile",
    "should summarise",
    "must timestamp",
    "shall forward",
    "must quarantine",
)
OBJECTS = (
    "incoming records",
    "failed deliveries",
    "expired sessions",
    "duplicate events",
    "oversized payloads",
    "manual overrides",
    "stale snapshots",
    "partial uploads",
    "usage totals",
    "access grants",
    "pending invoices",
    "late acknowledgements",
    "orphaned attachments",
    "revoked tokens",
    "audit entries",
    "tenant quotas",
    "malformed headers",
    "queued exports",
)
CONDITIONS = (
    "within five seconds",
    "before the nightly cutoff",
    "for at least ninety days",
    "unless an operator approves it",
    "when the tenant is suspended",
    "after three attempts",
    "during a regional outage",
    "without blocking readers",
    "in the order they arrive",
    "for every region",
    "once per hour",
    "when storage exceeds its quota",
    "before a response is sent",
    "with a stable identifier",
    "using the tenant key",
)
QUESTIONS = (
    "Who approves an override during an outage?",
    "Is the ninety day window per tenant or global?",
    "What happens to queued exports when a tenant is deleted?",
    "Should partial uploads count against the quota?",
    "Which clock is authoritative for timestamps?",
    "Do revoked tokens need a grace period?",
    "How are duplicate events identified across regions?",
    "May the archive worker run during peak hours?",
)
CRITIQUES = (
    "The retention rule conflicts with the deletion rule for suspended tenants.",
    "The throttling limit is not stated per tenant or per region.",
    "Ordering is promised but the retry queue may reorder deliveries.",
    "The requirement does not say what an operator sees after a rejection.",
    "Encryption at rest is required but key rotation is never mentioned.",
    "The cutoff time has no time zone.",
    "Quarantined records have no exit path.",
    "The summary cadence and the alert cadence disagree.",
    "Nothing bounds the size of a single batch.",
)
EDGE_CASES = (
    "A tenant is suspended while an export is running.",
    "Two regions accept the same event at once.",
    "The clock jumps backwards by an hour.",
    "An upload is retried after the quota is exceeded.",
    "An operator approves and then revokes an override.",
    "The audit log is full at the nightly cutoff.",
    "A record arrives with an empty identifier.",
    "A token is revoked between two retries.",
)
TEST_GAPS = (
    "No test covers the suspended tenant path.",
    "Retry ordering is untested across regions.",
    "Quota accounting for partial uploads has no test.",
    "The cutoff boundary is not tested at midnight.",
    "No test checks that rejected payloads are logged.",
    "Key rotation has no end-to-end test.",
)


def sentence(rng: random.Random) -> str:
    text = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(CONDITIONS)}."
    return text[0].upper() + text[1:]


def bullets(rng: random.Random, pool: tuple[str, ...] | None, low: int, high: int) -> str:
    items = [rng.choice(pool) if pool else sentence(rng) for _ in range(rng.randint(low, high))]
    return "\n".join(f"- {item}" for item in items)


def build_pairs(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` (architect, auditor) outputs; the requirement keeps ~60% of its sentences per round."""
    pairs: list[tuple[str, str]] = []
    requirement = [sentence(rng) for _ in range(10)]
    for i in range(count):
        kept = [s for s in requirement if rng.random() < 0.6]
        requirement = kept + [sentence(rng) for _ in range(rng.randint(8, 14) - len(kept))]
        rng.shuffle(requirement)
        paragraphs = [" ".join(requirement[j : j + 4]) for j in range(0, len(requirement), 4)]
        architect = (
            "### REQUIREMENT\n" + "\n\n".join(paragraphs) + "\n\n"
            f"### CHANGELOG\n- Revision {i + 1}: reworded the retention and throttling rules.\n"
            + bullets(rng, None, 2, 4)
            + "\n\n"
            "### ASSUMPTIONS\n" + bullets(rng, None, 2, 4) + "\n\n"
            "### OPEN_QUESTIONS\n" + bullets(rng, QUESTIONS, 2, 4) + "\n"
        )
        auditor = (
            "### CRITIQUE\n" + bullets(rng, CRITIQUES, 3, 6) + "\n\n"
            "### PATCHES\n" + bullets(rng, None, 3, 5) + "\n\n"
            "### EDGE_CASES\n" + bullets(rng, EDGE_CASES, 3, 6) + "\n\n"
            "### TEST_GAPS\n" + bullets(rng, TEST_GAPS, 2, 4) + "\n"
        )
        pairs.append((architect, auditor))
    config = ODRConfig()
    for architect, auditor in pairs:
        leaks = code_leaks(config, architect, auditor)
        if leaks:
            raise BenchError(f"a generated output matches a code-leak pattern: {leaks[0]}")
        if not (parse_architect(architect).ok and parse_auditor(auditor).ok):
            raise BenchError("a generated output does not parse")
    return pairs


def rounds_batch(config: ODRConfig, pairs: list[tuple[str, str]], n_rounds: int) -> tuple[float, int]:
    """Run ``n_rounds`` rounds (resetting at every stop); return (seconds, runs completed)."""
    state = ODRState(config=config)
    runs = 0
    started = time.perf_counter()
    for i in range(n_rounds):
        architect, auditor = pairs[i % len(pairs)]
        state = run_round(state, architect, auditor)
        if state.stop_reason is not None:
            if state.stop_reason != "MAX_ROUNDS":
                raise BenchError(
                    f"a typical run stopped with {state.stop_reason} at round {len(state.trace)}; "
                    "the generated inputs must run to max_rounds"
                )
            runs += 1
            state = ODRState(config=config)
    return time.perf_counter() - started, runs


@dataclass
class Throughput:
    label: str
    per_round: list[float]  # seconds per round, one sample per batch
    runs: int

    @property
    def median(self) -> float:
        return statistics.median(self.per_round)


def measure_rounds(config: ODRConfig, label: str, pairs: list[tuple[str, str]], n_rounds: int, n: int) -> Throughput:
    rounds_batch(config, pairs, min(n_rounds, 200))  # warm-up
    samples, runs = [], 0
    for _ in range(n):
        elapsed, runs = rounds_batch(config, pairs, n_rounds)
        samples.append(elapsed / n_rounds)
    return Throughput(label, samples, runs)


# --- 1 MiB inputs --------------------------------------------------------------------------------

OK_AUDITOR = "### CRITIQUE\n- none\n### PATCHES\n- none\n### EDGE_CASES\n- none\n### TEST_GAPS\n- none\n"
KEYWORDS_GLUED = "xdefclassimportfnletconstinterfacetypenpmpipcargodockervenvnode_modules"


def fill(unit: str, size: int = MIB, head: str = "") -> str:
    """``head`` followed by ``unit`` repeated, exactly ``size`` characters in all."""
    body = size - len(head)
    return head + (unit * (body // len(unit) + 1))[:body]


def adversarial_inputs() -> list[tuple[str, str, str]]:
    """(name, what it is, text): 1 MiB (1,048,576 characters, all ASCII) each."""
    return [
        ("fence-lines", "```\\n repeated: many fences (the first two pair up)", fill("```\n")),
        ("fence-overlap", "``````` (7) then ```` repeated: runs >= 3 everywhere", fill("````\n", head="```````")),
        ("bt-runs-1..5", "runs of 1,2,3,4,5 backticks, space separated", fill("` `` ``` ```` ````` ")),
        ("bt-runs-1..2", "runs of 1 and 2 backticks only (no fence)", fill("` `` ")),
        ("keywords-glued", "leak keywords glued into letters, no \\b", fill(KEYWORDS_GLUED)),
        ("alt-bt2-bt1", '"`` `" repeated (forms ```)', fill("`` `")),
        ("alt-bt2-bt1-sp", '"`` ` " repeated (never 3 in a row)', fill("`` ` ")),
        ("open-letters", "``` then 1 MiB of 'a', no closing fence", fill("a", head="```")),
        ("open-bt2-sp", '``` then "`` " repeated, no closing fence', fill("`` ", head="```")),
        ("open-bt-a", '``` then "`a" repeated, no closing fence', fill("`a", head="```")),
        ("open-bt-nl", '``` then "`\\n" repeated, no closing fence', fill("`\n", head="```")),
        ("open-nl", "``` then 1 MiB of newlines, no closing fence", fill("\n", head="```")),
        ("newlines", "1 MiB of \\n", fill("\n")),
        ("carriage-returns", "1 MiB of \\r (normalised to \\n)", fill("\r")),
        ("header-spaces", "'### x' then 1 MiB of spaces then 'y' on one line", fill(" ", head="### x")[:-1] + "y"),
        ("header-lines", "'### REQUIREMENT ' repeated on every line", fill("### REQUIREMENT \n")),
    ]


def median_time(fn: Callable[[], object], n: int) -> tuple[float, float, float]:
    """(median, min, max) seconds of ``n`` calls after one warm-up."""
    fn()
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), min(samples), max(samples)


@dataclass
class Adversarial:
    name: str
    stop: str
    round_median: float
    round_low: float
    round_high: float
    leak: float  # code_leaks(config, text, OK_AUDITOR): every pattern on both sides
    patterns: list[float]  # each pattern's search of the text alone
    matched: list[bool]


def measure_adversarial(name: str, text: str, n: int) -> Adversarial:
    config = ODRConfig()
    if len(text) != MIB:
        raise BenchError(f"input {name} is {len(text)} characters, not {MIB}")
    state = run_round(ODRState(), text, OK_AUDITOR)
    stop = state.stop_reason or "-"
    med, low, high = median_time(lambda: run_round(ODRState(), text, OK_AUDITOR), n)
    leak, _, _ = median_time(lambda: code_leaks(config, text, OK_AUDITOR), n)
    patterns, matched = [], []
    for pattern in compiled_patterns(tuple(config.code_leak_patterns)):
        patterns.append(median_time(lambda p=pattern: p.search(text), n)[0])  # type: ignore[misc]
        matched.append(pattern.search(text) is not None)
    return Adversarial(name, stop, med, low, high, leak, patterns, matched)


def big_architect() -> str:
    """A well-formed, leak-free architect output of exactly 1 MiB: long REQUIREMENT, long lists."""
    rng = random.Random(7)

    def lines(prefix: str, per_line: int, budget: int) -> str:
        out, size = [], 0
        while size < budget:
            line = prefix + " ".join(sentence(rng) for _ in range(per_line))
            out.append(line)
            size += len(line) + 1
        return "\n".join(out)

    text = (
        "### REQUIREMENT\n" + lines("", 4, MIB // 2) + "\n"
        "### CHANGELOG\n" + lines("- ", 1, MIB // 6) + "\n"
        "### ASSUMPTIONS\n" + lines("- ", 1, MIB // 6) + "\n"
        "### OPEN_QUESTIONS\n" + lines("- ", 1, MIB // 6)
    )
    if len(text) < MIB:
        text += "\n- " + "x" * (MIB - len(text) - 3)
    return text[:MIB]


# --- report ---------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def bench() -> bool:
    args: argparse.Namespace = parser(__doc__.splitlines()[0]).parse_args()
    check_root()
    n_batches = repeats(args, full=7, quick=3)
    n_big = repeats(args, full=7, quick=3)
    batch_rounds = 500 if args.quick else 2000

    # (1) typical rounds
    pairs = build_pairs(random.Random(2026), N_PAIRS)
    sizes = sorted(len(a) for a, _ in pairs), sorted(len(b) for _, b in pairs)
    throughputs = [
        measure_rounds(
            ODRConfig(max_rounds=BIG_MAX_ROUNDS), f"max_rounds={BIG_MAX_ROUNDS}", pairs, batch_rounds, n_batches
        ),
        measure_rounds(ODRConfig(), "default config (max_rounds=8)", pairs, batch_rounds, n_batches),
    ]

    # (2) 1 MiB adversarial inputs
    inputs = adversarial_inputs()
    results = [measure_adversarial(name, text, n_big) for name, _, text in inputs]

    # (3) the parsers alone on 1 MiB without leaks
    big = big_architect()
    big_auditor = big
    for old, new in (
        ("REQUIREMENT", "CRITIQUE"),
        ("CHANGELOG", "PATCHES"),
        ("ASSUMPTIONS", "EDGE_CASES"),
        ("OPEN_QUESTIONS", "TEST_GAPS"),
    ):
        big_auditor = big_auditor.replace(f"### {old}\n", f"### {new}\n", 1)
    config = ODRConfig()
    if code_leaks(config, big, big_auditor) or not parse_architect(big).ok or not parse_auditor(big_auditor).ok:
        raise BenchError("the 1 MiB well-formed outputs must parse and be free of code leaks")
    parser_rows = [
        ("parse_architect (1 MiB, well-formed)", median_time(lambda: parse_architect(big), n_big)),
        ("parse_auditor (1 MiB, well-formed)", median_time(lambda: parse_auditor(big_auditor), n_big)),
        ("code-leak check (both 1 MiB)", median_time(lambda: code_leaks(config, big, big_auditor), n_big)),
        ("run_round (both 1 MiB, well-formed)", median_time(lambda: run_round(ODRState(), big, big_auditor), n_big)),
    ]

    print_header(f"ODR round runner benchmark ({'quick' if args.quick else 'full'}; in-process, time.perf_counter)")
    print(
        f"(1) typical rounds: {N_PAIRS} generated pairs (architect {sizes[0][0]}-{sizes[0][-1]} B, "
        f"auditor {sizes[1][0]}-{sizes[1][-1]} B) in a cycle;"
    )
    print(f"    batches of {batch_rounds} rounds, the state reset at every stop (all stops MAX_ROUNDS)")
    print(
        table(
            ["config", "rounds/s", "µs/round", "min µs", "max µs", "batches", "runs/batch"],
            [
                [
                    t.label,
                    f"{1 / t.median:,.0f}",
                    f"{t.median * 1e6:.0f}",
                    f"{min(t.per_round) * 1e6:.0f}",
                    f"{max(t.per_round) * 1e6:.0f}",
                    str(len(t.per_round)),
                    str(t.runs),
                ]
                for t in throughputs
            ],
        )
    )
    print()
    print(f"(2) run_round(ODRState(), text, ok_auditor) on 1 MiB inputs, {n_big} runs each after a warm-up;")
    print("    leak = code-leak check alone (3 patterns x 2 sides); p1 p2 p3 = each pattern on the text alone,")
    print("    '*' = it matched; rest = run_round - leak (normalisation, parsing, trace record)")
    names = ["p1", "p2", "p3"]
    print(
        table(
            ["input", "stop", "run_round", "min", "max", "leak", *names, "rest"],
            [
                [
                    r.name,
                    r.stop,
                    ms(r.round_median),
                    ms(r.round_low),
                    ms(r.round_high),
                    ms(r.leak),
                    *(ms(p) + ("*" if m else " ") for p, m in zip(r.patterns, r.matched, strict=True)),
                    ms(max(r.round_median - r.leak, 0.0)),
                ]
                for r in results
            ],
        )
    )
    for i, pattern in enumerate(config.code_leak_patterns, start=1):
        print(f"    p{i} = {pattern}")
    print("    inputs (1,048,576 ASCII characters each):")
    print("\n".join(f"      {name:<17} {what}" for name, what, _ in inputs))
    print()
    print("(3) the parsers alone on a 1 MiB leak-free, well-formed output (no bar)")
    print(
        table(
            ["measurement", "median", "min", "max", "runs"],
            [[label, ms(m), ms(lo), ms(hi), str(n_big)] for label, (m, lo, hi) in parser_rows],
        )
    )
    print()

    worst = max(results, key=lambda r: r.round_median)
    worst_leak = max(results, key=lambda r: r.leak)
    print(f"worst code-leak check alone: {ms(worst_leak.leak)} on {worst_leak.name}")
    print()
    print("bars:")
    detail = (
        f"worst median {worst.round_median:.3f}s on {worst.name} "
        f"(code-leak check {worst.leak:.3f}s of it, rest {max(worst.round_median - worst.leak, 0):.3f}s)"
    )
    return bar("run_round on 1 MiB adversarial input < 0.2 s", worst.round_median < WORST_BAR, detail)


if __name__ == "__main__":
    main_wrapper(bench)
