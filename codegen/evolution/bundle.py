"""One schema with everything it references copied in, for a generator that resolves only ``#``.

hypothesis-jsonschema draws instances of a schema but fetches no other document. ``bundle`` copies
the subschema at ``uri#pointer`` and every document it reaches by ``$ref`` into one schema: each
document goes under ``$defs`` by a slot name, and every reference is rewritten to point into its
slot. What cannot be rewritten faithfully (an anchor, a ``$dynamicRef``, a nested ``$id``, a
document the side does not hold) gives None: the generator is then not used, and a witness can only
come from the other sources (SPEC.md 2.7). Only generation depends on this copy; every witness is
judged on the real documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urljoin

from rcs_contracts.codegen.engine import URI_BASE
from rcs_contracts.codegen.keywords import DATA, objects

SLOTS = "$defs"
_DROPPED = ("$id", "$schema", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary")


class _Unbundlable(Exception):
    pass


def join(base: str, reference: str) -> str:
    """``reference`` resolved against ``base`` (``urljoin`` knows only registered schemes, so an
    ``rcs:///`` base is joined as the ``file:///`` URI of the same path)."""
    if base.startswith(URI_BASE):
        joined = urljoin("file:///" + base[len(URI_BASE) :], reference)
        return URI_BASE + joined[len("file:///") :] if joined.startswith("file:///") else joined
    return urljoin(base, reference)


def resolve(document: Any, pointer: str) -> Any:
    """The value at JSON pointer ``pointer`` (unescaped, RFC 6901) of ``document``; raises KeyError."""
    current = document
    if not pointer:
        return current
    for raw in pointer.lstrip("/").split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            raise KeyError(pointer)
    return current


def bundle(documents: Mapping[str, Any], uri: str, pointer: str = "") -> Any | None:
    """The subschema at ``uri#pointer`` with every document it references in ``$defs``, or None."""
    slots: dict[str, str] = {}
    copies: dict[str, Any] = {}

    def slot(target: str) -> str:
        if target not in documents:
            raise _Unbundlable(target)
        if target not in slots:
            slots[target] = f"rcs{len(slots)}"
            copies[target] = None  # placeholder: a document may reference itself
            copies[target] = rewrite(documents[target], target)
        return slots[target]

    def rewrite(schema: Any, base: str) -> Any:
        if isinstance(schema, list):
            return [rewrite(item, base) for item in schema]
        if not isinstance(schema, dict):
            return schema
        node: dict[str, Any] = schema
        if "$dynamicRef" in node or ("$id" in node and node is not documents.get(base)):
            raise _Unbundlable(base)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED:
                continue
            if key == "$ref":
                target, _, fragment = join(base, value).partition("#")
                if fragment and not fragment.startswith("/"):
                    raise _Unbundlable(value)  # an anchor
                out[key] = f"#/{SLOTS}/{slot(target)}{fragment}"
            elif key in DATA:
                out[key] = value
            else:
                out[key] = rewrite(value, base)
        return out

    try:
        root = rewrite(resolve(documents[uri], pointer), uri)
    except (_Unbundlable, KeyError, RecursionError):
        return None
    if not slots:
        return root
    return {"allOf": [root], SLOTS: {slots[t]: copies[t] for t in slots}}


def reachable(documents: Mapping[str, Any], uri: str) -> frozenset[str]:
    """The documents ``uri``'s schema reaches by ``$ref``, itself included (unknown ones left out)."""
    seen = {uri}
    stack = [uri]
    while stack:
        current = stack.pop()
        for node in objects(documents.get(current)):
            reference = node.get("$ref")
            if isinstance(reference, str):
                target = join(current, reference).partition("#")[0]
                if target in documents and target not in seen:
                    seen.add(target)
                    stack.append(target)
    return frozenset(seen)
