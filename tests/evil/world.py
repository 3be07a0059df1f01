"""The world an evil script attacks: canaries, loopback listeners, watched files and processes.

Shared by the evil suite (``conftest.py``) and ``bench/containment.py``.  Everything a script may
try to reach is set up here by the *test* process, before the Sandbox starts:

* a canary environment variable ``Z3SB_CANARY`` (taken from the environment when the caller set it
  before Python started -- then it is also in ``/proc/<pid>/environ`` -- else set with putenv, so it
  is in this process's memory only);
* a HOME of our own with ``.bashrc`` and a canary file (the zygote's environment is built from
  nothing, so the sandbox never sees this HOME unless a layer leaks it);
* TCP, UDP, named-UNIX and abstract-UNIX listeners that count whatever reaches them;
* a watched folder that scripts try to write into, hashed before and after each run;
* a SysV shared-memory segment of this process (mode 0600, a secret inside) that scripts try to read.

After each run (``snapshot``): no file under the world's root or among the host files a candidate
can see changed -- content, mode, owner, times or xattrs, not only content --, the hostname is the
same; and (``sysv_objects``) no SysV IPC object of the candidates' uid was added.  Snapshots are
compared in snapshots.py; what a run left running is found in processes.py.

Scripts are templates: ``{{NAME}}`` is replaced by the values of ``World.values``.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3sandbox_kernel

from .processes import EVIL_COMM
from .snapshots import digest, metadata, visible_host_files, walk

SCRIPTS = Path(__file__).resolve().parent / "scripts"
ESCAPE_MARKERS = ("ESCAPED", "PLANTED")
SIBLING_SECRET_FILE = "secret.txt"


def script_paths() -> list[Path]:
    return sorted(SCRIPTS.glob("[0-9]*_*.py"), key=lambda path: int(path.name.split("_")[0]))


def header(path: Path) -> str:
    """The script's header comment: what it tries and what it must get."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# ").rstrip())
    return " ".join(lines)



# Inlined into scripts as {{RAW_LIBC}}: libc called through ctypes raises no audit event, so the
# harness's audit hook (a reporting layer that a script cannot switch off) does not see these calls
# and only the kernel layers stand in their way.
RAW_LIBC = """import ctypes, os, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
def raw(result):
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result
def sockaddr_in(host, port):
    return struct.pack("=H", socket.AF_INET) + struct.pack(">H", port) + socket.inet_aton(host) + bytes(8)
def sockaddr_un(path):
    data = path.encode()
    return struct.pack("=H", socket.AF_UNIX) + data + (b"" if data.startswith(b"\\0") else b"\\0")
def raw_socket(family, kind):
    return raw(libc.socket(family, kind, 0))
def raw_connect(fd, address):
    raw(libc.connect(fd, address, len(address)))
def raw_send(fd, data, address=None):
    if address is None:
        raw(libc.send(fd, data, len(data), 0))
    else:
        raw(libc.sendto(fd, data, len(data), 0, address, len(address)))
"""

class _Listener:
    """A socket that counts connections or datagrams on a daemon thread."""

    def __init__(self, sock: socket.socket, stream: bool) -> None:
        self.sock = sock
        self.hits = 0
        self.received: list[bytes] = []
        self._stream = stream
        sock.settimeout(0.2)
        if stream:
            sock.listen(16)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                if self._stream:
                    conn, _ = self.sock.accept()
                    self.hits += 1
                    conn.settimeout(0.5)
                    try:
                        self.received.append(conn.recv(4096))
                    except OSError:
                        pass
                    conn.close()
                else:
                    data = self.sock.recv(4096)
                    self.hits += 1
                    self.received.append(data)
            except TimeoutError:
                continue
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


def _bound(family: int, kind: int, address: object) -> socket.socket:
    sock = socket.socket(family, kind)
    sock.bind(address)
    return sock


@dataclass
class World:
    root: Path  # everything of ours lives here; hashed before and after each run
    token: str = field(default_factory=lambda: secrets.token_hex(8))
    listeners: dict[str, _Listener] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.home = self.root / "home"
        self.home.mkdir(exist_ok=True)
        self.watched = self.root / "watched"
        self.watched.mkdir(exist_ok=True)
        self.canary_secret = f"home-canary-{secrets.token_hex(12)}"
        self.canary_file = self.home / "canary.txt"
        self.canary_file.write_text(self.canary_secret)
        (self.home / ".bashrc").write_text("# the user's real .bashrc\n")
        self.sibling_secret = f"sibling-secret-{secrets.token_hex(12)}"
        self.env_canary = os.environ.get("Z3SB_CANARY") or f"env-canary-{secrets.token_hex(12)}"
        self.env_canary_in_environ = _in_initial_environ("Z3SB_CANARY", self.env_canary)
        os.environ["Z3SB_CANARY"] = self.env_canary
        os.environ["HOME"] = str(self.home)  # the host's HOME; the zygote must not inherit it
        self.kernel_pid = os.getpid()
        self.unix_path = str(self.root / "named.sock")
        self.abstract_name = f"z3sbevil-{self.token}"
        self.shm_secret = f"sysv-secret-{secrets.token_hex(12)}"
        self.shm_key, self.shm_id = _host_segment(self.shm_secret)

    def close(self) -> None:
        """Remove what the world made outside its folder (the SysV segment)."""
        if self.shm_id >= 0:
            _libc.shmctl(self.shm_id, 0, None)  # IPC_RMID

    # ----------------------------------------------------------------------------- listeners

    def start_listeners(self) -> None:
        self.listeners = {
            "tcp": _Listener(_bound(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0)), True),
            "udp": _Listener(_bound(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0)), False),
            "unix": _Listener(_bound(socket.AF_UNIX, socket.SOCK_STREAM, self.unix_path), True),
            "abstract": _Listener(
                _bound(socket.AF_UNIX, socket.SOCK_STREAM, "\0" + self.abstract_name), True),
        }

    def stop_listeners(self) -> None:
        for listener in self.listeners.values():
            listener.close()

    def hits(self) -> dict[str, int]:
        return {name: listener.hits for name, listener in self.listeners.items()}

    # ----------------------------------------------------------------------------- templates

    def values(self, zygote_pid: int | None) -> dict[str, str]:
        return {
            "TOKEN": self.token,
            "KERNEL_PID": str(self.kernel_pid),
            "ZYGOTE_PID": str(zygote_pid or 0),
            "HOME": str(self.home),
            "CANARY_FILE": str(self.canary_file),
            "WATCHED": str(self.watched),
            "TCP_PORT": str(self.listeners["tcp"].sock.getsockname()[1]) if self.listeners else "9",
            "UDP_PORT": str(self.listeners["udp"].sock.getsockname()[1]) if self.listeners else "9",
            "UNIX_PATH": self.unix_path,
            "ABSTRACT_NAME": self.abstract_name,
            "RAW_LIBC": RAW_LIBC,
            "PROJECT_ROOT": os.path.dirname(os.path.dirname(os.path.realpath(z3sandbox_kernel.__file__))),
            "SHM_KEY": str(self.shm_key),
        }

    def render(self, path: Path, zygote_pid: int | None) -> str:
        text = path.read_text()
        for key, value in self.values(zygote_pid).items():
            text = text.replace("{{" + key + "}}", value)
        assert "{{" not in text, f"{path.name}: unknown placeholder"
        return text

    def sibling_script(self, hold_s: float) -> str:
        """A well-behaved candidate run next to each evil one: writes a secret into its scratch,
        stays alive ``hold_s``, then must come back sat with x == 42."""
        return (
            "import time\n"
            f"open({SIBLING_SECRET_FILE!r}, 'w').write({self.sibling_secret!r})\n"
            f"time.sleep({hold_s})\n"
            "x = Int('x')\n"
            "s.add(x == 42)\n"
            "print('sibling-ok')\n"
        )

    # ----------------------------------------------------------------------------- canaries

    def canaries(self) -> list[str]:
        """Strings that must appear in no output of any candidate."""
        found = [self.env_canary, self.canary_secret, self.sibling_secret, self.shm_secret]
        found += _initial_environ_entries()
        found += _secret_file_lines("/etc/shadow") + _secret_file_lines("/etc/passwd")
        return [c for c in found if c]

    # ----------------------------------------------------------------------------- snapshots

    def snapshot(self) -> dict[str, Any]:
        """Hashes of every file under ``root`` (HOME and the watched folder included), plus the
        names in /tmp that an evil script would leave (when /tmp can be listed)."""
        files: dict[str, tuple[Any, ...]] = {}
        for path in [*walk(self.root), *map(Path, visible_host_files())]:
            try:
                if path.is_socket():
                    continue
                files[str(path)] = (digest(path), *metadata(path))
            except OSError as exc:
                files[str(path)] = (-1, repr(exc))
        try:
            tmp = sorted(n for n in os.listdir("/tmp") if EVIL_COMM in n or self.token in n)
        except OSError:
            tmp = ["<unlistable>"]
        return {"files": files, "tmp": tmp, "hostname": socket.gethostname()}


_libc = ctypes.CDLL(None, use_errno=True)


def _host_segment(secret: str) -> tuple[int, int]:
    """A 0600 SysV segment of this process holding ``secret`` (key, id); (-1, -1) where refused."""
    key = 0x5A000000 | secrets.randbits(20)
    _libc.shmat.restype = ctypes.c_void_p
    shm_id = _libc.shmget(key, ctypes.c_size_t(4096), 0o1000 | 0o600)  # IPC_CREAT
    if shm_id < 0:
        return -1, -1
    address = _libc.shmat(shm_id, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(address, secret.encode() + b"\0", len(secret) + 1)
        _libc.shmdt(ctypes.c_void_p(address))
    return key, shm_id


def _initial_environ() -> list[bytes]:
    try:
        with open("/proc/self/environ", "rb") as handle:
            return [e for e in handle.read().split(b"\0") if e]
    except OSError:
        return []


def _in_initial_environ(name: str, value: str) -> bool:
    return f"{name}={value}".encode() in _initial_environ()


def _initial_environ_entries() -> list[str]:
    """``NAME=value`` strings of this process's initial environment that are long enough to be
    unmistakable (a leak of /proc/<pid>/environ shows them in exactly this form)."""
    entries = []
    for entry in _initial_environ():
        text = entry.decode("utf-8", "replace")
        if "=" in text and len(text.split("=", 1)[1]) >= 12:
            entries.append(text)
    return entries


def _secret_file_lines(path: str) -> list[str]:
    """The first line of a system file we can read (a leak would show it verbatim)."""
    try:
        with open(path) as handle:
            first = handle.readline().strip()
    except OSError:
        return []
    return [first] if len(first) >= 8 else []
