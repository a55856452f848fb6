"""State files: read and validate against their schemas; write atomically (R-AR-7).

Every JSON file the supervisor reads goes through its generated model, and every file it writes
is a model it has just validated: temp file in the same directory, fsync, rename, fsync the
directory. A crash leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from rcs_contracts.engine import inputs, kinds, validation
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.safeio import files as safe_files

M = TypeVar("M", bound=BaseModel)  # mutation: equivalent: a TypeVar's name is read by type checkers only


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (safeio.files.write_text), making its folder first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    safe_files.write_text(path, text)


def dumps(model: BaseModel) -> str:
    """The JSON text of a model: its schema's field names, two-space indent, trailing newline."""
    data = model.model_dump(
        # mutation: equivalent: these models hold JSON types only (their times are strings): both modes agree
        mode="json",
        by_alias=True,
    )
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _plain(value: object) -> str:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    raise TypeError(f"not JSON: {type(value).__name__}")


def _checked(model: type[M], text: str) -> M:
    """The model of ``text``: the schema's full verdict for a kind's model, the model's own for a part."""
    kind = kinds.kind_of_model(model)
    if kind is None:
        return model.model_validate_json(text)
    parsed = validation.validate(kind, text, validation.Context())
    assert isinstance(parsed, model)
    return parsed


def build(model: type[M], data: Mapping[str, Any]) -> M:
    """A model from plain data, validated exactly as its JSON file would be (datetimes as RFC 3339)."""
    return _checked(model, json.dumps(data, default=_plain))


def write_model(path: Path, model: BaseModel) -> None:
    """Validate ``model`` once more through its JSON text (its schema's verdict), then write it atomically."""
    text = dumps(model)
    _checked(type(model), text)  # write only what validates
    write_text(path, text)


def read_model(path: Path, kind: str, model: type[M], what: Input = Input.RUN_STATE) -> M:
    """The validated model of a JSON file of ``kind`` (``autoresearch/<name>``), read as an input of
    kind ``what`` (its cap; never through a symlink); raises OSError or the domain's errors."""
    parsed = validation.validate(kinds.resolve(kind), inputs.read_bytes(path, what), validation.Context())
    assert isinstance(parsed, model)
    return parsed


def parse_model(text: str | bytes, kind: str, model: type[M]) -> M:
    """The validated model of JSON text of ``kind``; raises the domain's errors."""
    parsed = validation.validate(kinds.resolve(kind), text, validation.Context())
    assert isinstance(parsed, model)
    return parsed
