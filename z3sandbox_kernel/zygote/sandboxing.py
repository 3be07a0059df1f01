"""The zygote's plan for isolating candidates: which layers, probed once, reported with every result.

Fail closed where asked (``require``), degrade loudly otherwise: a layer that cannot be applied is
reported as inactive with the reason, and the host warns once per process.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field

from ..child.layers import Layer, Policy, report
from ..child.steps import layers_at
from ..contracts.limits import Limits
from ..contracts.readable import read_only_paths
from ..protocol import KNOWN_LAYERS, NAMESPACE_LAYERS, IsolationReport, LayerReport
from ..protocol.roles import Level
from . import scratch
from .namespaces import NamespaceState, candidate_ids

MAX_ORPHAN_ROUNDS = 64
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@dataclass
class SandboxPlan:
    level: Level
    namespaces: NamespaceState
    z3_version: str
    pid_ns_fd: int | None = None  # the zygote's own PID namespace, to return to after each fork
    layers: list[Layer] = field(default_factory=list)
    layer_reports: list[LayerReport] = field(default_factory=list)  # probe results
    readable: tuple[str, ...] = ()
    baseline_rss_mb: float = 0.0

    @classmethod
    def build(cls, level: Level, namespaces: NamespaceState, z3_version: str) -> SandboxPlan:
        plan = cls(level, namespaces, z3_version, readable=read_only_paths())
        for layer in layers_at(level):  # the child's layers, in order (child/steps.py)
            probe = layer.probe()
            plan.layer_reports.append(probe)
            if probe.get("active"):
                layer.prepare(plan.readable)  # what it says is confirmed by the probe child
                plan.layers.append(layer)
        if namespaces.pid:
            plan.pid_ns_fd = os.open("/proc/self/ns/pid", os.O_RDONLY)
        plan.baseline_rss_mb = plan._rss_mb()
        return plan

    def enter_view(self, scratch_base: str) -> None:
        """Move the zygote into the candidates' filesystem view (after the layers are prepared:
        they may need host files); Landlock then grants exactly the paths the view binds."""
        self.namespaces.enter_view(scratch_base)
        if self.namespaces.view is not None:
            self.readable = self.namespaces.view.paths

    @property
    def namespace_reports(self) -> list[LayerReport]:
        if self.level != Level.KERNEL:
            return []
        missing = "it is set up per candidate under a PID namespace, which is not active here"
        return [self.namespaces.reports.get(name) or report(name, False, error=missing)
                for name in NAMESPACE_LAYERS]

    def confirm(self, applied: list[LayerReport] | None) -> None:
        """Take what a probe child really applied as the report; a layer that failed there is
        reported inactive with its error and not applied to candidates."""
        if applied is None:
            self.layer_reports = [
                report(r["name"], False, error="the probe child could not start") for r in self.layer_reports]
            return
        by_name = {r["name"]: r for r in applied}
        self.layer_reports = [by_name.get(r["name"], r) for r in self.layer_reports]
        self.layers = [layer for layer in self.layers
                       if layer.NAME not in by_name or by_name[layer.NAME]["active"]]

    def isolation_report(self) -> IsolationReport:
        return {"level": "kernel" if self.level == Level.KERNEL else "process",
                "layers": self.namespace_reports + list(self.layer_reports)}

    def missing_required(self, required: list[str]) -> str | None:
        """Why a candidate that requires these layers cannot run here, or None."""
        unknown = sorted(set(required) - KNOWN_LAYERS)
        if unknown:
            return f"unknown required layers: {', '.join(unknown)}"
        layers = {r["name"]: r for r in self.isolation_report()["layers"]}
        for name in required:
            layer = layers.get(name)
            if layer is None:
                return f"required layer {name} is not applied at isolation level {self.level.value!r}"
            if not layer.get("active"):
                return f"required layer {name} is not available: {layer.get('error', 'unknown reason')}"
        return None

    @property
    def nproc_note(self) -> str:
        """Why RLIMIT_NPROC is not applied, or "" when it is (see rlimits.py)."""
        if not (self.namespaces.user and self.namespaces.pid):
            return "threads limit not applied: it needs a user namespace per candidate"
        if os.getuid() == 0 and not self.namespaces.candidate_uid:
            return "threads limit not effective for root (the kernel exempts uid 0)"
        return ""

    def policy(self, scratch: str, limits: Limits, in_pid_ns: bool) -> Policy:
        note = self.nproc_note
        own_userns = in_pid_ns and not note
        ns = self.namespaces
        view = in_pid_ns and ns.view is not None  # its init enters the view (recipe.py)
        uid, gid = candidate_ids() if in_pid_ns and ns.candidate_uid else (None, None)
        return Policy(scratch_dir=scratch, limits=limits, read_only_paths=self.readable,
                      in_pid_namespace=in_pid_ns, self_pid=2 if in_pid_ns else 0,
                      nproc_effective=own_userns, nproc_note="" if own_userns else note,
                      view=view, ipc_uts=in_pid_ns and ns.ipc_uts,
                      uid=uid, gid=gid, shm_dir="/dev/shm" if view else "",
                      address_space_base=self.address_space_base())

    def address_space_base(self) -> int:
        """The zygote's current address-space size: a candidate's memory limit comes on top."""
        try:
            with open("/proc/self/statm") as handle:
                return int(handle.read().split()[0]) * PAGE_SIZE
        except OSError:
            return 0

    def _rss_mb(self) -> float:
        try:
            with open("/proc/self/statm") as handle:
                return int(handle.read().split()[1]) * PAGE_SIZE / (1 << 20)
        except OSError:
            return 0.0

    def kill_orphans(self, known: set[int]) -> None:
        """As subreaper we inherit what candidates left behind; none of it may live on.

        Killing an orphan re-parents *its* children to us, so: kill, reap, look again, until a look
        finds none (bounded: a tree deeper than MAX_ORPHAN_ROUNDS is finished by later sweeps).
        """
        for _ in range(MAX_ORPHAN_ROUNDS):
            spared = known | scratch.helper_pids()  # removal helpers are ours, not orphans
            orphans = [pid for pid in _children() if pid not in spared]
            if not orphans:
                return
            for pid in orphans:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            for pid in orphans:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass


def _children() -> list[int]:
    """Our children, from the kernel's per-thread list (the zygote has one thread), else /proc."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/children") as handle:
            return [int(pid) for pid in handle.read().split()]
    except OSError:
        return _children_by_scan()


def _children_by_scan() -> list[int]:
    """Where /proc/<pid>/task/<tid>/children is missing (CONFIG_PROC_CHILDREN off)."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == me:
                        found.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return found
