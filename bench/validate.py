"""Benchmark `rcs validate` against check-jsonschema and against one compiled validator per process.

    .venv/bin/python bench/validate.py [--count N] [--seed S] [--quick] [--repeat N] [--cj-repeat N] [--strict]

Writes N (default 10,000; 1,000 with --quick) structured_report artifacts and one evidence bundle
they all cite into a temporary directory. Every report is derived from one seed report built here:
the seven sections in contract order, unique claim ids, every citation key used by a claim of its
section, and every citation resolving to a snippet of the bundle. Texts, ids, claim counts and the
cited snippets vary per file, deterministically (seeded random).

First rcs must accept the whole set (exit 0) and both must reject a schema-invalid copy of one
report (exit 1). Then, in the same run, it times

  rcs validate --evidence BUNDLE --kind structured_report DIR
  check-jsonschema --schemafile schemas/evidence/structured_report.schema.json \
                   --base-uri file://<root>/schemas/evidence/structured_report.schema.json FILES...

(--base-uri is needed because check-jsonschema resolves the schema's relative "$id" against the
working directory instead of the schema file, and so would look for evidence_bundle.schema.json
in the wrong place.)
check-jsonschema gets the files in as few batches as the OS argument limit allows; batch times
are summed. check-jsonschema is how users run a schema over files, but most of its time is the
`referencing` registry crawled again for every cross-file `$ref`, so the same run also times the
strongest fair references, each a whole process on the same files, as a user would script them
(REFERENCE_SCRIPT): one validator compiled once from both schemas (structured_report and the
evidence_bundle it `$ref`s, registered under their file URIs), then each file read, parsed and
validated, exit 1 if any is invalid:

  python-jsonschema   Draft202012Validator(schema, registry=...).is_valid(json.loads(text))
  jsonschema-rs       jsonschema_rs.validator_for(schema, registry=...).is_valid(json.loads(text))
  Ajv (node)          interop/js/validate_files.mjs: Ajv2020 in strict mode, every schema of the
                      folder keyed by $id, then JSON.parse and validate each file (when node and
                      interop/js/node_modules are there: `npm ci --prefix interop/js`)

rcs is timed 5 times (3 with --quick, or --repeat N), the two scripts as often; check-jsonschema,
which takes minutes on 10,000 files, once (or --cj-repeat N). Medians are reported as seconds and
files/second, and every ratio as rcs time / reference time (below 1: rcs is faster).
Bars: rcs <= 1/30 of check-jsonschema's time; rcs <= 1/10 of the python-jsonschema script's;
rcs <= 5x the jsonschema-rs script's (which checks the JSON Schema only, where rcs also builds
the typed model and runs the semantic rules on it).

A second, in-process measurement times the schema-level verdict per artifact
(``engine.validation.schema_verdict``: read the JSON, the JSON Schema engine's verdict, then the
typed model) against bare ``StructuredReport.model_validate_json`` on the same texts (the first
2,000 reports), each over all texts per pass, passes alternating, 7 passes (3 with --quick);
medians in microseconds per artifact. Bar: the verdict within 2x of the bare model.

Note the two do not check the same thing: check-jsonschema only checks the JSON Schema, while
rcs validate also enforces section order, the claim policy, citation keys and resolves every
citation against the evidence bundle.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (
    ROOT,
    BenchError,
    Timing,
    bar,
    check_root,
    find_exe,
    main_wrapper,
    parser,
    print_header,
    repeats,
    run,
    table,
)

SECTIONS = ("intro", "background", "related_work", "methods", "comparison", "gaps", "conclusions")
SCHEMA = Path("schemas/evidence/structured_report.schema.json")
CJ_BAR = 1 / 30  # rcs time / check-jsonschema time
PYJS_BAR = 1 / 10  # rcs time / python-jsonschema script time
RS_BAR = 5.0  # rcs time / jsonschema-rs script time (rcs also builds the typed model and runs the rules)
# A user's script: compile one validator from the two schemas, then validate each file (argv: engine,
# schema dir, then a file listing one file name per line). Exit 1 if any file is invalid.
REFERENCE_SCRIPT = """
import json, sys
from pathlib import Path
engine, schemas, listing = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
docs = {(schemas / n).as_uri(): json.loads((schemas / n).read_text(encoding="utf-8"))
        for n in ("structured_report.schema.json", "evidence_bundle.schema.json")}
root = (schemas / "structured_report.schema.json").as_uri()
for uri, doc in docs.items():
    doc["$id"] = uri  # the relative $ids, anchored at the files (as check-jsonschema's --base-uri does)
if engine == "python-jsonschema":
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    registry = Registry().with_resources((u, Resource.from_contents(d)) for u, d in docs.items())
    is_valid = Draft202012Validator(docs[root], registry=registry).is_valid
else:
    import jsonschema_rs
    registry = jsonschema_rs.Registry(list(docs.items()))
    is_valid = jsonschema_rs.validator_for(docs[root], registry=registry).is_valid
bad = 0
for name in listing.read_text(encoding="utf-8").splitlines():
    with open(name, "rb") as f:
        if not is_valid(json.loads(f.read())):
            bad += 1
sys.exit(1 if bad else 0)
"""
ENGINES = ("python-jsonschema", "jsonschema-rs")
VERDICT_BAR = 2.0
IN_PROCESS_FILES = 2_000
WORDS = (
    "agent",
    "retrieval",
    "evidence",
    "snippet",
    "benchmark",
    "baseline",
    "dataset",
    "ablation",
    "transformer",
    "citation",
    "corpus",
    "survey",
    "latency",
    "recall",
    "precision",
    "grounding",
    "hallucination",
    "planner",
    "tool",
    "budget",
    "pipeline",
    "report",
    "contract",
    "schema",
    "claim",
    "offset",
    "snapshot",
    "verification",
    "reproducibility",
)


# --- evidence bundle ---------------------------------------------------------------------------


def sentence(rng: random.Random, low: int = 6, high: int = 14) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def build_bundle(rng: random.Random, n_snapshots: int = 24, per_snapshot: int = 4) -> dict[str, Any]:
    """Snapshots with hashed raw_text and snippets that are exact slices of it (incl. non-ASCII)."""
    snapshots: list[dict[str, Any]] = []
    snippets: list[dict[str, Any]] = []
    for s in range(n_snapshots):
        paragraphs = [sentence(rng, 10, 30) for _ in range(per_snapshot + 2)]
        if s % 3 == 0:
            paragraphs[0] = "Résumé — naïve café ünïcode “quoted” text. " + paragraphs[0]
        raw_text = "\n\n".join(paragraphs)
        snapshot_id = f"snap-{s:03d}"
        snapshots.append(
            {
                "snapshot_id": snapshot_id,
                "source_meta": f"https://example.org/papers/{s:03d} (bench fixture)",
                "content_hash": hashlib.sha256(raw_text.encode("utf-8")).hexdigest(),
                "captured_at": f"2026-03-{1 + s % 28:02d}T09:{s % 60:02d}:00Z",
                "raw_text": raw_text,
            }
        )
        for k in range(per_snapshot):
            start = raw_text.index(paragraphs[k + 1])
            end = start + len(paragraphs[k + 1])
            snippets.append(
                {
                    "snippet_id": f"snip-{s:03d}-{k}",
                    "snapshot_id": snapshot_id,
                    "start_char": start,
                    "end_char": end,
                    "snippet_text": raw_text[start:end],
                }
            )
    return {"snapshots": snapshots, "snippets": snippets}


# --- reports -----------------------------------------------------------------------------------


def seed_report() -> dict[str, Any]:
    """The report every generated file is derived from (placeholders are filled per file)."""
    sections = []
    for name in SECTIONS:
        sections.append(
            {
                "section": name,
                "text": f"The {name.replace('_', ' ')} section.",
                "claims": [
                    {"claim_id": f"{name}-1", "text": "Framing statement.", "severity": "trivial"},
                    {
                        "claim_id": f"{name}-2",
                        "text": "A finding from the literature.",
                        "severity": "non_trivial",
                        "citation_keys": [f"{name}-k1"],
                    },
                ],
                "citations": {f"{name}-k1": {"snapshot_id": "?", "snippet_id": "?"}},
            }
        )
    return {"sections": sections}


def derive(seed: dict[str, Any], index: int, seed_value: int, snippets: list[dict[str, Any]]) -> dict[str, Any]:
    """A valid variant of ``seed``: texts, ids, claim counts and cited snippets vary with ``index``."""
    rng = random.Random(f"{seed_value}:{index}")
    report = copy.deepcopy(seed)
    prefix = f"r{index:06d}"
    for section in report["sections"]:
        name = section["section"]
        section["text"] = f"{section['text']} {sentence(rng)}"
        claims: list[dict[str, Any]] = []
        citations: dict[str, dict[str, Any]] = {}
        templates = section["claims"] + [copy.deepcopy(section["claims"][1]) for _ in range(rng.randint(0, 3))]
        for c, template in enumerate(templates):
            claim: dict[str, Any] = {
                "claim_id": f"{prefix}-{name}-c{c}",
                "text": f"{template['text']} {sentence(rng)}",
                "severity": template["severity"],
            }
            if template["severity"] == "non_trivial" or rng.random() < 0.3:
                keys = [f"{name}-{prefix}-k{c}-{j}" for j in range(rng.randint(1, 3))]
                claim["citation_keys"] = keys
                for key in keys:
                    snippet = rng.choice(snippets)
                    ref: dict[str, Any] = {"snapshot_id": snippet["snapshot_id"], "snippet_id": snippet["snippet_id"]}
                    if rng.random() < 0.25:  # a narrower span inside the snippet
                        start = rng.randrange(snippet["start_char"], snippet["end_char"] - 1)
                        ref["start_char"] = start
                        ref["end_char"] = rng.randrange(start + 1, snippet["end_char"] + 1)
                    citations[key] = ref
            claims.append(claim)
        section["claims"] = claims
        section["citations"] = citations
    return report


def write_set(work: Path, count: int, seed_value: int) -> tuple[Path, Path, list[str]]:
    """The bundle, the reports directory and the report paths relative to ``work``."""
    rng = random.Random(seed_value)
    bundle = build_bundle(rng)
    bundle_path = work / "evidence_bundle.json"
    bundle_path.write_text(json.dumps(bundle, ensure_ascii=False, indent=1), encoding="utf-8")
    reports = work / "reports"
    reports.mkdir()
    seed = seed_report()
    rel: list[str] = []
    for i in range(count):
        name = f"reports/report-{i:06d}.json"
        (work / name).write_text(
            json.dumps(derive(seed, i, seed_value, bundle["snippets"]), ensure_ascii=False),
            encoding="utf-8",
        )
        rel.append(name)
    return bundle_path, reports, rel


# --- running -----------------------------------------------------------------------------------


def arg_batches(fixed: list[str], files: list[str]) -> list[list[str]]:
    """Split ``files`` so each command line stays well under the OS argument limit."""
    try:
        arg_max = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError, AttributeError):
        arg_max = 32_000  # conservative (Windows command lines)
    env_size = sum(len(k) + len(v) + 2 for k, v in os.environ.items())
    budget = max(8_000, (arg_max - env_size) // 2 - sum(len(a) + 1 for a in fixed))
    batches: list[list[str]] = [[]]
    used = 0
    for f in files:
        cost = len(f) + 1 + 8  # +8: the argv pointer
        if batches[-1] and used + cost > budget:
            batches.append([])
            used = 0
        batches[-1].append(f)
        used += cost
    return batches


def in_process(work: Path, files: list[str], passes: int) -> tuple[Timing, Timing]:
    """Per-artifact seconds of the schema-level verdict and of the bare model, same texts, same run."""
    import time

    from rcs_contracts.engine import kinds, validation
    from rcs_contracts.generated.evidence.structured_report_schema import StructuredReport

    kind = kinds.resolve("evidence/structured_report")
    texts = [(work / f).read_bytes() for f in files[:IN_PROCESS_FILES]]
    for text in texts[:50]:  # warm-up: compiled validator, imports, caches
        if validation.schema_verdict(kind, text):
            raise BenchError("the in-process verdict rejects a report of the set")
        StructuredReport.model_validate_json(text)
    verdict: list[float] = []
    model: list[float] = []
    for _ in range(passes):
        started = time.perf_counter()
        for text in texts:
            validation.schema_verdict(kind, text)
        verdict.append((time.perf_counter() - started) / len(texts))
        started = time.perf_counter()
        for text in texts:
            StructuredReport.model_validate_json(text)
        model.append((time.perf_counter() - started) / len(texts))
    return (
        Timing("schema_verdict (JSON read + engine + typed model), per report", verdict),
        Timing("StructuredReport.model_validate_json alone, per report", model),
    )


def ajv_command(schema: Path) -> list[str] | None:
    """The Ajv reference (interop/js/validate_files.mjs) over ``schema``'s folder, or None without node."""
    node = shutil.which("node")
    if node is None or not (ROOT / "interop/js/node_modules/ajv").is_dir():
        return None
    return [node, str(ROOT / "interop/js/validate_files.mjs"), str(schema.parent), schema.name]


def bench() -> bool:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--count", type=int, help="number of reports (default 10000; 1000 with --quick)")
    p.add_argument(
        "--cj-repeat",
        type=int,
        metavar="N",
        help="repetitions of the (slow) check-jsonschema run (default 1; --repeat applies to rcs)",
    )
    p.add_argument("--seed", type=int, default=20260314, help="random seed for the generated set")
    args = p.parse_args()
    check_root()
    rcs = find_exe("rcs")
    cj = find_exe("check-jsonschema")
    count = args.count if args.count is not None else (1_000 if args.quick else 10_000)
    if count < 1:
        raise BenchError("--count must be at least 1")
    n_rcs = repeats(args, full=5, quick=3)
    if args.cj_repeat is not None and args.cj_repeat < 1:
        raise BenchError("--cj-repeat must be at least 1")
    n_cj = args.cj_repeat or 1
    schema = ROOT / SCHEMA

    with tempfile.TemporaryDirectory(prefix="rcs-bench-validate-") as tmp:
        work = Path(tmp)
        bundle, reports, files = write_set(work, count, args.seed)
        size = sum((work / f).stat().st_size for f in files)
        rcs_cmd = [rcs, "validate", "--evidence", bundle.name, "--kind", "structured_report", reports.name]
        # check-jsonschema resolves the relative "$id" against the working directory, not the
        # schema file; --base-uri anchors it at the file, so the $ref finds its sibling on disk.
        cj_fixed = [str(cj), "--schemafile", str(schema), "--base-uri", schema.as_uri()]
        batches = arg_batches(cj_fixed, files)

        # rcs must accept the whole set before anything is timed (doubles as its warm-up);
        # check-jsonschema is warmed up on a few files and must exit 0 on every timed run.
        run(rcs_cmd, cwd=work)
        run([*cj_fixed, *files[:20]], cwd=work)
        (work / "listing.txt").write_text("\n".join(files), encoding="utf-8")
        (work / "broken-listing.txt").write_text("broken.json", encoding="utf-8")
        scripts = {e: [sys.executable, "-c", REFERENCE_SCRIPT, e, str(schema.parent)] for e in ENGINES}
        for cmd in scripts.values():
            run([*cmd, "listing.txt"], cwd=work)  # warm-up; accepts the whole set
        # Negative control: a schema-invalid report must make both exit 1 (so neither is a no-op).
        broken = json.loads((work / files[0]).read_text(encoding="utf-8"))
        del broken["sections"][0]["claims"][0]["severity"]
        (work / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
        run([*rcs_cmd[:-1], "broken.json"], cwd=work, expect=1)
        run([*cj_fixed, "broken.json"], cwd=work, expect=1)
        for cmd in scripts.values():
            run([*cmd, "broken-listing.txt"], cwd=work, expect=1)

        ajv = ajv_command(schema)
        if ajv is not None:
            run([*ajv, "listing.txt"], cwd=work)  # warm-up; accepts the whole set
            run([*ajv, "broken-listing.txt"], cwd=work, expect=1)
        rcs_times = [run(rcs_cmd, cwd=work) for _ in range(n_rcs)]
        script_times = {e: [run([*cmd, "listing.txt"], cwd=work) for _ in range(n_rcs)] for e, cmd in scripts.items()}
        ajv_times = [run([*ajv, "listing.txt"], cwd=work) for _ in range(n_rcs)] if ajv is not None else []
        cj_times = [sum(run([*cj_fixed, *batch], cwd=work) for batch in batches) for _ in range(n_cj)]
        verdict_t, model_t = in_process(work, files, 3 if args.quick else 7)

    rcs_t = Timing("rcs validate --evidence B --kind structured_report DIR", rcs_times)
    cj_t = Timing(
        f"check-jsonschema --schemafile ... FILES ({len(batches)} batch{'es' if len(batches) > 1 else ''})", cj_times
    )
    pyjs_t = Timing("python-jsonschema script: one compiled validator", script_times["python-jsonschema"])
    rs_t = Timing("jsonschema-rs script: one compiled validator", script_times["jsonschema-rs"])
    ajv_t = Timing("Ajv (node) script: one compiled validator", ajv_times) if ajv_times else None
    references = [t for t in (cj_t, pyjs_t, rs_t, ajv_t) if t is not None]
    rcs_fps = count / rcs_t.median
    cj_fps = count / cj_t.median

    print_header(
        f"rcs validate benchmark ({'quick' if args.quick else 'full'}; {count} structured reports, "
        f"{size / 1e6:.1f} MB, seed {args.seed}; both exit 0 on the set and 1 on a broken file)"
    )
    print(
        table(
            ["measurement", "median", "min", "max", "runs", "files/s"],
            [
                [
                    t.label,
                    f"{t.median:.3f}s",
                    f"{t.low:.3f}s",
                    f"{t.high:.3f}s",
                    str(len(t.samples)),
                    f"{count / t.median:,.0f}",
                ]
                for t in (rcs_t, *references)
            ],
        )
    )
    print()
    print("ratios (rcs time / reference time, medians; below 1 = rcs faster):")
    if ajv_t is None:
        print("  (Ajv skipped: no node, or no interop/js/node_modules; run npm ci --prefix interop/js)")
    for ref_t in references:
        r = rcs_t.median / ref_t.median
        how = f"{1 / r:.1f}x faster" if r <= 1 else f"{r:.1f}x slower"
        print(f"  rcs / {ref_t.label.split(':')[0].split(' --')[0]:<34} = {r:.3f}  ({how})")
    print(
        "  (rcs also checks section order, the claim policy, citation keys and every citation against the "
        "bundle; the references check the JSON Schema only)"
    )
    print()
    in_files = min(count, IN_PROCESS_FILES)
    print(f"in process, {in_files} reports per pass:")
    print(
        table(
            ["measurement", "median", "min", "max", "passes"],
            [
                [t.label, *(f"{v * 1e6:.0f} us" for v in (t.median, t.low, t.high)), str(len(t.samples))]
                for t in (verdict_t, model_t)
            ],
        )
    )
    cost = verdict_t.median / model_t.median
    print(f"verdict / bare model = {cost:.2f}x")
    print()
    print("bars:")
    met = bar(
        "rcs <= 1/30 of check-jsonschema's time",
        rcs_t.median / cj_t.median <= CJ_BAR,
        f"{rcs_fps:,.0f} vs {cj_fps:,.0f} files/s, rcs/cj = {rcs_t.median / cj_t.median:.3f}",
    )
    met &= bar(
        "rcs <= 1/10 of the python-jsonschema script's time",
        rcs_t.median / pyjs_t.median <= PYJS_BAR,
        f"rcs/python-jsonschema = {rcs_t.median / pyjs_t.median:.3f}",
    )
    met &= bar(
        "rcs <= 5x the jsonschema-rs script's time",
        rcs_t.median / rs_t.median <= RS_BAR,
        f"rcs/jsonschema-rs = {rcs_t.median / rs_t.median:.2f}",
    )
    within = bar(
        f"schema-level verdict <= {VERDICT_BAR:.0f}x bare model_validate_json",
        cost <= VERDICT_BAR,
        f"{verdict_t.median * 1e6:.0f} vs {model_t.median * 1e6:.0f} us = {cost:.2f}x",
    )
    return met and within


if __name__ == "__main__":
    main_wrapper(bench)
