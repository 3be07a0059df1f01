"""The one list of what a candidate may read: exactly what z3 and Python need, nothing of the project.

Used twice, so both layers agree: the mount namespace binds these paths read-only into the
candidate's own root (zygote/mounts.py), and Landlock grants read access beneath exactly these
paths (child/layers/landlock.py).  Imported by the zygote and the child side: imports nothing else
from this package but the package folder's own location.

What is on it, and why:

* the standard library and ``lib-dynload`` (lazy imports of pure-Python and C-extension modules);
* the ``site-packages``/``dist-packages`` folders on ``sys.path`` (z3 and its ``libz3.so``) and the
  folder of z3 itself;
* this package's own folder -- for an editable install only that folder, never the project root
  that ``sys.path`` names (it holds ``.git`` and ``.env``);
* the folders of the shared libraries the process has mapped (libc, libpython, libstdc++, ...):
  a C extension imported later needs the same ones; and ``/etc/ld.so.cache`` to find them by name;
* ``/etc/localtime`` and ``/usr/share/zoneinfo`` (``time.localtime``, ``zoneinfo``).

Not on it: ``/usr`` as a whole, ``/etc`` as a whole, any home folder, ``/proc``, ``/sys``.  The
folders above a path on the list exist in the view only to reach it: they can be passed through,
not listed (zygote/mounts.py), so a venv in ``/home/alice/project/.venv`` shows that path and
nothing else of ``/home``.
"""

from __future__ import annotations

import os
import sys
import sysconfig

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # above contracts/
_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/usr/share/zoneinfo")
_PACKAGE_FOLDERS = ("site-packages", "dist-packages")
# Device files a candidate may open: (path, writable).  /dev/shm is its own (see mounts.py).
DEVICES = (("/dev/null", True), ("/dev/zero", False), ("/dev/urandom", False), ("/dev/random", False))


def _python_paths() -> list[str]:
    paths = sysconfig.get_paths()
    found = [paths["stdlib"], paths["platstdlib"]]
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue
        if os.path.basename(entry.rstrip("/")) in _PACKAGE_FOLDERS or entry.startswith(paths["stdlib"]):
            found.append(entry)
    try:
        import z3

        found.append(os.path.dirname(os.path.dirname(os.path.realpath(z3.__file__))))
    except ImportError:  # the zygote cannot start without it; tests of the list may
        pass
    found.append(PACKAGE_DIR)
    return found


def _mapped_library_folders() -> list[str]:
    """Folders of the shared objects this process has mapped (Linux: /proc/self/maps)."""
    folders: list[str] = []
    try:
        with open("/proc/self/maps") as handle:
            for line in handle:
                fields = line.split(None, 5)
                if len(fields) == 6 and ".so" in fields[5]:
                    folders.append(os.path.dirname(fields[5].strip()))
    except OSError:  # not Linux
        pass
    return folders


def _covered(path: str, chosen: list[str]) -> bool:
    return any(path == c or path.startswith(c.rstrip("/") + "/") for c in chosen)


def project_root() -> str | None:
    """The checkout of an editable install (the folder holding this package, with ``.git`` and
    ``.env``), or None for a regular install, whose package folder sits in a site-packages folder
    that the candidate must see whole (the venv's other packages, and source lines for tracebacks)."""
    parent = os.path.dirname(PACKAGE_DIR)
    return None if os.path.basename(parent) in _PACKAGE_FOLDERS else parent


def read_only_paths() -> tuple[str, ...]:
    """Resolved, existing, de-duplicated paths; a path beneath another on the list is left out,
    and so is anything at or above the project root of an editable install."""
    root = project_root()
    wanted = [*_python_paths(), *_mapped_library_folders(), *_FILES]
    result: list[str] = []
    for path in sorted({os.path.realpath(p) for p in wanted}, key=len):
        holds_project = root is not None and (path == root or root.startswith(path.rstrip("/") + "/"))
        if path == "/" or holds_project or not os.path.exists(path) or _covered(path, result):
            continue
        result.append(path)
    return tuple(sorted(result))
