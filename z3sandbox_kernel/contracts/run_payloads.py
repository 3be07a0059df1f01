"""``RunResult``'s payloads: each candidate's, and the files they make (contracts/payload_files.py,
imported when first used: a run that saves no payload never loads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    import os
    from pathlib import Path


class HasPayloads(Protocol):
    """What ``RunPayloads`` reads of a candidate (``CandidateResult`` is one)."""

    @property
    def index(self) -> int: ...

    @property
    def label(self) -> str | None: ...

    @property
    def payloads(self) -> list[bytes]: ...

    def named_payloads(self) -> list[tuple[str, bytes]]: ...


Candidate = TypeVar("Candidate", bound=HasPayloads)


class RunPayloads(Generic[Candidate]):
    """Every payload of a run's ``candidates``, and the files ``save_payloads`` writes of them."""

    candidates: list[Candidate]

    @property
    def payloads(self) -> list[bytes]:
        """Every candidate's payloads (``CandidateResult.payloads``: one per model, ``models=N``
        and the models read at its checks too), in candidate order."""
        return [payload for c in self.candidates for payload in c.payloads]

    def payload_files(self) -> list[tuple[str, int, str, bytes]]:
        """``(file name, index, payload name, payload)`` of each distinct payload: what ``save_payloads``
        writes into an empty folder, and what the labextension's "Download all payloads" zips."""
        from .payload_files import run_files

        return run_files(self.candidates)

    def save_payloads(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write each of ``payload_files`` into ``folder`` (created if need be), atomically, unless its
        hash is there: ``payload-LABEL-NAME-sha256:HASH.bin``.  Returns the new files."""
        from .payload_files import save_payloads

        return save_payloads(((named, payload) for named, _, _, payload in self.payload_files()), folder)
