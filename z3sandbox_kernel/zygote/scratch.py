"""Scratch folders: one private folder per candidate, removed after it, whatever the candidate did."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile


def make_base() -> str:
    """The zygote's folder of scratch folders (mode 0700)."""
    return tempfile.mkdtemp(prefix="z3sandbox-")


def make(base: str, label: str) -> str:
    return tempfile.mkdtemp(prefix=f"{label}-", dir=base)


def _own(path: str) -> None:
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.chmod(path, stat.S_IRWXU)
    except OSError:
        pass


def remove(root: str) -> None:
    """Remove ``root`` even if the candidate took away its own permissions.  Only folders inside
    ``root`` are ever chmod'ed, and links are not followed: nothing outside it is touched."""
    _own(root)
    for folder, subfolders, _files in os.walk(root):
        for name in subfolders:
            _own(os.path.join(folder, name))
    shutil.rmtree(root, ignore_errors=True)
