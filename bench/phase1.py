"""Benchmark phase 1 BM25 (ingest and retrieve) against rank_bm25 and bm25s, with a parity check vs bm25s.

    .venv/bin/python bench/phase1.py [--quick] [--repeat N] [--strict] [--queries N] [--seed S] [--mib M] [--profile]

Everything runs in this process (`from runtime.phase1 import ingest_document, retrieve`), timed with
time.perf_counter. Needs `rank-bm25` and `bm25s` in the venv (pip install rank-bm25 bm25s).

  paper     a seeded synthetic paper of >= 5 MiB of ASCII text (--mib): 20 sections of blank-line
            separated paragraphs of sentences, words drawn from 50,000 pseudo-words with Zipf
            frequencies (exponent 1.1; frequent words are short, rare ones long).
  (1) ingest  rcs `ingest_document` (normalise, chunk, hash ids, pydantic chunks, tokenise, index) and
            rcs `Index.build` alone, vs building `bm25s.BM25` (method="lucene", k1=1.2, b=0.75;
            float64 for parity, and the default float32) and `rank_bm25.BM25Okapi` (k1=1.2, b=0.75)
            on the SAME token lists: `runtime.phase1.text.tokens` of every rcs chunk (the time to
            make those lists is shown on its own row). 5 timed runs (2 with --quick) after a warm-up.
  (2) queries 1,000 seeded queries of 1-6 words (each word from the Zipf distribution or uniformly
            from the whole vocabulary, so frequent, rare and unseen words mix). Per-query latency of
            rcs `retrieve(q, paper, 10)` (query string; it tokenises it itself) vs bm25s
            `retrieve([tokens], k=10)` and `get_scores(tokens)` + top-10 by `np.argpartition(-s, 10)`
            (bm25s's fastest correct selection; see bm25s_top), vs rank_bm25
            `get_top_n(tokens, ids, 10)`, plus two rows that split rcs (tokens + Index.top, and
            Index.scores alone). 3 timed passes (--quick: 1 pass over the first 200 queries); in each
            pass every tool runs over all timed queries in a block of its own, preceded by an untimed
            warm-up on the first 20 queries and a gc.collect(), with the order of the blocks rotated
            from pass to pass. Objects alive before the timing (paper, indexes, queries) are frozen
            out of the collector (gc.freeze), so a collection that a tool's own allocations trigger
            costs the same whoever triggers it; gc stays enabled. A query's latency is its median
            over passes. Reports the median and p95 over queries, the ratios (always rcs / the
            other tool), the medians per term-frequency band (rare / mixed / frequent words, see
            FREQUENT_SHARE) with a ratio and a bar per band, and the medians by how many postings a
            query walks.
            Why blocks: an earlier version let the tools take turns query by query, in a fixed order.
            That measured each tool's cache state left by its neighbours, not the tool: bm25s's
            get_scores row ran right after bm25s's retrieve on the same query and its postings
            (~25% faster than alone), rcs retrieve ran first of the rcs rows and shortly after
            rank_bm25's 30 ms pure-Python pass over every document had evicted the caches (rcs took
            0.41 ms interleaved against 0.23-0.29 ms alone). Blocks give every tool the same
            conditions: its own data, warm, the same queries in the same order.
            Also shown, with no bar: the same tools taking turns query by query in an order shuffled
            (seeded) for every query, over at most the first 300 timed queries. There every tool
            often runs just after another tool's work (rank_bm25's above all) has evicted its data
            and code from the caches: a cold-cache view, which costs rcs more than bm25s.
            Note: bm25s's own retrieve picks its top 10 with np.argpartition(s, -k) over every chunk,
            which numpy makes slow (~0.5 ms here) when most scores are equal zeros, i.e. for queries
            of rare terms only; the get_scores row selects from the other end, which is fast there,
            and each band's bar is against the faster of the two.
  (3) parity  for every query (all of them, also with --quick), bm25s (float64) scores of all chunks:
            (a) every rcs hit's score equals (k1 + 1) x bm25s's score of that chunk to 1e-9 relative,
            or to within half of rcs's score quantum (2**-32) per query token (R-P1-4)
            (bm25s's "lucene" tf part omits the constant factor k1 + 1 = 2.2, as Lucene does; the
            ranking is unchanged); (b) rcs's top-10 set equals bm25s's top-10 of the chunks scoring
            > 0, except that chunks tied (within 1e-9) with the 10th score may be swapped; (c) rcs's
            `scored_chunks` equals the number of chunks bm25s scores > 0; (d) the bm25s baseline's
            `np.argpartition(-s, 10)` picks the 10 best scores (the same multiset as a full sort).
  profile   with --profile, or whenever rcs's median is slower than bm25s's: cProfile of rcs
            `retrieve` over the timed queries, split by part (Index.top, pydantic validation, tokens)
            with the top functions by own time.

Bars: parity violations == 0; rcs median query latency <= bm25s median query latency (the faster
of bm25s's two float64 paths), overall and in each term-frequency band.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import itertools
import math
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    ROOT,
    BenchError,
    Timing,
    bar,
    check_root,
    main_wrapper,
    parser,
    print_header,
    repeats,
    table,
    timing_table,
)

sys.path.insert(0, str(ROOT))

try:
    import bm25s
    import numpy as np
    import rank_bm25
    from bm25s import scoring as bm25s_scoring
except ImportError as exc:  # the comparison tools are not project dependencies
    print(
        f"phase1.py: error: {exc.name} is not installed; run `{sys.executable} -m pip install rank-bm25 bm25s`",
        file=sys.stderr,
    )
    sys.exit(2)

from rcs_contracts.generated.phase1.config import BM25_B, BM25_K1, SCORE_BITS
from rcs_contracts.runtime.phase1 import IngestedPaper, ingest_document, retrieve
from rcs_contracts.runtime.phase1.index import Index
from rcs_contracts.runtime.phase1.text import tokens

MIB = 1 << 20
VOCAB_SIZE = 50_000
ZIPF_EXPONENT = 1.1
N_SECTIONS = 20
TOP_K = 10
REL_TOL = 1e-9
# A query word is "frequent" when it is in at least this share of the chunks (rare otherwise, unseen
# words too); a query is in the rare band when all its words are rare, frequent when all are frequent,
# and mixed otherwise.
FREQUENT_SHARE = 0.01
BANDS = ("rare", "mixed", "frequent")
PAPER_ID = "bench-phase1"
T = TypeVar("T")
QUICK_TIMED_QUERIES = 200  # --quick checks parity on every query but times only the first 200
SHUFFLED_QUERIES = 300  # the turn-taking measurement (no bar) times at most this many queries
WARMUP_QUERIES = 20

CONSONANTS = "bcdfghjklmnprstvz"
VOWELS = "aeiou"
TITLES = (
    "Abstract",
    "Introduction",
    "Background",
    "Related Work",
    "Problem Statement",
    "Data",
    "Method",
    "Model",
    "Training",
    "Evaluation Setup",
    "Results",
    "Ablations",
    "Error Analysis",
    "Efficiency",
    "Robustness",
    "Limitations",
    "Ethics",
    "Discussion",
    "Conclusion",
    "Appendix",
)

# --- the synthetic paper -------------------------------------------------------------------------


def pseudo_words(n: int) -> list[str]:
    """``n`` distinct pronounceable words; word r (0-based Zipf rank) is shorter the more frequent it is."""
    syllables = [c + v for c in CONSONANTS for v in VOWELS]
    rng = random.Random(0)
    rng.shuffle(syllables)  # so that rank order is not alphabetical
    words: list[str] = []
    for length in itertools.count(1):
        for combo in itertools.product(syllables, repeat=length):
            words.append("".join(combo))
            if len(words) == n:
                return words
    raise AssertionError("unreachable")


@dataclass
class Vocabulary:
    words: list[str]
    cum_weights: list[float]

    @classmethod
    def zipf(cls, size: int, exponent: float) -> Vocabulary:
        weights = (1.0 / rank**exponent for rank in range(1, size + 1))
        return cls(pseudo_words(size), list(itertools.accumulate(weights)))

    def draw(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum_weights, k=k)


def sentence(rng: random.Random, vocab: Vocabulary) -> str:
    words = vocab.draw(rng, rng.randint(4, 24))
    for i in range(len(words) - 1):
        if rng.random() < 0.07:
            words[i] += ","
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice("....?!")


def build_paper(rng: random.Random, vocab: Vocabulary, target_chars: int) -> list[tuple[str, str]]:
    """``N_SECTIONS`` (label, text) pairs, together at least ``target_chars`` characters."""
    per_section = -(-target_chars // N_SECTIONS)
    sections: list[tuple[str, str]] = []
    for s, title in enumerate(TITLES[:N_SECTIONS]):
        paragraphs: list[str] = []
        size = 0
        while size < per_section:
            # 1-14 sentences: most paragraphs fit in one 800-character chunk, the long ones are split.
            paragraph = " ".join(sentence(rng, vocab) for _ in range(rng.randint(1, 14)))
            paragraphs.append(paragraph)
            size += len(paragraph) + 2
        sections.append((f"{s + 1}. {title}", "\n\n".join(paragraphs)))
    return sections


def build_queries(rng: random.Random, vocab: Vocabulary, n: int) -> list[str]:
    """1-6 words each; a word is Zipf-drawn (frequent) or uniform over the vocabulary (rare) at even odds."""
    queries = []
    for _ in range(n):
        words = [
            vocab.draw(rng, 1)[0] if rng.random() < 0.5 else rng.choice(vocab.words) for _ in range(rng.randint(1, 6))
        ]
        if rng.random() < 0.3:
            words[0] = words[0].capitalize()
        queries.append(" ".join(words))
    return queries


# --- the tools -----------------------------------------------------------------------------------


def make_bm25s(chunk_tokens: list[list[str]], dtype: str) -> Any:
    retriever = bm25s.BM25(method="lucene", k1=BM25_K1, b=BM25_B, dtype=dtype)
    retriever.index(chunk_tokens, show_progress=False)
    return retriever


def make_rank_bm25(chunk_tokens: list[list[str]]) -> Any:
    return rank_bm25.BM25Okapi(chunk_tokens, k1=BM25_K1, b=BM25_B)


def check_bm25s_formula(retriever: Any) -> str:
    """Confirm bm25s's lucene idf is rcs's and its tf part is rcs's divided by (k1 + 1); a one-line summary."""
    if (retriever.method, retriever.idf_method, retriever.k1, retriever.b) != ("lucene", "lucene", BM25_K1, BM25_B):
        raise BenchError(
            f"bm25s is configured as {retriever.method}/{retriever.idf_method} k1={retriever.k1} b={retriever.b}"
        )
    cases = 0
    for n, df in ((1, 1), (10, 1), (10, 5), (10, 10), (9_999, 1), (9_999, 5_000), (9_999, 9_999)):
        ours = math.log(1 + (n - df + 0.5) / (df + 0.5))
        if bm25s_scoring._select_idf_scorer("lucene")(df, N=n) != ours:
            raise BenchError(f"bm25s lucene idf differs from ln(1 + (N - df + 0.5)/(df + 0.5)) at N={n}, df={df}")
        for tf, dl, avg in ((1, 10, 12.5), (3, 80, 64.0), (17, 200, 90.25)):
            norm = tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avg)
            rcs_part = tf * (BM25_K1 + 1) / norm
            theirs = bm25s_scoring._select_tfc_scorer("lucene")(tf, l_d=dl, l_avg=avg, k1=BM25_K1, b=BM25_B)
            if not math.isclose(rcs_part, (BM25_K1 + 1) * theirs, rel_tol=1e-15):
                raise BenchError(f"bm25s lucene tf part is not rcs's / (k1 + 1) at tf={tf}, dl={dl}, avg={avg}")
            cases += 1
    return (
        f"bm25s lucene idf == ln(1 + (N - df + 0.5)/(df + 0.5)) exactly, and its tf part "
        f"tf/(tf + k1(1-b+b*dl/avgdl)) == rcs's tf(k1+1)/(...) / {BM25_K1 + 1:g} ({cases} cases checked)"
    )


# --- parity ----------------------------------------------------------------------------------------


@dataclass
class Parity:
    checked: int = 0
    score_mismatches: int = 0  # (a)
    set_mismatches: int = 0  # (b)
    scored_mismatches: int = 0  # (c)
    selection_mismatches: int = 0  # (d)
    boundary_ties: int = 0  # queries where a tie at the 10th score made the top-10 ambiguous
    no_hits: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def violations(self) -> int:
        return self.score_mismatches + self.set_mismatches + self.scored_mismatches + self.selection_mismatches

    def fail(self, kind: str, query: str, detail: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.examples) < 5:
            self.examples.append(f"{kind}: {query!r}: {detail}")


def close(x: float, y: float, n_tokens: int) -> bool:
    """Equal to REL_TOL, beyond rcs's rounding of each token's impact to a quantum (SPEC chapter 8, R-P1-4)."""
    return abs(x - y) <= REL_TOL * max(abs(x), abs(y)) or abs(x - y) <= n_tokens * 2.0 ** -(SCORE_BITS + 1) * 1.01


def check_parity(
    parity: Parity, query: str, hits: list[tuple[int, float]], scored: int, theirs: Any, n_tokens: int, their_top: Any
) -> None:
    """Compare one rcs result (positions, scores) with bm25s's (k1 + 1)-scaled scores of every chunk,
    and bm25s_top's selection with a full sort of those scores."""
    parity.checked += 1
    scale = BM25_K1 + 1
    if sorted(theirs[their_top].tolist(), reverse=True) != sorted(theirs.tolist(), reverse=True)[:TOP_K]:
        parity.fail("selection_mismatches", query, "bm25s_top's 10 are not the 10 best scores")
    for position, score in hits:
        if not close(score, scale * float(theirs[position]), n_tokens):
            parity.fail(
                "score_mismatches",
                query,
                f"chunk {position}: rcs {score!r} vs bm25s x{scale:g} {scale * float(theirs[position])!r}",
            )
            break
    positive = np.flatnonzero(theirs > 0)
    if scored != len(positive):
        parity.fail("scored_mismatches", query, f"rcs scored {scored} chunks, bm25s {len(positive)}")
    if not hits:
        parity.no_hits += 1
    k = min(TOP_K, len(positive))
    if len(hits) != k:
        parity.fail("set_mismatches", query, f"rcs returned {len(hits)} hits, bm25s has {k} chunks scoring > 0")
        return
    if k == 0:
        return
    pos_scores = theirs[positive]
    tenth = float(np.partition(pos_scores, len(pos_scores) - k)[len(pos_scores) - k])
    above = {int(p) for p in positive[pos_scores > tenth * (1 + REL_TOL)]}  # must all be in rcs's top-k
    eligible = {int(p) for p in positive[pos_scores >= tenth * (1 - REL_TOL)]}  # rcs's top-k must be among these
    ours = {p for p, _ in hits}
    if not (above <= ours <= eligible):
        parity.fail("set_mismatches", query, f"missing {sorted(above - ours)[:5]}, extra {sorted(ours - eligible)[:5]}")
    if len(eligible) > k:
        parity.boundary_ties += 1


# --- timing ----------------------------------------------------------------------------------------


def time_runs(fn: Callable[[], T], n: int, label: str) -> tuple[Timing, T]:
    """One untimed warm-up call (its result is returned), then ``n`` timed calls."""
    result = fn()
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return Timing(label, samples), result


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs"


@dataclass
class Latency:
    label: str
    per_query: list[float]  # seconds, median over passes

    @property
    def median(self) -> float:
        return statistics.median(self.per_query)

    @property
    def p95(self) -> float:
        return percentile(self.per_query, 95)


def band(index: Index, query_tokens: list[str]) -> str:
    """The query's term-frequency band (see FREQUENT_SHARE)."""
    floor = FREQUENT_SHARE * len(index.lengths)
    frequent = [index.df(t) >= floor for t in query_tokens]
    return "frequent" if all(frequent) else "rare" if not any(frequent) else "mixed"


def rcs_core(index: Index, paper: IngestedPaper, query: str) -> list[int]:
    """What rcs's retrieve computes without building result models: tokens, the tie-broken top-10."""
    return [position for position, _ in index.top(tokens(query), TOP_K)[0]]


def bm25s_top(retriever: Any, toks: list[str]) -> Any:
    """bm25s's scores of every chunk, then its top 10 by the fastest correct selection.

    ``np.argpartition(-s, k)`` rather than ``np.argpartition(s, -k)``: the same top 10 (checked on every
    query, see parity (d)), but numpy's introselect is several times faster from the low end when
    most scores are equal zeros (rare-term queries: ~0.5 ms against ~0.1 ms on the 5 MiB paper).
    """
    scores = retriever.get_scores(toks)
    top = np.argpartition(-scores, TOP_K)[:TOP_K]
    return top[np.argsort(-scores[top], kind="stable")]


def profile_rcs(queries: list[str], paper: IngestedPaper) -> str:
    """cProfile of rcs retrieve over ``queries``: where the time goes by part, then the top functions."""
    profiler = cProfile.Profile()
    profiler.enable()
    for q in queries:
        retrieve(q, paper, TOP_K)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    raw = stats.stats  # type: ignore[attr-defined]  # (file, line, name) -> (cc, ncalls, tottime, cumtime, callers)
    total = stats.total_tt  # type: ignore[attr-defined]

    def cum(pred: Callable[[str, str], bool]) -> float:
        return float(sum(v[3] for (f, _, name), v in raw.items() if pred(f, name)))

    def own(pred: Callable[[str, str], bool]) -> float:
        return float(sum(v[2] for (f, _, name), v in raw.items() if pred(f, name)))

    parts = [
        ("Index.top (scores, sample, top-k)", cum(lambda f, n: f.endswith("phase1/index.py") and n == "top")),
        ("pydantic (one validation of the result)", own(lambda f, n: "pydantic" in f or "pydantic_core" in n)),
        ("tokens() of the query", cum(lambda f, n: f.endswith("phase1/text.py") and n == "tokens")),
    ]
    parts.append(("rest of retrieve (idf of terms, hit dicts, ...)", max(total - sum(t for _, t in parts), 0.0)))
    lines = [
        f"total {total:.3f}s under the profiler for {len(queries):,} calls "
        f"({total / len(queries) * 1e6:,.0f} µs per call; the profiler inflates Python calls)"
    ]
    lines += table(
        ["part", "seconds", "share"], [[name, f"{t:.3f}", f"{t / total:.0%}"] for name, t in parts]
    ).splitlines()
    stats.sort_stats("tottime").print_stats(10)
    body = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(body) if line.strip().startswith("ncalls")), len(body))
    lines += ["", "top functions by own time:"] + [line for line in body[start:] if line.strip()]
    return "\n".join(("    " + line).rstrip() for line in lines)


# --- report ----------------------------------------------------------------------------------------


def bench() -> bool:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=1000, metavar="N", help="number of queries (default 1000)")
    p.add_argument("--seed", type=int, default=2026, metavar="S", help="seed of the paper and the queries")
    p.add_argument("--mib", type=float, default=5.0, metavar="M", help="paper size in MiB of text (default 5)")
    p.add_argument("--profile", action="store_true", help="cProfile rcs retrieve over all queries afterwards")
    args: argparse.Namespace = p.parse_args()
    check_root()
    if args.queries < 1 or args.mib <= 0:
        raise BenchError("--queries must be >= 1 and --mib > 0")
    n_ingest = repeats(args, full=5, quick=2)
    n_passes = repeats(args, full=3, quick=1)
    n_timed = min(args.queries, QUICK_TIMED_QUERIES) if args.quick else args.queries

    # the paper, the chunks' tokens, the queries
    rng = random.Random(args.seed)
    started = time.perf_counter()
    vocab = Vocabulary.zipf(VOCAB_SIZE, ZIPF_EXPONENT)
    sections = build_paper(rng, vocab, int(args.mib * MIB))
    queries = build_queries(rng, vocab, args.queries)
    build_seconds = time.perf_counter() - started
    text_chars = sum(len(t) for _, t in sections)
    n_paragraphs = sum(t.count("\n\n") + 1 for _, t in sections)

    # (1) ingest
    t_rcs, paper = time_runs(lambda: ingest_document(PAPER_ID, sections), n_ingest, "rcs ingest_document (all of it)")
    chunks = paper.chunks
    t_tok, chunk_tokens = time_runs(
        lambda: [tokens(c.text) for c in chunks], n_ingest, "tokens() of every chunk (input of the rows below)"
    )
    t_index, _ = time_runs(lambda: Index.build(chunk_tokens), n_ingest, "rcs Index.build")
    t_b64, b64 = time_runs(lambda: make_bm25s(chunk_tokens, "float64"), n_ingest, "bm25s BM25.index (float64)")
    t_b32, b32 = time_runs(lambda: make_bm25s(chunk_tokens, "float32"), n_ingest, "bm25s BM25.index (float32)")
    t_okapi, okapi = time_runs(lambda: make_rank_bm25(chunk_tokens), n_ingest, "rank_bm25 BM25Okapi(...)")
    index: Index = paper.index
    if index.lengths != tuple(len(t) for t in chunk_tokens):
        raise BenchError("rcs's index lengths differ from tokens() of its chunks")
    formula = check_bm25s_formula(b64)
    n_chunks = len(chunks)
    n_postings = sum(len(positions) for positions, _ in index.postings.values())

    # (3) parity on every query (an untimed pass)
    position = {c.chunk_id: i for i, c in enumerate(chunks)}
    query_tokens = [tokens(q) for q in queries]
    doc_ids = list(range(n_chunks))
    parity = Parity()
    for q, qt in zip(queries, query_tokens, strict=True):
        result = retrieve(q, paper, TOP_K)
        hits = [(position[h.chunk_id], h.score) for h in result.hits]
        check_parity(parity, q, hits, result.trace.scored_chunks, b64.get_scores(qt), len(qt), bm25s_top(b64, qt))

    # (2) query latency on the first n_timed queries: each tool in a block of its own per pass (see the docstring)
    timed = list(zip(queries, query_tokens, strict=True))[:n_timed]
    touched = [sum(index.df(t) for t in qt) for _, qt in timed]  # postings walked per query
    tools: list[tuple[str, Callable[[str, list[str]], object]]] = [
        ("rcs retrieve(q, paper, 10)", lambda q, qt: retrieve(q, paper, TOP_K)),
        ("bm25s retrieve, float64", lambda q, qt: b64.retrieve([qt], k=TOP_K, show_progress=False)),
        ("bm25s get_scores + top-10, float64", lambda q, qt: bm25s_top(b64, qt)),
        ("bm25s retrieve, float32 (default)", lambda q, qt: b32.retrieve([qt], k=TOP_K, show_progress=False)),
        ("rank_bm25 get_top_n (other idf)", lambda q, qt: okapi.get_top_n(qt, doc_ids, n=TOP_K)),
        ("rcs core: tokens + Index.top", lambda q, qt: rcs_core(index, paper, q)),
        ("rcs Index.scores alone (tokens given)", lambda q, qt: index.scores(qt)),
    ]
    samples: list[list[list[float]]] = [[[] for _ in timed] for _ in tools]
    clock = time.perf_counter
    gc.collect()
    gc.freeze()  # the paper, the indexes and the queries: no collection walks them, whoever triggers it
    try:
        for pass_no in range(n_passes):
            for t in [(pass_no + j) % len(tools) for j in range(len(tools))]:  # rotated: no tool always goes first
                fn = tools[t][1]
                for q, qt in timed[:WARMUP_QUERIES]:
                    fn(q, qt)
                gc.collect()
                for i, (q, qt) in enumerate(timed):
                    started = clock()
                    fn(q, qt)
                    samples[t][i].append(clock() - started)
        # turn-taking in a shuffled order (no bar): each tool follows each other tool equally often
        shuffled = timed[:SHUFFLED_QUERIES]
        turns: list[list[list[float]]] = [[[] for _ in shuffled] for _ in tools]
        order_rng = random.Random(args.seed)
        gc.collect()
        for _ in range(n_passes):
            for i, (q, qt) in enumerate(shuffled):
                order = list(range(len(tools)))
                order_rng.shuffle(order)
                for t in order:
                    started = clock()
                    tools[t][1](q, qt)
                    turns[t][i].append(clock() - started)
    finally:
        gc.unfreeze()
    latencies = [Latency(label, [statistics.median(s) for s in samples[t]]) for t, (label, _) in enumerate(tools)]
    turn_lat = [Latency(label, [statistics.median(s) for s in turns[t]]) for t, (label, _) in enumerate(tools)]
    rcs_lat, bm_retrieve, bm_scores = latencies[0], latencies[1], latencies[2]
    bm_best = min((bm_retrieve, bm_scores), key=lambda lat: lat.median)

    # report
    print_header(f"phase1 BM25 benchmark ({'quick' if args.quick else 'full'}; in-process, time.perf_counter)")
    print(f"rank-bm25 {_version('rank-bm25')}, bm25s {bm25s.__version__}, numpy {np.__version__}")
    print(
        f"paper: seed {args.seed}, {text_chars:,} characters (ASCII) in {N_SECTIONS} sections, "
        f"{n_paragraphs:,} paragraphs -> {n_chunks:,} chunks (max 800 characters),"
    )
    print(
        f"       {sum(index.lengths):,} tokens, {len(index.postings):,} distinct terms of a {VOCAB_SIZE:,}-word "
        f"Zipf({ZIPF_EXPONENT}) vocabulary, {n_postings:,} postings; built in {build_seconds:.1f}s"
    )
    print(f"bm25s: BM25(method='lucene', k1={BM25_K1}, b={BM25_B}); {formula}")
    print()
    print(
        f"(1) ingest: {n_ingest} timed runs each after a warm-up; the bm25s/rank_bm25 rows index the same token lists"
    )
    print(timing_table([t_rcs, t_tok, t_index, t_b64, t_b32, t_okapi]))
    print(
        f"    rcs ingest_document / (tokens + bm25s float64 index): {t_rcs.median / (t_tok.median + t_b64.median):.2f}x"
    )
    print(
        f"    rcs Index.build / bm25s index (float64): {t_index.median / t_b64.median:.2f}x;  "
        f"/ rank_bm25 BM25Okapi: {t_index.median / t_okapi.median:.2f}x"
    )
    print()
    n_tokens = [len(qt) for qt in query_tokens]
    print(
        f"(2) {len(queries):,} queries ({min(n_tokens)}-{max(n_tokens)} tokens, {parity.no_hits} with no hit), "
        f"the first {n_timed:,} timed: {n_passes} pass(es), each tool in a block of its own after a warm-up;"
    )
    print("    a query's latency = its median over passes; the table shows the median and p95 over queries")
    rows = []
    for lat in latencies:
        rows.append(
            [
                lat.label,
                us(lat.median),
                us(lat.p95),
                us(max(lat.per_query)),
                f"{rcs_lat.median / lat.median:.2f}",
                f"{rcs_lat.p95 / lat.p95:.2f}",
            ]
        )
    print(table(["tool", "median", "p95", "max", "rcs/tool median", "rcs/tool p95"], rows))
    core, only_scores = latencies[5].per_query, latencies[6].per_query
    sort_part = statistics.median(c - s for c, s in zip(core, only_scores, strict=True))
    print(
        f"    rcs split (no profiler): Index.scores {us(latencies[6].median)}, core - Index.scores "
        f"(query tokens + top-k selection) {us(sort_part)}, retrieve - core (result models) "
        f"{us(statistics.median(r - c for r, c in zip(rcs_lat.per_query, core, strict=True)))} (medians)"
    )
    turn_best = min(turn_lat[1:3], key=lambda lat: lat.median)
    print(
        f"    turn-taking in a shuffled order over {len(shuffled):,} queries (cold caches; no bar): "
        + ", ".join(
            f"{name} {us(lat.median)}"
            for name, lat in zip(
                ("rcs retrieve", "bm25s retrieve", "bm25s get_scores + top-10"), turn_lat, strict=False
            )
        )
        + f"; rcs / {turn_best.label}: {turn_lat[0].median / turn_best.median:.2f}x"
    )
    print()
    bands = [band(index, qt) for _, qt in timed]
    print(
        f"    median latency by term-frequency band (a word is frequent when in >= {FREQUENT_SHARE:.0%} of the "
        f"chunks, >= {math.ceil(FREQUENT_SHARE * n_chunks):,}; rare: every word rare or unseen; frequent: every "
        "word frequent; mixed: both); ratio = rcs / the faster bm25s path in that band"
    )
    band_rows = []
    band_ratio: dict[str, float] = {}
    for name in BANDS:
        members = [i for i, b in enumerate(bands) if b == name]
        if not members:
            continue
        med = [statistics.median(lat.per_query[i] for i in members) for lat in latencies[:3]]
        band_ratio[name] = med[0] / min(med[1], med[2])
        band_rows.append([name, str(len(members)), *(us(m) for m in med), f"{band_ratio[name]:.2f}"])
    print(table(["band", "queries", "rcs", "bm25s retrieve", "bm25s scores+top", "rcs/best bm25s"], band_rows))
    print()
    print("    median latency by postings walked (sum over the query tokens of their document frequency)")
    buckets = [
        (0, 0, "0 (no term in the paper)"),
        (1, 99, "1-99"),
        (100, 999, "100-999"),
        (1_000, 9_999, "1,000-9,999"),
        (10_000, 49_999, "10,000-49,999"),
        (50_000, 10**12, ">= 50,000"),
    ]
    bucket_rows = []
    for low, high, name in buckets:
        members = [i for i, n in enumerate(touched) if low <= n <= high]
        if not members:
            continue
        med = [statistics.median(lat.per_query[i] for i in members) for lat in latencies[:3]]
        bucket_rows.append([name, str(len(members)), *(us(m) for m in med), f"{med[0] / min(med[1], med[2]):.2f}"])
    print(table(["postings", "queries", "rcs", "bm25s retrieve", "bm25s scores+top", "rcs/best bm25s"], bucket_rows))
    print()
    print(f"(3) parity vs bm25s (float64; rcs score == {BM25_K1 + 1:g} x bm25s score, rel. tol {REL_TOL:g})")
    print(
        f"    queries checked: {parity.checked:,}; violations: {parity.violations} "
        f"(scores {parity.score_mismatches}, top-10 sets {parity.set_mismatches}, "
        f"scored-chunk counts {parity.scored_mismatches}, bm25s argpartition(-s, k) selections "
        f"{parity.selection_mismatches}); queries with a tie at the 10th score: "
        f"{parity.boundary_ties}"
    )
    for example in parity.examples:
        print(f"    e.g. {example}")
    print()

    if args.profile or rcs_lat.median > bm_best.median:
        why = "--profile" if args.profile else "rcs is slower than bm25s"
        print(f"cProfile of rcs retrieve over the {n_timed:,} timed queries, one pass ({why}):")
        print(profile_rcs([q for q, _ in timed], paper))
        print()

    print("bars:")
    ok_parity = bar(
        "parity with bm25s: 0 violations",
        parity.violations == 0,
        f"{parity.violations} violations in {parity.checked:,} queries",
    )
    ok_speed = bar(
        "rcs median query latency <= bm25s median query latency",
        rcs_lat.median <= bm_best.median,
        f"rcs {us(rcs_lat.median)} vs {bm_best.label} {us(bm_best.median)} ({rcs_lat.median / bm_best.median:.2f}x)",
    )
    ok_bands = True
    for name, ratio in band_ratio.items():
        ok_bands &= bar(f"{name} band: rcs median <= the faster bm25s path's", ratio <= 1.0, f"rcs/bm25s {ratio:.2f}x")
    return ok_parity and ok_speed and ok_bands


def _version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


if __name__ == "__main__":
    main_wrapper(bench)
