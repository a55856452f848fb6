"""The JSON Schema engine as the compiler sees it: options, URIs, and compiling every schema once.

The verdict on an artifact is jsonschema-rs's, a full draft 2020-12 implementation. The compiler
fixes how it is called (``OPTIONS``), names every document by a URI that does not depend on the
machine (``uri_of``), and compiles each schema with the same registry the runtime will build from
``generated/_documents.py``, so that a schema the engine cannot compile never reaches the runtime.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import jsonschema_rs

# Every document is named rcs:///<path from the project root>: hierarchical, so relative $ids and
# $refs resolve between files exactly as between the files on disk, and never fetchable.
URI_BASE = "rcs:///"

# Formats are assertions in rcs (issue "the schema is the verdict"): these are the formats of draft
# 2020-12 that the engine asserts as the official suite's optional/format tests say (the
# conformance runner proves it). Any other format name is refused by lint.
ASSERTED_FORMATS = frozenset(
    {
        "date",
        "date-time",
        "duration",
        "email",
        "hostname",
        "idn-email",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "iri",
        "iri-reference",
        "json-pointer",
        "regex",
        "relative-json-pointer",
        "time",
        "uri",
        "uri-reference",
        "uri-template",
        "uuid",
    }
)

# Keyword arguments of jsonschema_rs.validator_for besides the schema, registry and base URI.
OPTIONS: Mapping[str, Any] = {"validate_formats": True, "ignore_unknown_formats": False}


def uri_of(rel: str) -> str:
    """The URI of a project file, from its path relative to the project root."""
    return URI_BASE + rel


def refuse(uri: str) -> Any:
    """The engine's retriever: nothing is fetched; every document must be in the registry."""
    raise LookupError(f"{uri} is not a schema of this project or a configured resource")


def registry(documents: Iterable[tuple[str, Any]]) -> jsonschema_rs.Registry:
    """A registry of ``(uri, document)`` pairs that never retrieves anything else."""
    return jsonschema_rs.Registry(list(documents), retriever=refuse)


def compile_schema(document: Any, uri: str, known: jsonschema_rs.Registry) -> jsonschema_rs.Validator:
    """A validator for ``document`` (at ``uri``) exactly as the runtime builds it; raises the engine's errors."""
    return jsonschema_rs.validator_for(document, registry=known, base_uri=uri, retriever=refuse, **OPTIONS)


def compact(document: Any) -> str:
    """The JSON text the runtime loads: key order kept, ASCII only (a lone surrogate cannot reach a file)."""
    return json.dumps(document, ensure_ascii=True, separators=(",", ":"))
