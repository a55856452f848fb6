"""The bounded reader (safeio.files): regular files only, a cap, symlink rules; never blocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rcs_contracts.safeio import files


@given(content=st.binary(max_size=300), limit=st.integers(min_value=1, max_value=300))
@settings(max_examples=200, deadline=None)
def test_reads_what_fits_and_refuses_the_rest(
    tmp_path_factory: pytest.TempPathFactory, content: bytes, limit: int
) -> None:
    path = tmp_path_factory.mktemp("r") / "f"
    path.write_bytes(content)
    if len(content) <= limit:
        assert files.read_bytes(path, limit, "test") == content
    else:
        with pytest.raises(files.TooLarge) as info:
            files.read_bytes(path, limit, "test")
        assert str(info.value) == f"larger than {limit} bytes, the cap for test (schemas/cli/limits.yaml)"
        assert info.value.limit == limit


@given(content=st.binary(max_size=50))
@settings(max_examples=100, deadline=None)
def test_one_leading_bom_is_dropped_from_text(tmp_path_factory: pytest.TempPathFactory, content: bytes) -> None:
    path = tmp_path_factory.mktemp("b") / "f"
    text = content.decode("utf-8", "replace")
    path.write_bytes(files.BOM + text.encode())
    assert files.read_text(path, 1000, "test") == text


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "x.json"
    os.mkfifo(fifo)
    with pytest.raises(files.NotRegularFile) as info:
        files.read_bytes(fifo, 100, "test")
    assert str(info.value) == "not a regular file (a FIFO)"
    assert info.value.path == str(fifo)


@pytest.mark.parametrize(("path", "what"), [("/dev/zero", "a character device"), ("/dev/null", "a character device")])
def test_devices_are_refused(path: str, what: str) -> None:
    with pytest.raises(files.NotRegularFile, match=what):
        files.read_bytes(path, 100, "test")


def test_a_link_to_a_device_is_refused_as_the_device(tmp_path: Path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(files.NotRegularFile, match="a character device"):
        files.read_bytes(link, 100, "test")


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(files.NotRegularFile, match="a directory"):
        files.read_bytes(tmp_path, 100, "test")


def test_a_symlink_loop_is_named(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(files.SymlinkLoop, match="a symbolic link loop"):
        files.read_bytes(tmp_path / "a", 100, "test")


def test_untrusted_files_are_never_read_through_a_link(tmp_path: Path) -> None:
    target = tmp_path / "secret"
    target.write_text("{}")
    link = tmp_path / "candidate.json"
    link.symlink_to(target)
    assert files.read_bytes(link, 100, "test") == b"{}"  # the user's own inputs follow links
    with pytest.raises(files.SymlinkRefused):
        files.read_bytes(link, 100, "test", untrusted=True)


def test_missing_is_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        files.read_bytes(tmp_path / "nope", 100, "test")


def test_kind_of_names_every_case(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("")
    os.mkfifo(tmp_path / "p")
    (tmp_path / "dangling").symlink_to(tmp_path / "nothing")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert files.kind_of(tmp_path / "f") == "file"
    assert files.kind_of(tmp_path) == "dir"
    assert files.kind_of(tmp_path / "p") == "a FIFO"
    assert files.kind_of(tmp_path / "nothing") == "missing"
    assert files.kind_of(tmp_path / "dangling") == "dangling"
    assert files.kind_of(tmp_path / "loop") == "loop"


def test_the_reason_of_an_os_error_is_its_strerror_or_else_its_text() -> None:
    assert files.reason(FileNotFoundError(2, "No such file or directory", "/x/y")) == "No such file or directory"
    assert files.reason(OSError("the disk said no")) == "the disk said no"  # no strerror: the text
    assert files.reason(files.NotRegularFile("p", "a FIFO")) == str(files.NotRegularFile("p", "a FIFO"))


# --- the atomic writer -------------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@settings(max_examples=50, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",))))
def test_write_text_stores_exactly_the_utf8_of_the_text(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    folder = tmp_path_factory.mktemp("w")
    target = folder / "out.json"
    target.write_bytes(b"old")
    files.write_text(target, text)
    # newline="" and UTF-8: "\r\n" and "\n" stay as written, on every platform
    assert target.read_bytes() == text.encode("utf-8")
    assert _leftovers(folder) == []


def test_write_text_that_fails_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        files.write_text(target, "half \ud800 a character")
    assert target.read_text(encoding="utf-8") == "old"
    assert _leftovers(tmp_path) == []


def test_write_text_interrupted_after_the_rename_raises_the_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A signal landing just after the rename: the temporary is gone already, and the interrupt (not a
    # FileNotFoundError from cleaning it up) is what the caller sees.
    real_replace = os.replace

    def replace_then_interrupt(source: str, destination: str) -> None:
        real_replace(source, destination)
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", replace_then_interrupt)
    target = tmp_path / "out.json"
    with pytest.raises(KeyboardInterrupt):
        files.write_text(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert _leftovers(tmp_path) == []


def test_write_text_into_a_missing_folder_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        files.write_text(tmp_path / "nowhere" / "out.json", "x")
