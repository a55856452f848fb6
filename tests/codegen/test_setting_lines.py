"""codegen/setting_lines.py: the line of a [tool.rcs] setting in pyproject.toml, not another tool's."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rcs_contracts.codegen.setting_lines import find, header_line, line_of, prefix_line

KEYS = ["package", "generated", "house-style", "spec", "schemas", "annotations", "resources"]


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        # Another table's key of that name, or a longer one, before and after.
        ('[tool.rcs]\ngenerated = "c"\n\n[tool.hatch.build.targets.wheel]\npackages = ["x"]\n', "package", None),
        ('[tool.other]\npackage = "fine"\n\n[tool.rcs]\npackage = "not a name"\n', "package", 5),
        ('[project]\nname = "my-package"\n\n[tool.rcs]\ngenerated = "json"\n', "package", None),
        ('[tool.rcs.resources]\n"h://x/"="v"\n[tool.other]\npackage = "x"\n[tool.rcs]\npackage = "y"\n', "package", 6),
        ("[tool.rcs]\nhouse-style = false\n\nhouse = 1\n", "house", 4),
        # Dotted keys under [tool] and at the top, quoted names, spaces in the header, comments.
        ('[tool.other]\npackage = "x"\n[tool]\nrcs.package = "y"\n', "package", 4),
        ('tool.rcs.package = "y"\n[tool.other]\npackage = "x"\n', "package", 1),
        ('[tool.other]\npackage = "x"\n[ tool . "rcs" ]  # ours\n# package = "old"\n"package" = "y"\n', "package", 5),
        # A line separator in a comment is not a line break to TOML.
        ("# a\u2028b\n[tool.rcs]\nspec = 1\n", "spec", 3),
    ],
)
def test_the_setting_is_found_only_where_toml_gives_it_to_rcs(text: str, key: str, line: int | None) -> None:
    tomllib.loads(text)  # every case is valid TOML
    assert find(text, key) == line
    assert line_of(text, key) == (line if line is not None else header_line(text))


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('[tool.rcs]\n# copy of "https://x.org/" below\nresources = { "https://x.org/" = "nope" }\n', 3),
        ('[tool.rcs]\n[tool.mydocs]\nbase = "https://x.org/"\n[tool.rcs.resources]\n"https://x.org/" = "nope"\n', 5),
        ("[tool.rcs.resources]\n'https://x.org/' = \"nope\"\n", 2),
        ("[tool.rcs]\nhouse-style = false\n", 1),  # not there: the header
    ],
)
def test_a_resource_prefix_is_found_as_a_key_of_ours(text: str, line: int) -> None:
    tomllib.loads(text)
    assert prefix_line(text, "https://x.org/") == line


_OTHER = st.lists(st.sampled_from([*KEYS, "packages", "house", "spec-file"]), min_size=0, max_size=4, unique=True)


@given(
    before=st.lists(_OTHER, max_size=3),
    after=st.lists(_OTHER, max_size=3),
    ours=st.lists(st.sampled_from(KEYS), min_size=1, max_size=5, unique=True),
    target=st.integers(min_value=0),
)
def test_other_tables_never_move_a_setting(
    before: list[list[str]], after: list[list[str]], ours: list[str], target: int
) -> None:
    lines: list[str] = []

    def table(name: str, keys: list[str]) -> None:
        lines.extend(["", f"[{name}]", *(f'{k} = "v"' for k in keys)])

    for index, keys in enumerate(before):
        table(f"tool.other{index}", keys)
    table("tool.rcs", ours)
    start = len(lines) - len(ours)
    for index, keys in enumerate(after):
        table(f"tool.later{index}", keys)
    text = "\n".join(lines) + "\n"
    assert tomllib.loads(text)["tool"]["rcs"] == {k: "v" for k in ours}
    key = ours[target % len(ours)]
    assert find(text, key) == start + ours.index(key) + 1
    assert header_line(text) == start
