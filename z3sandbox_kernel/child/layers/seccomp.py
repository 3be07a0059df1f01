"""Seccomp: default allow; refuse, as classes, the system calls no solver needs.

The classes (``DENIED`` in seccomp_rules.py, one comment each): new processes and programs, reaching
other processes, file metadata (Landlock has no rights for modes, owners, times or xattrs), memory
that RLIMIT_AS does not count (memfds, SysV IPC, POSIX message queues), namespaces, mounts and mount
queries, watching the host's files, machine-wide state, kernel attack surface, sockets. They hold
where the namespaces are missing (a distribution that refuses user namespaces keeps Landlock and
seccomp).

Why hand-assembled BPF rather than libseccomp rules: libseccomp 2.5.4 refuses two comparisons on
one argument in a rule (EINVAL), so "pid is 0 or our own" cannot be said, and it compiles at load
time, in every candidate.  It still gives, in the zygote only, the architecture's token and
numbers by name; names its table lacks (Linux 6.8 on) come from ``UNIFIED``: from Linux 5.1
(pidfd_send_signal, 424) every architecture numbers new calls alike.  ``prepare`` builds the
program once; ``apply`` writes the candidate's PID where it is compared and loads it.

The program (``_assemble``), in order:

1. architecture check: any other ABI (i386 ``int 0x80``) kills the process; on x86_64 so do x32
   system call numbers (``nr >= 0x40000000``);
2. numbers above ``NEWEST_REVIEWED`` answer ENOSYS: a system call newer than this table is not
   let through unread (glibc falls back, as on an older kernel);
3. a binary search on the number (``_search``) to each listed call's answer: EPERM for the
   classes, ENOSYS for clone3, or the checks of its arguments (``clone``, ``ioctl``, ``fcntl``,
   PIDs); everything else is allowed.

Arguments are read as two 32-bit words (little-endian only).  A PID argument must have a zero high
word and a low word equal to the candidate's PID (or 0 where listed); anything else, including
negative PIDs (process groups, -1 = everyone), is EPERM.  ``ioctl`` and ``fcntl`` commands are
compared on the low word only, because the kernel truncates them to 32 bits (CVE-2019-10063 was
this mistake).

Not protected here: flock and fcntl record locks on readable host files (they end with the
candidate); files in /dev/shm (POSIX semaphores, which multiprocessing needs), bounded by the mount
layer's tmpfs; whatever no class lists is allowed (reviewed up to ``NEWEST_REVIEWED``: the newest
left allowed are reads, lsm_get_self_attr, getxattrat, listxattrat, file_getattr, and mseal); other
architectures get no filter.  Over-refused, since a filter cannot read paths: chmod, utime and
xattrs in scratch too (``shutil.copy`` fails, ``shutil.copyfile`` works); ``pidfd_send_signal``
whatever its target (a pidfd cannot be checked).
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from ...contracts.oscalls import prctl
from ...protocol import LayerReport
from . import LayerSetupError, Policy, When, report, seccomp_notify
from .seccomp_rules import (
    COMMANDS,
    DENIED,
    EXPLAINED,
    LIMIT_SIGNALS,
    NEWEST_REVIEWED,
    NOT_IMPLEMENTED,
    SELF_ONLY,
    SELF_OR_ZERO,
    SELF_SIGNALS,
    UNIFIED,
    WHICH_WHO,
    all_names,
)

NAME = "seccomp"
WHEN = When.PER_CANDIDATE
PROCESS_LEVEL = False
WHY = "last: its filter refuses calls the steps before it still make"

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
_JGT = 0x25  # BPF_JMP | BPF_JGT | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_JA = 0x05  # BPF_JMP | BPF_JA: jump by k, 32 bits (conditional jumps reach 255 at most)
_RET = 0x06  # BPF_RET | BPF_K
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_LEAF = 8  # numbers compared one by one at the bottom of the binary search

_CLONE_THREAD = 0x00010000
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET.  (CLONE_NEWTIME, 0x80,
# is the exit-signal byte in clone(2); only clone3 and unshare take it, and both are refused.)
_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000

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
    refusal_slots: tuple[int, ...]  # the EPERM returns: user notifications where supervised
    rules: int
    names: dict[int, str]  # system call names by number, for the verdict's reason


_program: _Program | None = None
# This process's refusals reach its init, which counts them (seccomp_notify.py): the audit hook
# then lets the calls the filter refuses reach it (child/instrument.py, ``OBSERVED_BY_SECCOMP``).
observed = False

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


def _commands(name: str) -> list[_Insn]:
    """Deny when the second argument's low word is one of ``name``'s refused commands."""
    values = [value for call, _why, refused in COMMANDS if call == name for value in refused]
    tests: list[_Insn] = [(_JEQ, "deny", 0, value) for value in values[:-1]]
    return [(_LD_ABS, 0, 0, _arg(1, high=False)), *tests, (_JEQ, "deny", "allow", values[-1])]


def _body(kind: str, extra: int = 0) -> list[_Insn]:
    """The block for one system call: tests, then "deny" (EPERM) and "allow" returns."""
    if kind == "self_only":
        tests = _pid_is(0, allow_zero=False)
    elif kind == "self_signal":  # our PID, then any signal but a limit's
        tests = [
            (_LD_ABS, 0, 0, _arg(0, high=True)), (_JEQ, 0, "deny", 0),
            (_LD_ABS, 0, 0, _arg(0, high=False)), (_JEQ, 0, "deny", _SELF),
            (_LD_ABS, 0, 0, _arg(extra, high=False)),
            *((_JEQ, "deny", 0, int(signum)) for signum in LIMIT_SIGNALS[:-1]),
            (_JEQ, "deny", "allow", int(LIMIT_SIGNALS[-1])),
        ]
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


def _search(entries: list[tuple[int, list[_Insn]]]) -> list[_Insn]:
    """Binary search on the number over sorted ``entries``: JGE/JA pairs down to at most ``_LEAF``
    numbers compared one by one, each leading to its block; a number not listed is allowed.  No
    path is longer than ~25 instructions (a linear chain: ~150), which the kernel walks for every
    number when it loads the filter (its per-number cache) and for each call whose arguments count."""
    if len(entries) <= _LEAF:
        code: list[_Insn] = []
        for number, block in entries:
            code += [(_JEQ, 0, len(block), number), *block]
        return [*code, (_RET, 0, 0, _RET_ALLOW)]
    middle = len(entries) // 2
    low, high = _search(entries[:middle]), _search(entries[middle:])
    return [(_JGE, 0, 1, entries[middle][0]), (_JA, 0, 0, len(low)), *low, *high]


def _assemble(arch: int, numbers: dict[str, int]) -> tuple[list[_Insn], int]:
    """The whole program for ``arch``; ``numbers`` maps names to this architecture's numbers
    (negative: this architecture has no such call)."""
    prog: list[_Insn] = [
        (_LD_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ, 1, 0, arch),
        (_RET, 0, 0, _RET_KILL_PROCESS),
        (_LD_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if arch == _AUDIT_ARCH_X86_64:
        prog += [(_JGE, 0, 1, _X32_SYSCALL_BIT), (_RET, 0, 0, _RET_KILL_PROCESS)]
    prog += [(_JGT, 0, 1, NEWEST_REVIEWED), (_RET, 0, 0, _ENOSYS)]
    blocks: list[tuple[str, list[_Insn]]] = [
        (name, [(_RET, 0, 0, action)])
        for names, action in [*((names, _EPERM) for _why, names in DENIED), (NOT_IMPLEMENTED, _ENOSYS)]
        for name in names
    ]
    blocks += [(n, _resolve(_body("self_only"))) for n in SELF_ONLY]
    blocks += [(n, _resolve(_body("self_signal", index))) for n, index in SELF_SIGNALS]
    blocks += [(n, _resolve(_body("self_or_zero"))) for n in SELF_OR_ZERO]
    blocks += [(n, _resolve(_body("which_who", which))) for n, which in WHICH_WHO]
    blocks += [("clone", _resolve(_body("clone")))]
    blocks += [(name, _resolve([*_commands(name), (_RET, 0, 0, _EPERM), (_RET, 0, 0, _RET_ALLOW)]))
               for name in dict.fromkeys(call for call, _why, _values in COMMANDS)]
    entries: dict[int, list[_Insn]] = {}
    for name, block in blocks:
        number = numbers.get(name, -1)
        if number >= 0:  # else this architecture has no such call (fork, chmod, ipc on aarch64)
            assert number not in entries, f"{name} is listed twice"
            entries[number] = block
    return prog + _search(sorted(entries.items())), len(entries)


def numbers_for(arch: int, resolve: Callable[[int, str], int]) -> dict[str, int]:
    """Each name's number on ``arch``: libseccomp's, else the unified table's, else -1."""
    numbers = {}
    for name in all_names():
        number = int(resolve(arch, name))
        numbers[name] = number if number >= 0 else UNIFIED.get(name, -1)
    return numbers


def _native() -> tuple[int, dict[str, int]]:
    """The native architecture token and syscall numbers."""
    import pyseccomp  # imported here: only the zygote needs libseccomp

    arch = int(pyseccomp.system_arch())
    if arch not in (_AUDIT_ARCH_X86_64, _AUDIT_ARCH_AARCH64) or sys.byteorder != "little":
        raise LayerSetupError(NAME, f"architecture {arch:#x} is not supported by this filter")
    return arch, numbers_for(arch, pyseccomp.resolve_syscall)


Params = ParamSpec("Params")
Result = TypeVar("Result")


def _explained(function: Callable[Params, Result]) -> Callable[Params, Result]:
    """``function`` with "(seccomp denies <name>)" added to the message of its EPERM."""
    name = function.__name__

    @functools.wraps(function)
    def call(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        try:
            return function(*args, **kwargs)
        except PermissionError as exc:
            if exc.errno == errno.EPERM:
                exc.strerror = f"{exc.strerror} (seccomp denies {name})"
            raise

    return call


_WRAPPED = {name: _explained(getattr(os, name)) for name in EXPLAINED if hasattr(os, name)}


def _explain_refusals() -> None:
    """Put the wrappers in ``os`` (in the candidate only), and in the sets that list ``os``'s
    functions by identity."""
    for name, wrapper in _WRAPPED.items():
        original = getattr(os, name)
        for supported in (os.supports_fd, os.supports_dir_fd, os.supports_follow_symlinks):
            if original in supported:
                supported.add(wrapper)
        setattr(os, name, wrapper)


def prepare(read_only_paths: tuple[str, ...] = ()) -> LayerReport:
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
    refusals = tuple(i for i, (code, _jt, _jf, k) in enumerate(insns) if code == _RET and k == _EPERM)
    names = {number: name for name, number in numbers.items() if number >= 0}
    _program = _Program(filters, fprog, tuple(slots), refusals, rules, names)
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
    if policy.supervised and _load_supervised(program):
        global observed
        observed = True
        _explain_refusals()
        return report(NAME, True, f"{program.rules} rules, default allow, EPERM, each refusal observed")
    try:
        prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(program.fprog))
    except OSError as exc:
        raise LayerSetupError(NAME, f"the kernel refused the filter: {exc}") from None
    _explain_refusals()
    return report(NAME, True, f"{program.rules} rules, default allow, EPERM")


def _load_supervised(program: _Program) -> bool:
    """Load the filter with its refusals sent to the init (seccomp_notify.py), and hand it the
    listener; False, the program as it was, when this kernel has no user notification."""
    for slot in program.refusal_slots:
        program.filters[slot].k = seccomp_notify.RET_USER_NOTIF
    try:
        listener = seccomp_notify.load_with_listener(ctypes.addressof(program.fprog))
    except OSError:
        return False
    finally:
        for slot in program.refusal_slots:
            program.filters[slot].k = _EPERM
    try:
        seccomp_notify.hand_over(listener)
    except OSError:
        pass  # loaded, so the calls stay refused; unanswered, they fail with ENOSYS, uncounted
    return True


def call_name(number: int) -> str:
    """The name of system call ``number`` on this machine (the zygote prepared the table)."""
    return _program.names.get(number, f"system call {number}") if _program else f"system call {number}"
