"""What the compiler reads from a project: shared by ``rcs codegen`` and by ``rcs validate``'s
check that the files on disk are still the ones compiled (``engine/freshness.py``)."""

from __future__ import annotations

# The most bytes read from one schema or rule table: the compiler's inputs are the project's own
# files, so this only keeps a FIFO or /dev/zero in schemas/ from hanging the build.
SOURCE_MAX_BYTES = 16 * 1024 * 1024
