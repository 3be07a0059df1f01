"""The isolation recipe: every isolation step between a fresh zygote and user code, in order.

One tuple, ``RECIPE``, read top to bottom like nsjail's ``containProc``. Each step says where it
runs (the zygote, a candidate's init, the candidate's child), when (once at start-up, per candidate,
or with the request), why it stands where it stands, and which lines of the isolation report it
answers for. Every process that isolates walks its part of this tuple and nothing else: the zygote
at start-up (``zygote/__main__.py``), a candidate's init (``spawn._run_init``) and its child
(``child/bootstrap.py``, a standby and a spare verifier included; before its steps the child takes
its own session, its descriptors, its parent-death signal and its scratch folder). A step that fails
is reported inactive with the reason (a zygote step records it, an init or child step raises
``LayerSetupError``), and a candidate that required one of its layers does not run (fail closed
where asked, degrade loudly otherwise).

Preparing runs once, in the zygote, before the first fork (steps "prepare": each layer module's
``prepare``, and "view": the init steps' filesystem view): what a step can compute ahead
(seccomp's program, Landlock's ABI and paths, the view) is in memory before any candidate exists,
so ``apply`` in a candidate only makes the system calls.

The tree a candidate runs in (spawn.py)::

    zygote ──fork──> init (PID 1 of the candidate's PID namespace; runs no user code)
                       └──fork──> child (PID 2: bootstrap, layers, user code)

This module is imported on both sides of the fork; it imports nothing of host/ or jupyter/.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..child.layers import LayerSetupError, Policy
from ..roles import StrEnum
from .mounts import enter_candidate_view
from .namespaces import (
    NamespaceState,
    drop_to,
    enter_candidate_user_namespace,
    enter_net,
    enter_pid,
    enter_user,
)


class Where(StrEnum):
    ZYGOTE = "zygote"  # the zygote process, at start-up
    INIT = "init"  # a candidate's init: PID 1 of its PID namespace, runs no user code
    CHILD = "child"  # the process that will run user code (or a verification, or the probe)


class When(StrEnum):
    ONCE = "once"  # at the zygote's start-up, before any request
    PER_CANDIDATE = "per candidate"  # in every tree, possibly before its request exists (a standby)
    WITH_REQUEST = "with the request"  # only once the request is known: its limits


class ZygoteSide(Protocol):
    """What the zygote's start-up steps act on (``zygote/__main__.py``, ``Launch``)."""

    level: str
    namespaces: NamespaceState

    def become_serving(self) -> None: ...

    def prepare_layers(self) -> None: ...

    def build_view(self) -> None: ...

    def probe_layers(self) -> None: ...

    def start_fork_server(self) -> None: ...


@dataclass(frozen=True)
class Step:
    """One step.  ``apply`` takes the process's side: a ``ZygoteSide`` in the zygote, the
    candidate's ``Policy`` in its init and child (a child step's ``apply`` is its layer module's,
    child/layers/; ``layer`` is then True)."""

    name: str
    where: Where
    when: When
    why: str  # the ordering constraint, said once
    apply: Callable[[Any], Any] | None = None
    reports: tuple[str, ...] = ()  # the isolation report's lines it answers for
    layer: bool = False  # a module in child/layers/ with probe, prepare and apply
    process_level: bool = False  # also at the "process" isolation level (no namespaces, no kernel layers)


def _view(policy: Policy) -> None:
    if policy.ipc_uts:
        try:
            enter_candidate_view(policy.scratch_dir, int(policy.limits.disk_mb), policy.candidate_uid,
                                 policy.candidate_gid, view=policy.view)
        except OSError as exc:
            raise LayerSetupError("mountns", f"per-candidate setup failed: {exc}") from None


def _ids(policy: Policy) -> None:
    drop_to(policy.candidate_uid, policy.candidate_gid)


def _own_user_namespace(policy: Policy) -> None:
    if policy.nproc_effective:
        enter_candidate_user_namespace()


RECIPE: tuple[Step, ...] = (
    # ---------------------------------------------------------------- the zygote, once, at start-up
    Step("userns", Where.ZYGOTE, When.ONCE, apply=lambda z: enter_user(z.namespaces), reports=("userns",),
         why="first: every namespace and mount below then works without root"),
    Step("netns", Where.ZYGOTE, When.ONCE, apply=lambda z: enter_net(z.namespaces), reports=("netns",),
         why="no interface up: no candidate reaches any network, loopback included"),
    Step("pidns", Where.ZYGOTE, When.ONCE, apply=lambda z: enter_pid(z.namespaces), reports=("pidns",),
         why="a PID namespace for the next fork only: the serving zygote is its PID 1"),
    Step("serving zygote", Where.ZYGOTE, When.ONCE, apply=lambda z: z.become_serving(), process_level=True,
         why="fork: the serving zygote is PID 1 (if it dies, every candidate dies with it); the "
             "first process stays outside as a thin parent that mirrors its exit.  Without a PID "
             "namespace the zygote is a subreaper instead, and kills the orphans it inherits"),
    Step("prepare", Where.ZYGOTE, When.ONCE, apply=lambda z: z.prepare_layers(), process_level=True,
         why="every child layer probed and prepared while the host's files are still visible"),
    Step("view", Where.ZYGOTE, When.ONCE, apply=lambda z: z.build_view(),
         why="the candidates' filesystem view, built once (mounts.py) after the PID namespace "
             "(its fresh /proc shows that namespace), after the layers are prepared (they read "
             "host files), before the probe (the report is what a child in the view applied)"),
    Step("probe", Where.ZYGOTE, When.ONCE, apply=lambda z: z.probe_layers(), process_level=True,
         why="one child applies every step below and runs nothing: the isolation report is what "
             "really applied, and a layer that failed there is not applied to candidates"),
    Step("fork server", Where.ZYGOTE, When.ONCE, apply=lambda z: z.start_fork_server(), process_level=True,
         why="forked before the first request is read: every tree is forked from a process that "
             "never held a request, an output or a report (forker.py)"),
    # ------------------------------------------------------------- a candidate's init, per candidate
    Step("mount, IPC, UTS", Where.INIT, When.PER_CANDIDATE, apply=_view,
         reports=("mountns", "ipcns", "utsns"),
         why="needs the zygote's capabilities, so before the ids are dropped: a sized tmpfs for "
             "scratch and /dev/shm, a fresh /proc, its own SysV objects and hostname"),
    Step("ids", Where.INIT, When.PER_CANDIDATE, apply=_ids,
         why="root's candidates become the dedicated uid: nothing root owns is theirs to change"),
    Step("own user namespace", Where.INIT, When.PER_CANDIDATE, apply=_own_user_namespace,
         why="created by the candidate's uid, after the drop: RLIMIT_NPROC counts this candidate "
             "alone, and it holds no capability over the namespaces above"),
    # --------------------------------------------- the candidate's child (after its session and fds)
    Step("environment", Where.CHILD, When.PER_CANDIDATE, layer=True, reports=("environment",),
         process_level=True, why="a clean environment; needs the scratch folder as working directory"),
    Step("rlimits", Where.CHILD, When.WITH_REQUEST, layer=True, reports=("rlimits",), process_level=True,
         why="the request's limits: they can only be lowered once set, so a standby or a spare "
             "applies them when its request comes; before seccomp, which refuses prlimit on others"),
    Step("capabilities", Where.CHILD, When.PER_CANDIDATE, layer=True, reports=("capabilities",),
         why="every capability dropped and no_new_privs set, which Landlock and seccomp need"),
    Step("landlock", Where.CHILD, When.PER_CANDIDATE, layer=True, reports=("landlock",),
         why="the paths it may read and write; after no_new_privs"),
    Step("seccomp", Where.CHILD, When.PER_CANDIDATE, layer=True, reports=("seccomp",),
         why="last: its filter refuses calls the steps before it still make"),
    # ---- then the setup frame (which layers are active, written before user code), and user code
)

ZYGOTE_STEPS = tuple(step for step in RECIPE if step.where is Where.ZYGOTE)
INIT_STEPS = tuple(step for step in RECIPE if step.where is Where.INIT)
CHILD_STEPS = tuple(step for step in RECIPE if step.where is Where.CHILD)
NAMESPACE_LAYERS = tuple(name for step in RECIPE if not step.layer for name in step.reports)


def child_layers(level: str) -> tuple[str, ...]:
    """The child layers applied at an isolation level ("kernel" or "process"), in order."""
    return tuple(step.name for step in CHILD_STEPS if level == "kernel" or step.process_level)


WITH_REQUEST = frozenset(step.name for step in CHILD_STEPS if step.when is When.WITH_REQUEST)


def set_up_zygote(side: ZygoteSide) -> None:
    """The zygote's start-up: its steps, in order."""
    for step in ZYGOTE_STEPS:
        if side.level == "kernel" or step.process_level:
            assert step.apply is not None
            step.apply(side)


def set_up_init(policy: Policy) -> list[tuple[Step, LayerSetupError]]:
    """A candidate's init: its steps, in order; the steps that failed (their layers are reported
    inactive, and a candidate that required one does not run).  An OSError of any other step is
    the init's failure."""
    failed = []
    for step in INIT_STEPS:
        assert step.apply is not None
        try:
            step.apply(policy)
        except LayerSetupError as exc:
            failed.append((step, exc))
    return failed



def recipe_table() -> str:
    """The recipe as the README shows it (tools/sync_docs.py): one row per step, in order."""
    rows = ["| # | step | where | when | why here |", "|---|---|---|---|---|"]
    rows += [f"| {number} | {step.name} | {step.where} | {step.when} | {step.why} |"
             for number, step in enumerate(RECIPE, 1)]
    return "\n".join(rows)
