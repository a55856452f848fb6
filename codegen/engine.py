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

from rcs_contracts.codegen.keywords import objects

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
# Patterns run on the regex crate, whose matching is linear in the text whatever the pattern: no
# schema can make a verdict slow. Its price: no look-around and no backreferences (lint names them).
PATTERN_OPTIONS = "RegexOptions"


def pattern_options() -> Any:
    """The engine's pattern options, as ``validator_for(pattern_options=...)`` takes them."""
    return getattr(jsonschema_rs, PATTERN_OPTIONS)()


# RFC 3339 5.6's grammar (full-date, full-time, date-time) with ASCII digits. jsonschema-rs 0.60.3
# takes "*+,-./" for a digit in these three formats; the runtime checks these shapes as well as the
# engine's own test (runtime/engine.py), which keeps deciding ranges, leap years and leap seconds.
_DATE = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_TIME = "[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.][0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"
FORMAT_SHAPES: Mapping[str, str] = {"date": _DATE, "time": _TIME, "date-time": f"{_DATE}[Tt]{_TIME}"}

# The engine reads "." and "\b" as Rust's regex does; ECMA-262, which draft 2020-12 names, means:
_ECMA_DOT = "[^\n\r\u2028\u2029]"  # any character but a line terminator
# ECMA-262's word characters are ASCII (also under the u flag): the regex crate's ASCII boundaries.
_ECMA_BOUNDARY = "(?-u:\\b)"
_ECMA_NON_BOUNDARY = "(?-u:\\B)"


def ecma_pattern(pattern: str) -> str:
    """``pattern`` with ``.``, ``\b`` and ``\\B`` spelled out as ECMA-262 means them, for the engine.

    Everything else is left to the engine, whose reading agrees with ECMA-262 there (shown by the
    suite's ecmascript-regex tests and a differential run against node). Inside a character class
    ``.`` is a dot and ``\b`` a backspace in both, so classes are copied as they are.
    """
    out: list[str] = []
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            pair = pattern[index : index + 2]
            if not in_class and pair == "\\b":
                out.append(_ECMA_BOUNDARY)
            elif not in_class and pair == "\\B":
                out.append(_ECMA_NON_BOUNDARY)
            else:
                out.append(pair)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("[]", index) or pattern.startswith("[^]", index):
                # "[]" (nothing) and "[^]" (anything): ECMA-262 classes whose "]" does not close them
                closing = index + (2 if pattern[index + 1] == "]" else 3)
                out.append(pattern[index:closing])
                index, in_class = closing, False
                continue
        elif char == ".":
            out.append(_ECMA_DOT)
            index += 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def rewritten_patterns(schema: Any) -> dict[str, str]:
    """Every pattern ``engine_document`` changes: as the engine reads it -> as the schema wrote it."""
    found: dict[str, str] = {}
    for current in objects(schema):
        written = [current["pattern"]] if isinstance(current.get("pattern"), str) else []
        if isinstance(current.get("patternProperties"), dict):
            written.extend(current["patternProperties"])
        found.update((ecma_pattern(p), p) for p in written if ecma_pattern(p) != p)
    return found


def engine_document(schema: Any) -> Any:
    """The schema as the engine compiles it: every ``pattern`` and ``patternProperties`` regex in
    ECMA-262's reading (``ecma_pattern``); everything else unchanged."""
    if isinstance(schema, list):
        return [engine_document(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str):
            out[key] = ecma_pattern(value)
        elif key == "patternProperties" and isinstance(value, dict):
            out[key] = {ecma_pattern(k): engine_document(v) for k, v in value.items()}
        elif key in ("const", "enum", "default", "examples"):
            out[key] = value  # data, not schemas
        else:
            out[key] = engine_document(value)
    return out


def uri_of(rel: str) -> str:
    """The URI of a project file, from its path relative to the project root."""
    return URI_BASE + rel


def refuse(uri: str) -> Any:
    """The engine's retriever: nothing is fetched; every document must be in the registry."""
    raise LookupError(f"{uri} is not a schema of this project or a configured resource")


def registry(documents: Iterable[tuple[str, Any]]) -> jsonschema_rs.Registry:
    """A registry of ``(uri, document)`` pairs, as the engine reads them, that never retrieves anything else."""
    return jsonschema_rs.Registry([(uri, engine_document(doc)) for uri, doc in documents], retriever=refuse)


def compile_schema(document: Any, uri: str, known: jsonschema_rs.Registry) -> jsonschema_rs.Validator:
    """A validator for ``document`` (at ``uri``) as the runtime builds it; raises the engine's errors.

    (The runtime also holds dates and times to ``FORMAT_SHAPES``; the compiler judges only rule
    tables and defaults with it, and no table schema uses those formats.)
    """
    return jsonschema_rs.validator_for(
        engine_document(document),
        registry=known,
        base_uri=uri,
        retriever=refuse,
        pattern_options=pattern_options(),
        **OPTIONS,
    )


def compact(document: Any) -> str:
    """The JSON text the runtime loads: key order kept, ASCII only (a lone surrogate cannot reach a file)."""
    return json.dumps(document, ensure_ascii=True, separators=(",", ":"))
