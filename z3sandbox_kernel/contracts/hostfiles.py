"""Files a run writes on the host (payloads, the AFL++ sync folder, run records), with no link
followed.

A folder a run writes into may be shared: a sync folder other fuzzers write, a folder under /tmp.
Whoever else writes there can plant a symbolic link named as the file or folder the run is about
to write; followed, bytes a candidate chose would land where the link points, with the rights of
whoever runs z3sandbox (often root).  So the folder a caller names is opened once with
``O_NOFOLLOW`` (a link there is refused: ``LinkedTarget``), every folder below it and every file is
opened relative to that folder's descriptor with ``O_NOFOLLOW``, and a file is always a new one
(``O_EXCL``): written whole under a hidden temporary name, then given its name with link(2), which
fails, where rename(2) would replace, when the name is taken.  An existing file is never opened
for writing, so never truncated.  The folders above the named one are the caller's own choice and
are resolved as usual.  Host side only.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# link(2) unsupported by the file system (FAT, some FUSE and network mounts): write in place.
_NO_HARD_LINKS = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK)


class LinkedTarget(ValueError):
    """A folder a run was to write into is a symbolic link (or not a folder): nothing written."""


class Folder:
    """An open folder a run writes into: every name is resolved relative to it, no link followed.
    Use as a context manager (it holds a file descriptor)."""

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open(cls, path: str | os.PathLike[str], create: bool = True) -> Folder:
        """The folder ``path`` (made, with its parents, if missing and ``create``); its last part
        must not be a link."""
        given = Path(path)
        if given.name in ("", ".", ".."):  # "/", ".", "x/..": no last name that could be a link
            return cls(os.open(given, _FOLDER & ~os.O_NOFOLLOW), given)
        if create:
            given.parent.mkdir(parents=True, exist_ok=True)
        parent = os.open(given.parent, _FOLDER & ~os.O_NOFOLLOW)
        try:
            return cls(_open_below(parent, given.name, create, given), given)
        finally:
            os.close(parent)

    def folder(self, name: str, create: bool = True) -> Folder:
        """The folder ``name`` in this one (made if missing and ``create``), not a link."""
        return Folder(_open_below(self.fd, name, create, self.path / name), self.path / name)

    def names(self) -> list[str]:
        return os.listdir(self.fd)

    def write_new(self, name: str, data: bytes) -> Path | None:
        """``name`` holding ``data``, written whole or not at all; ``None`` when ``name`` is taken
        (whatever is there is left as it is)."""
        temporary = f".z3sandbox-{secrets.token_hex(8)}.tmp"
        handle = os.open(temporary, _NEW_FILE, 0o666, dir_fd=self.fd)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            try:
                os.link(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
            except FileExistsError:
                return None
            except OSError as exc:
                if exc.errno not in _NO_HARD_LINKS:
                    raise
                return self._write_in_place(name, data)
        finally:
            os.unlink(temporary, dir_fd=self.fd)
        return self.path / name

    def create(self, name: str) -> BinaryIO:
        """A new file ``name`` open for appending; ``FileExistsError`` when the name is taken."""
        return os.fdopen(os.open(name, _NEW_FILE | os.O_APPEND, 0o666, dir_fd=self.fd), "ab")

    def _write_in_place(self, name: str, data: bytes) -> Path | None:
        try:
            with self.create(name) as stream:
                stream.write(data)
        except FileExistsError:
            return None
        return self.path / name

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _open_below(parent: int, name: str, create: bool, shown: Path) -> int:
    try:
        return os.open(name, _FOLDER, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _refused(parent, name, shown) from None
        raise
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
    except FileExistsError:
        pass  # made meanwhile: opened as whatever it is, no link followed
    try:
        return os.open(name, _FOLDER, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _refused(parent, name, shown) from None
        raise


def _refused(parent: int, name: str, shown: Path) -> LinkedTarget:
    mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    if stat.S_ISLNK(mode):
        return LinkedTarget(f"{shown}: a symbolic link; z3sandbox writes into no linked folder "
                            "(name the folder it points to, if that is meant)")
    return LinkedTarget(f"{shown}: not a folder")
