"""Landlock: read-only Python and system libraries, read-write scratch, no TCP, scoped signals.

Why hand-written ctypes instead of the ``landlock`` PyPI package (1.0.0.dev5, the only one): it
knows only ``handled_access_fs`` (no ``handled_access_net``, no ``scoped``, so no TCP denial and no
signal/abstract-socket scoping), it hard-codes rights up to ABI 5, and its error check reads a
stale ``errno`` after successful calls.  The three system calls are a few lines each.

What the candidate gets, at the best ABI the kernel offers:

* every filesystem right the ABI knows is handled, so everything not granted below is denied;
* read (files and directory listings) beneath exactly the paths of ``readable.read_only_paths()``
  -- the same list the mount namespace binds (zygote/mounts.py): stdlib, site-packages, this
  package's folder (never the project root), the shared libraries' folders, zoneinfo -- so lazy
  ``import`` of pure-Python and C-extension modules works (``mmap(PROT_EXEC)`` of a readable file
  is not a Landlock right; ``LANDLOCK_ACCESS_FS_EXECUTE`` only governs ``execve``, never granted);
* ``/dev/null`` read-write, ``/dev/zero``, ``/dev/urandom`` and ``/dev/random`` read;
* every right beneath ``policy.scratch_dir`` and, in the filesystem view, ``policy.shm_dir``
  (a private ``/dev/shm`` on the candidate's tmpfs);
* ABI >= 4: TCP bind and connect handled with no rule, so both are denied;
* ABI >= 6: signals and abstract UNIX sockets scoped to the candidate's own Landlock domain.

Not protected here (seccomp.py refuses socket(2) for these): UDP and other non-TCP sockets
(Landlock has no rights for them), and connect() to a *named* UNIX socket anywhere on the system --
Landlock up to ABI 7 does not check the path of a UNIX socket connect (tested: it connects).  Also
not: files opened before ``apply`` (the bootstrap closes them).  ``/proc`` is not granted, so the
candidate cannot read its own ``/proc/self`` either; nothing in Python or z3 needs it after start-up.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from dataclasses import dataclass

from ...contracts import readable
from ...contracts.oscalls import syscall
from ...protocol import LayerReport
from . import LayerSetupError, Policy, When, report

NAME = "landlock"
WHEN = When.PER_CANDIDATE
PROCESS_LEVEL = False
WHY = "the paths it may read and write; after no_new_privs"

# System call numbers are the same on every architecture (the unified table, Linux 5.13+).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1

# Filesystem rights.  ABI 1 knows bits 0-12, ABI 2 adds REFER, ABI 3 TRUNCATE, ABI 5 IOCTL_DEV.
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_TRUNCATE = 1 << 14
_FS_BITS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15}  # ABI 5 and later: 16
_FILE_ONLY_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | (1 << 15)
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

# (path, rights): device files get file rights only (a directory right on a file is EINVAL).
_DEVICES = tuple((path, FS_READ_FILE | (FS_WRITE_FILE | FS_TRUNCATE if writable else 0))
                 for path, writable in readable.DEVICES)

_DISABLED_REASON = "Landlock is not enabled in this kernel (add landlock to the lsm= boot parameter)"
_MISSING_REASON = (
    "this kernel has no Landlock system calls (it needs Linux 5.13+ built with "
    "CONFIG_SECURITY_LANDLOCK=y, and no seccomp filter of a container hiding them)"
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is __attribute__((packed)): 12 bytes
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


@dataclass
class _Plan:
    """Everything ``apply`` needs, computed once (in the zygote, by ``prepare``)."""

    abi: int
    attr: _RulesetAttr
    attr_size: int
    all_fs: int
    read_only: tuple[str, ...]
    detail_suffix: str


_plan: _Plan | None = None


def abi_version() -> int:
    """The Landlock ABI version; raises ``OSError`` (ENOSYS / EOPNOTSUPP) when there is none."""
    return syscall(_SYS_CREATE_RULESET, 0, 0, _CREATE_RULESET_VERSION, what="landlock")


def _unavailable_reason(exc: OSError) -> str:
    if exc.errno == errno.EOPNOTSUPP:
        return _DISABLED_REASON
    if exc.errno == errno.ENOSYS:
        return _MISSING_REASON
    return f"landlock_create_ruleset failed: {exc}"


def probe() -> LayerReport:
    """Report the ABI version, or why Landlock cannot be used.  No side effects."""
    try:
        abi = abi_version()
    except OSError as exc:
        return report(NAME, False, error=_unavailable_reason(exc))
    return report(NAME, True, f"ABI {abi}")


def prepare(read_only_paths: tuple[str, ...] = ()) -> LayerReport:
    """Detect the ABI and fix the rights and paths once, in the zygote, so ``apply`` only makes
    the system calls.  Returns the probe report (inactive with the reason when unavailable)."""
    global _plan
    try:
        abi = abi_version()
    except OSError as exc:
        _plan = None
        return report(NAME, False, error=_unavailable_reason(exc))
    attr = _RulesetAttr((1 << _FS_BITS_BY_ABI.get(abi, 16)) - 1, 0, 0)
    suffix = ""
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        suffix += ", net deny"
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        suffix += ", scoped signal+abstract-unix"
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    paths = read_only_paths or readable.read_only_paths()
    _plan = _Plan(abi, attr, size, attr.handled_access_fs, paths, suffix)
    return report(NAME, True, f"ABI {abi}")


def _add_rule(ruleset_fd: int, path: str, access: int, rule: _PathBeneathAttr) -> bool:
    """Allow ``access`` beneath ``path``; False when the path does not exist (any more).
    On a file (not a folder) only the file rights apply: the kernel refuses folder rights there."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= _FILE_ONLY_RIGHTS
        rule.allowed_access = access
        rule.parent_fd = fd
        syscall(_SYS_ADD_RULE, ruleset_fd, _RULE_PATH_BENEATH, ctypes.addressof(rule), 0,
                what=f"landlock_add_rule({path})")
    finally:
        os.close(fd)
    return True


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def apply(policy: Policy) -> LayerReport:
    """Create the ruleset, add the rules and restrict the calling thread (and its future threads).

    Needs no_new_privs (capabilities.apply sets it) or CAP_SYS_ADMIN.  A read-only path that
    contains the scratch directory is left out, so the scratch's neighbours stay unreadable.
    """
    plan = _plan
    if plan is None:
        prepared = prepare(policy.read_only_paths)
        if not prepared["active"]:
            raise LayerSetupError(NAME, prepared.get("error", "unavailable"))
        assert _plan is not None
        plan = _plan
    scratch = os.path.realpath(policy.scratch_dir)
    read_only = policy.read_only_paths or plan.read_only
    read_rights = FS_READ_FILE | FS_READ_DIR
    try:
        ruleset_fd = syscall(_SYS_CREATE_RULESET, ctypes.addressof(plan.attr), plan.attr_size, 0,
                             what="landlock_create_ruleset")
    except OSError as exc:
        raise LayerSetupError(NAME, _unavailable_reason(exc)) from None
    try:
        rule = _PathBeneathAttr()
        granted = 0
        for path in read_only:
            if not _inside(scratch, path):
                granted += _add_rule(ruleset_fd, path, read_rights, rule)
        for path, rights in _DEVICES:
            _add_rule(ruleset_fd, path, rights & plan.all_fs & _FILE_ONLY_RIGHTS, rule)
        if not _add_rule(ruleset_fd, scratch, plan.all_fs, rule):
            raise LayerSetupError(NAME, f"scratch directory {scratch} does not exist")
        if policy.shm_dir and _add_rule(ruleset_fd, policy.shm_dir, plan.all_fs, rule):
            suffix = ", rw /dev/shm"
        else:
            suffix = ""
        syscall(_SYS_RESTRICT_SELF, ruleset_fd, 0, what="landlock_restrict_self")
    except OSError as exc:
        raise LayerSetupError(NAME, str(exc)) from None
    finally:
        os.close(ruleset_fd)
    return report(NAME, True, f"ABI {plan.abi}: ro {granted} paths, rw scratch{suffix}{plan.detail_suffix}")
