"""Run untrusted Z3Py and SMT-LIB 2 candidates in fresh, limited, isolated child processes.

The public API is the names below; every other module is private.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__
from .host.sandbox import Sandbox, run
from .limits import Limits
from .results import CandidateResult, RunResult
from .verdicts import Verdict

__all__ = [
    "CandidateResult",
    "Limits",
    "RunResult",
    "Sandbox",
    "Verdict",
    "__version__",
    "load_ipython_extension",
    "run",
]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds the built extension (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "z3sandbox-kernel"}]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext z3sandbox_kernel``: register the ``%%z3sandbox`` magic (imported lazily)."""
    from .jupyter.magic import load_ipython_extension as _load

    _load(ipython)
