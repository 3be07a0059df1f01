"""A clean, minimal environment: no secrets of the parent, no PATH, nothing of scratch on sys.path.

The zygote itself runs in Python's isolated mode (-I: no user site, no PYTHON* variables, no script
folder on sys.path) and has already loaded z3 from the installed package, so a ``libz3.so``, ``z3.py``
or ``sitecustomize.py`` planted in a scratch folder is never loaded.
"""

from __future__ import annotations

import os
import sys

from ...protocol import LayerReport
from . import Policy, When, report

NAME = "environment"
WHEN = When.PER_CANDIDATE
PROCESS_LEVEL = True
WHY = "a clean environment; needs the scratch folder as working directory"


def probe() -> LayerReport:
    return report(NAME, True, "clean environment, isolated sys.path")


def prepare(read_only_paths: tuple[str, ...] = ()) -> LayerReport:
    return probe()  # nothing to compute ahead


def apply(policy: Policy) -> LayerReport:
    os.environ.clear()
    os.environ.update({"HOME": policy.scratch_dir, "TMPDIR": policy.scratch_dir, "LANG": "C.UTF-8"})
    # Relative entries ('' above all) would resolve inside the scratch folder, the working directory.
    # Absolute ones cannot point into it: it was made after the zygote's sys.path was fixed.
    sys.path[:] = [entry for entry in sys.path if os.path.isabs(entry)]
    # tempfile caches its folder at first use; the zygote used it (for scratch) before this fork,
    # so without a reset a candidate's mkstemp() would ignore TMPDIR and write to the host's /tmp.
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # type: ignore[attr-defined]
    return report(NAME, True, f"{len(os.environ)} variables, {len(sys.path)} sys.path entries")
