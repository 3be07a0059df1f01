"""``python -m z3sandbox_kernel``: the CLI."""

import sys

from .cli import main

sys.exit(main())
