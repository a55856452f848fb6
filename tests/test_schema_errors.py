"""engine/schema_errors.py: the declared type at a place in a document, and schema errors as contract errors."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field
from typing_extensions import TypeAliasType

from rcs_contracts.engine.schema_errors import _unwrap, model_at
from rcs_contracts.generated.evidence.evidence_bundle_schema import EvidenceRef
from rcs_contracts.generated.evidence.literature_map_schema import LiteratureMap, MapNode
from rcs_contracts.generated.evidence.structured_report_schema import StructuredReport

Alias = TypeAliasType("Alias", Annotated[int, Field(ge=0)])


@pytest.mark.parametrize(
    ("annotation", "unwrapped"),
    [
        (int, int),
        (int | None, int),
        (Annotated[int, Field(ge=0)], int),
        (Annotated[int | None, Field(ge=0)], int),
        (Alias, int),  # an alias of an Annotated type
        # An optional property, as generated: its type or pydantic's MISSING sentinel.
        (LiteratureMap.model_fields["field_schema"].annotation, str),
        (list[int] | None, list[int]),
    ],
)
def test_an_annotation_unwraps_to_the_one_type_it_allows(annotation: Any, unwrapped: Any) -> None:
    assert _unwrap(annotation) == unwrapped


@pytest.mark.parametrize("union", [int | str, int | str | None])
def test_a_union_of_two_types_is_left_as_it_is(union: Any) -> None:
    assert _unwrap(union) == union


class _Optional(BaseModel):
    ref: EvidenceRef | None = None
    table: dict[str, list[EvidenceRef]] | None = None


@pytest.mark.parametrize(
    ("root", "place", "found"),
    [
        (LiteratureMap, ("nodes", 0), MapNode),
        (LiteratureMap, ("nodes", 3, "evidence_refs", 1), EvidenceRef),
        (LiteratureMap, ("edges", 0, "evidence_refs", 0), EvidenceRef),
        (StructuredReport, ("sections", 0, "citations", "k0"), EvidenceRef),  # a string key of an object
        (LiteratureMap, ("$schema",), str),  # by its alias
        (_Optional, ("ref",), EvidenceRef),
        (_Optional, ("table", "a", 2), EvidenceRef),
        (LiteratureMap, (), LiteratureMap),
    ],
)
def test_the_declared_type_at_a_place(root: Any, place: tuple[str | int, ...], found: Any) -> None:
    assert model_at(root, place) is found


@pytest.mark.parametrize(
    ("root", "place"),
    [
        (LiteratureMap, ("nodes", "x")),  # a name in an array
        (LiteratureMap, ("nodes", 0, "nope")),  # no such property
        (StructuredReport, ("sections", 0, "citations", 0)),  # an index in an object
        (LiteratureMap, ("nodes", 0, "id", 0)),  # below a string
        (_Optional, ("ref", "snippet_id", "x")),
    ],
)
def test_a_place_the_models_do_not_declare_is_none(root: Any, place: tuple[str | int, ...]) -> None:
    assert model_at(root, place) is None


# --- engine.validation.rules_for: a domain's hand-written rules, failing closed -----------------------


def _importer(missing: str) -> Any:
    """An import_module for a domain ``zz`` compiled without an errors table, whose
    ``runtime.zz.checks`` fails as if ``missing`` were not installed."""
    import importlib

    real = importlib.import_module

    def fake(name: str) -> Any:
        if name == "rcs_contracts.runtime.zz.checks":
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        if name == "rcs_contracts.generated.zz.errors":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name)

    return fake


def test_a_domain_without_checks_or_errors_reports_in_the_default_domain_s_classes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import dataclasses

    from rcs_contracts.engine import validation
    from rcs_contracts.generated.cli import messages

    monkeypatch.setattr(validation.importlib, "import_module", _importer("rcs_contracts.runtime.zz.checks"))
    rules = validation.rules_for.__wrapped__("zz")
    assert rules.checks == {} and rules.errors.__name__ == f"rcs_contracts.generated.{messages.DEFAULT_DOMAIN}.errors"
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.checks = {}  # type: ignore[misc]


def test_checks_that_need_a_module_that_is_not_installed_are_an_error_not_no_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rcs_contracts.engine import validation

    monkeypatch.setattr(validation.importlib, "import_module", _importer("some_missing_library"))
    with pytest.raises(ModuleNotFoundError) as info:
        validation.rules_for.__wrapped__("zz")
    assert info.value.name == "some_missing_library"


@pytest.mark.parametrize(
    ("ref", "kind"),
    [
        ("https://rcs.example/schemas/evidence/structured_report.schema.json", "evidence/structured_report"),
        ("structured_report.schema.json#/$defs/x#y", None),
        ("schemas/evidence/structured_report.schema.json#/$defs/Section", "evidence/structured_report"),
    ],
)
def test_a_schema_ref_names_its_kind_before_any_fragment(ref: str, kind: str | None) -> None:
    from rcs_contracts.engine.kinds import kind_from_schema_ref

    found = kind_from_schema_ref(ref)
    assert (None if found is None else f"{found.domain}/{found.name}") == kind


def test_a_kind_whose_model_is_a_type_alias_is_parsed_strictly_by_an_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    # A schema that is not an object compiles to a type alias (R-GEN-3's strict verdict all the same).
    import sys
    import types

    from pydantic import ValidationError

    from rcs_contracts.engine import kinds
    from rcs_contracts.generated._support import Kind

    module = types.ModuleType("rcs_test_alias_kind")
    module.Scores = TypeAliasType("Scores", list[Annotated[float, Field(ge=0)]])  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    kind = Kind("t/scores", "t", "scores", module.__name__, "Scores", "scores.schema.json", "urn:t:scores")
    parse = kinds.parser_of.__wrapped__(kind)
    assert parse([0.5, 2]) == [0.5, 2.0]
    for bad in (["1"], [-1.0], [float("inf")]):  # strict: no string as a number; the bound; no infinity
        with pytest.raises(ValidationError):
            parse(bad)
    assert kinds.holds_untyped.__wrapped__(kind)


@pytest.mark.parametrize(
    ("kind", "untyped"),
    [
        ("evidence/literature_map", True),
        ("autoresearch/evaluation", True),
        ("evidence/structured_report", False),
        ("research/response", False),
    ],
)
def test_kinds_holding_untyped_values_are_told_apart(kind: str, untyped: bool) -> None:
    # literature_map's node metadata and an evaluation's extra fields are open: the model keeps them unchecked.
    from rcs_contracts.engine import kinds

    assert kinds.holds_untyped(kinds.resolve(kind)) is untyped


def test_an_engine_error_is_immutable_data() -> None:
    import dataclasses

    from rcs_contracts.engine.verdict import SchemaError

    error = SchemaError(("a",), "required", "'b' is a required property", ("b",), {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        error.keyword = "type"  # type: ignore[misc]
    assert error == SchemaError(("a",), "required", "'b' is a required property", ("b",), {})


def test_a_reference_outside_the_compiled_documents_is_refused_not_fetched() -> None:
    from rcs_contracts.engine.verdict import _refuse

    with pytest.raises(LookupError) as info:
        _refuse("https://example.org/elsewhere.schema.json")
    assert str(info.value) == "https://example.org/elsewhere.schema.json is not among the compiled schema documents"


CLAIM_POLICY = "rcs:///schemas/evidence/claim_policy.schema.json"


def _severity(citation_required: Any) -> dict[str, Any]:
    return {"name": "a", "citation_required": citation_required}


def test_a_message_over_the_limit_shows_value_and_one_at_the_limit_is_kept_whole() -> None:
    from rcs_contracts.engine import verdict

    # The type message is the value's JSON text plus 27 characters, so 173 and 174 characters of
    # text give messages of exactly MESSAGE_LIMIT (200) and one more.
    at, over = "x" * 173, "y" * 174
    found = verdict.errors(CLAIM_POLICY, {"severities": [_severity(at), _severity(over)]})

    assert [e.message for e in found] == [f'"{at}" is not of type "boolean"', 'value is not of type "boolean"']
    assert len(found[0].message) == verdict.MESSAGE_LIMIT == 200
    assert [e.instance for e in found] == [at, over]  # the record keeps the value the message leaves out


def test_a_message_at_the_limit_alone_is_not_masked() -> None:
    from rcs_contracts.engine import verdict

    at = "x" * 173
    (found,) = verdict.errors(CLAIM_POLICY, {"severities": [_severity(at)]})
    assert found.message == f'"{at}" is not of type "boolean"'


def test_errors_in_array_items_come_in_item_order_whatever_the_items_hold() -> None:
    from rcs_contracts.engine import verdict

    # Items 1 and 0 are also each other's indexes: a sort key that looked items up by value would
    # swap them.
    found = verdict.errors(CLAIM_POLICY, {"severities": [1, 0]})
    assert [(e.location, e.message) for e in found] == [
        (("severities", 0), '1 is not of type "object"'),
        (("severities", 1), '0 is not of type "object"'),
    ]


def test_errors_come_in_document_order_with_a_missing_property_after_its_object_s_members() -> None:
    from rcs_contracts.engine import verdict

    value = {
        "severities": [{"zz": 1, "name": "A", "aa": 2}],
        "extra": True,
    }
    found = verdict.errors(CLAIM_POLICY, value)
    assert [(e.location, e.keyword, e.names) for e in found] == [
        (("severities", 0), "additionalProperties", ("zz", "aa")),  # at "zz", the first member
        (("severities", 0, "name"), "pattern", ()),
        (("severities", 0), "required", ("citation_required",)),  # after the object's members
        ((), "additionalProperties", ("extra",)),
    ]


@pytest.mark.parametrize("keyword", ["additionalProperties", "unevaluatedProperties"])
def test_an_unexpected_property_error_names_every_property_it_did_not_expect(keyword: str) -> None:
    import jsonschema_rs

    from rcs_contracts.engine.verdict import _record

    (error,) = jsonschema_rs.validator_for({"properties": {"b": {}}, keyword: False}).iter_errors(
        {"z": 1, "b": 2, "a": 3}
    )
    record = _record(error, error.message)
    assert (record.keyword, record.names, record.location) == (keyword, ("z", "a"), ())
