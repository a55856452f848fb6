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
               false positives <= 1%.
  (3) scan     throughput, in a fresh process: every automaton is compiled first (a start-up
               cost, printed apart), then the benign texts of every corpus present, joined
               and cut into 4 KB pieces, are each scanned once (first read: RE2 builds its automata's
               states as new text asks for them, as in `rcs research run` reading new pages; bar
               >= 20 MB/s), then all again (second read: the states are there), beside the
               original keyword list over the same pieces; then the same, in another fresh
               process, over Python's own documentation (ordinary technical prose, no bar).
Exit 0; 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rcs_contracts.runtime.research import ResearchRequest, run_research  # noqa: E402
from rcs_contracts.runtime.research.adapter import make_tools  # noqa: E402
from rcs_contracts.runtime.research.injection import prepare, scan_injection  # noqa: E402

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


def _tokens_sentence(rng: random.Random) -> str:
    return " ".join(rng.choices(_TOKENS, _TOKEN_WEIGHTS, k=rng.randint(8, 20))).capitalize() + "."


_TOKENS = [f"w{n:05d}" for n in range(20_000)]
_TOKEN_WEIGHTS = [1 / (n + 1) ** 1.1 for n in range(len(_TOKENS))]


@functools.cache
def _english() -> dict[str, list[str]]:
    """Which word follows which in Python's own documentation (pydoc_data, in every CPython)."""
    from pydoc_data.topics import topics

    words = " ".join(topics[key] for key in sorted(topics)).split()
    chain: dict[str, list[str]] = {}
    for word, after in itertools.pairwise(words):
        chain.setdefault(word, []).append(after)
    return chain


def _english_sentence(rng: random.Random, chain: dict[str, list[str]], starts: list[str]) -> str:
    # A walk on the chain: English word pairs in orders no page holds, so every piece is new text.
    word, words = rng.choice(starts), list[str]()
    while len(words) < 40:
        words.append(word)
        if word.endswith((".", "?", "!")) and len(words) >= 6:
            break
        word = rng.choice(chain.get(word) or starts)
    return " ".join(words)


def _english_paragraph(rng: random.Random, chain: dict[str, list[str]], starts: list[str]) -> str:
    # About one paragraph in 100 reads as an order to decode and execute something; it is walked
    # again, so that every session runs its five calls (the filter's false positives are measured
    # on the corpora, and on Python's documentation itself it blocks nothing).
    while True:
        paragraph = " ".join(_english_sentence(rng, chain, starts) for _ in range(5))
        if not scan_injection(paragraph).blocked:
            return paragraph


def collection(folder: Path, mib: float, seed: int, kind: str = "tokens") -> int:
    """Write the seeded docs collection (``tokens``: Zipf-weighted made-up words; ``english``:
    sentences walked on Python's documentation); returns its size in bytes."""
    rng = random.Random(seed)
    chain = _english() if kind == "english" else {}
    starts = sorted(word for word in chain if word[:1].isupper())
    target = int(mib * 1024 * 1024)
    per_file = target // 200
    written = 0
    for index in range(200):
        paragraphs, size = [], 0
        while size < per_file:
            if chain:
                paragraph = _english_paragraph(rng, chain, starts)
            else:
                paragraph = " ".join(_tokens_sentence(rng) for _ in range(5))
            paragraphs.append(paragraph)
            size += len(paragraph) + 2
        text = "\n\n".join(paragraphs)
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


def _queries(kind: str, sessions: int) -> list[str]:
    rng = random.Random(11)
    if kind == "tokens":
        pairs = [(f"w{rng.randint(0, 3000):05d}", f"w{rng.randint(0, 300):05d}") for _ in range(5 * sessions)]
    else:  # two words of the documentation, neither among its commonest
        chain = _english()
        common = sorted(chain, key=lambda w: -len(chain[w]))
        words = [w.strip('.,:;"()').lower() for w in common[100:3000]]
        words = sorted({w for w in words if w.isalpha() and len(w) > 3})
        pairs = [(rng.choice(words), rng.choice(words)) for _ in range(5 * sessions)]
    clauses = [f"{a} {b}" for a, b in pairs]
    return ["; ".join(clauses[i : i + 5]) for i in range(0, len(clauses), 5)]


def bench_session(mib: float, sessions: int, kind: str) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        # Written by a child process: the scan of every English sentence there would otherwise
        # leave this process's automata knowing the collection's text before any session reads it.
        command = [sys.executable, str(Path(__file__).resolve()), "--write-collection", folder, str(mib), kind]
        size = int(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
        start = time.perf_counter()
        (docs,) = make_tools(docs=folder)
        what = "made-up words" if kind == "tokens" else "English walked on Python's documentation"
        elapsed = time.perf_counter() - start
        print(f"(1) session, {what}: {size / 1e6:.1f} MB in 200 files, indexed in {elapsed:.1f} s")
        queries = _queries(kind, sessions)
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


def bench_filter() -> bool:
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
    return ok


def _benign_pieces() -> list[str]:
    texts = []
    for name in CORPORA:
        path = ROOT / "tests" / "research" / name
        if path.exists():
            entries = yaml.safe_load(path.read_text(encoding="utf-8"))["entries"]
            texts += [e["text"] for e in entries if e["label"] == "benign"]
    return _cut("\n".join(texts))


def _cut(prose: str) -> list[str]:
    return [prose[i : i + 4096] for i in range(0, len(prose), 4096)]


def _documentation_pieces() -> list[str]:
    # Ordinary technical English that no rule was written for: Python's own documentation.
    from pydoc_data.topics import topics

    return _cut("\n".join(topics[key] for key in sorted(topics)))


def throughput(text: str = "corpus") -> dict[str, float]:
    """MB/s of rcs over 4 KB pieces (``corpus``: the corpora's benign texts; ``documentation``:
    Python's documentation) read for the first time, then again, and of the keyword list."""
    pieces = _benign_pieces() if text == "corpus" else _documentation_pieces()
    size = sum(len(p.encode()) for p in pieces) / 1e6
    start = time.perf_counter()
    prepare()  # compiling is a start-up cost, timed apart: the rates are of reading text
    rates = {"compile_ms": (time.perf_counter() - start) * 1000}
    for read in ("first", "second"):
        start = time.perf_counter()
        for piece in pieces:
            scan_injection(piece)
        rates[read] = size / (time.perf_counter() - start)
    start = time.perf_counter()
    for piece in pieces:
        any(k in piece.lower() for k in ORIGINAL_KEYWORDS)
    rates["keywords"] = size / (time.perf_counter() - start)
    rates["mb"] = size
    return rates


def _rates_in_a_child(text: str) -> dict[str, float]:
    # A child process each: this one has scanned the corpora above, so its automata know the text.
    command = [sys.executable, str(Path(__file__).resolve()), "--throughput-only", text]
    rates: dict[str, float] = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    return rates


def bench_throughput() -> bool:
    rates = _rates_in_a_child("corpus")
    met = bool(rates["first"] >= THROUGHPUT_BAR)
    print(f"(3) scan throughput, fresh process, {rates['mb']:.2f} MB of benign prose in 4 KB pieces:")
    print(f"    compiling every automaton first (start-up, once a process): {rates['compile_ms']:.0f} ms")
    verdict = "met" if met else "MISSED"
    print(f"    first read   rcs {rates['first']:6.2f} MB/s (bar >= {THROUGHPUT_BAR:.0f}: {verdict})")
    print(f"    second read  rcs {rates['second']:6.2f} MB/s (the automata's states already built)")
    print(
        f"    original keyword list {rates['keywords']:.1f} MB/s: rcs takes {rates['keywords'] / rates['first']:.0f}x "
        f"its time on the first read, {rates['keywords'] / rates['second']:.1f}x on the second"
    )
    plain = _rates_in_a_child("documentation")
    print(f"    ordinary technical prose ({plain['mb']:.2f} MB of Python's documentation, another fresh process):")
    print(f"    first read   rcs {plain['first']:6.2f} MB/s, second {plain['second']:.2f} MB/s (not the bar's text)")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="1 MiB collection, 20 sessions")
    parser.add_argument("--mib", type=float, default=None, help="collection size in MiB (default 5)")
    parser.add_argument("--sessions", type=int, default=None, help="timed sessions (default 100)")
    texts = ("corpus", "documentation")
    parser.add_argument("--throughput-only", nargs="?", const="corpus", choices=texts, help=argparse.SUPPRESS)
    parser.add_argument("--write-collection", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.write_collection:
        folder, size, kind = args.write_collection
        print(collection(Path(folder), float(size), 7, kind))
        return 0
    if args.throughput_only:
        print(json.dumps(throughput(args.throughput_only)))
        return 0
    mib = args.mib if args.mib is not None else (1.0 if args.quick else 5.0)
    sessions = args.sessions if args.sessions is not None else (20 if args.quick else 100)
    session_ok = all([bench_session(mib, sessions, kind) for kind in ("tokens", "english")])
    filter_ok = bench_filter()
    throughput_ok = bench_throughput()
    return 0 if session_ok and filter_ok and throughput_ok else 1


if __name__ == "__main__":
    sys.exit(main())
