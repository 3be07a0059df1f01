"""Isolation layers, one mechanism per module, all with the same small interface.

Each layer module defines::

    NAME: str                                  # "landlock", "seccomp", ...
    WHEN: When                                 # per candidate, or only with its request
    PROCESS_LEVEL: bool                        # also at the "process" isolation level
    WHY: str                                   # why it stands where it stands in the order
    def probe() -> LayerReport                 # can this machine apply it?  No side effects.
    def prepare(read_only_paths=()) -> LayerReport  # once, in the zygote: what apply can compute ahead
    def apply(policy: Policy) -> LayerReport   # apply it to the calling process, or raise LayerSetupError

(``Layer`` below says it for the type checker.)  ``apply`` runs in the candidate process after
fork and before any user code, in the order of ``child/steps.py``'s ``CHILD_LAYERS`` (where adding
or skipping a layer is one line; zygote/recipe.py shows it as part of the whole recipe).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ...contracts.limits import Limits
from ...protocol import LayerReport
from ...protocol.roles import StrEnum


class When(StrEnum):
    """When an isolation step runs (the child's layers, and the zygote's and init's steps)."""

    ONCE = "once"  # at the zygote's start-up, before any request
    PER_CANDIDATE = "per candidate"  # in every tree, possibly before its request exists (a standby)
    WITH_REQUEST = "with the request"  # only once the request is known: its limits


Side = TypeVar("Side")


@dataclass(frozen=True)
class Step(Generic[Side]):
    """One step of the isolation recipe that is not a layer module: the zygote's at start-up, a
    candidate's init's, or the child's before its layers (zygote/recipe.py shows them all, in
    order).  ``apply`` acts on that process's side."""

    name: str
    when: When
    why: str  # the ordering constraint, said once
    apply: Callable[[Side], None]
    reports: tuple[str, ...] = ()  # the isolation report's lines it answers for
    process_level: bool = False  # also at the "process" isolation level (no namespaces, no kernel layers)


class LayerSetupError(Exception):
    """A layer could not be applied.  The message says why, in words a user can act on."""

    def __init__(self, layer: str, message: str) -> None:
        super().__init__(f"{layer}: {message}")
        self.layer = layer
        self.message = message


@dataclass(frozen=True)
class Policy:
    """What one candidate may touch.  Built by the zygote, read by every layer."""

    scratch_dir: str
    limits: Limits
    read_only_paths: tuple[str, ...] = ()  # Python installation, site-packages, system libraries
    in_pid_namespace: bool = False  # user code runs as PID 2 of its own PID namespace
    self_pid: int = 0  # the candidate's PID as it sees it (2 inside a PID namespace)
    uid: int | None = None  # the ids its init drops to (root's candidates), None: unchanged
    gid: int | None = None
    shm_dir: str = ""  # a private /dev/shm on the candidate's scratch tmpfs (read-write), if any
    address_space_base: int = 0  # the zygote's address space: RLIMIT_AS is this + memory_mb
    nproc_effective: bool = False  # a user namespace of its own: RLIMIT_NPROC counts it alone
    nproc_note: str = ""  # why the threads limit is not applied, "" when it is
    view: bool = False  # its init enters the filesystem view (zygote/mounts.py)
    ipc_uts: bool = False  # its init enters IPC and UTS namespaces (and a sized tmpfs: measured)
    supervised: bool = False  # its init answers and counts seccomp's refusals (seccomp_notify.py)

    @property
    def candidate_uid(self) -> int:
        return os.getuid() if self.uid is None else self.uid

    @property
    def candidate_gid(self) -> int:
        return os.getgid() if self.gid is None else self.gid


class Layer(Protocol):
    """A layer module, as the zygote and the bootstrap use it (modules satisfy it structurally)."""

    NAME: str
    WHEN: When
    PROCESS_LEVEL: bool
    WHY: str

    def probe(self) -> LayerReport: ...

    def prepare(self, read_only_paths: tuple[str, ...] = ()) -> LayerReport: ...

    def apply(self, policy: Policy) -> LayerReport: ...


def report(name: str, active: bool, detail: str = "", error: str = "") -> LayerReport:
    result: LayerReport = {"name": name, "active": active}
    if detail:
        result["detail"] = detail
    if error:
        result["error"] = error
    return result
