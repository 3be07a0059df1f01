#!/usr/bin/env bash
# Re-execute the notebooks on the Z3 Sandbox kernel and save their outputs in place, for a
# deliberate change to what users see (`make notebooks-refresh`; or name notebooks as arguments).
# Read `git diff notebooks/` before committing: nbval (tools/run-tests.sh) compares against these.
#
# nbclient is what `jupyter nbconvert --execute` runs; called directly it saves about 5 s a
# notebook.  Each notebook runs with its own folder as the working directory, as under nbval.
# Widget state is not stored: the live table's final figures (times, memory) would change the file
# on every refresh, and the result table after it says everything that lasts.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
if [ -x "$VENV/bin/python" ]; then PY=$VENV/bin/python; else PY=$(command -v python3); fi
export PYTHONDONTWRITEBYTECODE=1

if [ $# -eq 0 ]; then set -- notebooks/[0-9][0-9]-*.ipynb; fi
"$PY" - "$@" <<'PYTHON'
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbclient import NotebookClient
from traitlets.config import Config

try:
    KernelSpecManager().get_kernel_spec("z3sandbox")
except NoSuchKernel:
    sys.exit(f"no z3sandbox kernelspec for {sys.executable} (pip install -e . installs it)")

# The kernel is reached over IPC (Unix sockets in a private folder), not loopback TCP, which
# ipykernel warns is unencrypted.
sockets = tempfile.TemporaryDirectory()
config = Config({"KernelManager": {"transport": "ipc", "ip": f"{sockets.name}/kernel"}})

for name in sys.argv[1:]:
    path = Path(name)
    start = time.monotonic()
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps of an earlier run (JupyterLab records them)
    NotebookClient(
        notebook,
        kernel_name="z3sandbox",
        config=config,
        timeout=120,
        store_widget_state=False,
        record_timing=False,  # no per-cell timestamps in the cell metadata
        resources={"metadata": {"path": str(path.parent.resolve())}},
    ).execute()
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)
    print(f"{path}: {time.monotonic() - start:.1f} s", flush=True)
PYTHON
