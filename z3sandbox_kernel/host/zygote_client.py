"""Starting the zygote process and talking to it (asyncio, on the Sandbox's own event-loop thread).

Shutdown ladder: a ``shutdown`` request, then closing its stdin (the zygote kills every candidate on
EOF), then SIGKILL after ``Graces.shutdown_grace_s`` (host/plan.py).  The zygote is PID 1 of its PID
namespace, so its death takes every candidate with it; the kernel guarantees that, not this code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable

from ..protocol import (
    HELLO,
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    ZYGOTE_EVENTS,
    Hello,
    HostRequest,
    ProtocolError,
    ShutdownRequest,
    UnknownMessage,
    ZygoteEvent,
    encode_message,
    frame_length,
)
from ..protocol.roles import Level
from ..zygote import scratch
from .plan import Graces

log = logging.getLogger("z3sandbox")
START_TIMEOUT_S = 60.0

# The zygote's whole environment: nothing of the user's (no secrets, no PATH, no PYTHONPATH).
# malloc on transparent huge pages: a candidate's first z3 check writes ~10 MB of the heap it shares
# with the zygote; with huge pages that is ~3x fewer copy-on-write faults (bench/PROFILE.md, item 1).
ZYGOTE_ENV = {"LANG": "C.UTF-8", "MALLOC_ARENA_MAX": "2", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}


class ZygoteError(RuntimeError):
    """The zygote could not be started, or broke the protocol.  ``killed``: it died of a signal
    while starting (something killed it: another start may work), ``how`` it ended."""

    def __init__(self, message: str, killed: bool = False, how: str = "") -> None:
        super().__init__(message)
        self.killed, self.how = killed, how


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "closed its pipe"
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


# The zygote's frames are decoded at this gate into their types (protocol/gates.py), the whole
# result included: the zygote runs no user code and builds its messages itself (a result is
# classify.py's, from frames it checked), and msgspec checks them again here as a matter of course.

def parse_hello(body: bytes) -> Hello:
    try:
        return HELLO.decode(body)
    except UnknownMessage as exc:
        raise ZygoteError(f"the zygote said {exc} instead of hello") from None


def parse_event(body: bytes) -> ZygoteEvent | None:
    """A started or done message; None for a message of another type (ignored, as an unknown id
    is).  A malformed one is a ``ProtocolError``: the zygote is then broken, and is ended."""
    try:
        return ZYGOTE_EVENTS.decode(body)
    except UnknownMessage:
        return None


def zygote_command(level: Level) -> list[str]:
    """The zygote's command line: isolated Python (no user site, no PYTHONPATH), dying with us."""
    return [sys.executable, "-I", "-m", "z3sandbox_kernel.zygote",
            "--isolation", Level(level).value, "--parent", str(os.getpid())]


class ZygoteProcess:
    def __init__(self, level: Level, on_message: Callable[[ZygoteEvent], None],
                 on_exit: Callable[[ZygoteProcess, str], None], graces: Graces | None = None) -> None:
        self.level = level
        self.graces = graces or Graces()
        self.on_message = on_message
        self.on_exit = on_exit
        self.process: asyncio.subprocess.Process | None = None
        self.hello: Hello | None = None  # set by start()
        self.closing = False
        self._reader: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    async def start(self) -> Hello:
        self.process = await asyncio.create_subprocess_exec(
            *zygote_command(self.level), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=ZYGOTE_ENV, close_fds=True, limit=MAX_FRAME_BYTES,
            # Its own session: Jupyter interrupts a kernel with killpg(SIGINT), which must reach the
            # kernel (it cancels the run) but not the zygote.  The zygote dies with us regardless
            # (parent-death signal), and its PID namespace takes every candidate with it.
            start_new_session=True,
        )
        try:
            self.hello = parse_hello(await asyncio.wait_for(self._read_frame(), START_TIMEOUT_S))
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, ProtocolError) as exc:
            ended = isinstance(exc, asyncio.IncompleteReadError)  # it closed its pipe: it died
            self.kill()
            await self.process.wait()
            how = describe_exit(self.process.returncode)
            raise ZygoteError(f"the zygote did not start ({how}; {exc!r}); its stderr above says why",
                              killed=ended and (self.process.returncode or 0) < 0, how=how) from None
        self._reader = asyncio.get_running_loop().create_task(self._read_forever())
        return self.hello

    async def _read_frame(self) -> bytes:  # a frame's body, for a gate to decode
        assert self.process and self.process.stdout
        header = await self.process.stdout.readexactly(4)
        return await self.process.stdout.readexactly(frame_length(header))

    async def _read_forever(self) -> None:
        assert self.process
        try:
            while True:
                received = parse_event(await self._read_frame())
                if received is None:
                    continue
                try:
                    self.on_message(received)
                except Exception:  # one bad message fails its candidate at most, never the reader
                    log.exception("z3sandbox: a message from the zygote could not be handled")
        except (asyncio.IncompleteReadError, ConnectionError):
            if not self.closing:
                await self._exit_within(self.graces.exit_grace_s)
        except ProtocolError:
            pass
        except Exception:  # whatever it is, the exit below must run: runs wait for it
            log.exception("z3sandbox: reading from the zygote failed")
        if not self.closing:
            self.kill()
        await self.process.wait()
        # The process is gone: close its pipes now, on this loop (a transport left for the garbage
        # collector may meet a closed loop).  asyncio.subprocess.Process has no public close().
        transport = getattr(self.process, "_transport", None)
        if transport is not None:
            transport.close()
        try:
            self._remove_scratch()
        except Exception:  # a folder left behind must not leave the runs waiting
            log.exception("z3sandbox: the dead zygote's scratch folder could not be removed")
        self.on_exit(self, describe_exit(self.process.returncode))

    def kill(self) -> None:
        """SIGKILL the zygote and its process group (its own session): a child it forked an
        instant before, stopped or not yet at its parent-death signal and its own session (a wedged
        zygote's tree is often both), is in that group and goes too."""
        if self.process is None or self.process.returncode is not None:
            return
        # os.kill, not Process.kill: that polls first, and a poll that reaps an ended zygote leaves
        # asyncio's own wait with no status ("exited with code 255", not its death).
        for kill, target in ((os.killpg, self.process.pid), (os.kill, self.process.pid)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill(target, signal.SIGKILL)

    async def _exit_within(self, seconds: float) -> None:
        """The zygote closed its pipe: it is ending.  Let it end as it does, so that the death
        reported is its own (at the kernel level its thin outer parent removes the scratch folders,
        then dies as the serving zygote died), not the SIGKILL the reader sends a zygote still alive."""
        assert self.process
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.process.wait(), seconds)

    def _remove_scratch(self) -> None:
        """A zygote killed with SIGKILL cannot clean up after itself: its parent does."""
        folder = str(self.hello["scratch"] or "") if self.hello is not None else ""
        if os.path.basename(folder).startswith("z3sandbox-") and os.path.isabs(folder):
            scratch.remove(folder)

    @property
    def gone(self) -> bool:
        """It can take no request any more (it ended, or its stdin closed under a write)."""
        process = self.process
        return (process is None or process.returncode is not None or process.stdin is None
                or process.stdin.is_closing())

    def send(self, msg: HostRequest) -> bool:
        """Queue a request; False if the zygote is gone (its exit is being handled)."""
        if self.gone or not self.process or not self.process.stdin:
            return False
        try:
            self.process.stdin.write(encode_message(msg))
        except (ConnectionError, RuntimeError):
            return False
        return True

    async def reader_done(self) -> None:
        """Until the reader has seen the process end (it was killed, or closed)."""
        if self._reader is not None:
            await asyncio.wait_for(asyncio.shield(self._reader), self.graces.shutdown_grace_s)

    async def close(self) -> None:
        if not self.process or self.process.returncode is not None:
            return
        self.closing = True
        self.send(ShutdownRequest(v=PROTOCOL_VERSION, type="shutdown"))
        if self.process.stdin:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), self.graces.shutdown_grace_s)
        except asyncio.TimeoutError:
            self.kill()
            await self.process.wait()
        if self._reader:
            await self._reader
