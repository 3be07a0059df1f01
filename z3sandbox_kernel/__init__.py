"""Run untrusted Z3Py and SMT-LIB 2 candidates in fresh, limited, isolated child processes.

The public API is the names below; every other module is private.

Imports are lazy (a module ``__getattr__``, as anywidget does): the zygote and every candidate
import this package on their way to ``z3sandbox_kernel.zygote`` and ``.child``, and must not pay for
the host side (asyncio, ssl, the scheduler) nor load it into a process that runs untrusted code.
``from z3sandbox_kernel import run`` works as before; type checkers read the imports below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ._version import __version__
    from .agents.repair import repair
    from .host.plan import Graces
    from .host.records import load_runs
    from .host.run_diff import diff_runs
    from .host.sandbox import Sandbox, run
    from .limits import Limits
    from .options import RunOptions
    from .results import CandidateResult, RunResult
    from .verdicts import Verdict

# public name -> the module that defines it, imported on first access
_LAZY = {
    "CandidateResult": ".results",
    "Graces": ".host.plan",
    "Limits": ".limits",
    "RunOptions": ".options",
    "RunResult": ".results",
    "Sandbox": ".host.sandbox",
    "Verdict": ".verdicts",
    "__version__": "._version",
    "diff_runs": ".host.run_diff",
    "load_runs": ".host.records",
    "repair": ".agents.repair",
    "run": ".host.sandbox",
}

__all__ = [
    "CandidateResult",
    "Graces",
    "Limits",
    "RunOptions",
    "RunResult",
    "Sandbox",
    "Verdict",
    "__version__",
    "diff_runs",
    "load_ipython_extension",
    "load_runs",
    "repair",
    "run",
]


def __getattr__(name: str) -> Any:  # noqa: ANN401  # any public name, imported on first use
    """Import a public name's module on first use and cache the name in this module."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds the built extension (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "z3sandbox-kernel"}]


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """``%load_ext z3sandbox_kernel``: register the ``%%z3sandbox`` magic (imported lazily)."""
    from .jupyter.magic import load_ipython_extension as _load

    _load(ipython)
