"""The zygote's candidates, each from its run request to its one ``Done`` frame.

A candidate is run in a tree (a standby handed its request, or one forked for it), then, when its
report asks for it, checked by a verifier of its run (verifiers.py); its result goes to the host
when the job it waits for ends.  The event loop (server.py) reads the host's requests and calls
``start`` and ``cancel``; the trees and the verifiers call ``job_ended`` and ``verify_early``.
A tree that died from outside before its candidate began is replaced once (``Retries``).
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass

from ..contracts.limits import Limits
from ..protocol import (
    NO_ASSERTIONS_REASON,
    PROTOCOL_VERSION,
    CancelRequest,
    ChildReport,
    ProtocolError,
    RunRequest,
    Started,
)
from ..protocol.roles import STOPS, Kill, Role
from .classify import Observation, classify, failed
from .host_link import HostLink, done_frame
from .jobs import (
    Candidate,
    Job,
    may_need_verification,
    observe_run,
    observe_verification,
    run_report,
    verify_request,
    wants_verification,
)
from .sandboxing import SandboxPlan
from .standby import Standbys, hand
from .trees import Trees
from .verifiers import Verifiers


@dataclass
class LoopState:
    """What the event loop and the candidates both read and set."""

    running: bool = True  # False once the zygote is ending: no tree is forked for a candidate
    refill_wanted: bool = False  # a standby or a spare may be forked at the loop's top


def cold(trees: Trees, candidate_id: int, frame: bytes, limits: Limits) -> Job:
    """A tree forked for this request (no standby could take it), handed it after the fork
    like a standby: the fork server never sees a request."""
    job = trees.spawn(candidate_id, Role.RUN, limits, ahead=True)
    hand(job, candidate_id, limits)
    trees.hand_off(job, frame)
    return job


class Retries:
    """Candidates whose tree died from outside before they began: each is run again, once."""

    def __init__(self, trees: Trees, host: HostLink, state: LoopState) -> None:
        self.trees, self.host, self.state = trees, host, state
        self.started_again: set[int] = set()

    def start_again(self, candidate: Candidate, job: Job) -> bool:
        """Its tree died from outside before it wrote its setup frame (a standby killed as it was
        handed the request, a tree its dead fork server took along): no line of it ran, so a
        fresh tree runs it, once."""
        candidate_id = candidate.request["id"]
        if (job.kill is not Kill.DIED or not self.state.running or candidate_id in self.started_again
                or run_report(job)[0] is not None):
            return False
        self.started_again.add(candidate_id)
        try:
            candidate.job = cold(self.trees, candidate_id, candidate.frame, candidate.observation.limits)
        except OSError:
            return False
        if job.kill_detail.startswith("its init"):  # (a fork server's death is told on its own)
            standby = os.path.basename(job.scratch).startswith(f"{Role.STANDBY}-")  # trees.spawn's label
            self.host.restarted(Role.STANDBY if standby else Role.RUN, job.kill_detail[len("its init "):])
        return True


class Candidates:
    """The candidates by id, from ``start`` to the ``Done`` frame ``finish`` sends."""

    def __init__(self, plan: SandboxPlan, host: HostLink, trees: Trees, verifiers: Verifiers,
                 standbys: Standbys, state: LoopState) -> None:
        self.plan, self.host, self.state = plan, host, state
        self.trees, self.verifiers, self.standbys = trees, verifiers, standbys
        self.by_id: dict[int, Candidate] = {}
        self.last_sent: set[int] = set()  # runs whose last request came (``alone``)
        self.retries = Retries(trees, host, state)

    def start(self, request: RunRequest, frame: bytes) -> None:
        """A run request, decoded once (``HOST_REQUESTS``): its child gets ``frame``, the bytes the
        host sent, and decodes them once more at its own gate (``CANDIDATE_REQUEST``)."""
        limits = request["limits"]
        seed_hex = request.get("seed_hex")
        seed = bytes.fromhex(seed_hex) if seed_hex else None
        obs = Observation(index=request["index"], limits=limits, level=self.plan.level,
                          seed=seed, planned_layers=self.plan.isolation_report()["layers"],
                          verify_requested=bool(request.get("verify")))
        candidate = Candidate(request, obs, frame=frame)
        self.by_id[request["id"]] = candidate
        if request.get("last"):
            self.last_sent.add(run_of(request))
        missing = self.plan.missing_required(request.get("require") or [])
        if missing:
            obs.report_error = missing
            self.finish(candidate)
            return
        self.host.send(Started(v=PROTOCOL_VERSION, type="started", id=request["id"]))
        try:
            candidate.job = (self.standbys.take(request["id"], frame, limits)
                             or cold(self.trees, request["id"], frame, limits))
        except OSError as exc:  # no memory or no process slot: this candidate's error, not ours
            obs.report_error = f"the sandbox could not start its process: {exc}"
            self.finish(candidate)
            return
        if request.get("verify"):
            self.verifiers.pool.wanted = True
        self.state.refill_wanted = True

    def cancel(self, request: CancelRequest) -> None:
        candidate = self.by_id.get(request["id"])
        reason = request["reason"] if request["reason"] in STOPS else Kill.CANCEL
        if candidate and candidate.job and not candidate.job.reaped:
            self.trees.kill(candidate.job, reason)

    def verify_early(self, job: Job) -> None:
        """The candidate's report is whole: start its verifier now, while the candidate exits and
        its tree is torn down (about 5 ms).  Whether the verdict uses it is decided when the run
        has ended (``_run_ended``); the report cannot change (a third frame ends the candidate)."""
        candidate = self.by_id.get(job.candidate_id)
        if (candidate is None or candidate.job is not job or candidate.verifier is not None
                or job.kill is not None or not self.state.running):
            return
        _, report, _ = run_report(job)
        if may_need_verification(candidate, report):  # a malformed report's checks still are
            candidate.verifier = self._verify(candidate, report)

    def _verify(self, candidate: Candidate, report: ChildReport | None) -> Job:
        return self.verifiers.start(candidate.request["id"], run_of(candidate.request),
                                    verify_request(candidate, report), candidate.observation.limits)

    def job_ended(self, job: Job) -> None:
        """A failure while finishing one job (a result we cannot handle) is that candidate's
        internal_error; the zygote and every other candidate carry on."""
        self.trees.enforce_deadlines()  # several jobs can end in one wake: each parse waits its turn
        try:
            self._job_ended(job)
        except Exception as exc:
            traceback.print_exc()
            candidate = self.by_id.get(job.candidate_id)
            if candidate is not None:
                for other in (candidate.job, candidate.verifier):
                    if other is not None and other is not job and not other.reaped:
                        self.trees.kill(other, Kill.CANCEL)  # the result is decided
                candidate.job = None
                result = failed(candidate.observation, f"the zygote could not handle its result: {exc!r}")
                self.by_id.pop(job.candidate_id, None)
                self._write_result(done_frame(job.candidate_id, result), run_of(candidate.request))

    def _job_ended(self, job: Job) -> None:
        self.trees.release(job)
        self.verifiers.ended(job)
        self.standbys.ended(job)
        candidate = self.by_id.get(job.candidate_id)
        if candidate is None:  # the start-up probe, or a candidate already finished
            self.state.refill_wanted = True
            return
        if job.role is Role.RUN:
            self._run_ended(candidate, job)
            return
        if candidate.job is not job:  # verified before its run ended: the run's end decides
            return
        if candidate.verifier is job:  # not one discarded by _run_ended
            observe_verification(candidate.observation, job)
        self.finish(candidate)

    def _run_ended(self, candidate: Candidate, job: Job) -> None:
        """Finish the candidate, or wait for its verifier (started early, or now).  A tree that
        died from outside (its init, its fork server) before the candidate began is replaced."""
        if self.retries.start_again(candidate, job):
            return
        observe_run(candidate.observation, job, self.plan.baseline_rss_mb)
        verifier = candidate.verifier
        if self.state.running and wants_verification(candidate):
            if verifier is None:
                verifier = candidate.verifier = self._verify(candidate, candidate.observation.report)
            if not verifier.reaped:
                candidate.job = verifier
                return
            observe_verification(candidate.observation, verifier)
        else:
            report = candidate.observation.report
            if not (report and report.get("assertions_smt2")):
                candidate.observation.verify_reason = NO_ASSERTIONS_REASON
            candidate.verifier = None
            if verifier is not None and not verifier.reaped:  # started early, not needed: the
                candidate.job = verifier  # run was killed or crashed after its report; the
                self.trees.kill(verifier, Kill.CANCEL, grace=False)  # candidate ends once it is reaped
                return
        self.finish(candidate)

    def finish(self, candidate: Candidate) -> None:
        """Send the candidate's result.  Whatever its report held, this ends in one Done message
        for this candidate: a result that cannot be built or sent becomes its internal_error."""
        candidate_id = candidate.request["id"]
        self.by_id.pop(candidate_id, None)
        self.retries.started_again.discard(candidate_id)
        try:
            frame = done_frame(candidate_id, classify(candidate.observation))
        except (ProtocolError, ValueError, TypeError, MemoryError, RecursionError) as exc:
            fallback = failed(candidate.observation,
                               f"its result could not be sent: {type(exc).__name__}: {exc}")
            frame = done_frame(candidate_id, fallback)
        self._write_result(frame, run_of(candidate.request))
        self.state.refill_wanted = True

    def _write_result(self, frame: bytes, run: int) -> None:
        """A candidate's Done frame, sent at once.  After the run's last one its verifiers, which
        have answered everything, exit (verifiers.py ``drain``); the next run waits for them."""
        if not any(run_of(c.request) == run for c in self.by_id.values()):
            self.last_sent.discard(run)
            self.verifiers.drain(run)
        try:
            self.host.write(frame)
        except BrokenPipeError:  # the host is gone; nothing to tell
            self.state.running = False

    def alone(self, run: int, candidate_id: int) -> bool:
        """The candidate is its run's last: the host sent the run's last request, and every other
        candidate of the run has ended."""
        return run in self.last_sent and all(
            c.request["id"] == candidate_id for c in self.by_id.values() if run_of(c.request) == run)

    def forget(self) -> None:
        """In a freshly forked child (server.py ``_forget``): no other candidate's request, output
        or report stays reachable from its stack or through ``gc``."""
        self.by_id.clear()
        self.last_sent.clear()
        self.retries.started_again.clear()


def run_of(request: RunRequest) -> int:
    """The run a request belongs to (the host's number, or a run of its own): the one whose
    verifiers may check its answer (verifiers.py)."""
    return int(request.get("run", -1 - request["id"]))
