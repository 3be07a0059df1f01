"""A Z3 Sandbox kernel for a benchmark: started through jupyter_client from a kernelspec installed
in a private folder (so the measured kernel is this tree's), over IPC sockets, and shut down
however the benchmark ends."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from z3sandbox_kernel.jupyter.kernelspec import install_kernelspec


@contextmanager
def z3sandbox_kernel() -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    """The kernel's manager and a ready client."""
    with tempfile.TemporaryDirectory() as folder:
        prefix = Path(folder)
        install_kernelspec(prefix=str(prefix))
        os.environ["JUPYTER_PATH"] = str(prefix / "share" / "jupyter")
        km = KernelManager(kernel_name="z3sandbox", transport="ipc", ip=str(prefix / "kernel"))
        km.start_kernel(cwd=folder)
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            yield km, kc
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
