"""``rcs odr run ROUNDS.jsonl [--config CONFIG.json]``: read rounds, print one trace record per line.

Stops reading at the first stop reason. Bad input exits 2 with the line number and the reason;
records already printed stay printed (a trace of what did run).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pydantic_core

from generated._support import RcsError
from generated.cli import messages as M
from generated.odr import errors as E
from generated.odr.config_schema import ODRConfig
from runtime import kinds, validation
from runtime.odr.core import ODRState, run_round

EXIT_OK, EXIT_USAGE = 0, 2
CONFIG_KIND = "odr/config"


def load_config(path: str) -> ODRConfig:
    """A config file validated against its schema (R-GEN-3); raises the first violation."""
    raw = Path(path).read_bytes()
    model = validation.validate(kinds.resolve(CONFIG_KIND), raw, validation.Context())
    assert isinstance(model, ODRConfig)
    # The file's "$schema" locates the schema for editors; it is not part of the run's config.
    return ODRConfig(**model.model_dump(exclude={"field_schema"}))


def rounds(lines: Iterator[str]) -> Iterator[tuple[int, str, str]]:
    """(line number, architect, auditor) for each non-blank line; RoundInputError for a bad one."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = pydantic_core.from_json(line, allow_inf_nan=False)
        except ValueError as exc:
            raise E.round_not_json(line=number, detail=str(exc)) from None
        if not isinstance(data, dict):
            raise E.round_not_json(line=number, detail=f"found {type(data).__name__}")
        extra = sorted(set(data) - {"architect", "auditor"})
        missing = [k for k in ("architect", "auditor") if k not in data]
        wrong = [k for k in ("architect", "auditor") if k in data and not isinstance(data[k], str)]
        if missing or extra or wrong:
            detail = "; ".join(
                part
                for part in (
                    f"missing {', '.join(missing)}" if missing else "",
                    f"unexpected {', '.join(extra)}" if extra else "",
                    f"not a string: {', '.join(wrong)}" if wrong else "",
                )
                if part
            )
            raise E.round_bad_field(line=number, detail=detail)
        yield number, data["architect"], data["auditor"]


def run(path: str, config_path: str | None, out: TextIO, err: TextIO) -> int:
    """Run the rounds of ``path``; returns the exit status."""
    try:
        config = load_config(config_path) if config_path else ODRConfig()
        state = ODRState(config=config)
    except OSError as exc:
        print(M.odr_prefix(problem=M.unreadable(path=str(config_path), reason=exc.strerror or str(exc))), file=err)
        return EXIT_USAGE
    except RcsError as exc:
        print(M.odr_prefix(problem=M.odr_bad_config(path=str(config_path), detail=str(exc))), file=err)
        return EXIT_USAGE
    try:
        handle = open(path, encoding="utf-8", errors="strict")  # noqa: SIM115 - closed below
    except OSError as exc:
        print(M.odr_prefix(problem=M.unreadable(path=path, reason=exc.strerror or str(exc))), file=err)
        return EXIT_USAGE
    try:
        with handle:
            for _, architect, auditor in rounds(iter(handle)):
                state = run_round(state, architect, auditor)
                try:
                    out.write(
                        json.dumps(state.trace[-1].model_dump(mode="json", by_alias=True), ensure_ascii=False) + "\n"
                    )
                    out.flush()
                except BrokenPipeError:
                    # The reader is gone (`| head`): stop quietly; nothing more can be delivered.
                    os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
                    break
                if state.stop_reason is not None:
                    break
    except UnicodeDecodeError as exc:
        print(M.odr_prefix(problem=M.unreadable(path=path, reason=f"not UTF-8 ({exc.reason})")), file=err)
        return EXIT_USAGE
    except RcsError as exc:
        print(M.odr_prefix(problem=f"{path}: {exc}"), file=err)
        return EXIT_USAGE
    out.flush()
    if state.stop_reason is not None:
        summary = M.odr_stopped(rounds=len(state.trace), reason=state.stop_reason, stable_count=state.stable_count)
    else:
        summary = M.odr_not_stopped(rounds=len(state.trace), stable_count=state.stable_count)
    print(M.odr_prefix(problem=summary), file=err)
    return EXIT_OK


def main(path: str, config_path: str | None) -> int:
    """Entry point used by ``runtime.cli``."""
    return run(path, config_path, sys.stdout, sys.stderr)
