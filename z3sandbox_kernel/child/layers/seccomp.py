"""Seccomp: default allow; no new processes, no exec, no sockets, no reaching other processes.

Why a hand-assembled BPF program rather than pyseccomp/libseccomp rules: libseccomp 2.5.4 refuses
two comparisons on the same argument in one rule (``seccomp_rule_add`` returns EINVAL), so "pid is
0 or our own" cannot be said, and a libseccomp filter is compiled at load time, which would put the
compiler in every candidate.  libseccomp is still used, in the zygote only, for the one thing it is
best at: the native architecture's token and its syscall numbers by name.  The program is built once
by ``prepare``; ``apply`` writes the candidate's own PID into the few places that compare against it
and makes one ``prctl(PR_SET_SECCOMP)`` call.

The program (``_assemble``), in order:

1. architecture check: any other ABI (i386 ``int 0x80``) kills the process; on x86_64 so do x32
   system call numbers (``nr >= 0x40000000``);
2. for each listed system call, a small self-contained block that returns;
3. everything else is allowed.

Arguments are read as two 32-bit words (little-endian only).  A PID argument must have a zero high
word and a low word equal to the candidate's PID (or 0 where listed); anything else, including
negative PIDs (process groups, -1 = everyone), is EPERM.  ``ioctl`` request numbers are compared on
the low word only, because the kernel truncates them to 32 bits (CVE-2019-10063 was this mistake).

Not protected here: system calls newer than libseccomp's table cannot be named, so they are allowed
(the dangerous ones among them need capabilities the candidate no longer has); ``pidfd_send_signal``
is refused outright because a pidfd's target cannot be checked by a filter.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from dataclasses import dataclass

from ...protocol import LayerReport
from . import LayerSetupError, Policy, report
from ._syscalls import prctl_pointer

NAME = "seccomp"

_AUDIT_ARCH_X86_64 = 0xC000003E
_AUDIT_ARCH_AARCH64 = 0xC00000B7
_X32_SYSCALL_BIT = 0x40000000

_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_EPERM = _RET_ERRNO | errno.EPERM
_ENOSYS = _RET_ERRNO | errno.ENOSYS

_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_CLONE_THREAD = 0x00010000
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET.  (CLONE_NEWTIME, 0x80,
# is the exit-signal byte in clone(2); only clone3 and unshare take it, and both are refused.)
_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C

# Refused with EPERM whatever the arguments.
DENIED = (
    # new processes and programs (clone without CLONE_THREAD is below)
    "fork", "vfork", "execve", "execveat",
    # other processes' memory, handles and signals
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",
    "pidfd_send_signal", "migrate_pages", "move_pages",
    # namespaces, mounts, filesystem handles
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount",
    "fspick", "move_mount", "open_tree", "mount_setattr", "name_to_handle_at", "open_by_handle_at",
    "fanotify_init", "quotactl", "quotactl_fd", "swapon", "swapoff", "acct",
    # kernel attack surface nothing here needs
    "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
    "keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "personality", "syslog", "vhangup", "reboot", "iopl", "ioperm",
    "uselib", "lookup_dcookie",
    # every socket: z3 and the harness need none (asyncio's socketpair goes too)
    "socket", "socketpair",
)
# Answered ENOSYS so that glibc falls back to clone(2), whose flags the filter can read.
NOT_IMPLEMENTED = ("clone3",)
# Allowed only when the first argument is the candidate's own PID.
SELF_ONLY = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open")
# Allowed only when the first argument is 0 (the caller) or the candidate's own PID.
SELF_OR_ZERO = (
    "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
)
# (name, required first argument): allowed only for that "which" and a second argument 0 or self.
WHICH_WHO = (("setpriority", 0), ("ioprio_set", 1))  # PRIO_PROCESS, IOPRIO_WHO_PROCESS

_SELF = object()  # placeholder for the candidate's PID in an instruction's k field


class _SockFilter(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    )


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter)))


@dataclass
class _Program:
    """The assembled filter, and where it compares against the candidate's PID."""

    filters: ctypes.Array[_SockFilter]
    fprog: _SockFprog
    self_slots: tuple[int, ...]
    rules: int


_program: _Program | None = None

# One instruction before label resolution: (code, jt, jf, k); jt/jf are ints or local label names.
_Insn = tuple[int, "int | str", "int | str", "int | object"]


def _arg(index: int, high: bool) -> int:
    return 16 + 8 * index + (4 if high else 0)


def _pid_is(index: int, allow_zero: bool) -> list[_Insn]:
    """Jump to "allow" when argument ``index`` is our PID (or 0), else fall to "deny"."""
    block: list[_Insn] = [
        (_LD_ABS, 0, 0, _arg(index, high=True)),
        (_JEQ, 0, "deny", 0),
        (_LD_ABS, 0, 0, _arg(index, high=False)),
        (_JEQ, "allow", 0, _SELF),
    ]
    if allow_zero:
        block.append((_JEQ, "allow", 0, 0))
    return block


def _body(kind: str, extra: int = 0) -> list[_Insn]:
    """The block for one system call: tests, then "deny" (EPERM) and "allow" returns."""
    if kind == "self_only":
        tests = _pid_is(0, allow_zero=False)
    elif kind == "self_or_zero":
        tests = _pid_is(0, allow_zero=True)
    elif kind == "which_who":
        tests = [
            (_LD_ABS, 0, 0, _arg(0, high=True)), (_JEQ, 0, "deny", 0),
            (_LD_ABS, 0, 0, _arg(0, high=False)), (_JEQ, 0, "deny", extra),
            *_pid_is(1, allow_zero=True),
        ]
    elif kind == "clone":  # threads only, and no namespaces
        tests = [
            (_LD_ABS, 0, 0, _arg(0, high=False)),
            (_JSET, 0, "deny", _CLONE_THREAD),
            (_JSET, "deny", "allow", _CLONE_NAMESPACES),
        ]
    elif kind == "ioctl":  # the kernel reads the request as 32 bits
        tests = [
            (_LD_ABS, 0, 0, _arg(1, high=False)),
            (_JEQ, "deny", 0, _TIOCSTI),
            (_JEQ, "deny", "allow", _TIOCLINUX),
        ]
    else:
        raise ValueError(kind)
    return [*tests, (_RET, 0, 0, _EPERM), (_RET, 0, 0, _RET_ALLOW)]


def _resolve(block: list[_Insn]) -> list[_Insn]:
    """Turn "deny"/"allow" labels (the last two instructions) into relative jumps."""
    labels = {"deny": len(block) - 2, "allow": len(block) - 1}
    out: list[_Insn] = []
    for i, (code, jt, jf, k) in enumerate(block):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        out.append((code, jt, jf, k))
    return out


def _assemble(arch: int, numbers: dict[str, int]) -> tuple[list[_Insn], int]:
    """The whole program for ``arch``; ``numbers`` maps names to this architecture's numbers."""
    prog: list[_Insn] = [
        (_LD_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, _RET_KILL_PROCESS),
        (_LD_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if arch == _AUDIT_ARCH_X86_64:
        prog += [(_JGE, 0, 1, _X32_SYSCALL_BIT), (_RET, 0, 0, _RET_KILL_PROCESS)]
    blocks: list[tuple[str, list[_Insn]]] = [(n, [(_RET, 0, 0, _EPERM)]) for n in DENIED]
    blocks += [(n, [(_RET, 0, 0, _ENOSYS)]) for n in NOT_IMPLEMENTED]
    blocks += [(n, _resolve(_body("self_only"))) for n in SELF_ONLY]
    blocks += [(n, _resolve(_body("self_or_zero"))) for n in SELF_OR_ZERO]
    blocks += [(n, _resolve(_body("which_who", which))) for n, which in WHICH_WHO]
    blocks += [("clone", _resolve(_body("clone"))), ("ioctl", _resolve(_body("ioctl")))]
    rules = 0
    for name, block in blocks:
        number = numbers.get(name, -1)
        if number < 0:  # this architecture has no such call (fork on aarch64)
            continue
        prog.append((_JEQ, 0, len(block), number))
        prog += block
        rules += 1
    prog.append((_RET, 0, 0, _RET_ALLOW))
    return prog, rules


def _native() -> tuple[int, dict[str, int]]:
    """The native architecture token and syscall numbers, from libseccomp's tables."""
    import pyseccomp  # imported here: only the zygote needs libseccomp

    arch = int(pyseccomp.system_arch())
    if arch not in (_AUDIT_ARCH_X86_64, _AUDIT_ARCH_AARCH64) or sys.byteorder != "little":
        raise LayerSetupError(NAME, f"architecture {arch:#x} is not supported by this filter")
    names = [*DENIED, *NOT_IMPLEMENTED, *SELF_ONLY, *SELF_OR_ZERO, "clone", "ioctl"]
    names += [n for n, _ in WHICH_WHO]
    return arch, {n: int(pyseccomp.resolve_syscall(arch, n)) for n in names}


def prepare() -> LayerReport:
    """Assemble the program once, in the zygote.  Returns an inactive report when impossible."""
    global _program
    try:
        arch, numbers = _native()
    except (ImportError, OSError) as exc:
        return report(NAME, False, error=f"libseccomp is not usable: {exc}")
    except LayerSetupError as exc:
        return report(NAME, False, error=exc.message)
    insns, rules = _assemble(arch, numbers)
    filters = (_SockFilter * len(insns))()
    slots = []
    for i, (code, jt, jf, k) in enumerate(insns):
        assert isinstance(jt, int) and isinstance(jf, int) and 0 <= jt < 256 and 0 <= jf < 256
        if k is _SELF:
            slots.append(i)
            k = 0
        assert isinstance(k, int)
        filters[i] = _SockFilter(code, jt, jf, k)
    fprog = _SockFprog(len(insns), ctypes.cast(filters, ctypes.POINTER(_SockFilter)))
    _program = _Program(filters, fprog, tuple(slots), rules)
    return report(NAME, True, f"{rules} rules, {len(insns)} instructions")


def probe() -> LayerReport:
    """Can a filter be built and would the kernel take it?  Reads /proc only, loads nothing."""
    try:
        with open("/proc/self/status") as f:
            if not any(line.startswith("Seccomp:") for line in f):
                return report(NAME, False, error="this kernel was built without CONFIG_SECCOMP")
    except OSError:
        pass  # no /proc: let prepare/apply tell
    try:
        _native()
    except (ImportError, OSError) as exc:
        return report(NAME, False, error=f"libseccomp is not usable: {exc}")
    except LayerSetupError as exc:
        return report(NAME, False, error=exc.message)
    return report(NAME, True, "filter mode")


def apply(policy: Policy) -> LayerReport:
    """Write our PID into the prepared program and load it.  Needs no_new_privs set before."""
    program = _program
    if program is None:
        prepared = prepare()
        if not prepared["active"]:
            raise LayerSetupError(NAME, prepared.get("error", "unavailable"))
        assert _program is not None
        program = _program
    pid = os.getpid()
    if policy.self_pid and policy.self_pid != pid:
        raise LayerSetupError(NAME, f"policy says PID {policy.self_pid}, getpid() says {pid}")
    for slot in program.self_slots:
        program.filters[slot].k = pid
    try:
        prctl_pointer(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(program.fprog))
    except OSError as exc:
        raise LayerSetupError(NAME, f"the kernel refused the filter: {exc}") from None
    return report(NAME, True, f"{program.rules} rules, default allow, EPERM")
