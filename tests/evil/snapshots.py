"""Snapshots of the evil world compared (``World.snapshot`` takes them): what changed between two,
readably, and what a snapshot reads of a file (content, mode, owner, times, xattrs) and of the
host's SysV IPC objects."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import z3

import z3sandbox_kernel


def contents(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A snapshot without the files' metadata: their content (hash) only."""
    return {**snapshot, "files": {path: entry[0] for path, entry in snapshot["files"].items()}}


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two snapshots, readably: each changed path with both entries."""
    files_before, files_after = before["files"], after["files"]
    found = [f"{path}: {files_before.get(path)} -> {files_after.get(path)}"
             for path in sorted(set(files_before) | set(files_after))
             if files_before.get(path) != files_after.get(path)]
    found += [f"{key}: {before[key]} -> {after[key]}" for key in before
              if key != "files" and before[key] != after.get(key)]
    return found


_CUID_COLUMN = {"shm": 9, "msg": 9, "sem": 6}  # in /proc/sysvipc/<kind>


def sysv_objects(creator: int) -> list[str]:
    """SysV IPC objects of this (the host's) IPC namespace made by uid ``creator``, as "kind key id".

    Filtered by creator because the machine is shared: other test runs make and remove objects of
    their own all the time.  A candidate's objects live in its own IPC namespace at the kernel
    level and never appear here, whatever its uid; the worlds' own segments (key 0x5A......) are
    left out."""
    found = []
    for kind, column in _CUID_COLUMN.items():
        try:
            with open(f"/proc/sysvipc/{kind}") as handle:
                rows = [line.split() for line in handle.readlines()[1:]]
        except OSError:
            return ["<unreadable>"]
        found += [f"{kind} {row[0]} {row[1]}" for row in rows
                  if int(row[column]) == creator and int(row[0]) >> 24 != 0x5A]
    return sorted(found)


def visible_host_files() -> list[str]:
    """Host files a candidate can see (its read-only view binds them): a metadata change of any of
    them (a set-uid bit, an owner, a time, an xattr) would outlive the run."""
    z3_folder = os.path.dirname(z3.__file__)
    library = os.path.join(z3_folder, "lib", "libz3.so")
    return [p for p in (z3.__file__, library, json.__file__, z3sandbox_kernel.__file__)
            if os.path.exists(p)]


def metadata(path: Path) -> tuple[Any, ...]:
    """Mode, owner, size, modification and change times (a chmod to the same mode changes ctime)
    and extended attributes: a change a candidate made without touching the content."""
    info = path.lstat()
    try:
        xattrs = sorted(os.listxattr(path, follow_symlinks=False))
    except OSError:
        xattrs = ["<unsupported>"]
    return (info.st_mode, info.st_uid, info.st_gid, info.st_size, info.st_mtime_ns,
            info.st_ctime_ns, tuple(xattrs))


def walk(root: Path) -> Iterator[Path]:
    for folder, _dirs, names in os.walk(root):
        yield Path(folder)
        for name in names:
            yield Path(folder) / name


def digest(path: Path) -> str:
    if path.is_dir():
        return "dir:" + ",".join(sorted(os.listdir(path)))
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read(1 << 24)).hexdigest()


