"""Run untrusted Z3Py and SMT-LIB 2 candidates in fresh, limited, isolated child processes.

The public API is the names below; every other module is private.

Imports are lazy (a module ``__getattr__``, as anywidget does): the zygote and every candidate
import this package on their way to ``z3sandbox_kernel.zygote`` and ``.child``, and must not pay for
the host side (asyncio, ssl, the scheduler) nor load it into a process that runs untrusted code.
``from z3sandbox_kernel import run`` works as before; type checkers read the imports below.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .contracts import display as _display

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from .agents.repair import repair
    from .contracts._version import __version__
    from .contracts.limits import Limits
    from .contracts.options import RunOptions
    from .contracts.results import CandidateResult, RunResult
    from .host.plan import Graces
    from .host.records import load_runs
    from .host.run_diff import diff_runs
    from .host.sandbox import Sandbox, run
    from .protocol.verdicts import Verdict

# public name -> a loader of the module that defines it, imported on first access (each name a
# literal, so that tests/test_architecture.py sees every import this package makes)
_LAZY: dict[str, Callable[[], ModuleType]] = {
    "CandidateResult": lambda: importlib.import_module(".contracts.results", __name__),
    "Graces": lambda: importlib.import_module(".host.plan", __name__),
    "Limits": lambda: importlib.import_module(".contracts.limits", __name__),
    "RunOptions": lambda: importlib.import_module(".contracts.options", __name__),
    "RunResult": lambda: importlib.import_module(".contracts.results", __name__),
    "Sandbox": lambda: importlib.import_module(".host.sandbox", __name__),
    "Verdict": lambda: importlib.import_module(".protocol.verdicts", __name__),
    "__version__": lambda: importlib.import_module(".contracts._version", __name__),
    "diff_runs": lambda: importlib.import_module(".host.run_diff", __name__),
    "load_runs": lambda: importlib.import_module(".host.records", __name__),
    "repair": lambda: importlib.import_module(".agents.repair", __name__),
    "run": lambda: importlib.import_module(".host.sandbox", __name__),
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
    load = _LAZY.get(name)
    if load is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(load(), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _presentation() -> _display.Shows[Any, Any]:
    """How the results show themselves (contracts/display.py): imported when one is first shown."""
    from .presentation import render

    return render


_display.fill(_presentation)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds the built extension (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "z3sandbox-kernel"}]


def load_ipython_extension(ipython: InteractiveShell) -> None:
    """``%load_ext z3sandbox_kernel``: register the ``%%z3sandbox`` magic (imported lazily)."""
    from .jupyter.magic import load_ipython_extension as _load

    _load(ipython)
