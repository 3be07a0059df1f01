"""A filesystem view of the candidates' own, as nsjail and bubblewrap build one (kernel isolation).

Built in two steps, so that the per-candidate part is a handful of system calls:

1. ``build_view`` (once, in the serving zygote, which is PID 1 of its PID namespace): a mount
   namespace whose root is a small tmpfs holding read-only bind mounts of exactly the paths of
   ``readable.read_only_paths()`` at the SAME paths as on the host (tracebacks, ``__file__`` and
   imports look as under ``python script.py``), the symlinks among them (``/lib``, ``/etc/localtime``),
   a minimal ``/dev`` (null, zero, urandom, random), a fresh ``/proc`` and, at the scratch base's
   path, a small tmpfs for the zygote's own folders (verifiers, the probe).  Then ``pivot_root``:
   the host's tree is gone from the zygote's namespace, which now holds about 15 mounts, so copying
   it per candidate is cheap.  The root itself is remounted read-only.
2. ``enter_candidate_view`` (per candidate, in its init, before any user code): a new mount, IPC
   and UTS namespace; a tmpfs sized by ``Limits.disk_mb`` (with an inode limit derived from it) over
   the scratch base, so the candidate sees its own folder and no sibling's; a folder of that tmpfs
   bound on ``/dev/shm`` (POSIX semaphores, ``multiprocessing.pool.ThreadPool``; counts against the
   disk limit); a fresh ``/proc`` for the candidate's PID namespace.  When the namespace dies, all
   of it goes with it: nothing to remove on the zygote's loop.

Outside scratch every write and every metadata change (chmod, chown, utime, xattrs) fails with EROFS,
and host paths that are not on the list do not exist.

Cost, measured on the 2-core development VM under load (another six test runs), 60 inits each, in a
serving process as the zygote's: the init's setup (drop to the candidate's ids and its own user
namespace) takes 0.55 ms (median) without the view and 1.0 ms with ``enter_candidate_view``, i.e.
about 0.45 ms per candidate; fork-to-reap of an init (namespace teardown included) was 10-26 ms with
or without it, the difference lost in the machine's noise.  End to end (a trivial sat candidate,
jobs=1, 40 runs): 102-111 ms before this round's layers, 130-141 ms after (all of this round's
changes; the load average was 10).  ``build_view`` runs once per zygote.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..contracts.oscalls import (
    CLONE_NEWIPC,
    CLONE_NEWNS,
    CLONE_NEWUTS,
    MNT_DETACH,
    MS_BIND,
    MS_NOATIME,
    MS_NODEV,
    MS_NODIRATIME,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_RELATIME,
    MS_REMOUNT,
    mount,
    pivot_root,
    umount2,
    unshare,
)
from ..contracts.readable import DEVICES, read_only_paths

SHM_FOLDER = ".dev-shm"  # beside the candidate's folder on its tmpfs, bound on /dev/shm
ZYGOTE_SCRATCH_MB = 64  # the zygote's own tmpfs: verifiers' and the probe's folders only
PASSAGE_MODE = 0o111  # folders of the view above a bound path: pass through, never list (owner too)
INODE_BYTES = 8192  # one inode per 8 KB of disk_mb: 64 MB gives 8,192 files and folders
_SYMLINK_CANDIDATES = ("/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc/localtime")
# statvfs flags a user namespace locks on a bind mount: a read-only remount must repeat them.
_LOCKED = ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
           (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME),
           (os.ST_RELATIME, MS_RELATIME))


@dataclass(frozen=True)
class View:
    """What ``build_view`` made: the bound paths (for Landlock and the report) and the base."""

    paths: tuple[str, ...]
    scratch_base: str

    @property
    def detail(self) -> str:
        return (f"read-only view of {len(self.paths)} paths at their host paths, fresh /proc, "
                "minimal /dev, scratch and /dev/shm on a private tmpfs of disk_mb")


def _locked_flags(path: str) -> int:
    flags = os.statvfs(path).f_flag
    return sum(ms for st, ms in _LOCKED if flags & st)


def _passage(folder: str, made: list[str]) -> None:
    """Make ``folder`` and the missing folders above it, and list them in ``made``: they become
    traverse-only (``PASSAGE_MODE``) once the view is built, so that a candidate can reach what
    is bound below them and can neither list them nor learn what else the host keeps there."""
    if os.path.isdir(folder):
        return
    _passage(os.path.dirname(folder), made)
    os.mkdir(folder, 0o755)
    made.append(folder)


def _bind(source: str, target: str, read_only: bool, passages: list[str], extra: int = 0) -> None:
    _passage(os.path.dirname(target), passages)
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    mount(source, target, None, MS_BIND)
    flags = MS_REMOUNT | MS_BIND | MS_NOSUID | extra | _locked_flags(source)
    mount(None, target, None, flags | (MS_RDONLY if read_only else 0))


def _symlinks(root: str) -> None:
    for path in _SYMLINK_CANDIDATES:
        if os.path.islink(path) and not os.path.lexists(root + path):
            os.makedirs(os.path.dirname(root + path), exist_ok=True)
            os.symlink(os.readlink(path), root + path)


def build_view(scratch_base: str) -> View:
    """Enter a mount namespace whose root holds only the view; the zygote runs inside it from now.

    ``scratch_base`` (an empty host folder) is where the new root is assembled.  Raises OSError
    when the machine refuses a step; the caller then runs without the view and reports why.
    """
    paths = read_only_paths()
    unshare(CLONE_NEWNS)
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount may reach the host
    root = scratch_base
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755")
    try:
        passages: list[str] = []
        for path in paths:
            _bind(path, root + path, True, passages)
        os.makedirs(root + "/dev", mode=0o755, exist_ok=True)  # a /dev to list, unlike passages
        for device, writable in DEVICES:
            _bind(device, root + device, not writable, [], extra=MS_NOEXEC)
        os.makedirs(root + "/dev/shm", mode=0o755)
        os.makedirs(root + "/proc")
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        os.makedirs(root + scratch_base, mode=0o700)
        mount("tmpfs", root + scratch_base, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              f"size={ZYGOTE_SCRATCH_MB}m,nr_inodes=4096,mode=0700")
        _symlinks(root)
        for folder in passages:  # last: the zygote no longer makes anything inside them
            os.chmod(folder, PASSAGE_MODE)
        os.chdir(root)
        pivot_root(".", ".")  # the old root now lies on top of the new one: detach it
        umount2(".", MNT_DETACH)
        os.chdir("/")
    except OSError:
        os.chdir("/")
        umount2(root, MNT_DETACH)
        raise
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    return View(paths, scratch_base)


def inode_limit(disk_mb: int) -> int:
    return max(1024, int(disk_mb) * (1 << 20) // INODE_BYTES)


def enter_candidate_view(scratch_dir: str, disk_mb: int, uid: int, gid: int, view: bool) -> None:
    """Per candidate, in its init (PID 1 of the candidate's PID namespace), before it drops to
    the candidate's ids: own IPC and UTS namespaces and, with the view, its own mount namespace
    with a sized tmpfs over the scratch base (its folder and /dev/shm on it) and a fresh /proc."""
    unshare(CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWNS if view else 0))
    if not view:
        return
    base = os.path.dirname(scratch_dir)
    mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
          f"size={int(disk_mb)}m,nr_inodes={inode_limit(disk_mb)},mode=0755")
    shm = os.path.join(base, SHM_FOLDER)
    for folder in (scratch_dir, shm):
        os.mkdir(folder, 0o700)
        if (uid, gid) != (os.getuid(), os.getgid()):
            os.chown(folder, uid, gid)
    mount(shm, "/dev/shm", None, MS_BIND)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
