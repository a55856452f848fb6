"""Single-keyword edits of a small project, each with the class ``rcs schema diff`` must give it.

``expect`` lists (direction, status) pairs: the direction a claim breaks (``backward``: valid
before, invalid now; ``forward``: the reverse; ``compatible``) and whether a witness proves it
(``breaking``) or none exists (``possibly``). An edit that changes nothing expects nothing.
Shared by tests/codegen/test_schema_diff_edits.py and bench/schema_diff.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
B, F = "backward", "forward"
BREAKS, MAYBE, COMPATIBLE = "breaking", "possibly", "compatible"

ORDER: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "order.schema.json",
    "title": "Order",
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "qty", "status"],
    "properties": {
        "$schema": {"type": "string"},
        "id": {"type": "string", "pattern": "^o-[0-9]+$", "minLength": 3, "maxLength": 20},
        "qty": {"type": "integer", "minimum": 1, "maximum": 100, "multipleOf": 1},
        "price": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10000},
        "status": {"enum": ["new", "paid", "shipped"]},
        "currency": {"const": "EUR"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 0, "maxItems": 5},
        "note": {"type": ["string", "null"], "description": "free text"},
        "meta": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "propertyNames": {"pattern": "^[a-z]+$"},
            "maxProperties": 5,
        },
        "email": {"type": "string", "format": "email"},
        "ship": {"$ref": "#/$defs/Address"},
        "gift": {"type": "boolean"},
        "kind": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "code": {"oneOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]},
        "flags": {"allOf": [{"type": "array"}]},
        "choice": {"not": {"const": "x"}},
        "discount": {"if": {"type": "number"}, "then": {"maximum": 50}, "else": {"type": "string"}},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        "tail": {"type": "array", "items": {"type": "integer"}},
        "nick": {"not": {"$ref": "#/$defs/Banned"}},
    },
    "dependentRequired": {"gift": ["note"]},
    "dependentSchemas": {"price": {"required": ["currency"]}},
    "$defs": {
        "Banned": {"type": "string", "maxLength": 2},
        "Address": {
            "title": "Address",
            "type": "object",
            "additionalProperties": False,
            "required": ["city"],
            "properties": {"city": {"type": "string", "minLength": 1}, "zip": {"type": "string"}},
        }
    },
}
INVOICE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "invoice.schema.json",
    "title": "Invoice",
    "type": "object",
    "required": ["number"],
    "properties": {"number": {"type": "integer", "minimum": 1}},
}
ERRORS: dict[str, Any] = {
    "$schema": "../tables/errors.schema.json",
    "base": {"name": "ShopError", "doc": "Base of the shop errors."},
    "classes": [{"name": "SchemaViolationError", "doc": "The schema rejects the order."}],
    "codes": [
        {
            "code": "SCHEMA_VIOLATION",
            "class": "SchemaViolationError",
            "message": "{detail}",
            "fields": {"detail": "str"},
        },
        {
            "code": "SCHEMA_MISSING_PROPERTY",
            "class": "SchemaViolationError",
            "message": "Required property '{name}' is missing",
            "fields": {"name": "str"},
        },
        {
            "code": "SCHEMA_UNKNOWN_PROPERTY",
            "class": "SchemaViolationError",
            "message": "Property '{name}' is not allowed by the schema",
            "fields": {"name": "str"},
        },
    ],
}
CONTRACT: dict[str, Any] = {
    "$schema": "../tables/contract.schema.json",
    "contract_version": "1.0.0",
    "changelog": [{"version": "1.0.0", "changes": ["first"]}],
}
PYPROJECT = '[tool.rcs]\nhouse-style = false\ngenerated = "shop_contracts"\n'


@dataclass(frozen=True)
class Edit:
    """One edit of the base project and what the diff must say about it."""

    name: str
    change: Callable[[dict[str, Any], dict[str, Any]], None]  # (kinds by name, tables by name)
    expect: tuple[tuple[str, str], ...]


def base() -> tuple[dict[str, Any], dict[str, Any]]:
    """Deep copies of the base kinds and tables."""
    return copy.deepcopy({"order": ORDER, "invoice": INVOICE}), copy.deepcopy({"errors": ERRORS, "contract": CONTRACT})


def write_project(root: Path, kinds: dict[str, Any], tables: dict[str, Any]) -> None:
    """The project at ``root``: its kinds, tables, table schemas and settings, replacing what is there."""
    folder = root / "schemas" / "shop"
    folder.mkdir(parents=True, exist_ok=True)
    (root / "schemas" / "tables").mkdir(exist_ok=True)
    for name in ("errors", "contract"):
        source = ROOT / "schemas" / "tables" / f"{name}.schema.json"
        (root / "schemas" / "tables" / source.name).write_bytes(source.read_bytes())
    for old in folder.iterdir():
        old.unlink()
    for name, schema in kinds.items():
        (folder / f"{name}.schema.json").write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    for name, table in tables.items():
        # A plain copy: an edit may share an object between two places, which YAML would alias.
        plain = json.loads(json.dumps(table))
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(plain, sort_keys=False), encoding="utf-8")
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")


def _order(edit: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    def apply(kinds: dict[str, Any], tables: dict[str, Any]) -> None:
        edit(kinds["order"])

    return apply


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = schema["properties"]
    return props


def _set(path: str, value: Any) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    """Set the value at a /-separated path of the order schema (creating nothing but the last key)."""

    def edit(schema: dict[str, Any]) -> None:
        *parents, last = path.strip("/").split("/")
        node = schema
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list) and int(last) == len(node):
            node.append(value)  # one index past the end: a new item
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return _order(edit)


def _drop(path: str) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    def edit(schema: dict[str, Any]) -> None:
        *parents, last = path.strip("/").split("/")
        node = schema
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            del node[int(last)]
        else:
            del node[last]

    return _order(edit)


def _table(edit: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    def apply(kinds: dict[str, Any], tables: dict[str, Any]) -> None:
        edit(tables["errors"])

    return apply


def _kinds(edit: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any], dict[str, Any]], None]:
    def apply(kinds: dict[str, Any], tables: dict[str, Any]) -> None:
        edit(kinds)

    return apply


P = "/properties"
BB = ((B, BREAKS),)
FB = ((F, BREAKS),)
OK = (("compatible", COMPATIBLE),)

EDITS: tuple[Edit, ...] = (
    # annotations: never a change of what is valid
    Edit("description changed", _set(f"{P}/note/description", "any text"), OK),
    Edit("title changed", _set("/title", "PurchaseOrder"), OK),
    Edit("examples added", _set(f"{P}/qty/examples", [3]), OK),
    Edit("default added", _set(f"{P}/qty/default", 1), OK),
    Edit("$comment added", _set("/$comment", "reviewed"), OK),
    Edit("deprecated added", _set(f"{P}/gift/deprecated", True), OK),
    Edit("enum reordered", _set(f"{P}/status/enum", ["shipped", "new", "paid"]), ()),
    Edit("required reordered", _set("/required", ["status", "id", "qty"]), ()),
    # required
    Edit("required added", _set("/required", ["id", "qty", "status", "price"]), BB),
    Edit("required removed", _set("/required", ["id", "qty"]), FB),
    # type
    Edit("type narrowed", _set(f"{P}/note/type", "string"), BB),
    Edit("type widened", _set(f"{P}/gift/type", ["boolean", "null"]), FB),
    Edit("integer to number", _set(f"{P}/qty/type", "number"), ((F, MAYBE),)),
    Edit("number to integer", _set(f"{P}/price/type", "integer"), BB),
    Edit("type changed", _set(f"{P}/tags/items/type", "integer"), ((B, BREAKS), (F, BREAKS))),
    # enum and const
    Edit("enum value removed", _set(f"{P}/status/enum", ["new", "paid"]), BB),
    Edit("enum value added", _set(f"{P}/status/enum", ["new", "paid", "shipped", "cancelled"]), FB),
    Edit("const changed", _set(f"{P}/currency/const", "USD"), ((B, BREAKS), (F, BREAKS))),
    Edit("const removed", _drop(f"{P}/currency/const"), FB),
    Edit("const added", _set(f"{P}/gift/const", True), BB),
    Edit("enum added", _set(f"{P}/kind/enum", ["a", "b", 1]), BB),
    # numbers
    Edit("minimum raised", _set(f"{P}/qty/minimum", 2), BB),
    Edit("minimum lowered", _set(f"{P}/qty/minimum", 0), FB),
    Edit("maximum lowered", _set(f"{P}/qty/maximum", 50), BB),
    Edit("maximum raised", _set(f"{P}/qty/maximum", 500), FB),
    Edit("maximum removed", _drop(f"{P}/qty/maximum"), FB),
    Edit("minimum added", _set(f"{P}/price/minimum", 5), BB),
    Edit("exclusiveMinimum raised", _set(f"{P}/price/exclusiveMinimum", 1), BB),
    Edit("exclusiveMaximum lowered", _set(f"{P}/price/exclusiveMaximum", 100), BB),
    Edit("exclusiveMaximum removed", _drop(f"{P}/price/exclusiveMaximum"), FB),
    Edit("multipleOf added", _set(f"{P}/price/multipleOf", 0.5), BB),
    Edit("multipleOf narrowed", _set(f"{P}/qty/multipleOf", 2), BB),
    Edit("multipleOf widened", _set(f"{P}/qty/multipleOf", 0.5), ((F, MAYBE),)),
    # strings
    Edit("minLength raised", _set(f"{P}/id/minLength", 4), BB),
    Edit("maxLength lowered", _set(f"{P}/id/maxLength", 10), BB),
    Edit("maxLength raised", _set(f"{P}/id/maxLength", 40), FB),
    Edit("pattern tightened", _set(f"{P}/id/pattern", "^o-[0-9]{2,}$"), ((B, BREAKS), (F, MAYBE))),
    Edit("pattern loosened", _set(f"{P}/id/pattern", "^[a-z]-[0-9]+$"), ((B, MAYBE), (F, BREAKS))),
    Edit("pattern removed", _drop(f"{P}/id/pattern"), FB),
    Edit("pattern added", _set(f"{P}/note/pattern", "^[A-Z]"), BB),
    Edit("format added", _set(f"{P}/note/format", "email"), BB),
    Edit("format removed", _drop(f"{P}/email/format"), FB),
    # arrays
    Edit("minItems raised", _set(f"{P}/tags/minItems", 1), BB),
    Edit("maxItems lowered", _set(f"{P}/tags/maxItems", 2), BB),
    Edit("uniqueItems added", _set(f"{P}/tags/uniqueItems", True), BB),
    Edit("contains added", _set(f"{P}/tags/contains", {"const": "vip"}), BB),
    Edit("prefixItems changed", _set(f"{P}/pair/prefixItems/1/type", "string"), ((B, BREAKS), (F, BREAKS))),
    # A definition used under `not`: lowering its maxLength admits what was banned (forward only).
    Edit("definition under not tightened", _set("/$defs/Banned/maxLength", 1), ((B, MAYBE), (F, BREAKS))),
    Edit("prefixItems added", _set(f"{P}/pair/prefixItems/2", {"type": "boolean"}), BB),
    Edit("prefixItems removed", _drop(f"{P}/pair/prefixItems/1"), FB),
    Edit(
        "prefixItems added before items",
        _set(f"{P}/tail/prefixItems", [{"type": "string"}]),
        ((B, BREAKS), (F, BREAKS)),
    ),
    # objects
    Edit("object opened", _set("/additionalProperties", True), FB),
    Edit("additionalProperties closed", _set(f"{P}/meta/additionalProperties", False), BB),
    Edit("propertyNames tightened", _set(f"{P}/meta/propertyNames/pattern", "^[a-z]{2,}$"), ((B, BREAKS), (F, MAYBE))),
    Edit("maxProperties lowered", _set(f"{P}/meta/maxProperties", 1), BB),
    Edit("minProperties added", _set(f"{P}/meta/minProperties", 1), BB),
    Edit("property added to closed object", _set(f"{P}/coupon", {"type": "string"}), FB),
    Edit("property removed from closed object", _drop(f"{P}/email"), BB),
    Edit("dependentRequired added", _set("/dependentRequired/note", ["price"]), BB),
    Edit("dependentRequired removed", _drop("/dependentRequired/gift"), FB),
    Edit("dependentSchemas removed", _drop("/dependentSchemas/price"), FB),
    # references and definitions
    Edit("definition tightened", _set("/$defs/Address/properties/city/minLength", 2), BB),
    Edit("definition requires more", _set("/$defs/Address/required", ["city", "zip"]), BB),
    Edit(
        "reference changed", _set(f"{P}/ship", {"$ref": "#/$defs/Address/properties/city"}), ((B, BREAKS), (F, BREAKS))
    ),
    Edit("unused definition added", _set("/$defs/Unused", {"type": "string"}), OK),
    # applicators
    Edit("anyOf branch removed", _set(f"{P}/kind/anyOf", [{"type": "string"}]), BB),
    Edit("anyOf branch added", _set(f"{P}/kind/anyOf/2", {"type": "boolean"}), FB),
    Edit("oneOf branch tightened", _set(f"{P}/code/oneOf/0/maxLength", 2), ((B, BREAKS), (F, MAYBE))),
    Edit("allOf branch added", _set(f"{P}/flags/allOf/1", {"maxItems": 3}), BB),
    Edit("not changed", _set(f"{P}/choice/not/const", "y"), ((B, BREAKS), (F, BREAKS))),
    Edit("then tightened", _set(f"{P}/discount/then/maximum", 40), BB),
    Edit("else changed", _set(f"{P}/discount/else/type", "boolean"), ((B, BREAKS), (F, BREAKS))),
    Edit("if changed", _set(f"{P}/discount/if/type", "integer"), ((B, BREAKS), (F, MAYBE))),
    # kinds
    Edit(
        "property added to an open object",
        _kinds(lambda kinds: kinds["invoice"]["properties"].update(due={"type": "string"})),
        BB,
    ),
    Edit(
        "property removed from an open object",
        _kinds(lambda kinds: kinds["invoice"]["properties"].pop("number")),
        FB,
    ),
    Edit("kind removed", _kinds(lambda kinds: kinds.pop("invoice")), BB),
    Edit("kind added", _kinds(lambda kinds: kinds.update(refund={**INVOICE, "$id": "refund.schema.json"})), FB),
    # rule tables
    Edit("error code removed", _table(lambda t: t["codes"].pop(2)), BB),
    Edit("error code added", _table(lambda t: t["codes"].append({**t["codes"][0], "code": "NEW_CODE"})), FB),
    Edit(
        "message placeholders changed",
        _table(lambda t: t["codes"][1].update(message="Missing {field}", fields={"field": "str"})),
        ((B, BREAKS), (F, BREAKS)),
    ),
    Edit("message reworded", _table(lambda t: t["codes"][1].update(message="Property '{name}' is required")), OK),
    Edit("codes reordered", _table(lambda t: t["codes"].reverse()), BB),
    Edit("class doc reworded", _table(lambda t: t["classes"][0].update(doc="Rejected by the schema.")), OK),
)
