"""Verify: import the rendered models before anything is written, and check each kind's model.

The generator has corners a schema can reach (a name pydantic reserves, a class it renames to avoid a
clash): a model module that cannot be imported, or a kind bound to a class that is not its root,
would surface only at validation time as an internal error. Here every rendered model module is
imported from a private package, and each kind's model must be a model whose fields are exactly the
properties of its schema's view. A failure refuses the schema with ``file:line: message``.
"""

from __future__ import annotations

import importlib
import re
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rcs_contracts.base.about import GENERATED_PACKAGE
from rcs_contracts.codegen.diagnostics import Diagnostic

_GENERATED_IMPORT = re.compile(rf"^from {re.escape(GENERATED_PACKAGE)}(\.|\s)", re.MULTILINE)


def _fields(model: Any) -> set[str] | None:
    """The JSON names a model class reads, or None when it is not a model class."""
    fields = getattr(model, "model_fields", None)
    if not isinstance(model, type) or not isinstance(fields, dict):
        return None
    return {info.alias or name for name, info in fields.items()}


def check(
    bodies: Mapping[str, str],
    kinds: list[dict[str, Any]],
    views: Mapping[str, dict[str, Any]],
    project_package: str = GENERATED_PACKAGE,
) -> Iterator[Diagnostic]:
    """Problems of the rendered models: ``bodies`` by output path, ``kinds`` and ``views`` by schema
    path; ``project_package`` is the import name the kinds give their modules."""
    package = f"_rcs_verify_{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory(prefix="rcs-verify-") as temp:
        root = Path(temp) / package
        for rel, body in bodies.items():
            if not rel.endswith(".py"):
                continue
            path = root / rel.removeprefix("generated/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_GENERATED_IMPORT.sub(lambda m: f"from {package}{m[1]}", body), encoding="utf-8")
        sys.path.insert(0, temp)
        try:
            yield from _check_kinds(package, kinds, views, project_package)
        finally:
            sys.path.remove(temp)
            for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
                del sys.modules[name]


def _check_kinds(
    package: str, kinds: list[dict[str, Any]], views: Mapping[str, dict[str, Any]], project_package: str
) -> Iterator[Diagnostic]:
    refusal = "rcs cannot build a model for this schema"
    for kind in kinds:
        module_name = kind["module"].replace(f"{project_package}.", f"{package}.", 1)
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # anything the generated code raises on import
            yield Diagnostic(kind["schema"], 1, f"{refusal}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
            continue
        model = getattr(module, kind["model"], None)
        view = views[kind["schema"]]
        wanted = set(view.get("properties", {})) if view.get("type") == "object" else None
        if model is None:
            yield Diagnostic(kind["schema"], 1, f"{refusal}: no {kind['model']}")
        elif getattr(module, "KIND", None) != kind["kind"]:  # render refuses what would hide it; kept honest here
            yield Diagnostic(kind["schema"], 1, f"{refusal}: its module's KIND is not {kind['kind']!r}")
        elif wanted is not None and _fields(model) != wanted:
            yield Diagnostic(
                kind["schema"],
                1,
                f"{refusal}: the generated {kind['model']} is not its root "
                f"(it reads {sorted(_fields(model) or [])}, the schema {sorted(wanted)})",
            )
