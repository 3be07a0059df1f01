"""The zygote's forked trees: fork one (spawn.py), take its pipes' bytes under their caps, enforce
its wall deadline, kill it, reap it with rusage.

This is the process side of the event loop; server.py and candidates.py decide what the trees are
for (a candidate's run, its verification, a standby, the probe) and what their ends mean.  Everything
runs on the zygote's one thread: a forked copy of a threaded process can deadlock.
"""

from __future__ import annotations

import math
import os
import resource
import selectors
import signal
import time
from collections.abc import Callable, Sequence

from ..contracts.limits import Limits
from ..protocol import KILL_REQUEST, STACK_REQUEST, STANDBY_TAKEN, report_budget
from ..protocol.roles import Kill, Role
from . import frames, scratch
from .capture import Stream
from .classify import signal_of
from .fork_orders import ForkServers, Restarted, describe_death
from .forker import Order, Usage, fork_tree
from .jobs import NO_CANDIDATE, Job
from .pipes import HandOffs, Pipes
from .sandboxing import SandboxPlan
from .spawn import ZYGOTE_NAME, decode_status, kill_group, reap_ready

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
        self.wake_r = _wake_on_signals(selector)
        self.pipes = Pipes(selector, self.kill, report_whole)
        self.hand_offs = HandOffs(selector)
        # the event loop's entry points (server.py): a job's pipe readable, its go pipe writable
        self.on_stream, self.hand_off, self.on_writable = (
            self.pipes.on_stream, self.hand_offs.hand_off, self.hand_offs.on_writable)

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
        order = Order(role=role, ahead=ahead, folder=folder, limits=limits, require=list(require))
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

    def release(self, job: Job) -> None:
        """What a reaped job leaves: its go pipe, its process group and (without a PID namespace)
        the orphans of user code, the bytes still in its pipes, its scratch folder.  A ticket
        (verifiers.py) is no process: nothing to release."""
        if job.ticket:
            return
        self.hand_offs.end(job)
        if "status" not in job.streams:  # no PID namespace took the tree down with its init
            kill_group(job.pid)
            user_code = job.role in (Role.RUN, Role.STANDBY)  # only user code can leave processes
            if user_code and not self.forkers.started:
                self.plan.kill_orphans(set(self.jobs_by_pid))  # (the fork server's trees: it does)
        self.pipes.drain(job)
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
        at most (``Pipes.stack_came``): where the script was is then known."""
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


def _wake_on_signals(selector: selectors.BaseSelector) -> int:
    """The read end of the pipe a signal (SIGCHLD above all) writes to, registered as "wake"."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    # For a standby's init only (standby.py), which unblocks it once its handler is set: a
    # blocked signal waits, where an ignored one sent before that would be lost.
    signal.pthread_sigmask(signal.SIG_BLOCK, {STANDBY_TAKEN})
    selector.register(wake_r, selectors.EVENT_READ, ("wake", None))
    return wake_r
