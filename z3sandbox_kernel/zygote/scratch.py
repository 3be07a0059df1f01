"""Scratch folders: one private folder per candidate, removed after it, whatever the candidate did.

With the kernel level's filesystem view (mounts.py) a candidate writes to a tmpfs of its own that
dies with its namespace, and the zygote's folder for it stays empty: ``remove_soon`` is one rmdir.
Elsewhere (process level, macOS, a machine without mount namespaces) the folder can hold any tree
a candidate made in its time: 113,000 folders, a chain 1,500 deep, folders it took its own rights
away from.  ``remove`` takes such a tree apart without recursion (no RecursionError, however deep)
and without paths longer than a name (no ENAMETOOLONG); ``remove_soon`` does it in a forked helper
that the zygote's loop reaps like any child, so one candidate's huge tree never delays another's
wall limit.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import sys
import tempfile

from ..contracts.oscalls import set_process_name

REMOVER_NAME = "z3sandbox-rm"
SMALL = 16  # a folder of up to this many files (and no subfolder) is removed on the spot
_helpers: set[int] = set()  # removal helpers forked by this process, until they are seen gone


def make_base() -> str:
    """The zygote's folder of scratch folders (mode 0700)."""
    return tempfile.mkdtemp(prefix="z3sandbox-")


def make(base: str, label: str) -> str:
    return tempfile.mkdtemp(prefix=f"{label}-", dir=base)


def _identity(path: str = ".") -> tuple[int, int]:
    info = os.stat(path, follow_symlinks=False)
    return info.st_dev, info.st_ino


def _empty_current_folder() -> str | None:
    """Unlink the files of the working folder and rmdir its empty subfolders; return the name of
    the first subfolder that is not empty (to descend into), or None when the folder is empty."""
    with os.scandir(".") as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                try:
                    os.rmdir(entry.name)
                except OSError:  # not empty: the candidate may have taken its own rights away
                    with contextlib.suppress(OSError):
                        os.chmod(entry.name, stat.S_IRWXU)
                    return entry.name
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.name)
    return None


def _remove_tree(root: str) -> None:
    """Depth-first with ``chdir`` and an explicit stack of (device, inode) of the folders above:
    no recursion, no long paths, links never followed, and a ``..`` that does not lead back to
    the folder we came from stops the removal (nothing outside ``root`` is ever touched)."""
    with contextlib.suppress(OSError):
        os.chmod(root, stat.S_IRWXU)
    os.chdir(root)
    above: list[tuple[int, int]] = []
    while True:
        name = _empty_current_folder()
        if name is not None:
            above.append(_identity())
            os.chdir(name)
            if _identity("..") != above[-1]:
                raise OSError(f"{root}: a folder moved during removal")
            continue
        if not above:
            break
        os.chdir("..")
        if _identity() != above.pop():
            raise OSError(f"{root}: a folder moved during removal")
    os.chdir("/")
    os.rmdir(root)


def remove(root: str) -> None:
    """Remove ``root`` and everything in it, now, in this process (at exit, or in a helper).
    Only folders inside ``root`` are ever chmod'ed, and links are not followed."""
    cwd = os.open(".", os.O_RDONLY | os.O_DIRECTORY) if os.path.isdir(".") else None
    try:
        _remove_tree(root)
    except OSError:
        pass
    finally:
        if cwd is not None:
            os.fchdir(cwd)
            os.close(cwd)


def remove_soon(root: str, own_name: str) -> None:
    """Remove ``root`` without holding up the caller: a folder of a few files at once (a
    verifier's, or any in the filesystem view, where the candidate's files are on its own tmpfs),
    anything else in a forked helper (the caller reaps it like any child; ``helper_pids`` names
    the live ones).  ``own_name``: the caller's process name, given back after the fork."""
    if _remove_small(root):
        return
    named = sys.platform == "linux"
    if named:  # named from its first instant (it inherits the name): never taken for an orphan
        set_process_name(REMOVER_NAME)
    pid = os.fork()
    if pid == 0:
        try:
            remove(root)
        finally:
            os._exit(0)
    if named:
        set_process_name(own_name)
    _helpers.add(pid)


def _remove_small(root: str) -> bool:
    """True when ``root`` is gone: it held at most ``SMALL`` files and no folder."""
    try:
        with os.scandir(root) as entries:
            names = [entry.name for entry in itertools.islice(entries, SMALL + 1)
                     if not entry.is_dir(follow_symlinks=False)]
        if len(names) > SMALL:
            return False
        for name in names:
            os.unlink(os.path.join(root, name))
        os.rmdir(root)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def helper_pids() -> set[int]:
    """The removal helpers still running (a subreaper must not take them for orphans)."""
    for pid in list(_helpers):
        try:
            with open(f"/proc/{pid}/comm") as handle:
                if handle.read().strip() == REMOVER_NAME:
                    continue
        except OSError:
            pass
        _helpers.discard(pid)
    return set(_helpers)


# What ``usage`` reads at most: the entries of a candidate's scratch (a disk_mb tmpfs has one inode
# per 8 KB, 8,192 at the default) -- bounded, as the tree is the candidate's.
USAGE_MAX_ENTRIES = 20_000


def largest_file(folder: str, max_entries: int = USAGE_MAX_ENTRIES) -> int:
    """The size of the largest regular file under ``folder`` (symbolic links not followed), reading
    at most ``max_entries`` entries; folders the candidate closed to itself are skipped (they hide
    nothing the verdict needs: a file-size kill is believed only if its file is found)."""
    largest, seen, stack = 0, 0, [folder]
    while stack and seen < max_entries:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                if seen > max_entries:
                    break
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        largest = max(largest, entry.stat(follow_symlinks=False).st_size)
    return largest


def usage(folder: str) -> tuple[int, int, int]:
    """(largest file, free bytes, free inodes) of a candidate's scratch tmpfs, read by its init
    once the candidate is dead: what the verdict's disk and file-size rules believe
    (zygote/classify.py), never the candidate's word.  -1 for what could not be read."""
    try:
        stats = os.statvfs(folder)
        free_bytes, free_inodes = stats.f_bavail * stats.f_frsize, stats.f_favail
    except OSError:
        free_bytes = free_inodes = -1
    return largest_file(os.path.dirname(folder.rstrip("/")) or folder), free_bytes, free_inodes
