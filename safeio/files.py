"""The bounded reader: the one way rcs opens a file it did not write itself.

Every read refuses what is not a regular file before it can block (a FIFO, a device, a socket, a
directory), reads at most ``limit`` bytes (one more tells a file that is too large), and never
follows a symbolic link in a file an untrusted writer controls (``untrusted=True``: the worker's
``candidate.json``, the evaluator's output). A symlink loop is reported as one.

Errors are ``OSError`` subclasses whose ``strerror`` is the reason without the path, so callers that
already say "cannot read: <reason>" for a missing file say it the same way for these::

    OSError
    ├── FileNotFoundError   (as os.open raises it)
    └── InputError          path, reason
        ├── NotRegularFile  what (a FIFO, a directory, a character device, ...)
        ├── TooLarge        limit, input (the name of the cap in schemas/cli/limits.yaml)
        ├── SymlinkRefused  a link where the writer is not trusted
        ├── SymlinkLoop     ELOOP while resolving the path
        └── DanglingLink    a link to nothing (named by directory walks; a read raises FileNotFoundError)
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def describe(mode: int) -> str:
    """What a file of this mode is, in words ("a FIFO"); "a regular file" for one."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def reason(exc: OSError) -> str:
    """Why an OSError happened, without the path: its ``strerror``, or its text when it has none (an
    ``OSError("...")`` raised with a message only)."""
    return exc.strerror or str(exc)


class InputError(OSError):
    """A file rcs refuses to read; ``strerror`` (and ``str()``) is the reason, without the path."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason
        self.reason = reason
        self.path = path

    def __str__(self) -> str:
        return self.reason


class NotRegularFile(InputError):
    """A FIFO, device, socket or directory where a file is read: refused before it can block."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(path, f"not a regular file ({what})")
        self.what = what


class TooLarge(InputError):
    """More bytes than the cap of this kind of input."""

    def __init__(self, path: str, limit: int, input_name: str) -> None:
        super().__init__(path, f"larger than {limit} bytes, the cap for {input_name} (schemas/cli/limits.yaml)")
        self.limit = limit
        self.input_name = input_name


class SymlinkRefused(InputError):
    """A symbolic link in a file written by someone rcs does not trust to point it elsewhere."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "a symbolic link, which rcs does not follow in a file another process writes")


class SymlinkLoop(InputError):
    """Too many symbolic links while resolving the path (a loop)."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "a symbolic link loop")


class DanglingLink(InputError):
    """A symbolic link whose target does not exist (reported by walks, which must not skip it)."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "a symbolic link to nothing")


def _open(path: str, untrusted: bool) -> int:
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_NOFOLLOW if untrusted else 0)
    try:
        before = os.stat(path, follow_symlinks=not untrusted)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SymlinkLoop(path) from None
        raise
    if untrusted and stat.S_ISLNK(before.st_mode):
        raise SymlinkRefused(path)
    if not stat.S_ISREG(before.st_mode):
        # Refused before opening: opening a FIFO can block and opening some devices has effects.
        raise NotRegularFile(path, describe(before.st_mode))
    try:
        return os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise (SymlinkRefused(path) if untrusted else SymlinkLoop(path)) from None
        if exc.errno == errno.ENXIO:  # swapped for a socket since the stat
            raise NotRegularFile(path, "a socket") from None
        raise


def read_bytes(path: str | os.PathLike[str], limit: int, input_name: str, *, untrusted: bool = False) -> bytes:
    """At most ``limit`` bytes of the regular file ``path``; raises an OSError (an InputError or as os raises).

    ``input_name`` names the cap in the TooLarge message. The file is checked again after opening
    (``fstat``), so one swapped for a FIFO between the check and the open is still refused, and the
    non-blocking open cannot hang on it.
    """
    name = os.fspath(path)
    fd = _open(name, untrusted)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(name, describe(info.st_mode))
        if info.st_size > limit:
            raise TooLarge(name, limit, input_name)
        chunks: list[bytes] = []
        size = 0
        while True:  # the file may grow while it is read: stop one byte past the cap
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise TooLarge(name, limit, input_name)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_head(path: str | os.PathLike[str], size: int) -> bytes:
    """The first ``size`` bytes (or fewer) of the regular file ``path``, with the same refusals."""
    name = os.fspath(path)
    fd = _open(name, untrusted=False)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(name, describe(os.fstat(fd).st_mode))
        return os.read(fd, size)
    finally:
        os.close(fd)


def link_below(root: Path, path: Path) -> Path | None:
    """The first component of ``path`` below ``root`` that is a symbolic link, or None.

    (``O_NOFOLLOW`` guards only a path's last component: a directory on the way that another
    process replaced with a link would still send reads and writes elsewhere.)
    """
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


def without_bom(raw: bytes) -> bytes:
    """``raw`` without one leading UTF-8 byte-order mark (RFC 8259 8.1 lets a reader ignore it)."""
    return raw[len(BOM) :] if raw.startswith(BOM) else raw


def read_text(path: str | os.PathLike[str], limit: int, input_name: str, *, untrusted: bool = False) -> str:
    """The UTF-8 text of a bounded read, one leading BOM dropped; UnicodeDecodeError for other bytes."""
    return without_bom(read_bytes(path, limit, input_name, untrusted=untrusted)).decode("utf-8")


# What kind_of says a path is (besides ``describe``'s words for a FIFO, a device, a socket).
FILE, DIR, MISSING, DANGLING, LOOP, UNREADABLE = "file", "dir", "missing", "dangling", "loop", "unreadable"


def kind_of(path: Path) -> str:
    """What ``path`` is, following symlinks: FILE, DIR, MISSING, DANGLING (a link to nothing), LOOP,
    UNREADABLE (a directory on the way cannot be searched) or what else it is ("a FIFO")."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return DANGLING if path.is_symlink() else MISSING
        return LOOP if exc.errno == errno.ELOOP else UNREADABLE
    if stat.S_ISDIR(mode):
        return DIR
    return FILE if stat.S_ISREG(mode) else describe(mode)


def write_text(path: str | os.PathLike[str], text: str, *, mode: int | None = None) -> None:
    """Replace the file at ``path`` with ``text`` in UTF-8, atomically: a temporary file in the same
    folder, fsync, rename over ``path``, fsync of the folder. A crash or an error leaves the old file
    or the new one, never half of one, and no temporary file behind. The folder must exist. The file
    gets ``mode``, or 0666 less the umask, as any file the user writes."""
    target = Path(path)
    # mutation: equivalent: the temporary's name is never seen: it is renamed over the target or removed
    temporary = target.parent / f".{target.name}.{secrets.token_hex(8)}.tmp"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            if mode is not None:
                os.fchmod(stream.fileno(), mode)
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        # Gone only when the rename happened and an interrupt came after it: nothing to clean then.
        temporary.unlink(missing_ok=True)
        raise
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def check_output(path: str | os.PathLike[str]) -> None:
    """Raise the OSError a write of an output to ``path`` (``write_output``) would meet, before any
    work is done: a folder, a special file that cannot be written, or a missing or unwritable folder."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        found = None
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if found is not None and not stat.S_ISREG(found.st_mode):
        if not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return
    folder = Path(os.path.realpath(path)).parent
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(folder))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))


def same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    """Whether two output paths name one file (links followed)."""
    return os.path.realpath(first) == os.path.realpath(second)


def write_output(path: str | os.PathLike[str], text: str) -> None:
    """Write an output the user named: a regular file (or a new one) is replaced atomically, as
    ``write_text`` does, keeping its mode (a new one gets 0666 less the umask, as any file the user
    writes); a link to one is followed, so the file is replaced and the link kept; a pipe, a
    terminal or a device (``/dev/stdout``, ``/dev/null``) is written to, never replaced by a file.
    A pipe no one reads is an error (ENXIO), not a hang."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode) and not stat.S_ISDIR(found.st_mode):
        handle = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.set_blocking(handle, True)
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        return
    mode = None if found is None else stat.S_IMODE(found.st_mode)
    write_text(os.path.realpath(path), text, mode=mode)
