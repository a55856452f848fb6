"""The bounded reader (safeio.files): regular files only, a cap, symlink rules; never blocks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safeio import files


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
