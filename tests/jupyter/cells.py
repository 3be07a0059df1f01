"""What the Jupyter tests put in a cell, and running one through IPython's own shell (the kernel
tests send theirs through jupyter_client: kernels.py)."""

from __future__ import annotations

import os
from pathlib import Path

from IPython.core.interactiveshell import InteractiveShell

SAT = 'x = Int("x")\ns.add(x > 1, x < 3)\n'
UNSAT = 'x = Int("x")\ns.add(x > 1, x < 1)\n'
FAST = "--timeout 2 --wall 5 --cpu 4 --memory 256"


def child_pids() -> set[int]:
    """Direct children of this process, read from /proc (no helper process)."""
    me = str(os.getpid())
    children = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2 :].split()[1] == me:
            children.add(int(entry.name))
    return children


def run_cell(shell: InteractiveShell, line: str, body: str) -> object:
    return shell.run_cell_magic("z3sandbox", line, body)
