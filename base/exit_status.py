"""The exit statuses of every ``rcs`` command, shared by the CLI and the domains' command modules.

0 done (all valid), 1 a verdict against the input (a violation; autoresearch: needs an operator),
2 usage or input that cannot be used, 3 a defect in rcs (never the input's fault), 130/143 ended
by SIGINT/SIGTERM.
"""

from __future__ import annotations

EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_SIGINT, EXIT_SIGTERM = 130, 143
