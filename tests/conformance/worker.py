"""Run inside a compiled suite project (its generated/ first on PYTHONPATH); prints a JSON report.

    python worker.py fuzz N       random JSON and random bytes through `rcs validate`: 0 or 1, never a crash
    python worker.py generated N  instances generated from each suite schema: the models never reject
                                  what the engine accepts
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import jsonschema_rs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rcs_contracts.engine import validation, verdict
from rcs_contracts.generated._documents import DOCUMENTS
from rcs_contracts.generated.kinds import KINDS
from rcs_contracts.runtime import cli
from tests import json_data

SUITE_KINDS = sorted(k for k in KINDS if k.startswith(("suite_", "format_")))
json_values = json_data.json_values(max_int=2**80, text=10, leaves=10)
FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), database=None)


def fuzz(examples: int) -> dict[str, Any]:
    failures: list[str] = []
    count = 0
    directory = Path(tempfile.mkdtemp())

    @settings(FUZZ, max_examples=examples)
    @given(kind=st.sampled_from(SUITE_KINDS), value=json_values, raw=st.none() | st.binary(max_size=40))
    def run(kind: str, value: Any, raw: bytes | None) -> None:
        nonlocal count
        count += 1
        path = directory / "doc.json"
        path.write_bytes(raw if raw is not None else json.dumps(value).encode())
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["validate", "--kind", kind, "--format", "json", str(path)])
        report = json.loads(out.getvalue())
        if status not in (0, 1) or "InternalError" in out.getvalue() or "Traceback" in err.getvalue():
            given_bytes = path.read_bytes()
            failures.append(f"{kind} {given_bytes!r}: exit {status}: {out.getvalue()[:300]} {err.getvalue()[:300]}")
        if report[0]["valid"] != (status == 0):
            failures.append(f"{kind}: report and exit status disagree")

    run()
    return {"examples": count, "failures": failures[:20]}


def _property(strategy: Any, examples: int, check: Any, kind: str, uri: str) -> Any:
    @settings(FUZZ, max_examples=examples)
    @given(value=strategy)
    def run(value: Any) -> None:
        check(value, kind, uri)

    return run


def generated(per_kind: int) -> dict[str, Any]:
    from hypothesis_jsonschema import from_schema

    registry = jsonschema_rs.Registry([(uri, json.loads(text)) for uri, text in DOCUMENTS.items()])
    failures: list[str] = []
    checked = 0
    skipped: list[str] = []
    for kind in SUITE_KINDS:
        uri = KINDS[kind].uri
        try:
            inlined = jsonschema_rs.dereference(json.loads(DOCUMENTS[uri]), registry=registry, base_uri=uri)
            strategy = from_schema(inlined)
        except Exception as exc:  # hypothesis-jsonschema does not know every 2020-12 construct
            skipped.append(f"{kind}: {type(exc).__name__}")
            continue

        def check(value: Any, kind: str, uri: str) -> None:
            nonlocal checked
            if not verdict.is_valid(uri, value):
                return  # the generator may be looser than 2020-12; only engine-valid instances count
            checked += 1
            try:
                errors = validation.schema_verdict(KINDS[kind], json.dumps(value))
            except validation.ModelDisagreement as exc:
                failures.append(f"{kind}: {value!r}: {exc}")
                return
            if errors:
                failures.append(f"{kind}: {value!r}: {[str(e) for e in errors]}")

        run = _property(strategy, per_kind, check, kind, uri)

        try:
            run()
        except Exception as exc:  # an unsatisfiable or unsupported schema for the generator
            skipped.append(f"{kind}: {type(exc).__name__}: {exc}")
    return {"checked": checked, "skipped": len(skipped), "failures": failures[:20], "skips": skipped[:5]}


if __name__ == "__main__":
    mode, number = sys.argv[1], int(sys.argv[2])
    print(json.dumps(fuzz(number) if mode == "fuzz" else generated(number)))
