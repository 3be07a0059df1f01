"""The isolation recipe: every isolation step between a fresh zygote and user code, in order.

Each side walks a sequence of its own, all of one ``Step`` type (child/layers/__init__.py): the
zygote ``ZYGOTE_STEPS`` at start-up (``zygote/__main__.py``, over its ``ZygoteSide``), a
candidate's init ``INIT_STEPS`` (``spawn._run_init``, over the candidate's ``Policy``), and its
child ``child/bootstrap.py``'s ``BEFORE_LAYERS`` (over its ``ChildJob``) then ``child/steps.py``'s
``CHILD_LAYERS`` (layer modules that declare when they run and at which level).  ``RECIPE`` joins
the four, in order, read top to bottom like nsjail's ``containProc``: where each step runs, when
(once at start-up, per candidate, or with the request), why it stands where it stands, and which
lines of the isolation report it answers for (the docs' table is generated from it; the names are
the protocol's one list, ``NAMESPACE_LAYERS`` and ``KERNEL_LAYERS``).  A step that fails is
reported inactive with the reason (a zygote step records it, an init or child step raises
``LayerSetupError``), and a candidate that required one of its layers does not run (fail closed
where asked, degrade loudly otherwise).

Preparing runs once, in the zygote, before the first fork (steps "prepare": each layer module's
``prepare``, and "view": the init steps' filesystem view): what a step can compute ahead
(seccomp's program, Landlock's ABI and paths, the view) is in memory before any candidate exists,
so ``apply`` in a candidate only makes the system calls.

The tree a candidate runs in (spawn.py)::

    zygote ──fork──> init (PID 1 of the candidate's PID namespace; runs no user code)
                       └──fork──> child (PID 2: bootstrap, layers, user code)

The zygote imports this module; the child side imports nothing of it (child/ imports only contracts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..child.bootstrap import BEFORE_LAYERS
from ..child.layers import LayerSetupError, Policy, Step, When
from ..child.steps import CHILD_LAYERS
from ..protocol.roles import Level, StrEnum
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


class ZygoteSide(Protocol):
    """What the zygote's start-up steps act on (``zygote/__main__.py``, ``Launch``)."""

    level: Level
    namespaces: NamespaceState

    def become_serving(self) -> None: ...

    def prepare_layers(self) -> None: ...

    def build_view(self) -> None: ...

    def probe_layers(self) -> None: ...

    def start_fork_server(self) -> None: ...


@dataclass(frozen=True)
class Row:
    """A step of any side, as the recipe's table shows it."""

    name: str
    where: Where
    when: When
    why: str
    reports: tuple[str, ...]
    layer: bool  # a child layer module (child/layers/)


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


ZYGOTE_STEPS: tuple[Step[ZygoteSide], ...] = (
    Step("userns", When.ONCE, apply=lambda z: enter_user(z.namespaces), reports=("userns",),
         why="first: every namespace and mount below then works without root"),
    Step("netns", When.ONCE, apply=lambda z: enter_net(z.namespaces), reports=("netns",),
         why="no interface up: no candidate reaches any network, loopback included"),
    Step("pidns", When.ONCE, apply=lambda z: enter_pid(z.namespaces), reports=("pidns",),
         why="a PID namespace for the next fork only: the serving zygote is its PID 1"),
    Step("serving zygote", When.ONCE, apply=lambda z: z.become_serving(), process_level=True,
         why="fork: the serving zygote is PID 1 (if it dies, every candidate dies with it); the "
             "first process stays outside as a thin parent that mirrors its exit.  Without a PID "
             "namespace the zygote is a subreaper instead, and kills the orphans it inherits"),
    Step("prepare", When.ONCE, apply=lambda z: z.prepare_layers(), process_level=True,
         why="every child layer probed and prepared while the host's files are still visible"),
    Step("view", When.ONCE, apply=lambda z: z.build_view(),
         why="the candidates' filesystem view, built once (mounts.py) after the PID namespace "
             "(its fresh /proc shows that namespace), after the layers are prepared (they read "
             "host files), before the probe (the report is what a child in the view applied)"),
    Step("probe", When.ONCE, apply=lambda z: z.probe_layers(), process_level=True,
         why="one child applies every step below and runs nothing: the isolation report is what "
             "really applied, and a layer that failed there is not applied to candidates"),
    Step("fork server", When.ONCE, apply=lambda z: z.start_fork_server(), process_level=True,
         why="forked before the first request is read: every tree is forked from a process that "
             "never held a request, an output or a report (forker.py)"),
)

INIT_STEPS: tuple[Step[Policy], ...] = (
    Step("mount, IPC, UTS", When.PER_CANDIDATE, apply=_view,
         reports=("mountns", "ipcns", "utsns"),
         why="needs the zygote's capabilities, so before the ids are dropped: a sized tmpfs for "
             "scratch and /dev/shm, a fresh /proc, its own SysV objects and hostname"),
    Step("ids", When.PER_CANDIDATE, apply=_ids,
         why="root's candidates become the dedicated uid: nothing root owns is theirs to change"),
    Step("own user namespace", When.PER_CANDIDATE, apply=_own_user_namespace,
         why="created by the candidate's uid, after the drop: RLIMIT_NPROC counts this candidate "
             "alone, and it holds no capability over the namespaces above"),
)

RECIPE: tuple[Row, ...] = (
    *(Row(step.name, Where.ZYGOTE, step.when, step.why, step.reports, False) for step in ZYGOTE_STEPS),
    *(Row(step.name, Where.INIT, step.when, step.why, step.reports, False) for step in INIT_STEPS),
    *(Row(step.name, Where.CHILD, step.when, step.why, step.reports, False) for step in BEFORE_LAYERS),
    *(Row(layer.NAME, Where.CHILD, layer.WHEN, layer.WHY, (layer.NAME,), True) for layer in CHILD_LAYERS),
    # ---- then the setup frame (which layers are active, written before user code), and user code
)


def set_up_zygote(side: ZygoteSide) -> None:
    """The zygote's start-up: its steps, in order."""
    for step in ZYGOTE_STEPS:
        if side.level == Level.KERNEL or step.process_level:
            step.apply(side)


def set_up_init(policy: Policy) -> list[tuple[Step[Policy], LayerSetupError]]:
    """A candidate's init: its steps, in order; the steps that failed (their layers are reported
    inactive, and a candidate that required one does not run).  An OSError of any other step is
    the init's failure."""
    failed = []
    for step in INIT_STEPS:
        try:
            step.apply(policy)
        except LayerSetupError as exc:
            failed.append((step, exc))
    return failed


def recipe_table() -> str:
    """The recipe as docs/how-it-works.md shows it (tools/sync_docs.py): one row per step, in order."""
    rows = ["| # | step | where | when | why here |", "|---|---|---|---|---|"]
    rows += [f"| {number} | {step.name} | {step.where} | {step.when} | {step.why} |"
             for number, step in enumerate(RECIPE, 1)]
    return "\n".join(rows)
