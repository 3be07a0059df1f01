"""Standby candidates: trees forked and sandboxed before their request exists (bench/PROFILE.md).

A standby has done everything a cold candidate does before user code runs: its init entered the
PID, mount, IPC and UTS namespaces, mounted the scratch tmpfs (of the default ``disk_mb``) and took
the candidate's uid; the child applied every layer but rlimits and blocks on its go pipe
(child/bootstrap.py, ``_stand_by``).  Handing it a request is writing one frame into that pipe
(as it drains: any size), so the two forks, the namespaces and the layers leave the critical
path.  The child then applies the request's rlimits, checks its ``require``, writes the setup
frame and runs the script: the steps of a cold candidate in the same order, so what it reports
and what the script sees are the same.

A request that a standby cannot take as it is (another ``disk_mb``) gets a tree forked for it,
as does every request at the process level, which has no init to name a standby by (the suite's
leftover checks tell a standby from a stray by its init); that tree too is forked by the fork
server (forker.py) and handed its request after the fork, like a standby.  The pool is refilled
only while fewer jobs than cores are running, from the event loop's top after a hand-off or a
done frame.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

from ..contracts.limits import Limits
from ..protocol import STANDBY_TAKEN, report_budget
from ..protocol.roles import Kill, Role
from . import frames
from .classify import signal_of
from .fork_orders import Restarted, describe_death
from .jobs import Job
from .verifier_pool import CORES

TARGET = 1  # standbys kept ready: each holds two processes and a mounted tmpfs while it waits
MAX_KILLED = 2  # standbys killed in a row (none taken between) before standbys stop

Spawner = Callable[[], Job]
Killer = Callable[[Job, Kill], None]
HandOff = Callable[[Job, bytes], None]  # Trees.hand_off: the request frame into its go pipe


class Standbys:
    def __init__(self, spawn: Spawner, kill: Killer, hand_off: HandOff, enabled: bool,
                 restarted: Restarted) -> None:
        self._spawn = spawn
        self._kill = kill
        self._hand_off = hand_off
        self._restarted = restarted
        self.enabled = enabled
        self.wanted = False  # a run request came: keep standbys from then on
        self.ready: list[Job] = []
        self.killed = 0  # standbys killed from outside since one was last handed a request

    def refill(self, running: bool, busy: int) -> int:
        """Fork standbys up to TARGET while fewer than CORES jobs run (they would wait for CPU);
        the jobs running now, the new standbys counted (the spare verifier's refill reads it)."""
        while (self.enabled and self.wanted and running and busy < CORES
               and len(self.ready) < TARGET):
            self.ready.append(self._spawn())
            busy += 1
        return busy

    def take(self, candidate_id: int, frame: bytes, limits: Limits) -> Job | None:
        """Hand a request (its ``frame`` as the host sent it) to a ready standby and return its
        job, or None: fork a tree for it."""
        self.wanted = True
        if not self.ready or limits.disk_mb != Limits().disk_mb:
            return None
        job = self.ready.pop(0)
        if job.reaped or job.kill is not None or job.go_fd is None:
            return None
        self.killed = 0
        hand(job, candidate_id, limits)
        self._hand_off(job, frame)  # as the pipe drains: any size
        try:
            os.kill(job.pid, STANDBY_TAKEN)  # its init takes a candidate's name
        except ProcessLookupError:
            pass  # the tree is ending; its end is handled like any candidate's
        return job

    def ended(self, job: Job) -> None:
        """A standby that ended before its hand-off.  Killed by us, it is simply gone; killed by
        a signal from outside, it is replaced (the loop's next refill) and the host told, twice in
        a row at most; otherwise something in its set-up fails here, and standbys stop (every
        request gets a tree of its own)."""
        if job not in self.ready:
            return
        self.ready.remove(job)
        if job.kill is None and signal_of(job.wait_status) is not None and self.killed < MAX_KILLED:
            self.killed += 1
            self._restarted(Role.STANDBY, describe_death(job.wait_status or 0))
            return
        if job.kill is None:
            self.enabled = False
            print(f"z3sandbox zygote: a standby candidate ended before its request "
                  f"(status {job.wait_status}); candidates are forked cold from now on", file=sys.stderr)


def hand(job: Job, candidate_id: int, limits: Limits) -> None:
    """The job is now the candidate's: its clock starts, and its limits are the request's."""
    job.candidate_id, job.role = candidate_id, Role.RUN
    job.started = time.monotonic()
    job.deadline = job.started + float(limits.wall_s)
    keep = int(limits.output_kb) * 1024
    for name in ("stdout", "stderr"):
        job.streams[name].keep = keep
    between = job.result.between if job.result is not None else (lambda: None)
    job.result = frames.ResultReader(report_budget(int(limits.payload_max_bytes)), between)
    job.output_cap = int(limits.output_max_mb) << 20
