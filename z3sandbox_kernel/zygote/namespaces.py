"""Linux namespaces for the zygote and its candidates, through libc (Python 3.11 has no os.unshare).

Each function is one step of the isolation recipe (recipe.py says the order and why): the user,
network and PID namespaces entered once by the zygote, the filesystem view and the IPC/UTS probe
once by the serving zygote, and per candidate, in its init, ``drop_to`` and
``enter_candidate_user_namespace``; ``fork_in_new_pid_namespace`` gives each candidate a PID
namespace of its own (unshare for the next fork only, then ``setns`` back).  The namespaces a
candidate's init enters are owned by the zygote's user namespace, where the candidate holds no
capability: it cannot unmount its view or set the hostname.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Callable
from dataclasses import dataclass, field

from ..child.layers import report
from ..contracts.oscalls import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWPID,
    CLONE_NEWUSER,
    CLONE_NEWUTS,
    PR_SET_DUMPABLE,
    prctl,
    setns,
    unshare,
)
from ..protocol import LayerReport
from .mounts import View, build_view

# The ids root's candidates run as (as nsjail and isolate use a dedicated one): far above any
# distribution's users, systemd's dynamic users (61184-65519) and its container range
# (524288-1879048191), so no file on the host is theirs.  Mapped only inside the sandbox's user
# namespace; the host sees files of theirs only in scratch, which is a private tmpfs.
CANDIDATE_UID = 2_000_000_000
CANDIDATE_GID = 2_000_000_000


_PER_CANDIDATE = {"ipcns": "one per candidate: its SysV objects die with it, no host object visible",
                  "utsns": "one per candidate: a hostname change stays inside"}


@dataclass
class NamespaceState:
    """The zygote's namespaces as the isolation report shows them: one report per layer name,
    made by the step that entered it (recipe.py); a name without one was never attempted."""

    reports: dict[str, LayerReport] = field(default_factory=dict)
    candidate_uid: bool = False  # root's candidates run as CANDIDATE_UID (mapped in our userns)
    view: View | None = None  # the filesystem view (mounts.py), built by the serving zygote

    def active(self, name: str) -> bool:
        report = self.reports.get(name)
        return report is not None and report["active"]

    @property
    def user(self) -> bool:
        return self.active("userns")

    @property
    def pid(self) -> bool:
        return self.active("pidns")

    @property
    def ipc_uts(self) -> bool:  # IPC and UTS namespaces per candidate
        return self.active("ipcns")

    @property
    def errors(self) -> dict[str, str]:
        return {name: r.get("error", "") for name, r in self.reports.items() if not r.get("active")}

    def enter_view(self, scratch_base: str) -> None:
        """In the serving zygote (PID 1 of its PID namespace): the view, and a probe of the
        per-candidate IPC/UTS namespaces; each reported by layer name."""
        try:
            self.view = build_view(scratch_base)
            self.reports["mountns"] = report("mountns", True, self.view.detail)
        except OSError as exc:
            self.reports["mountns"] = report("mountns", False,
                                             error=f"the filesystem view could not be built: {exc}")
        ipc_uts = _can_unshare(CLONE_NEWIPC | CLONE_NEWUTS)
        refused = "unshare(CLONE_NEWIPC | CLONE_NEWUTS) is refused here"
        for name, detail in _PER_CANDIDATE.items():
            self.reports[name] = report(name, True, detail) if ipc_uts else report(name, False, error=refused)


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _map_ids(uid: int, gid: int) -> str:
    """Map our own ids to themselves: files in scratch keep the user's real ownership."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    return f"uid {uid}, gid {gid} mapped to themselves"


# A normal user's supplementary groups.  The kernel lets an unprivileged process write its gid map
# only after denying setgroups(2) in the namespace for good (user_namespaces(7)), so a process
# cannot drop the groups it was started with: they keep their access on host files, shown as the
# overflow gid.  Only the setuid helper newgidmap (Debian's uidmap package) may write a gid map that
# leaves setgroups allowed, and only for a user with a range in /etc/subgid; then the zygote drops
# every group before anything else runs.  Root drops them in drop_to.
NEWGIDMAP = "/usr/bin/newgidmap"
KEEPS_GROUPS = ("supplementary groups kept (only newgidmap, from Debian's uidmap package, with a "
                "range in /etc/subgid, lets a normal user drop them)")


def _subordinate_gid(uid: int) -> int | None:
    """The first gid of the user's range in /etc/subgid (``name:start:count`` or ``uid:...``)."""
    try:
        name = pwd.getpwuid(uid).pw_name
        with open("/etc/subgid", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (KeyError, OSError):
        return None
    for line in lines:
        owner, start, count = [*line.split(":"), "", ""][:3]
        if owner in (name, str(uid)) and start.isdigit() and count.isdigit() and int(count) > 0:
            return int(start)
    return None


def _unshare_user_dropping_groups(uid: int, gid: int) -> str:
    """A normal user's user namespace with no supplementary groups where newgidmap allows it (its
    map names the user's gid and one gid of its /etc/subgid range, which keeps setgroups allowed;
    a helper runs it, as for root); else ``_map_ids`` and the groups kept."""
    kept = "" if set(os.getgroups()) <= {gid} else f"; {KEEPS_GROUPS}"  # none beyond its own gid
    subordinate = _subordinate_gid(uid) if os.getgroups() and os.access(NEWGIDMAP, os.X_OK) else None
    if subordinate is None:
        unshare(CLONE_NEWUSER)
        return _map_ids(uid, gid) + kept

    def newgidmap(pid: int) -> None:  # in the helper: never returns
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execv(NEWGIDMAP, [NEWGIDMAP, str(pid), str(gid), str(gid), "1",
                             str(subordinate), str(subordinate), "1"])

    if not _unshare_user_mapped_by_helper(newgidmap):  # no gid map written: the plain way works
        return _map_ids(uid, gid) + (f"{kept}: newgidmap failed" if kept else "")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    os.setgroups([])
    return f"uid {uid}, gid {gid} mapped to themselves; supplementary groups dropped"


def _unshare_user_mapped_by_helper(write_maps: Callable[[int], None]) -> bool:
    """unshare(CLONE_NEWUSER), the maps written by ``write_maps(our pid)`` in a helper forked
    before, which stays outside: a map beyond our own ids needs privileges in the *parent*
    namespace, which we lose by unsharing (as newuidmap does).  Whether the helper succeeded; the
    unshare's OSError if it failed."""
    ready_r, ready_w = os.pipe()
    helper = os.fork()
    if helper == 0:
        try:
            os.close(ready_w)
            if os.read(ready_r, 1) == b"u":  # EOF: the unshare failed, nothing to map
                write_maps(os.getppid())
                os._exit(0)
        finally:
            os._exit(1)
    os.close(ready_r)
    try:
        unshare(CLONE_NEWUSER)
        os.write(ready_w, b"u")
    finally:
        os.close(ready_w)
        _, status = os.waitpid(helper, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _write_root_maps(pid: int) -> None:
    _write(f"/proc/{pid}/uid_map", f"0 0 1\n{CANDIDATE_UID} {CANDIDATE_UID} 1")
    _write(f"/proc/{pid}/gid_map", f"0 0 1\n{CANDIDATE_GID} {CANDIDATE_GID} 1")


def _unshare_user_as_root() -> str:
    """Root's user namespace maps 0 to itself and ``CANDIDATE_UID``/``CANDIDATE_GID`` too (the ids
    its candidates run as, ``drop_to``): a map of two lines, written by a helper."""
    if not _unshare_user_mapped_by_helper(_write_root_maps):
        raise OSError(1, "the helper could not write the uid and gid maps")
    return f"uid 0 mapped to itself; candidates run as uid {CANDIDATE_UID}, gid {CANDIDATE_GID}"


def candidate_ids() -> tuple[int, int]:
    """The uid and gid a candidate runs as: the user's own, or for root the dedicated pair."""
    uid, gid = os.getuid(), os.getgid()
    return (CANDIDATE_UID, CANDIDATE_GID) if uid == 0 else (uid, gid)


def drop_to(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` with no supplementary groups (root's init, before the candidate's
    own user namespace: from then on nothing root owns is the candidate's to change)."""
    if (uid, gid) == (os.getuid(), os.getgid()):
        return
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    # A change of uid made us non-dumpable, which gives /proc/self to the old uid: we could not
    # write our own user namespace's maps next.  Same as before the change for a normal user.
    prctl(PR_SET_DUMPABLE, 1)


def enter_candidate_user_namespace() -> None:
    """A user namespace of the candidate's own, nested in the zygote's (called by its init).

    RLIMIT_NPROC is counted per user namespace and user, so only in a namespace of its own does the
    thread limit bound this candidate alone instead of all candidates together.
    """
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWUSER)
    _map_ids(uid, gid)


def enter_user(state: NamespaceState) -> None:
    """A user namespace, so that everything after it works without root."""
    uid, gid = os.getuid(), os.getgid()
    try:
        if uid == 0:
            uid_map = _unshare_user_as_root()
            state.candidate_uid = True
        else:
            uid_map = _unshare_user_dropping_groups(uid, gid)
    except OSError as exc:
        state.reports["userns"] = report("userns", False, error=(
            f"user namespaces are refused here ({exc.strerror}); on Debian/Ubuntu check "
            "kernel.unprivileged_userns_clone and kernel.apparmor_restrict_unprivileged_userns"))
        return
    state.reports["userns"] = report("userns", True, uid_map)


def _enter(state: NamespaceState, name: str, flag: int, detail: str) -> None:
    try:
        unshare(flag)
    except OSError as exc:
        state.reports[f"{name}ns"] = report(
            f"{name}ns", False, error=f"unshare({name}) failed: {exc.strerror}")
        return
    state.reports[f"{name}ns"] = report(f"{name}ns", True, detail)


def enter_net(state: NamespaceState) -> None:
    """A network namespace with no interface up."""
    _enter(state, "net", CLONE_NEWNET, "no interface up")


def enter_pid(state: NamespaceState) -> None:
    """A PID namespace for the calling process's next child (its PID 1)."""
    _enter(state, "pid", CLONE_NEWPID, "one per candidate; user code is PID 2")


def enter_sandbox_namespaces() -> NamespaceState:
    """User + network namespaces for the calling process, and a PID namespace for its next child
    (the zygote's first three steps, recipe.py).

    Degrades: where user namespaces are refused (some distributions restrict them), root can still
    use network and PID namespaces; a normal user then gets none, and each failure is recorded.
    """
    state = NamespaceState()
    for enter in (enter_user, enter_net, enter_pid):
        enter(state)
    return state


def _can_unshare(flags: int) -> bool:
    """Try ``unshare(flags)`` in a throw-away child (once, at start-up)."""
    pid = os.fork()
    if pid == 0:
        try:
            unshare(flags)
            os._exit(0)
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def fork_in_new_pid_namespace(own_pid_ns_fd: int) -> int:
    """os.fork(), the child starting a fresh PID namespace as its PID 1.  Returns as os.fork does.

    The parent returns to its own namespace for the next fork; the child must not (and could not).
    """
    unshare(CLONE_NEWPID)
    pid = os.fork()
    if pid != 0:
        setns(own_pid_ns_fd, CLONE_NEWPID)
    return pid
