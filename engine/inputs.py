"""Reading an input: the bounded reader (safeio.files) with the cap of its kind from the limits table.

Every file the runtime reads goes through here: ``rcs validate`` paths and ``--evidence``,
``--claim-policy``, the ODR config and rounds, the Phase 1 paper, the mission files, the run's state
files, the worker's ``candidate.json`` and the evaluator's output. Errors are OSErrors (see
``safeio.files``): FileNotFoundError, or an InputError whose ``strerror`` says why.
"""

from __future__ import annotations

import os

from rcs_contracts.generated.cli.limits import MAX_BYTES, UNTRUSTED, Input
from rcs_contracts.safeio import files


def read_bytes(path: str | os.PathLike[str], what: Input) -> bytes:
    """The bytes of ``path``, read as an input of kind ``what`` (its cap; no symlink if untrusted)."""
    return files.read_bytes(path, MAX_BYTES[what], what.value, untrusted=what in UNTRUSTED)


def read_text(path: str | os.PathLike[str], what: Input) -> str:
    """The UTF-8 text of ``path`` (one leading BOM dropped); UnicodeDecodeError for other bytes."""
    return files.read_text(path, MAX_BYTES[what], what.value, untrusted=what in UNTRUSTED)
