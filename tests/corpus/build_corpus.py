"""Build tests/corpus/evidence_cases.json: schema-level edge cases over the evidence kinds.

    python tests/corpus/build_corpus.py [--check]

Each case is the exact JSON text of an artifact (so ``1.0``, ``1e400`` and ``"\\ud800"`` stay as
written), its kind, and the verdict draft 2020-12 gives it. The verdict comes from python-jsonschema
(an implementation independent of rcs's engine, formats asserted) except where the case says why
not (``"ruling"``): RFC 3339 and the suite's optional/format tests for date-times, ECMA-262 for
``$`` before a final newline, and I-JSON (RFC 7493) for lone surrogates and numbers a double cannot
hold, which Python's own JSON reader accepts. The cases start from the valid examples and change
one thing: a value's type, a missing or extra member, a formatted or patterned string, a number
spelled another way. ``--check`` fails when the file is not what this script writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from rcs_contracts.safeio import files

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("evidence_cases.json")
EXAMPLES = ROOT / "examples" / "evidence"
SENTINEL = "\u0000raw\u0000"
WRONG = {"null": None, "true": True, "zero": 0, "half": 1.5, "text": "x", "list": [], "object": {}}

# (text, verdict, ruling) for captured_at; the ruling says why where python-jsonschema differs.
DATE_TIMES: list[tuple[str, bool, str]] = [
    ("2026-03-14T09:30:00Z", True, ""),
    ("2026-03-14T09:30:00z", True, ""),
    ("2026-03-14t09:30:00Z", True, ""),
    ("2026-03-14T09:30:00.123456789Z", True, ""),
    ("2026-03-14T09:30:00+01:00", True, ""),
    ("2026-03-14T09:30:00-00:00", True, ""),
    ("2026-03-14T09:30:00+23:59", True, ""),
    ("2024-02-29T00:00:00Z", True, ""),
    ("1998-12-31T23:59:60Z", True, "RFC 3339 5.7: a leap second at 23:59:60 UTC (suite optional/format/date-time)"),
    (
        "1998-12-31T15:59:60.123-08:00",
        True,
        "RFC 3339 5.7: 15:59:60-08:00 is 23:59:60 UTC (suite optional/format/date-time)",
    ),
    ("1998-12-31T23:58:60Z", False, ""),
    ("2026-03-14T09:30:00+01:60", False, ""),
    ("2026-03-14T09:30:00+24:00", False, ""),
    ("2026-03-14T09:30:00", False, ""),
    ("2026-03-14 09:30:00Z", False, ""),
    ("2026-03-14T09:30Z", False, ""),
    ("2026-03-14T24:00:00Z", False, ""),
    ("2026-02-30T09:30:00Z", False, ""),
    ("2023-02-29T09:30:00Z", False, ""),
    ("2026-13-01T09:30:00Z", False, ""),
    ("2026-03-14T09:30:00.Z", False, ""),
    ("2026-03-14T09:30:00+0100", False, ""),
    ("26-03-14T09:30:00Z", False, ""),
    ("1700000000", False, ""),
    ("", False, ""),
    ("2026-03-14T09:30:00Z\n", False, "ECMA-262 and RFC 3339: nothing may follow the offset"),
    ("2026-03-14T09:3０:00Z", False, ""),
    ("２026-03-14T09:30:00Z", False, ""),
]
# Strings for NonBlankText fields (a report section's text): at least one of the four ASCII blanks absent.
BLANKS = [" ", "\t", "\n", "\r\n", " \t\n\r", "\u00a0", "\u2028", "\u3000", "\u200b", "x", "é", "\U0001f4a9", " x "]
# content_hash is ^[0-9a-f]{64}$.
HASH = "0123456789abcdef" * 4
HASHES: list[tuple[str, bool, str]] = [
    (HASH, True, ""),
    (HASH.upper(), False, ""),
    (HASH[:63], False, ""),
    (HASH + "0", False, ""),
    (HASH + "\n", False, "ECMA-262: $ matches only at the end of the input (Python's re also before a final newline)"),
    ("\n" + HASH, False, ""),
    (HASH[:63] + "\uff10", False, ""),
    (HASH[:63] + "g", False, ""),
]
# Raw number spellings for integer fields (start_char) and number fields (a node's score).
INTEGERS: list[tuple[str, bool, str]] = [
    ("0", True, ""),
    ("1.0", True, ""),
    ("1e0", True, ""),
    ("1E+1", True, ""),
    ("-0.0", True, ""),
    ("0.0e5", True, ""),
    ("1.5", False, ""),
    ("-1", False, ""),
    ("1e-1", False, ""),
    ("123456789012345678901234567890", True, ""),
    ("1e400", False, "I-JSON (RFC 7493 2.2): a number a double cannot hold is refused as invalid JSON"),
    ("-1e400", False, "I-JSON (RFC 7493 2.2): a number a double cannot hold is refused as invalid JSON"),
]
NUMBERS: list[tuple[str, bool, str]] = [
    ("0", True, ""),
    ("0.5", True, ""),
    ("-0.0", True, ""),
    ("1e308", True, ""),
    ("1.7976931348623157e308", True, ""),
    ("5e-324", True, ""),
    ("123456789012345678901234567890123456789", True, ""),
    ("1e400", False, "I-JSON (RFC 7493 2.2): a number a double cannot hold is refused as invalid JSON"),
    ("1" + "0" * 400, True, ""),
]
STRINGS: list[tuple[str, bool, str]] = [
    ('"\\ud83d\\udca9"', True, ""),
    ('"a\\u0000b"', True, ""),
    ('"\\ud800"', False, "I-JSON (RFC 7493 2.1): a lone surrogate is not text; refused as invalid JSON"),
    ('"x\\udc00"', False, "I-JSON (RFC 7493 2.1): a lone surrogate is not text; refused as invalid JSON"),
    ('"\\udc00\\ud800"', False, "I-JSON (RFC 7493 2.1): reversed surrogates are not text; refused as invalid JSON"),
]


def claim_policy() -> Any:
    data = yaml.safe_load((ROOT / "claim_policy.yaml").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k != "$schema"}


def bases() -> dict[str, Any]:
    """kind -> a valid document of that kind."""
    return {
        "evidence/literature_map": json.loads((EXAMPLES / "valid/literature_map.json").read_text()),
        "evidence/structured_report": json.loads((EXAMPLES / "valid/structured_report.json").read_text()),
        "evidence/experiment_plan": json.loads((EXAMPLES / "valid/experiment_plan.json").read_text()),
        "evidence/evidence_bundle": json.loads((EXAMPLES / "bundle.json").read_text()),
        "evidence/claim_policy": claim_policy(),
        "evidence/partial_result": {"partial": True, "reason": "Budget exceeded: max_tokens limit=2 used=3"},
    }


def reference(kind: str) -> Draft202012Validator:
    """python-jsonschema over the project's schema files, formats asserted."""
    base = "https://rcs.test/"
    resources = [
        (base + p.relative_to(ROOT).as_posix(), Resource.from_contents(json.loads(p.read_text()), DRAFT202012))
        for p in sorted((ROOT / "schemas").glob("*/*.schema.json"))
    ]
    return Draft202012Validator(
        {"$ref": f"{base}schemas/{kind}.schema.json"},
        registry=Registry().with_resources(resources),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def walk(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    found = [(path, value)]
    if isinstance(value, dict):
        for key, sub in value.items():
            found.extend(walk(sub, (*path, key)))
    elif isinstance(value, list) and value:
        found.extend(walk(value[0], (*path, 0)))  # the first item stands for all
    return found


def shape(path: tuple[Any, ...]) -> str:
    return "/".join("*" if isinstance(p, int) else str(p) for p in path) or "(root)"


def edited(doc: Any, path: tuple[Any, ...], change: Any) -> Any:
    copy = json.loads(json.dumps(doc))
    if not path:
        return change(copy)
    parent = copy
    for part in path[:-1]:
        parent = parent[part]
    change_parent = change(parent, path[-1])
    return copy if change_parent is None else change_parent


def text_with(doc: Any, path: tuple[Any, ...], raw: str) -> str:
    """The JSON text of ``doc`` with the value at ``path`` written as the raw token ``raw``."""

    def put(parent: Any, key: Any) -> None:
        parent[key] = SENTINEL

    return json.dumps(edited(doc, path, put), ensure_ascii=False).replace(json.dumps(SENTINEL), raw)


def cases() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def add(kind: str, what: str, text: str, verdict: bool | None = None, ruling: str = "") -> None:
        found.append({"kind": kind, "what": what, "text": text, "valid": verdict, "ruling": ruling})

    for kind, doc in bases().items():
        add(kind, "the valid example", json.dumps(doc, ensure_ascii=False))
        for path, value in walk(doc):
            where = shape(path)
            for name, wrong in WRONG.items():
                if type(wrong) is type(value) or (name in ("zero", "half") and type(value) in (int, float)):
                    continue
                if path:
                    add(kind, f"{where} = {name}", text_with(doc, path, json.dumps(wrong)))
            if path and isinstance(path[-1], str):

                def drop(parent: Any, key: Any) -> None:
                    del parent[key]

                add(kind, f"{where} missing", json.dumps(edited(doc, path, drop), ensure_ascii=False))
            if isinstance(value, dict):

                def extra(parent: Any, key: Any = None) -> Any:
                    target = parent if key is None else parent[key]
                    target["unexpected_member"] = 1
                    return parent if key is None else None

                add(kind, f"{where} + unexpected_member", json.dumps(edited(doc, path, extra), ensure_ascii=False))
    bundle = bases()["evidence/evidence_bundle"]
    for stamp, verdict, ruling in DATE_TIMES:
        add("evidence/evidence_bundle", f"captured_at {stamp!r}", text_with(bundle, ("snapshots", 0, "captured_at"),
            json.dumps(stamp, ensure_ascii=False)), verdict, ruling)  # fmt: skip
    for digest, verdict, ruling in HASHES:
        add("evidence/evidence_bundle", f"content_hash {digest!r}", text_with(bundle, ("snapshots", 0, "content_hash"),
            json.dumps(digest, ensure_ascii=False)), verdict, ruling)  # fmt: skip
    for raw, verdict, ruling in INTEGERS:
        add("evidence/evidence_bundle", f"start_char {raw[:20]}", text_with(bundle, ("snippets", 0, "start_char"), raw),
            verdict, ruling)  # fmt: skip
    for raw, verdict, ruling in STRINGS:
        add("evidence/evidence_bundle", f"raw_text {raw}", text_with(bundle, ("snapshots", 0, "raw_text"), raw),
            verdict, ruling)  # fmt: skip
    report = bases()["evidence/structured_report"]
    for blank in BLANKS:
        add("evidence/structured_report", f"section text {blank!r}",
            text_with(report, ("sections", 0, "text"), json.dumps(blank, ensure_ascii=False)))  # fmt: skip
        add("evidence/structured_report", f"claim_id {blank!r}",
            text_with(report, ("sections", 0, "claims", 0, "claim_id"), json.dumps(blank)))  # fmt: skip
    lit = bases()["evidence/literature_map"]
    for raw, verdict, ruling in NUMBERS:
        add("evidence/literature_map", f"score {raw[:24]}", text_with(lit, ("nodes", 0, "score"), raw), verdict, ruling)
    for raw, verdict, ruling in STRINGS:
        add("evidence/literature_map", f"node id {raw}", text_with(lit, ("nodes", 0, "id"), raw), verdict, ruling)
    partial = bases()["evidence/partial_result"]
    for raw, verdict in (("true", True), ("1", False), ("1.0", False), ("false", False), ('"true"', False)):
        add("evidence/partial_result", f"partial {raw}", text_with(partial, ("partial",), raw), verdict)
    duplicate = '{"partial": false, "partial": true, "reason": "r"}'
    last_wins = "RFC 8259 4 leaves it open; rcs keeps the last value"
    add("evidence/partial_result", "duplicate member, the last one wins", duplicate, True, last_wins)
    add("evidence/partial_result", "limit as a float", '{"partial": true, "reason": "r", "limit": 2.5}', True)
    return found


def with_verdicts(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fill in python-jsonschema's verdict; where a ruling sets it, check the engines differ for the reason given."""
    validators = {kind: reference(kind) for kind in {c["kind"] for c in found}}
    seen: set[tuple[str, str]] = set()
    out = []
    for case in found:
        key = (case["kind"], case["text"])
        if key in seen:
            continue
        seen.add(key)
        python_verdict = validators[case["kind"]].is_valid(json.loads(case["text"]))
        if case["valid"] is None:
            case["valid"] = python_verdict
        elif case["valid"] != python_verdict and not case["ruling"]:
            raise SystemExit(f"python-jsonschema disagrees with the stated verdict and no ruling says why: {case}")
        case["id"] = f"{case['kind'].split('/')[1]}-{len(out):03d}"
        out.append({k: case[k] for k in ("id", "kind", "what", "text", "valid", "ruling")})
    return out


def render() -> str:
    """The corpus file's text."""
    return json.dumps(with_verdicts(cases()), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the corpus file is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python tests/corpus/build_corpus.py", file=sys.stderr)
            return 1
        return 0
    files.write_text(OUT, text)  # atomically: a stopped run leaves the old file, never half a new one
    data = json.loads(text)
    print(f"{len(data)} cases ({sum(c['valid'] for c in data)} valid) -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
