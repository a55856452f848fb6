"""The ``docs`` tool read directly: which files become which sections, and under which label.

The CLI tests see the tool only through a response; here each rule of ``_sections`` and the label
de-duplication is pinned on what ``search`` returns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rcs_contracts.generated.research import errors as E
from rcs_contracts.runtime.phase1.chunks import chunk_id
from rcs_contracts.runtime.research.tools import docs
from rcs_contracts.runtime.research.tools.docs import DocsTool

WORD = "photosynthesis"


def _titles(folder: Path, query: str = WORD) -> list[str]:
    return sorted(item["title"] for item in DocsTool(folder).search(query, 50))


def _write(folder: Path, name: str, content: object) -> None:
    text = content if isinstance(content, str) else json.dumps(content)
    (folder / name).write_text(text, encoding="utf-8")


def test_files_differing_only_in_case_get_numbered_labels(tmp_path: Path) -> None:
    for name in ("A.txt", "a.TXT", "a.txt"):
        _write(tmp_path, name, f"{WORD} in {name}.")
    # Sorted paths: A.txt, a.TXT, a.txt; the first keeps its name, the others are numbered on.
    assert _titles(tmp_path) == ["A.txt", "a.TXT (2)", "a.txt (3)"]


def test_a_json_paper_gives_one_section_per_labelled_section(tmp_path: Path) -> None:
    paper = {
        "paper_id": "p",
        "sections": [
            {"label": " Intro ", "text": f"{WORD} begins here."},
            {"label": "Methods", "text": f"{WORD} was measured."},
            {"label": "intro", "text": f"{WORD} repeated label, dropped."},
            {"label": "Empty", "text": "   "},
            {"label": "   ", "text": f"{WORD} with a blank label, dropped."},
            {"label": 3, "text": f"{WORD} with a number label, dropped."},
            {"label": "NoText", "text": 3},
            {"label": "Missing text"},
            "not a section",
        ],
    }
    _write(tmp_path, "paper.json", paper)
    assert _titles(tmp_path) == ["paper.json#Intro", "paper.json#Methods"]
    items = DocsTool(tmp_path).search(WORD, 50)
    assert sorted(item["content"] for item in items) == [f"{WORD} begins here.", f"{WORD} was measured."]
    assert all(item["locator"].startswith("paper.json#") for item in items)


@pytest.mark.parametrize(
    "content",
    [
        {"sections": f"{WORD} as a string"},
        {"title": WORD},
        [{"label": "A", "text": WORD}],
        {"sections": {"label": "A", "text": WORD}},
    ],
    ids=["sections-not-a-list", "no-sections", "top-level-list", "sections-an-object"],
)
def test_json_that_is_not_a_paper_is_searched_as_written(tmp_path: Path, content: object) -> None:
    # As JSON that does not parse is: a folder's .json notes are found, not silently skipped.
    _write(tmp_path, "data.json", content)
    _write(tmp_path, "other.txt", "unrelated words only")
    assert _titles(tmp_path) == ["data.json"]
    [item] = DocsTool(tmp_path).search(WORD, 50)
    assert item["content"] == (tmp_path / "data.json").read_text(encoding="utf-8")


def test_a_locator_names_the_file_whatever_its_name_holds(tmp_path: Path) -> None:
    # "#" separates a paper's section label, but a file's own name may hold one too; files that
    # differ only in case keep their own paths in the locator (only the title is numbered).
    for name in ("C#-notes.txt", "A.txt", "a.txt"):
        _write(tmp_path, name, f"{WORD} in {name}.")
    _write(tmp_path, "p#1.json", {"sections": [{"label": "Intro", "text": f"{WORD} in a paper."}]})
    items = DocsTool(tmp_path).search(WORD, 50)
    files = sorted(item["locator"].rsplit("#", 1)[0] for item in items)
    assert files == ["A.txt", "C#-notes.txt", "a.txt", "p#1.json"]


def test_json_that_does_not_parse_is_plain_text(tmp_path: Path) -> None:
    _write(tmp_path, "notes.json", f"{{not json: {WORD}")
    assert _titles(tmp_path) == ["notes.json"]


def test_blank_files_are_not_sections(tmp_path: Path) -> None:
    _write(tmp_path, "blank.md", "  \n\t\n")
    _write(tmp_path, "blank.json", "   ")
    _write(tmp_path, "full.md", f"{WORD}.")
    assert _titles(tmp_path) == ["full.md"]


def test_locator_and_metadata_name_the_file_and_the_chunk(tmp_path: Path) -> None:
    _write(tmp_path, "paper.json", {"sections": [{"label": "Intro", "text": f"{WORD} begins."}]})
    _write(tmp_path, "note.md", f"{WORD} again, {WORD}.")
    items = DocsTool(tmp_path).search(WORD, 50)
    chunk_ids = {
        chunk_id("docs", "paper.json#Intro", f"{WORD} begins."): "paper.json#Intro",
        chunk_id("docs", "note.md", f"{WORD} again, {WORD}."): "note.md",
    }
    assert sorted(items, key=lambda i: i["metadata"]["rank"]) == items
    assert [item["metadata"]["rank"] for item in items] == [1, 2]
    for item in items:
        cid = item["metadata"]["chunk_id"]
        assert set(item["metadata"]) == {"chunk_id", "rank"}
        assert item["title"] == chunk_ids[cid]
        # The locator keeps the file, never the JSON section: path#chunk_id.
        assert item["locator"] == f"{chunk_ids[cid].split('#')[0]}#{cid}"


def test_the_folder_is_indexed_once(tmp_path: Path) -> None:
    _write(tmp_path, "first.txt", f"{WORD} first.")
    tool = DocsTool(tmp_path)
    assert [i["title"] for i in tool.search(WORD, 50)] == ["first.txt"]
    _write(tmp_path, "second.txt", f"{WORD} second.")
    assert [i["title"] for i in tool.search(WORD, 50)] == ["first.txt"]
    assert sorted(i["title"] for i in DocsTool(tmp_path).search(WORD, 50)) == ["first.txt", "second.txt"]


def test_a_failure_is_kept_for_every_later_call(tmp_path: Path) -> None:
    _write(tmp_path, "a.txt", "b.txt|x")
    _write(tmp_path, "a.txt|b.txt", "x")  # R-P1-3: the same id for both chunks
    tool = DocsTool(tmp_path)
    for _ in range(2):
        with pytest.raises(E.ToolResultError) as caught:
            tool.search("x", 5)
        assert caught.value.code == E.ErrorCode.TOOL_RESULT_INVALID
        assert str(caught.value).startswith("the docs tool got an answer it cannot read: Chunk id ")


def test_undecodable_bytes_become_replacement_characters(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes(f"{WORD} caf\xe9 au lait".encode("latin-1"))
    [item] = DocsTool(tmp_path).search(WORD, 5)
    assert item["content"] == f"{WORD} caf\ufffd au lait"


def test_the_total_is_refused_just_past_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, "a.txt", f"{WORD} 1234")  # 19 bytes
    _write(tmp_path, "b.txt", f"{WORD} 12345")  # 20 bytes
    monkeypatch.setattr(docs, "DOCS_TOTAL_BYTES", 39)
    assert len(DocsTool(tmp_path).search(WORD, 5)) == 2
    monkeypatch.setattr(docs, "DOCS_TOTAL_BYTES", 38)
    with pytest.raises(E.SandboxViolationError, match=r"^the docs tool read more than 38 bytes$"):
        DocsTool(tmp_path).search(WORD, 5)


def test_links_out_of_the_folder(tmp_path: Path) -> None:
    outside, folder = tmp_path / "outside", tmp_path / "docs"
    outside.mkdir()
    folder.mkdir()
    _write(outside, "secret.txt", f"{WORD} secret.")
    _write(folder, "own.txt", f"{WORD} own.")
    (folder / "linked").symlink_to(outside, target_is_directory=True)  # a directory link: not walked
    (folder / "gone.txt").symlink_to(tmp_path / "nowhere" / "gone.txt")  # dangling, outside: skipped
    assert _titles(folder) == ["own.txt"]
    (folder / "secret.txt").symlink_to(outside / "secret.txt")  # a file link out: a violation
    message = r"^the docs tool may read only inside its folder, not secret\.txt$"
    with pytest.raises(E.SandboxViolationError, match=message):
        DocsTool(folder).search(WORD, 5)


def test_a_folder_that_is_not_there_or_a_file_is_not_a_directory(tmp_path: Path) -> None:
    _write(tmp_path, "a.txt", WORD)
    for path in (tmp_path / "gone", tmp_path / "a.txt"):
        with pytest.raises(E.InvalidInputError) as caught:
            DocsTool(path)
        assert caught.value.code == "DOCS_NOT_A_DIRECTORY"
        assert str(caught.value) == f"--docs {path}: not a directory"


def test_an_empty_path_is_refused_rather_than_read_as_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Path("") is "."; an unset variable in "--docs $DOCS" must not index whatever folder rcs runs in.
    _write(tmp_path, "a.txt", WORD)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(E.InvalidInputError) as caught:
        DocsTool("")
    assert caught.value.code == "DOCS_NOT_A_DIRECTORY"
    assert str(caught.value) == "--docs '': not a directory"
    assert _titles(Path(".")) == ["a.txt"]  # "." said on purpose is still the working directory
