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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from the checkout

from rcs_contracts.engine import validation  # noqa: E402
from rcs_contracts.generated.kinds import KINDS  # noqa: E402

OUT = ROOT / "interop" / "manifest.json"
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


def render() -> str:
    """The manifest's text: one case a line."""
    lines = ",\n".join("  " + json.dumps(case, ensure_ascii=False) for case in cases())
    return f'{{"format": 1, "cases": [\n{lines}\n]}}\n'


def main(argv: list[str]) -> int:
    """Write the manifest, or with --check say whether it is current."""
    text = render()
    if argv == ["--check"]:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python interop/build_manifest.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
