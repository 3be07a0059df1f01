"""The zygote's forked trees: fork one (spawn.py), take its pipes' bytes under their caps, enforce
its wall deadline, kill it, reap it with rusage.

This is the process side of the event loop; server.py decides what the trees are for (a
candidate's run, its verification, a standby, the probe) and what their ends mean.  Everything
runs on the zygote's one thread: a forked copy of a threaded process can deadlock.
"""

from __future__ import annotations

import contextlib
import math
import os
import resource
import selectors
import signal
import time
import traceback
from collections.abc import Callable, Sequence

from ..limits import Limits
from ..protocol import KILL_REQUEST, STACK_REQUEST, STANDBY_TAKEN, report_budget
from ..roles import Kill, Role
from . import frames, scratch
from .capture import Stream
from .classify import signal_of
from .fork_orders import ForkServers, Restarted, describe_death
from .forker import Order, Usage, fork_tree
from .jobs import NO_CANDIDATE, Job, close_go_pipe
from .sandboxing import SandboxPlan
from .spawn import ZYGOTE_NAME, decode_status, kill_group, reap_ready

READ_CHUNK = 1 << 16
KILL_GRACE_S = 0.25  # an init asked to kill its candidate gets this long before it is SIGKILLed
# A candidate asked for its stack before a wall or output kill gets this long to write it; the kill
# comes as soon as it has (a Python script answers between two bytecodes: child/stack.py).
STACK_WAIT_S = 0.5
_ASKS_FOR_STACK = frozenset({Kill.WALL, Kill.OUTPUT})
REAP_ALL_S = 5.0  # at shutdown, how long every killed tree is waited for


class Trees:
    """The live trees by pid.  ``ended(job)`` is called once per reaped job (``release`` it
    first); ``report_whole(job)`` when a run's result descriptor holds both of its frames;
    ``forget()`` first thing in every freshly forked child (server.py)."""

    def __init__(self, plan: SandboxPlan, scratch_base: str, selector: selectors.BaseSelector,
                 ended: Callable[[Job], None], report_whole: Callable[[Job], None],
                 forget: Callable[[], None], restarted: Restarted) -> None:
        self.plan = plan
        self.scratch_base = scratch_base
        self.selector = selector
        self.ended = ended
        self.report_whole = report_whole
        self.forget_all = forget
        self.jobs_by_pid: dict[int, Job] = {}
        self.forkers = ForkServers(plan, selector, self.jobs_by_pid, self._reaped, restarted)
        # A ticket is killed by the verifiers that serve it (verifiers.py), never as a process.
        self.kill_ticket: Callable[[Job, Kill], None] = lambda job, reason: None
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_r = wake_r
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        # For a standby's init only (standby.py), which unblocks it once its handler is set: a
        # blocked signal waits, where an ignored one sent before that would be lost.
        signal.pthread_sigmask(signal.SIG_BLOCK, {STANDBY_TAKEN})
        selector.register(wake_r, selectors.EVENT_READ, ("wake", None))

    # ------------------------------------------------------------------------------------ forking

    def start_forker(self) -> None:
        """From now on every tree is forked by the fork server (forker.py), a process that holds
        no request: call before the first request is read."""
        self.forkers.start(self.forget_all)

    def spawn(self, candidate_id: int, role: Role, limits: Limits, ahead: bool = False,
              require: Sequence[str] = ()) -> Job:
        """Fork one tree.  ``ahead`` (a spare, a standby, or a run handed its request right after
        the fork): forked before its request, it waits on a go pipe with no deadline until it is
        handed one (standby.py, verifiers.py, ``hand_off``).  ``require``: a verifier's required
        layers; every other tree receives its request, and so its own, after the fork."""
        ahead = ahead or role.ahead
        label = str(role) if role.ahead else f"{role}-{candidate_id}"
        folder = scratch.make(self.scratch_base, label)
        order = Order(role=role, ahead=ahead, folder=folder, limits=limits.to_dict(), require=list(require))
        started = time.monotonic()
        try:
            if self.forkers.started:
                spawned = self.forkers.fork(order)
            else:  # the start-up probe, before any request: the zygote forks it itself
                spawned = fork_tree(self.plan, order, self.forget_all, ZYGOTE_NAME)
        except OSError:
            scratch.remove_soon(folder, ZYGOTE_NAME)
            raise
        keep = int(limits.output_kb) * 1024
        streams = {
            "stdout": Stream("stdout", spawned.stdout_fd, keep),
            "stderr": Stream("stderr", spawned.stderr_fd, keep),
            "result": Stream("result", spawned.result_fd, 0),
        }
        if spawned.status_fd is not None:
            streams["status"] = Stream("status", spawned.status_fd, 64)
        job = Job(candidate_id, role, spawned.pid, folder, started,
                  math.inf if ahead else started + float(limits.wall_s), streams,
                  go_fd=spawned.go_fd,
                  result=frames.ResultReader(report_budget(int(limits.payload_max_bytes)),
                                             self.enforce_deadlines),
                  output_cap=int(limits.output_max_mb) << 20)
        for stream in streams.values():
            assert stream.fd is not None
            self.selector.register(stream.fd, selectors.EVENT_READ, ("stream", (job, stream)))
        self.jobs_by_pid[spawned.pid] = job
        return job

    # ------------------------------------------------------------------------------------- pipes

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
                self._stack_came(job)
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

    def _stack_came(self, job: Job) -> None:
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

    def _drain(self, job: Job) -> None:
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

    # ------------------------------------------------------------------------------------ reaping

    def on_wake(self) -> None:
        for pid, status, rusage in reap_ready(self.wake_r):
            # Any pid not a job's is an orphan we inherited as subreaper, a removal helper or the
            # fork server: now reaped.
            self._reaped(pid, status, rusage)

    def on_reaped(self) -> None:
        """The fork server reaped trees (or died): end their jobs as ``on_wake`` ends the zygote's own."""
        self.forkers.on_reaped()

    def _reaped(self, pid: int, status: int, usage: resource.struct_rusage | Usage) -> None:
        job = self.jobs_by_pid.pop(pid, None)
        if job is None:
            self.forkers.on_child(pid, status)  # the fork server's death, if it was
            return
        job.wait_status, job.rusage, job.ended = status, usage, time.monotonic()
        self.ended(job)

    # ----------------------------------------------------------------------------------- hand-off

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
        self.end_hand_off(job)

    def end_hand_off(self, job: Job) -> None:
        """Stop writing and close the go pipe (EOF: a cut frame is read as none)."""
        if job.go_fd is not None:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(job.go_fd)
        job.handing = None
        close_go_pipe(job)

    def release(self, job: Job) -> None:
        """What a reaped job leaves: its go pipe, its process group and (without a PID namespace)
        the orphans of user code, the bytes still in its pipes, its scratch folder.  A ticket
        (verifiers.py) is no process: nothing to release."""
        if job.ticket:
            return
        self.end_hand_off(job)
        if "status" not in job.streams:  # no PID namespace took the tree down with its init
            kill_group(job.pid)
            user_code = job.role in (Role.RUN, Role.STANDBY)  # only user code can leave processes
            if user_code and not self.forkers.started:
                self.plan.kill_orphans(set(self.jobs_by_pid))  # (the fork server's trees: it does)
        self._drain(job)
        status = job.streams.get("status")
        if (job.kill is None and job.role is Role.RUN and status is not None
                and signal_of(job.wait_status) is not None and decode_status(status.data) is None):
            # its init died of a signal before it said how the candidate ended: from outside
            # (PID 1 of its namespace takes no signal from the candidate), so not the candidate's
            job.kill, job.kill_detail = Kill.DIED, f"its init {describe_death(job.wait_status or 0)}"
        if "status" not in job.streams and signal_of(job.wait_status) == signal.SIGXFSZ:
            job.scratch_largest = scratch.largest_file(job.scratch)  # the file-size rule's fact
        scratch.remove_soon(job.scratch, ZYGOTE_NAME)  # a small folder at once, a tree in a helper

    # ---------------------------------------------------------------------------- deadlines, kills

    def next_timeout(self) -> float | None:
        # A killed job's deadline is the end of its kill grace (math.inf once SIGKILLed).
        deadlines = [job.deadline for job in self.jobs_by_pid.values() if job.deadline != math.inf]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic())

    def enforce_deadlines(self) -> None:
        now = time.monotonic()
        for job in list(self.jobs_by_pid.values()):
            if job.kill is None and now >= job.deadline:
                self.kill(job, Kill.WALL)
            elif job.stack_wait and now >= job.deadline:  # no stack came: the kill all the same
                self.kill(job, job.kill or Kill.WALL, job.kill_detail)
            elif job.kill is not None and now >= job.deadline:  # the init's grace is over
                job.deadline = math.inf
                kill_group(job.pid)

    def kill(self, job: Job, reason: Kill, detail: str = "", grace: bool = True) -> None:
        """End the job's tree.  With an init (a PID namespace), ask it to kill the candidate and
        report the candidate's own status and rusage, and SIGKILL the tree ``KILL_GRACE_S`` later
        whatever it did; otherwise SIGKILL its process group now.  A candidate's wall or output
        kill first asks it for its stack (``STACK_REQUEST``) and waits ``STACK_WAIT_S`` for it
        at most (``_stack_came``): where the script was is then known."""
        if job.ticket:
            self.kill_ticket(job, reason)
            return
        first = job.kill is None
        job.kill, job.kill_detail, job.stack_wait = reason, detail, False
        if first and grace and reason in _ASKS_FOR_STACK and job.role is Role.RUN and not job.reaped:
            try:
                os.kill(job.pid, STACK_REQUEST)
                job.stack_wait, job.deadline = True, time.monotonic() + STACK_WAIT_S
                return
            except ProcessLookupError:
                pass
        if grace and "status" in job.streams and not job.reaped:
            try:
                os.kill(job.pid, KILL_REQUEST)
                job.deadline = time.monotonic() + KILL_GRACE_S
                return
            except ProcessLookupError:
                pass
        job.deadline = math.inf
        kill_group(job.pid)

    def kill_all(self, reason: Kill, detail: str = "") -> None:
        """Kill every tree and reap them all now (each reaped job is ``ended`` as usual)."""
        for job in list(self.jobs_by_pid.values()):
            if job.kill is None:
                self.kill(job, reason, detail, grace=False)  # waited for below: no grace
        deadline = time.monotonic() + REAP_ALL_S
        while self.jobs_by_pid and time.monotonic() < deadline:
            self.forkers.settle()
            forking = self.forkers.current is not None
            self.forkers.wait(0.05)  # its trees are the fork server's children
            try:  # and a dead fork server's, ours
                pid, status, rusage = os.wait4(-1, os.WNOHANG if forking else 0)
            except ChildProcessError:
                if not forking:
                    break
                continue
            if pid:
                self._reaped(pid, status, rusage)
        for job in list(self.jobs_by_pid.values()):  # the fork server did not answer: gone anyway
            self._reaped(job.pid, signal.SIGKILL, Usage(0.0, 0.0, 0))
        self.forkers.close()

    def forget(self) -> None:
        """In a freshly forked child: drop the other trees (the selector's keys hold every job,
        its output and its report)."""
        self.jobs_by_pid.clear()
        self.selector.close()

    def dying(self) -> bool:
        """A killed tree is still being torn down (its teardown takes CPU)."""
        return any(job.kill is not None for job in self.jobs_by_pid.values())

    def busy(self) -> int:
        """Trees that serve a candidate (not an idle spare or standby, not the probe)."""
        return sum(1 for job in self.jobs_by_pid.values() if job.candidate_id != NO_CANDIDATE)
