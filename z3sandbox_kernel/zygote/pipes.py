"""A forked tree's pipes, as the zygote's event loop serves them (trees.py owns the trees): its
output and result bytes taken under their caps as they arrive, and a request handed into its go
pipe as the pipe drains.  Everything runs on the zygote's one thread."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import traceback
from collections.abc import Callable

from ..protocol.roles import Kill, Role
from .capture import Stream
from .jobs import Job, close_go_pipe

READ_CHUNK = 1 << 16


class Pipes:
    """Takes each job's stdout, stderr, result and status bytes; ``kill`` ends a job that breaks a
    cap, ``report_whole(job)`` is called when a run's result descriptor holds both frames."""

    def __init__(self, selector: selectors.BaseSelector, kill: Callable[[Job, Kill, str], None],
                 report_whole: Callable[[Job], None]) -> None:
        self.selector = selector
        self.kill = kill
        self.report_whole = report_whole

    def on_stream(self, job: Job, stream: Stream) -> None:
        """A failure while taking one job's bytes ends that job, not the zygote."""
        try:
            self._on_stream(job, stream)
        except Exception as exc:
            traceback.print_exc()
            self._close(stream)
            if job.kill is None:
                self.kill(job, Kill.REPORT, f"the zygote could not read its {stream.name}: {exc!r}")

    def _on_stream(self, job: Job, stream: Stream) -> None:
        assert stream.fd is not None
        try:
            chunk = os.read(stream.fd, READ_CHUNK)
        except BlockingIOError:
            return
        if chunk:
            self._take(job, stream, chunk)
        else:
            self._close(stream)

    def _take(self, job: Job, stream: Stream, chunk: bytes) -> None:
        """Bounded work per chunk: the result descriptor's budget and frame count, the output's
        hard cap are checked as bytes arrive (frames.py); parsing waits until the report is whole."""
        if stream.name == "result":
            assert job.result is not None
            job.parsed = None
            stacks = len(job.result.stacks)
            violation = job.result.feed(chunk)
            if violation and job.kill is None:
                self.kill(job, Kill.REPORT, violation)
            elif len(job.result.stacks) > stacks:
                self.stack_came(job)
            if not violation and job.result.whole and job.role is Role.RUN:
                self.report_whole(job)
            return
        stream.take(chunk)
        if stream.name == "status":
            return
        out, err = job.streams["stdout"].total, job.streams["stderr"].total
        if out + err > job.output_cap and job.kill is None:
            self.kill(job, Kill.OUTPUT, f"stdout and stderr passed the hard cap of {job.output_cap >> 20} "
                                     f"MB together ({out} bytes on stdout, {err} on stderr)")

    def stack_came(self, job: Job) -> None:
        """The candidate wrote its stack: asked for before a kill, the kill comes now; on the CPU
        limit's SIGXCPU (it says so: its word, which classify.py checks against its CPU time),
        the kill the hard limit would make a second later comes now."""
        assert job.result is not None
        if job.stack_wait:
            self.kill(job, job.kill or Kill.WALL, job.kill_detail)
        elif job.kill is None and job.result.stacks[-1]["signal"] == signal.SIGXCPU:
            self.kill(job, Kill.CPU, "its CPU-time limit's SIGXCPU")

    def _close(self, stream: Stream) -> None:
        if stream.fd is not None:
            self.selector.unregister(stream.fd)
            os.close(stream.fd)
            stream.fd = None

    def drain(self, job: Job) -> None:
        """After the job's process ended: take what is buffered, then close, without waiting for
        EOF (a grandchild that called setsid may still hold the pipes)."""
        for stream in job.streams.values():
            while stream.fd is not None:
                try:
                    chunk = os.read(stream.fd, READ_CHUNK)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                self._take(job, stream, chunk)
            self._close(stream)


class HandOffs:
    """Requests handed to trees forked ahead of them, through their go pipes."""

    def __init__(self, selector: selectors.BaseSelector) -> None:
        self.selector = selector

    def hand_off(self, job: Job, frame: bytes) -> None:
        """Write a request frame into the job's go pipe, as much as the pipe takes now and the rest
        as it drains (``on_writable``): a request of any size, and the loop never blocks on it.
        A tree that died meanwhile ends as any candidate does (its bootstrap read no request)."""
        assert job.go_fd is not None
        job.handing = memoryview(frame)
        self.selector.register(job.go_fd, selectors.EVENT_WRITE, ("handoff", (job, None)))
        self.on_writable(job)

    def on_writable(self, job: Job) -> None:
        try:
            while job.handing and job.go_fd is not None:
                written = os.write(job.go_fd, job.handing)
                job.handing = job.handing[written:]
        except BlockingIOError:
            return
        except OSError:  # EPIPE: the tree is gone; its end is handled when it is reaped
            job.handing = None
        self.end(job)

    def end(self, job: Job) -> None:
        """Stop writing and close the go pipe (EOF: a cut frame is read as none)."""
        if job.go_fd is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(job.go_fd)
        job.handing = None
        close_go_pipe(job)
