"""``python -m codegen``: the same as ``rcs codegen``."""

import sys

from rcs_contracts.codegen.cli import main

sys.exit(main())
