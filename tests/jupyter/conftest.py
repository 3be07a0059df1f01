"""The Jupyter tests' fixtures: IPython's own shell with the extension loaded (``shell``, and
``fresh`` magics with no sandbox yet); the kernelspec installed in a temporary prefix, and one
z3sandbox kernel a test module shares (tests/jupyter/kernels.py drives them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from tests.jupyter.kernels import start
from z3sandbox_kernel.jupyter.kernelspec import install_kernelspec
from z3sandbox_kernel.jupyter.magic import Z3SandboxMagics, magics_of


@pytest.fixture(scope="module")
def kernel_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The kernelspec installed in a temporary prefix that JUPYTER_PATH points to: works on a
    clean clone after `pip install -e .`, where the shared-data copy is not installed."""
    prefix = tmp_path_factory.mktemp("prefix")
    install_kernelspec(prefix=str(prefix))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
        yield prefix


@pytest.fixture(scope="module")
def z3kernel(kernel_path: Path) -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    km, kc = start("z3sandbox", kernel_path)
    yield km, kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def shell() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "z3sandbox_kernel")
    yield shell
    magics = magics_of(shell)
    if magics is not None:
        magics.close()


@pytest.fixture
def fresh(shell: InteractiveShell) -> Iterator[Z3SandboxMagics]:
    """A magics object with no sandbox yet: any run would start a zygote, a new child process."""
    previous = magics_of(shell)
    magics = Z3SandboxMagics(shell)
    shell.register_magics(magics)
    yield magics
    magics.close()
    shell.configurables.remove(magics.options)
    if previous is not None:
        shell.register_magics(previous)
