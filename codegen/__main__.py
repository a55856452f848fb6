"""``python -m codegen``: the same as ``rcs codegen``."""

import sys

from codegen.cli import main

sys.exit(main())
