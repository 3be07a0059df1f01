"""The zygote's verifiers: one forked ahead (the spare), handed a model when a candidate needs it.

A verifier confirms a candidate's answer (child/confirm.py) in a fresh fork that never ran user
code, forked by the fork server (forker.py), so it holds no other candidate's data: its own request
comes in a file of its scratch folder after the fork, the spare's and one forked on demand's alike.
The fork and its bootstrap (layers applied, memory prepared, a small verification rehearsed:
child/bootstrap.py) are paid while nothing waits for them; it is handed the model as soon as the
candidate's report is whole (server.py), while the candidate's tree is still being torn down. The
spare is forked once a candidate has asked for verification, and refilled from the event loop's top
after a start or a done frame (never inside a handler, whose stack may hold another candidate's
data), never while the running jobs already fill every core (bench/PROFILE.md, finding 2). The
process side (trees.py) owns the processes; this module decides when one is forked and how the
model reaches it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

from ..limits import Limits
from ..protocol import SPARE_GO, SPARE_REQUEST_FILE, VerifyRequest
from ..roles import Kill, Role
from .jobs import NO_CANDIDATE, Job, close_go_pipe

CORES = os.cpu_count() or 1

# (candidate id, request, limits, spare) -> the forked job; (job, kill reason) -> None.
Spawner = Callable[[int, VerifyRequest, Limits, bool], Job]
Killer = Callable[[Job, Kill], None]


class Verifiers:
    def __init__(self, spawn: Spawner, kill: Killer) -> None:
        self._spawn = spawn
        self._kill = kill
        self.spare: Job | None = None  # forked ahead, waiting for a model
        self.wanted = False  # a request asked for verification: keep a spare from then on

    def refill(self, running: bool, jobs: int) -> None:
        """Fork the spare if one is wanted, none is waiting and fewer than CORES jobs run."""
        if self.wanted and self.spare is None and running and jobs < CORES:
            self.spare = self._spawn(NO_CANDIDATE, {"spare": True}, Limits(), True)

    def start(self, candidate_id: int, request: VerifyRequest, limits: Limits) -> Job:
        """Hand ``request`` to the spare (it serves this one model), or to one forked now: every
        verifier is forked before its request, which it reads after the fork (forker.py).  The
        next spare is forked after the done frame (``refill``), not here."""
        spare, self.spare = self.spare, None
        if spare is None or spare.reaped or spare.kill is not None or spare.go_fd is None:
            spare = self._spawn(NO_CANDIDATE, {"spare": True}, Limits(), True)
        try:
            path = os.path.join(spare.scratch, SPARE_REQUEST_FILE)
            with open(path, "w", encoding="utf-8") as out:
                json.dump({**request, "limits": limits.to_dict()}, out)
            assert spare.go_fd is not None
            os.write(spare.go_fd, SPARE_GO)
        except OSError:
            self._kill(spare, Kill.CANCEL)  # it ends as a verification without a result
        finally:
            close_go_pipe(spare)
        spare.candidate_id, spare.role = candidate_id, Role.VERIFY
        spare.deadline = time.monotonic() + float(limits.verify_s)  # it never waits past its budget
        return spare

    def ended(self, job: Job) -> None:
        if job is self.spare:
            self.spare = None
