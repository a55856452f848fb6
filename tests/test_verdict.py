"""The verdict is the schema's, for every kind of the project (differential, hypothesis).

* Instances generated from each kind's schema (hypothesis-jsonschema, over the schema with its
  references inlined) are accepted by rcs, and their typed model builds: a model generated from the
  schema's view never rejects what the schema accepts.
* Mutations of those instances (a value replaced, a member removed or added) get the same verdict
  from rcs as from python-jsonschema, an independent draft 2020-12 implementation, with formats
  asserted, resolving the cross-file references itself.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from rcs_contracts.engine import validation
from rcs_contracts.generated._documents import DOCUMENTS
from rcs_contracts.generated.kinds import KINDS
from tests import json_data
from tests.json_data import paths

REFERENCE_BASE = "https://rcs.test/"  # the reference resolves relative ids under a scheme it knows
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
json_values = json_data.json_values(text=12, leaves=6)


def _reference_uri(uri: str) -> str:
    return REFERENCE_BASE + uri.split(":///", 1)[1]


@cache
def registry() -> jsonschema_rs.Registry:
    return jsonschema_rs.Registry([(uri, json.loads(text)) for uri, text in DOCUMENTS.items()])


@cache
def generator(kind: str) -> st.SearchStrategy[Any]:
    uri = KINDS[kind].uri
    inlined = jsonschema_rs.dereference(json.loads(DOCUMENTS[uri]), registry=registry(), base_uri=uri)
    return from_schema(inlined)


@cache
def reference(kind: str) -> Draft202012Validator:
    resources = [
        (_reference_uri(uri), Resource.from_contents(json.loads(text), default_specification=DRAFT202012))
        for uri, text in DOCUMENTS.items()
    ]
    return Draft202012Validator(
        {"$ref": _reference_uri(KINDS[kind].uri)},
        registry=Registry().with_resources(resources),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        doc = doc[part]
    return doc


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> Any:
    doc = draw(generator(kind))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(doc)))
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if not path:
            doc = draw(json_values) if action == "replace" else doc
            continue
        parent = _parent(doc, path)
        if action == "replace":
            parent[path[-1]] = draw(json_values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(json_values)
        else:
            parent.append(draw(json_values))
    return doc


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_generated_instances_are_accepted_and_typed(kind: str) -> None:
    @SETTINGS
    @given(doc=generator(kind))
    def check(doc: Any) -> None:
        text = json.dumps(doc)
        assert reference(kind).is_valid(doc)  # the generator and the reference agree
        assert validation.schema_verdict(KINDS[kind], text) == []

    check()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_mutated_instances_get_the_reference_verdict(kind: str) -> None:
    @settings(SETTINGS, max_examples=60)
    @given(doc=mutated(kind))
    def check(doc: Any) -> None:
        text = json.dumps(doc)
        found = validation.schema_verdict(KINDS[kind], text)
        expected = reference(kind).is_valid(doc)
        detail = [(type(e).__name__, str(e), e.location) for e in found]
        assert (not found) == expected, f"rcs {detail or 'valid'}; reference {'valid' if expected else 'invalid'}"

    check()


def test_models_hold_only_json_types() -> None:
    """R-GEN-3: building the model from the parsed value equals model_validate_json on the text only
    while no field is of a type strict mode reads differently from JSON (dates, times, UUIDs, bytes,
    Decimal). The model view keeps formatted strings as str, so no generated model has one."""
    import re

    from rcs_contracts.engine.kinds import model_of

    banned = re.compile(r"'type': '(datetime|date|time|timedelta|uuid|bytes|decimal)'")
    for name, kind in sorted(KINDS.items()):
        model = model_of(kind)
        found = banned.search(repr(model.__pydantic_core_schema__))
        assert found is None, f"{name}: {found}"


def test_model_from_value_equals_model_from_text() -> None:
    """The typed model rcs builds (from the parsed value) is the one model_validate_json builds."""
    from rcs_contracts.engine import json_text
    from rcs_contracts.engine.kinds import model_of, parser_of
    from tests.corpus.test_corpus import CASES

    checked = 0
    for case in CASES:
        if not case["valid"]:
            continue
        kind = KINDS[case["kind"]]
        from_value = parser_of(kind)(json_text.parse(case["text"]))
        assert from_value == model_of(kind).model_validate_json(case["text"]), case["id"]
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_overflowing_number_is_invalid_json_wherever_it_stands(kind: str) -> None:
    """I-JSON: 1e400 anywhere is refused as invalid JSON, whether the engine, which reads it as null,
    accepts null there (a nullable number: the model refuses the infinity) or not, and in kinds
    whose model types every value as in kinds holding free-form data."""
    from rcs_contracts.engine import kinds

    @settings(SETTINGS, max_examples=10)
    @given(doc=generator(kind), data=st.data())
    def check(doc: Any, data: st.DataObject) -> None:
        spots = [p for p in paths(doc) if p and isinstance(_parent(doc, p)[p[-1]], (int, float, type(None)))]
        if not spots:
            return
        path = data.draw(st.sampled_from(spots))
        _parent(doc, path)[path[-1]] = "\u0000marker"
        text = json.dumps(doc).replace(json.dumps("\u0000marker"), "-1e400" if len(path) % 2 else "1e400")
        errors = validation.schema_verdict(KINDS[kind], text)
        assert [str(e) for e in errors] == [f"Invalid JSON: {json_text.OVERFLOW}"], kinds.holds_untyped(KINDS[kind])

    from rcs_contracts.engine import json_text

    check()


def test_holds_untyped_sees_open_objects_and_any() -> None:
    from rcs_contracts.engine import kinds

    assert kinds.holds_untyped(KINDS["evidence/literature_map"])  # node metadata is free-form
    assert not kinds.holds_untyped(KINDS["evidence/structured_report"])
    assert not kinds.holds_untyped(KINDS["autoresearch/ledger"])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_rcs_validate_over_every_kind_never_crashes(kind: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Fuzz the command line over the project's kinds: mutated documents and raw bytes give exit 0,
    1 (a violation) or 2 (a usage problem: evidence cited without --evidence), a report that
    agrees with the status, and never an internal error or a traceback."""
    import contextlib
    import io

    from rcs_contracts.runtime.cli import main

    directory = tmp_path_factory.mktemp("fuzz")

    @settings(SETTINGS, max_examples=15)
    @given(doc=mutated(kind), raw=st.none() | st.binary(max_size=64))
    def check(doc: Any, raw: bytes | None) -> None:
        path = directory / "doc.json"
        path.write_bytes(raw if raw is not None else json.dumps(doc).encode())
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["validate", "--kind", kind, "--format", "json", str(path)])
        assert status in (0, 1, 2), (status, out.getvalue(), err.getvalue())
        assert "Traceback" not in err.getvalue() and "InternalError" not in out.getvalue()
        [result] = json.loads(out.getvalue())
        assert result["valid"] == (status == 0)

    check()
