"""``.pre-commit-hooks.yaml``: each hook runs an rcs command that exists, with options it takes."""

from __future__ import annotations

import shlex

import yaml

from tests.conftest import ROOT, run_rcs


def test_each_hook_entry_is_a_real_rcs_command() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["rcs-codegen-check", "rcs-validate", "rcs-schema-diff"]
    for hook in hooks:
        words = shlex.split(hook["entry"])
        assert words[0] == "rcs" and hook["language"] == "system"
        command = [w for w in words[1:] if not w.startswith("-")][:2]
        if command[0] != "schema":
            command = command[:1]
        done = run_rcs([*command, "--help"])
        assert done.returncode == 0, (hook["id"], done.stderr)
        assert done.stdout.startswith(f"usage: rcs {' '.join(command)}"), hook["id"]
        for option in (w for w in words if w.startswith("--")):
            assert option in done.stdout, (hook["id"], option)  # an option the command takes
