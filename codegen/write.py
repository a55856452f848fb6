"""Write: put rendered outputs on disk, or (``--check``) say what is stale without writing.

The compiler owns ``generated/``: files there that no input produces any more are removed.
It owns only the marked sections of SPEC.md; everything else in that file is the author's.
"""

from __future__ import annotations

import difflib
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from rcs_contracts.codegen.render import Plan, Section
from rcs_contracts.codegen.stamp import read_stamp, sha256
from rcs_contracts.safeio import files

_SECTION_RE = re.compile(
    r"<!-- generated:(?P<name>[a-z0-9_-]+)(?P<meta>[^>]*)-->\n(?P<body>.*?)<!-- /generated:(?P=name) -->\n?",
    re.DOTALL,
)
_META_RE = re.compile(r"rcs-inputs-sha256=(?P<inputs>[0-9a-f]{64}) rcs-body-sha256=(?P<body>[0-9a-f]{64})")


@dataclass
class Changes:
    """What applying a plan changes: path -> (old text or None, new text or None)."""

    files: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    generated: str = "generated"  # the folder whose emptied directories are removed

    def diff(self) -> str:
        """A unified diff of every change, in path order."""
        chunks: list[str] = []
        for rel in sorted(self.files):
            old, new = self.files[rel]
            chunks.extend(
                difflib.unified_diff(
                    (old or "").splitlines(keepends=True),
                    (new or "").splitlines(keepends=True),
                    fromfile=f"a/{rel}" if old is not None else "/dev/null",
                    tofile=f"b/{rel}" if new is not None else "/dev/null",
                )
            )
        return "".join(line if line.endswith("\n") else line + "\n" for line in chunks)


def section_text(section: Section) -> str:
    """A SPEC.md section with its stamped markers."""
    return (
        f"<!-- generated:{section.name} from {section.inputs} — do not edit; "
        f"rcs-inputs-sha256={section.inputs_hash} rcs-body-sha256={sha256(section.body)} -->\n"
        f"{section.body}<!-- /generated:{section.name} -->\n"
    )


def render_spec(old: str, sections: tuple[Section, ...]) -> str:
    """SPEC.md with every generated section replaced, stale ones dropped, new ones appended."""
    wanted = {s.name: s for s in sections}
    placed: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name in wanted:
            placed.add(name)
            return section_text(wanted[name])
        return ""

    new = _SECTION_RE.sub(replace, old)
    missing = [s for s in sections if s.name not in placed]
    if missing:
        if new and not new.endswith("\n"):
            new += "\n"
        new += "".join(f"\n### Generated: {s.name}\n\n{section_text(s)}" for s in missing)
    return new


def _existing_generated(root: Path, folder: str) -> set[str]:
    """The files rcs wrote under the generated folder: those that carry its stamp. Anything else
    there is the project's own and is never removed; links are not followed."""
    base = root / folder
    if not base.is_dir() or base.is_symlink():
        return set()
    found = set()
    for directory, subdirectories, names in os.walk(base):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in names:
            path = Path(directory) / name
            if path.is_symlink() or not path.is_file():
                continue
            text = _read_head(path)
            if text is not None and read_stamp(text) is not None:
                found.add(path.relative_to(root).as_posix())
    return found


def _read_head(path: Path) -> str | None:
    """The first lines of a file, where a stamp would be (None when unreadable or not UTF-8)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_STAMP_BYTES)
        return head.decode("utf-8", errors="ignore")
    except OSError:
        return None


_STAMP_BYTES = 1024  # a stamp is the first three lines of a generated file


# A generated file or SPEC.md larger than this is not one rcs wrote: it is read as unreadable.
_MAX_OUTPUT_BYTES = 64 * 1024 * 1024


def _read(path: Path) -> str | None:
    """The text of an output on disk; None when there is none or it cannot be rcs's (not UTF-8, not
    a regular file, too large): it is then rewritten, or refused by ``obstacles``."""
    try:
        return files.read_text(path, _MAX_OUTPUT_BYTES, "a generated file")
    except (OSError, UnicodeDecodeError):
        return None


def obstacles(root: Path, delta: Changes) -> list[str]:
    """Outputs that cannot be written where they go: something that is not a regular file (a
    directory, a FIFO) at the path, or a file where a directory on the way must be. Checked before
    anything is written, so a refused run changes nothing."""
    found: list[str] = []
    for rel, (_, new) in sorted(delta.files.items()):
        path = root / rel
        linked = next((p for p in reversed(path.relative_to(root).parents[:-1]) if (root / p).is_symlink()), None)
        if linked is not None:
            # A link on the way would take the write (or a removal) outside the folder the project named.
            message = f"{linked.as_posix()}: is a symbolic link; rcs codegen writes only through real folders"
            if message not in found:
                found.append(message)
            continue
        if new is None:
            continue
        for parent in reversed(path.relative_to(root).parents[:-1]):
            kind = files.kind_of(root / parent)
            if kind not in ("dir", "missing"):
                found.append(f"{parent.as_posix()}: must be a directory to hold {rel}, but it is {_shown(kind)}")
                break
        else:
            kind = files.kind_of(path)
            if kind not in ("file", "missing", "dangling"):
                found.append(f"{rel}: rcs codegen writes a file here, but it is {_shown(kind)}")
    return found


def _shown(kind: str) -> str:
    return {"file": "a regular file", "dir": "a directory", "loop": "a symbolic link loop"}.get(kind, kind)


def is_fresh(root: Path, skeleton: Plan) -> bool:
    """True when every output's stamp matches its inputs and body: nothing needs rendering."""
    expected = {o.rel: o for o in skeleton.outputs}
    if _existing_generated(root, skeleton.generated) != set(expected):
        return False
    for rel, output in expected.items():
        text = _read(root / rel)
        stamped = read_stamp(text) if text is not None else None
        if stamped is None:
            return False
        stamp, body = stamped
        if stamp.inputs_hash != output.inputs_hash or stamp.body_hash != sha256(body) or stamp.inputs != output.inputs:
            return False
    spec = _read(root / skeleton.spec) or ""
    found = {m["name"]: m for m in _SECTION_RE.finditer(spec)}
    if set(found) != {s.name for s in skeleton.sections}:
        return False
    for section in skeleton.sections:
        match = found[section.name]
        meta = _META_RE.search(match["meta"])
        if meta is None or meta["inputs"] != section.inputs_hash or meta["body"] != sha256(match["body"]):
            return False
        if f"from {section.inputs} " not in match["meta"]:
            return False
    return True


def changes(root: Path, rendered: Plan) -> Changes:
    """Every file that differs between disk and the rendered plan."""
    result = Changes(generated=rendered.generated)
    wanted: dict[str, str] = {o.rel: o.text() for o in rendered.outputs}
    for rel in sorted(_existing_generated(root, rendered.generated) | set(wanted)):
        old = _read(root / rel) if (root / rel).exists() else None
        if (root / rel).exists() and old is None:
            old = "<binary or unreadable file>\n"
        new = wanted.get(rel)
        if old != new:
            result.files[rel] = (old, new)
    old_spec = _read(root / rendered.spec)
    new_spec = render_spec(old_spec or "", rendered.sections)
    if (old_spec or "") != new_spec:
        result.files[rendered.spec] = (old_spec, new_spec)
    return result


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Created with mode 0666 less the umask, as any file the user writes (mkstemp's would be 0600,
    # and nobody else could import the package).
    tmp = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def apply(root: Path, delta: Changes) -> tuple[int, int]:
    """Write new and changed files, remove stale ones; returns (written, removed)."""
    written = removed = 0
    for rel, (_, new) in sorted(delta.files.items()):
        path = root / rel
        if new is None:
            path.unlink(missing_ok=True)
            removed += 1
        else:
            _atomic_write(path, new)
            written += 1
    generated = root / delta.generated
    if generated.is_dir() and not generated.is_symlink():
        # Directories of deleted domains: drop them once empty (caches included). Links are not
        # followed: nothing outside the generated folder is touched.
        walked = [Path(d) / name for d, subdirectories, _ in os.walk(generated) for name in subdirectories]
        for directory in sorted((p for p in walked if not p.is_symlink()), reverse=True):
            remaining = [p for p in directory.iterdir() if p.name != "__pycache__"]
            if not remaining:
                for cache in directory.glob("__pycache__"):
                    for item in cache.iterdir():
                        item.unlink()
                    cache.rmdir()
                directory.rmdir()
    return written, removed
