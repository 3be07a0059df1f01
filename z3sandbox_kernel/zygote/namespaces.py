"""Linux namespaces for the zygote and its candidates, through libc (Python 3.11 has no os.unshare).

Order and reasons:

1. ``enter_sandbox_namespaces`` (once, in the zygote launcher): a user namespace, so that everything
   below works without root, then a network namespace with no interface up (no candidate can reach
   any network, loopback included), then a PID namespace whose PID 1 is the zygote itself: if the
   zygote dies, the kernel kills every candidate with it.
2. ``fork_in_new_pid_namespace`` (per candidate, in the zygote): unshare a fresh PID namespace for the next
   fork only, then ``setns`` back, so each candidate gets its own; killing its PID 1 kills its tree.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..oscalls import CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWUSER, setns, unshare


@dataclass
class NamespaceState:
    """Which namespaces the zygote managed to enter, and why the others failed."""

    user: bool = False
    net: bool = False
    pid: bool = False
    errors: dict[str, str] = field(default_factory=dict)
    uid_map: str = ""


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _map_ids(uid: int, gid: int) -> str:
    """Map our own ids to themselves: files in scratch keep the user's real ownership."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    return f"uid {uid}, gid {gid} mapped to themselves"


def enter_candidate_user_namespace() -> None:
    """A user namespace of the candidate's own, nested in the zygote's (called by its init).

    RLIMIT_NPROC is counted per user namespace and user, so only in a namespace of its own does the
    thread limit bound this candidate alone instead of all candidates together.
    """
    uid, gid = os.getuid(), os.getgid()
    unshare(CLONE_NEWUSER)
    _map_ids(uid, gid)


def enter_sandbox_namespaces() -> NamespaceState:
    """User + network namespaces for the calling process, and a PID namespace for its next child.

    Degrades: where user namespaces are refused (some distributions restrict them), root can still
    use network and PID namespaces; a normal user then gets none, and each failure is recorded.
    """
    state = NamespaceState()
    uid, gid = os.getuid(), os.getgid()
    try:
        unshare(CLONE_NEWUSER)
        state.user = True
        state.uid_map = _map_ids(uid, gid)
    except OSError as exc:
        state.errors["userns"] = (
            f"user namespaces are refused here ({exc.strerror}); on Debian/Ubuntu check "
            "kernel.unprivileged_userns_clone and kernel.apparmor_restrict_unprivileged_userns"
        )
    for name, flag in (("net", CLONE_NEWNET), ("pid", CLONE_NEWPID)):
        try:
            unshare(flag)
            setattr(state, name, True)
        except OSError as exc:
            state.errors[f"{name}ns"] = f"unshare({name}) failed: {exc.strerror}"
    return state


def fork_in_new_pid_namespace(own_pid_ns_fd: int) -> int:
    """os.fork(), the child starting a fresh PID namespace as its PID 1.  Returns as os.fork does.

    The parent returns to its own namespace for the next fork; the child must not (and could not).
    """
    unshare(CLONE_NEWPID)
    pid = os.fork()
    if pid != 0:
        setns(own_pid_ns_fd, CLONE_NEWPID)
    return pid
