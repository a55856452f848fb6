"""Write interop/manifest.json: the cases every implementation of rcs's contracts must agree on.

    python interop/build_manifest.py           write it
    python interop/build_manifest.py --check   exit 1 if the file is not what would be written

Language-neutral data, no code: each case names the exact JSON text of an artifact (``file``, from
this folder: a file, or ``<list>.json#<id>`` for the case of that id in a JSON list of cases with
their ``text``), its kind, the schema-level verdict (``schema_valid``: true or false; null for text
refused before any schema, as I-JSON says, SPEC.md 3.1), and for a contract rule beyond the schema
the error it must raise (``error``: class and exact message; ``evidence``: the bundle it is checked
against, from this folder). The schema verdicts of the examples are rcs's own. Sources: the
evidence corpus (tests/corpus/evidence_cases.json, schema verdicts) and the example artifacts
(examples/evidence/valid and rejected, with their expected errors). The JavaScript runner
(interop/js/check.mjs) judges the schema verdicts with Ajv; tests/test_manifest.py holds rcs to
every case.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from the checkout

from rcs_contracts.engine import validation  # noqa: E402
from rcs_contracts.generated.kinds import KINDS  # noqa: E402
from rcs_contracts.safeio import files  # noqa: E402

OUT = ROOT / "interop" / "manifest.json"
VECTORS = ROOT / "interop" / "vectors.json"
CORPUS = ROOT / "tests" / "corpus" / "evidence_cases.json"
EXAMPLES = ROOT / "examples" / "evidence"
BUNDLE = "../examples/evidence/bundle.json"  # from this folder, as every path of the manifest


def _kind(text: str) -> str:
    reference = str(json.loads(text)["$schema"])
    domain, name = reference.rsplit("/", 2)[-2:]
    return f"{domain}/{name.removesuffix('.schema.json')}"


def cases() -> list[dict[str, Any]]:
    """Every case, corpus first (in its order), then the examples by file name."""
    found: list[dict[str, Any]] = []
    for case in json.loads(CORPUS.read_text(encoding="utf-8")):
        refused = case["ruling"].startswith("I-JSON")
        found.append(
            {
                "id": f"corpus/{case['id']}",
                "kind": case["kind"],
                "file": f"../tests/corpus/{CORPUS.name}#{case['id']}",
                "schema_valid": None if refused else case["valid"],
                "error": None,
                "evidence": None,
                "note": case["what"] + (f" ({case['ruling']})" if case["ruling"] else ""),
            }
        )
    for folder in ("valid", "rejected"):
        for path in sorted((EXAMPLES / folder).glob("*.json")):
            text = path.read_text(encoding="utf-8")
            sidecar = path.with_suffix(".expected")
            expected = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else None
            kind = expected["kind"] if expected else _kind(text)
            error = {"class": expected["error"], "message": expected["message"]} if expected else None
            found.append(
                {
                    "id": f"examples/evidence/{folder}/{path.stem}",
                    "kind": kind,
                    "file": f"../examples/evidence/{folder}/{path.name}",
                    "schema_valid": not validation.schema_verdict(KINDS[kind], text),
                    "error": error,
                    "evidence": None if kind == "evidence/evidence_bundle" else BUNDLE,
                    "note": "the expected error's sidecar: " + sidecar.name if expected else "a valid example",
                }
            )
    return found


class _Ticks:
    """A clock that moves one millisecond each time it is read: the session's telemetry comes out
    the same on every run (the builder's output is committed)."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def now(self) -> float:
        """One millisecond later than the last reading."""
        self.seconds += 0.001
        return self.seconds

    def wait(self, done: threading.Event, seconds: float) -> bool:
        """Wait for the tool for real (a few milliseconds over the example papers)."""
        return done.wait(max(seconds, 0.0))


def _research_session() -> dict[str, Any]:
    """The response, telemetry and source bundle of the research example (examples/research)."""
    from rcs_contracts.runtime.research import ResearchRequest, run_research
    from rcs_contracts.runtime.research.adapter import make_tools

    request = ResearchRequest.model_validate_json((ROOT / "examples/research/request.json").read_bytes())
    result = run_research(request, make_tools(docs=str(ROOT / "examples/research/docs")), clock=_Ticks())
    return {
        "research/response": json.loads(result.response.model_dump_json()),
        "research/telemetry": json.loads(result.telemetry.model_dump_json()),
        "research/source_bundle": json.loads(result.bundle.model_dump_json()),
    }


def _error(error: Any) -> dict[str, str]:
    return {"code": error.code, "class": type(error).__name__, "message": str(error)}


def _vector(name: str, kind: str, note: str, value: dict[str, Any], error: Any) -> dict[str, Any]:
    """A semantic vector: schema-valid ``value`` of ``kind``, and the contract error it must raise
    first (None: none). Its text goes to vectors.json, under ``name``."""
    return {
        "id": name,
        "kind": kind,
        "file": f"vectors.json#{name}",
        "schema_valid": True,
        "error": None if error is None else _error(error),
        "evidence": None,
        "note": note,
        "text": json.dumps(value, ensure_ascii=False, sort_keys=True),
    }


def research_cases() -> list[dict[str, Any]]:
    """The research invariants a schema cannot say (SPEC 12; runtime/research/checks.py): the
    example session's three artifacts as they are, then each changed to break one rule, with the
    error the rule's table entry gives."""
    from rcs_contracts.generated.research import errors as E
    from rcs_contracts.generated.research.responses import ANSWER_HEADING, BASELINE
    from rcs_contracts.generated.research.stop_reasons import PRIORITY

    base = _research_session()
    response, telemetry, bundle = base["research/response"], base["research/telemetry"], base["research/source_bundle"]
    stranger = "f" * 64
    extra = {**response["sources"][0], "source_id": stranger}
    first, later = PRIORITY[0].value, PRIORITY[1].value
    swapped = [bundle["sources"][1], bundle["sources"][0], *bundle["sources"][2:]]
    head = bundle["sources"][0]
    changed_content = [{**head, "content": head["content"] + " "}, *bundle["sources"][1:]]
    vectors: list[tuple[str, str, dict[str, Any], Any]] = [
        ("research/response", "the example session's response", response, None),
        ("research/telemetry", "the example session's telemetry", telemetry, None),
        ("research/source_bundle", "the example session's source bundle", bundle, None),
        ("research/response", "an ANSWER whose text is not the table's heading (R-RS-6)",
         {**response, "text": "Findings:"}, E.response_text_mismatch(action="ANSWER")),
        ("research/response", "a bullet citing a source the response does not list (R-RS-8)",
         {**response, "bullets": [{**response["bullets"][0], "source_ids": [stranger]}, *response["bullets"][1:]]},
         E.citation_unresolved(index=0, source_id=stranger)),
        ("research/response", "a listed source no bullet cites (R-RS-8)",
         {**response, "text": ANSWER_HEADING.format(count=len(response["sources"]) + 1),
          "sources": [*response["sources"], extra]},
         E.source_not_cited(source_id=stranger)),
        ("research/response", "a downgrade that still carries research content (R-RS-8)",
         {**response, "action": "BASELINE", "text": BASELINE}, E.response_not_empty(action="BASELINE")),
        ("research/telemetry", "NO_SOURCE answered instead of asking or saying unknown (R-RS-6)",
         {**telemetry, "conditions": ["NO_SOURCE"], "stop_reason": "NO_SOURCE", "sources_kept": 0},
         E.no_source_action(action="ANSWER")),
        ("research/telemetry", "a stop reason that is not the first condition in priority order (R-RS-1)",
         {**telemetry, "conditions": [first, later], "stop_reason": later},
         E.stop_reason_not_first(stop_reason=later, first=first)),
        ("research/source_bundle", "a source whose id is not the hash of its content (R-RS-7)",
         {**bundle, "sources": changed_content}, E.source_id_mismatch()),
        ("research/source_bundle", "two sources out of the bundle order (R-RS-7)",
         {**bundle, "sources": swapped}, E.bundle_order(index=1)),
    ]  # fmt: skip
    return [_vector(f"research/{n:02d}", *vector) for n, vector in enumerate(vectors)]


def _trace(name: str, round_: int) -> dict[str, Any]:
    lines = (ROOT / "examples/odr" / f"{name}.expected.jsonl").read_text(encoding="utf-8").splitlines()
    record: dict[str, Any] = json.loads(lines[round_ - 1])
    return record


def odr_cases() -> list[dict[str, Any]]:
    """ODR's trace-record rules a schema cannot say (runtime/odr/checks.py; R-ODR-5): records of
    the examples' expected traces as they are, then each changed to break one rule, with the error
    its table entry gives."""
    from rcs_contracts.generated.odr import errors as E

    loop, leak, shape = _trace("circularity", 3), _trace("code_leak", 2), _trace("shape_violation", 2)
    early = _trace("circularity", 2)
    vectors: list[tuple[str, dict[str, Any], Any]] = [
        ("the circularity example's stopping record", loop, None),
        ("the code-leak example's stopping record", leak, None),
        ("the shape-violation example's stopping record", shape, None),
        ("metrics.n is not the record's round", {**loop, "metrics": {**loop["metrics"], "n": 5}},
         E.trace_round_mismatch(n=5, round=3)),
        ("a similarity missing from a round that has one (R-ODR-5)",
         {**loop, "metrics": {**loop["metrics"], "sim_prev": None}}, E.trace_metric_null(field="sim_prev", round=3)),
        ("a similarity before round 3, which has none (R-ODR-5)",
         {**early, "metrics": {**early["metrics"], "sim_prev": 0.5}},
         E.trace_metric_not_null(field="sim_prev", round=2, reason="None")),
        ("CODE_LEAK without the leak flag", {**leak, "metrics": {**leak["metrics"], "code_leak_hit": False}},
         E.trace_code_leak_mismatch()),
        ("SHAPE_VIOLATION without a parse error", {**shape, "parse_errors": []}, E.trace_shape_mismatch()),
        ("a round past the parse with no parsed architect output (R-ODR-5)", {**loop, "architect_parsed": None},
         E.trace_parsed_null(field="architect_parsed")),
    ]  # fmt: skip
    return [_vector(f"odr/{n:02d}", "odr/trace_record", *vector) for n, vector in enumerate(vectors)]


def render(semantic: list[dict[str, Any]]) -> str:
    """The manifest's text: one case a line (the texts of the semantic vectors are in vectors.json)."""
    every = cases() + [{k: v for k, v in c.items() if k != "text"} for c in semantic]
    lines = ",\n".join("  " + json.dumps(case, ensure_ascii=False) for case in every)
    return f'{{"format": 1, "cases": [\n{lines}\n]}}\n'


def main(argv: list[str]) -> int:
    """Write the manifest and the research vectors, or with --check say whether they are current."""
    semantic = research_cases() + odr_cases()
    outputs = {
        OUT: render(semantic),
        VECTORS: json.dumps([{"id": c["id"], "text": c["text"]} for c in semantic], indent=1, ensure_ascii=False)
        + "\n",
    }
    if argv == ["--check"]:
        stale = [p for p, text in outputs.items() if (p.read_text(encoding="utf-8") if p.exists() else "") != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run python interop/build_manifest.py", file=sys.stderr)
        return 1 if stale else 0
    for path, text in outputs.items():
        files.write_text(path, text)  # atomically: a stopped run leaves the old file, never half a new one
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
