"""``rcs odr run ROUNDS.jsonl [--config CONFIG.json]``: read rounds, print one trace record per line.

Stops reading at the first stop reason. Bad input exits 2 with the line number and the reason;
records already printed stay printed (a trace of what did run).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import TextIO

import pydantic_core

from rcs_contracts.base.exit_status import EXIT_OK, EXIT_USAGE
from rcs_contracts.engine import inputs, kinds, validation
from rcs_contracts.generated._support import RcsError, format_location
from rcs_contracts.generated.cli import messages as M
from rcs_contracts.generated.cli.limits import Input
from rcs_contracts.generated.odr import errors as E
from rcs_contracts.generated.odr.config_schema import KIND as CONFIG_KIND
from rcs_contracts.generated.odr.config_schema import ODRConfig
from rcs_contracts.runtime.odr.core import SIDES, ODRState, run_round
from rcs_contracts.runtime.odr.text import BOM
from rcs_contracts.safeio import files
from rcs_contracts.safeio.terminal import printable, printable_json


def load_config(path: str) -> ODRConfig:
    """A config file validated against its schema (R-GEN-3); raises the first violation."""
    raw = inputs.read_bytes(path, Input.ODR_CONFIG)
    model = validation.validate(kinds.resolve(CONFIG_KIND), raw, validation.Context())
    assert isinstance(model, ODRConfig)
    # The file's "$schema" locates the schema for editors; it is not part of the run's config.
    return ODRConfig(**model.model_dump(exclude={"field_schema"}))


def lines_of(raw: bytes) -> Iterator[str]:
    """The lines of a rounds file, each decoded as UTF-8 only when reached (UnicodeDecodeError then).

    Lines end at ``\n``, ``\r\n`` or ``\r``, as text-mode reading splits them; a bad byte on a
    late line leaves the records of the rounds before it printed.
    """
    for line in raw.splitlines():
        yield line.decode("utf-8")


def rounds(lines: Iterator[str]) -> Iterator[tuple[int, str, str]]:
    """(line number, architect, auditor) for each non-blank line; RoundInputError for a bad one."""
    for number, line in enumerate(lines, 1):
        if number == 1:
            line = line.removeprefix(BOM)
        if not line.strip():
            continue
        try:
            data = pydantic_core.from_json(line, allow_inf_nan=False)
        except ValueError as exc:
            raise E.round_not_json(line=number, detail=str(exc)) from None
        if not isinstance(data, dict):
            raise E.round_not_an_object(line=number, found=type(data).__name__)
        for side in SIDES:
            if side not in data:
                raise E.round_missing_field(line=number, field=side)
            if not isinstance(data[side], str):
                raise E.round_not_a_string(line=number, field=side)
        for extra in data:
            if extra not in SIDES:
                raise E.round_unknown_field(line=number, field=str(extra), known=", ".join(SIDES))
        yield number, data[SIDES[0]], data[SIDES[1]]


def _refuse(problem: str, err: TextIO) -> int:
    """Say why the input cannot be used (others' text escaped); exit status 2."""
    print(printable(M.odr_prefix(problem=problem)), file=err)
    return EXIT_USAGE


def run(path: str, config_path: str | None, out: TextIO, err: TextIO) -> int:
    """Run the rounds of ``path``; returns the exit status."""
    try:
        config = load_config(config_path) if config_path else ODRConfig()
        state = ODRState(config=config)
    except OSError as exc:
        return _refuse(M.unreadable(path=str(config_path), reason=files.reason(exc)), err)
    except RcsError as exc:
        where = f" (at {format_location(exc.location)})" if exc.location else ""
        return _refuse(M.odr_bad_config(path=str(config_path), detail=f"{exc}{where}"), err)
    try:
        raw = inputs.read_bytes(path, Input.ODR_ROUNDS)
    except OSError as exc:
        return _refuse(M.unreadable(path=path, reason=files.reason(exc)), err)
    try:
        for _, architect, auditor in rounds(lines_of(raw)):
            state = run_round(state, architect, auditor)
            try:
                last = state.trace[-1]
                # mutation: equivalent: mode= and by_alias= (next line): a trace record holds only
                # JSON types, and its one aliased field ($schema) is never set on a record rcs writes
                record = last.model_dump(mode="json", by_alias=True)
                out.write(printable_json(json.dumps(record, ensure_ascii=False)) + "\n")
                out.flush()
            except BrokenPipeError:
                # The reader is gone (`| head`): stop quietly; nothing more can be delivered.
                os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
                break
            if state.stop_reason is not None:
                break
    except UnicodeDecodeError as exc:
        return _refuse(M.unreadable(path=path, reason=f"not UTF-8 ({exc.reason})"), err)
    except RcsError as exc:
        return _refuse(f"{path}: {exc}", err)
    out.flush()
    if state.stop_reason is not None:
        summary = M.odr_stopped(rounds=len(state.trace), reason=state.stop_reason, stable_count=state.stable_count)
    else:
        summary = M.odr_not_stopped(rounds=len(state.trace), stable_count=state.stable_count)
    print(printable(M.odr_prefix(problem=summary)), file=err)
    return EXIT_OK


def main(path: str, config_path: str | None) -> int:
    """Entry point used by ``runtime.cli``."""
    return run(path, config_path, sys.stdout, sys.stderr)
