"""How a result shows itself (``repr``, ``_repr_mimebundle_``, ``table_rows``) without a contract
importing the presentation above it: the result asks ``shows()``, which the package's root fills
(``z3sandbox_kernel/__init__.py``, run before any of its modules is imported, so before any result
exists) with a loader of ``presentation/render.py``.  The loader imports it on first use: importing
a result loads no presentation, and where untrusted code runs nothing is ever shown."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

Run = TypeVar("Run", contravariant=True)
Candidate = TypeVar("Candidate", contravariant=True)
MimeBundle = tuple[Mapping[str, object], Mapping[str, object]]  # IPython's (data, metadata)


class Shows(Protocol[Run, Candidate]):
    """What the presentation does for the result types (``presentation/render.py`` is one)."""

    def run_mimebundle(self, result: Run, /) -> MimeBundle: ...

    def run_text(self, result: Run, /) -> str: ...

    def candidate_mimebundle(self, candidate: Candidate, alone: Run, /) -> MimeBundle: ...

    def candidate_alone_text(self, candidate: Candidate, /) -> str: ...

    def table_rows(self, result: Run, /) -> list[dict[str, object]]: ...


_loader: list[Callable[[], Shows[Any, Any]]] = []


def fill(loader: Callable[[], Shows[Any, Any]]) -> None:
    """Name the presentation the results show themselves through (the package's root does)."""
    _loader[:] = [loader]


def shows() -> Shows[Any, Any]:
    """The presentation, loaded on first use."""
    if not _loader:  # cannot happen through the package: its root fills it first
        raise RuntimeError("no presentation to show a result: import z3sandbox_kernel")
    return _loader[0]()
