"""Benchmark Phase 18 research: a whole session, the adapter's overhead, and the injection filter.

    .venv/bin/python bench/research.py [--quick] [--mib M] [--sessions N]

Everything runs in this process, timed with time.perf_counter.

  (1) session  a seeded 5 MiB docs collection (--mib) of 200 files of sentences over a 20,000-word
               Zipf vocabulary is indexed once (the `docs` tool is made before a session, as a
               search service would be), then `run_research` answers a five-clause request (five
               `docs` calls, the PRO cap) N times: the median session time, request to response,
               bar < 50 ms. The tool is wrapped to time its own `search`; the adapter's overhead per
               call is (session time - time inside search) / calls: bar < 1 ms.
  (2) filter   the labelled corpora of tests/research (the tuning corpus, and the held-out one when
               present): recall per injection category and false positives per benign category,
               for rcs `scan_injection` and two reference rule sets written here only: the original
               implementation's keyword list matched as case-insensitive substrings (no word
               boundaries), and a plain `ignore ... instructions` regex. Bars (rcs): recall >= 95%,
               false positives <= 1%. Then the scan throughput over 5 MB of benign prose in 4 KB
               pieces: bar >= 20 MB/s.
Exit 0; 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runtime.research import ResearchRequest, run_research  # noqa: E402
from runtime.research.adapter import make_tools  # noqa: E402
from runtime.research.injection import scan_injection  # noqa: E402

SESSION_BAR_MS = 50.0
OVERHEAD_BAR_MS = 1.0
RECALL_BAR = 0.95
FALSE_POSITIVE_BAR = 0.01
THROUGHPUT_BAR = 20.0  # MB/s
# The original implementation's list, as it matched: lower-cased substrings, no word boundaries.
ORIGINAL_KEYWORDS = (
    "ignore previous",
    "ignore all",
    "disregard",
    "system prompt",
    "you must",
    "token",
    "shell",
    "provide your",
    "act as",
    "override",
    "jailbreak",
    "instructions",
)
PLAIN = re.compile(r"ignore .*instructions", re.IGNORECASE)
# Tuning corpora (the rules were written against them), then held-out ones (written blind by
# another author; no rule was tuned on them; holdout2's false-positive texts were seen once).
CORPORA = (
    "injection_corpus.yaml",
    "injection_corpus2.yaml",
    "injection_corpus3.yaml",
    "injection_holdout2.yaml",
    "injection_holdout3.yaml",
    "injection_holdout4.yaml",
)


def collection(folder: Path, mib: float, seed: int) -> int:
    """Write the seeded docs collection; returns its size in bytes."""
    rng = random.Random(seed)
    vocabulary = [f"w{n:05d}" for n in range(20_000)]
    weights = [1 / (n + 1) ** 1.1 for n in range(len(vocabulary))]
    target = int(mib * 1024 * 1024)
    per_file = target // 200
    written = 0
    for index in range(200):
        sentences, size = [], 0
        while size < per_file:
            words = rng.choices(vocabulary, weights, k=rng.randint(8, 20))
            sentence = " ".join(words).capitalize() + "."
            sentences.append(sentence)
            size += len(sentence) + 1
        text = "\n\n".join(" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5))
        (folder / f"doc{index:03d}.txt").write_text(text)
        written += len(text.encode())
    return written


class Timed:
    """Wraps a tool and adds up the time spent inside its ``search``."""

    def __init__(self, tool: Any) -> None:
        self.tool, self.name, self.inside = tool, tool.name, 0.0

    def search(self, query: str, limit: int) -> Any:
        start = time.perf_counter()
        try:
            return self.tool.search(query, limit)
        finally:
            self.inside += time.perf_counter() - start


def bench_session(mib: float, sessions: int) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        size = collection(Path(folder), mib, 7)
        start = time.perf_counter()
        (docs,) = make_tools(docs=folder)
        print(f"(1) session: {size / 1e6:.1f} MB in 200 files, indexed in {time.perf_counter() - start:.1f} s")
        rng = random.Random(11)
        queries = [
            "; ".join(f"w{rng.randint(0, 3000):05d} w{rng.randint(0, 300):05d}" for _ in range(5))
            for _ in range(sessions)
        ]
        totals, overheads = [], []
        for query in queries[:3] + queries:  # three untimed warm-ups
            request = ResearchRequest.model_validate(
                {"query": query, "requested_mode": "research", "tier": "PRO", "env": "prod", "already_clarified": False}
            )
            tool = Timed(docs)
            begin = time.perf_counter()
            result = run_research(request, [tool])
            elapsed = time.perf_counter() - begin
            calls = len(result.telemetry.calls)
            assert result.telemetry.stop_reason == "SUCCESS_COMPLETED" and calls == 5, result.telemetry
            totals.append(elapsed)
            overheads.append((elapsed - tool.inside) / calls)
        totals, overheads = totals[3:], overheads[3:]
        median_ms = statistics.median(totals) * 1000
        overhead_ms = statistics.median(overheads) * 1000
        p95 = sorted(totals)[int(0.95 * len(totals))] * 1000
        summary = f"median {median_ms:.1f} ms, p95 {p95:.1f} ms ({sessions} runs)"
        print(f"    session: {summary}; bar < {SESSION_BAR_MS:.0f} ms")
        print(f"    adapter overhead per call: median {overhead_ms:.3f} ms, bar < {OVERHEAD_BAR_MS:.0f} ms")
        return median_ms < SESSION_BAR_MS and overhead_ms < OVERHEAD_BAR_MS


def _verdicts(entries: list[dict[str, Any]]) -> dict[str, list[bool]]:
    return {
        "rcs": [scan_injection(e["text"]).blocked for e in entries],
        "original keywords": [any(k in e["text"].lower() for k in ORIGINAL_KEYWORDS) for e in entries],
        "ignore...instructions": [bool(PLAIN.search(e["text"])) for e in entries],
    }


def bench_filter(quick: bool) -> bool:
    ok = True
    for name in CORPORA:
        path = ROOT / "tests" / "research" / name
        if not path.exists():
            print(f"(2) {name}: not present")
            continue
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))["entries"]
        verdicts = _verdicts(entries)
        categories = sorted({(e["label"], e["category"]) for e in entries})
        kind = "held out: no rule was tuned on it" if "holdout" in name else "tuning corpus"
        print(f"(2) filter on {name} ({kind}): {len(entries)} texts")
        print(f"    {'label/category':<32}" + "".join(f"{tool:>24}" for tool in verdicts))
        for label, category in categories:
            picked = [i for i, e in enumerate(entries) if (e["label"], e["category"]) == (label, category)]
            cells = "".join(
                f"{sum(v[i] for i in picked)}/{len(picked)} ({sum(v[i] for i in picked) / len(picked):.0%})".rjust(24)
                for v in verdicts.values()
            )
            print(f"    {label + '/' + category:<32}{cells}")
        for tool, verdict in verdicts.items():
            injections = [v for v, e in zip(verdict, entries, strict=True) if e["label"] == "injection"]
            benign = [v for v, e in zip(verdict, entries, strict=True) if e["label"] == "benign"]
            recall, false = sum(injections) / len(injections), sum(benign) / len(benign)
            bar = ""
            if tool == "rcs":
                met = recall >= RECALL_BAR and false <= FALSE_POSITIVE_BAR
                ok &= met
                verdict_text = "met" if met else "MISSED"
                bar = (
                    f"  (bars: recall >= {RECALL_BAR:.0%}, false positives <= {FALSE_POSITIVE_BAR:.0%}: {verdict_text})"
                )
            print(f"    {tool:<24} recall {recall:6.1%}  false positives {false:6.2%}{bar}")
    entries = yaml.safe_load((ROOT / "tests/research/injection_corpus.yaml").read_text(encoding="utf-8"))["entries"]
    prose = "\n".join(e["text"] for e in entries if e["label"] == "benign")
    pieces = [prose[i : i + 4096] for i in range(0, len(prose), 4096)]
    target = 1_000_000 if quick else 5_000_000
    data = pieces * (target // len(prose.encode()) + 1)
    size = sum(len(p.encode()) for p in data)
    for piece in pieces[:20]:
        scan_injection(piece)  # warm: compiled rules
    start = time.perf_counter()
    for piece in data:
        scan_injection(piece)
    rate = size / 1e6 / (time.perf_counter() - start)
    start = time.perf_counter()
    for piece in data:
        any(k in piece.lower() for k in ORIGINAL_KEYWORDS)
    reference = size / 1e6 / (time.perf_counter() - start)
    met = rate >= THROUGHPUT_BAR
    print(
        f"    throughput: rcs {rate:.1f} MB/s (bar >= {THROUGHPUT_BAR:.0f}: {'met' if met else 'MISSED'}); "
        f"original keyword list {reference:.1f} MB/s; ratio rcs/reference time {reference / rate:.1f}"
    )
    return ok and met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="1 MiB collection, 20 sessions, 1 MB of scanning")
    parser.add_argument("--mib", type=float, default=None, help="collection size in MiB (default 5)")
    parser.add_argument("--sessions", type=int, default=None, help="timed sessions (default 100)")
    args = parser.parse_args(argv)
    mib = args.mib if args.mib is not None else (1.0 if args.quick else 5.0)
    sessions = args.sessions if args.sessions is not None else (20 if args.quick else 100)
    session_ok = bench_session(mib, sessions)
    filter_ok = bench_filter(args.quick)
    return 0 if session_ok and filter_ok else 1


if __name__ == "__main__":
    sys.exit(main())
