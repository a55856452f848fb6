"""The distribution's name and version: one place, read by the build (pyproject.toml) and ``rcs --version``."""

from __future__ import annotations

DISTRIBUTION = "rcs-contracts"  # "rcs" itself is another project's on PyPI; the command keeps the name
PACKAGE = "rcs_contracts"
VERSION = "0.2.0"
# What `rcs --version` prints.
VERSION_LINE = f"rcs {VERSION} ({DISTRIBUTION} on PyPI)"
# What to run when the compiler's extra is missing.
INSTALL_CODEGEN = f"pip install '{DISTRIBUTION}[codegen]'"
# Where the compiled models and tables are imported from (the compiler writes this name into them).
GENERATED_PACKAGE = f"{PACKAGE}.generated"
