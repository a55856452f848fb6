"""rcs agrees with draft 2020-12 on every case of the evidence corpus (tests/corpus/evidence_cases.json).

The corpus is data: the exact JSON text of each case and its verdict (see build_corpus.py for where
the verdicts come from). It is also the seed of the cross-language corpus: any engine given these
texts and the schemas under schemas/evidence/ must reach the same verdicts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from rcs_contracts.engine import validation
from rcs_contracts.generated.kinds import KINDS

CORPUS = Path(__file__).with_name("evidence_cases.json")
CASES = json.loads(CORPUS.read_text(encoding="utf-8"))


def test_the_corpus_is_large_and_covers_every_kind_of_edge() -> None:
    assert len(CASES) >= 300
    kinds = Counter(c["kind"] for c in CASES)
    assert set(kinds) == {k for k in KINDS if k.startswith("evidence/")}
    whats = " | ".join(c["what"] for c in CASES)
    for edge in (" = null", " missing", "+ unexpected_member", "captured_at", "content_hash", "section text",
                 "start_char 1e400", "start_char 1.0", "score 1e308", "\\ud800", "duplicate member"):  # fmt: skip
        assert edge in whats, edge
    assert Counter(c["valid"] for c in CASES)[True] >= 50


def test_the_corpus_file_is_what_the_builder_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("build_corpus.py")), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rcs_reaches_the_verdict(case: dict[str, object]) -> None:
    errors = validation.schema_verdict(KINDS[str(case["kind"])], str(case["text"]))
    found = [f"{type(e).__name__}: {e}" for e in errors]
    assert (not errors) == case["valid"], f"{case['what']}: rcs says {found or 'valid'}"
