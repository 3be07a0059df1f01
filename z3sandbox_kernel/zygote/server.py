"""The zygote's event loop: single-threaded, so that forking it is safe.

It reads requests from the host on stdin, has a tree forked per candidate (trees.py: fork, pipes,
deadlines, kills, reaping), hands requests to standbys and models to verifiers, and sends the host
one finished ``CandidateDict`` per candidate.  Selectors, not threads: a forked copy of a threaded
process can deadlock, and a kernel has threads -- which is why the zygote exists.

A fork copies everything its parent holds, freed memory included, so the zygote forks no
candidate and no verifier: after its start-up probe and before its first request it forks the fork
server (forker.py), which never holds a request, and every tree is forked there and handed its
own request after the fork.  ``_forget`` (first thing in the fork server) drops the zygote's
selector and bookkeeping.
"""

from __future__ import annotations

import os
import selectors
import signal
import sys
import traceback
from collections import deque

from ..contracts.limits import Limits
from ..protocol import (
    HOST_REQUESTS,
    NO_ASSERTIONS_REASON,
    PROTOCOL_VERSION,
    CancelRequest,
    Hello,
    HostRequest,
    ProtocolError,
    RunRequest,
    ShutdownRequest,
    Started,
    UnknownMessage,
    VerifyRequest,
    frame_of,
    split_bodies,
)
from ..protocol.roles import STOPS, Kill, Role
from . import scratch
from .classify import Observation, classify, failed
from .fork_orders import ForkServerLost
from .host_link import HostLink, done_frame
from .jobs import (
    NO_CANDIDATE,
    Candidate,
    Job,
    may_need_verification,
    observe_run,
    observe_verification,
    run_report,
    verify_request,
    wants_verification,
)
from .pipes import READ_CHUNK
from .sandboxing import SandboxPlan
from .standby import Standbys, hand
from .trees import Trees
from .verifiers import Verifiers


class Zygote:
    def __init__(self, plan: SandboxPlan, scratch_base: str, control_in: int = 0,
                 control_out: int = 1) -> None:
        self.plan = plan
        self.control_in = control_in
        self.host = HostLink(control_out)
        self.selector = selectors.DefaultSelector()
        self.trees = Trees(plan, scratch_base, self.selector, self._job_ended_safely, self._verify_early,
                           self._forget, self.host.restarted)
        self.candidates: dict[int, Candidate] = {}
        self.verifiers = Verifiers(self._spawn_verifier, self.trees.kill, self._job_ended_safely,
                                   self._alone, self.host.restarted)
        self.last_sent: set[int] = set()  # runs whose last request came (``_alone``)
        self.started_again: set[int] = set()  # candidates whose tree died before they began
        self.trees.kill_ticket = self.verifiers.kill
        self.standbys = Standbys(self._spawn_standby, self.trees.kill, self.trees.hand_off,
                                 enabled=plan.pid_ns_fd is not None, restarted=self.host.restarted)
        self.control_buffer = bytearray()
        # host messages read, not yet acted on, each with its frame's body (a run's goes to its child)
        self.pending: deque[tuple[HostRequest, bytes]] = deque()
        self.refill_wanted = False
        self.scratch_base = scratch_base
        self.running = True
        self.selector.register(control_in, selectors.EVENT_READ, ("control", None))

    # ------------------------------------------------------------------------------ host messages

    def serve(self) -> None:
        """After the zygote's start-up steps (recipe.py: the probe, the fork server)."""
        self.host.hello(Hello(v=PROTOCOL_VERSION, type="hello", pid=os.getpid(),
                              z3_version=self.plan.z3_version, isolation=self.plan.isolation_report(),
                              scratch=self.scratch_base))
        failure = ""
        trees = self.trees
        try:
            while self.running or trees.jobs_by_pid:
                self._dispatch(self.selector.select(trees.next_timeout()))
                trees.forkers.settle()
                if trees.forkers.broken:  # no process may fork a tree: the host starts a new zygote
                    raise ForkServerLost(trees.forkers.broken)
                self.verifiers.flush()
                if self.refill_wanted:  # before a waiting request: a run finds its spare forked
                    self._refill_now()
                self._act_on_pending()
                trees.enforce_deadlines()
        except Exception as exc:  # a zygote bug: its candidates are told, never "cancelled"
            failure = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            raise
        finally:
            # Whatever ends us (the host's shutdown, its death: EOF and SIGTERM can race), the
            # cleanup itself must not be interrupted by a late signal.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            self._kill_everything(Kill.DIED if failure else Kill.CANCEL, failure)
            scratch.remove(self.scratch_base)

    def _dispatch(self, events: list[tuple[selectors.SelectorKey, int]]) -> None:
        """One select's events; a method, so that no job stays referenced from the loop's frame."""
        for key, _ in events:
            kind, payload = key.data
            if kind == "control":
                self._on_control()
            elif kind == "wake":
                self.trees.on_wake()
            elif kind == "reaped":
                self.trees.on_reaped()
            elif kind == "handoff":
                self.trees.on_writable(payload[0])
            elif payload[1].fd is not None:
                self.trees.on_stream(*payload)
            self.trees.enforce_deadlines()  # between events: one job's work delays no deadline

    def _on_control(self) -> None:
        self.trees.forkers.pristine = False  # what we read is in our memory from now on
        chunk = os.read(self.control_in, READ_CHUNK)
        if not chunk:  # the host went away: nothing may outlive it
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # its death signal may follow: moot now
            self.running = False
            self.selector.unregister(self.control_in)
            self._kill_everything(Kill.CANCEL)
            return
        self.control_buffer.extend(chunk)
        try:
            for body in split_bodies(self.control_buffer):
                try:
                    self.pending.append((HOST_REQUESTS.decode(body), body))  # the host is trusted
                except UnknownMessage:
                    continue  # a later host's request: not ours to act on
        except ProtocolError as exc:
            print(f"z3sandbox zygote: bad request from host: {exc}", file=sys.stderr)
            self.running = False

    def _act_on_pending(self) -> None:
        """One host message at a time: a fork in ``_start`` then holds this request, no other.  A
        run's request waits while a finished run's verifiers exit (at most ``DRAIN_S`` and a kill):
        a run never starts beside what is left of an earlier one; what follows it waits in order."""
        while self.pending and self.running:
            if self.pending[0][0]["type"] == "run" and self.verifiers.draining():
                return
            self._handle(*self.pending.popleft())

    def _handle(self, request: HostRequest, body: bytes) -> None:
        """The wire handler: each request type to its typed handler, as ipykernel's shell_handlers
        (the gate decoded the type; the tag narrows the union, so mypy checks each handler)."""
        if request["type"] == "run":
            self._start(request, frame_of(body))
        elif request["type"] == "cancel":
            self._on_cancel(request)
        else:
            self._on_shutdown(request)

    def _on_cancel(self, request: CancelRequest) -> None:
        candidate = self.candidates.get(request["id"])
        reason = request["reason"] if request["reason"] in STOPS else Kill.CANCEL
        if candidate and candidate.job and not candidate.job.reaped:
            self.trees.kill(candidate.job, reason)

    def _on_shutdown(self, _: ShutdownRequest) -> None:
        self.running = False
        self._kill_everything(Kill.CANCEL)

    # ------------------------------------------------------------------------------- candidates

    def _start(self, request: RunRequest, frame: bytes) -> None:
        """A run request, decoded once (``HOST_REQUESTS``): its child gets ``frame``, the bytes the
        host sent, and decodes them once more at its own gate (``CANDIDATE_REQUEST``)."""
        limits = request["limits"]
        seed_hex = request.get("seed_hex")
        seed = bytes.fromhex(seed_hex) if seed_hex else None
        obs = Observation(index=request["index"], limits=limits, level=self.plan.level,
                          seed=seed, planned_layers=self.plan.isolation_report()["layers"],
                          verify_requested=bool(request.get("verify")))
        candidate = Candidate(request, obs, frame=frame)
        self.candidates[request["id"]] = candidate
        if request.get("last"):
            self.last_sent.add(_run_of(request))
        missing = self.plan.missing_required(request.get("require") or [])
        if missing:
            obs.report_error = missing
            self._finish(candidate)
            return
        self.host.send(Started(v=PROTOCOL_VERSION, type="started", id=request["id"]))
        try:
            candidate.job = (self.standbys.take(request["id"], frame, limits)
                             or self._cold(request["id"], frame, limits))
        except OSError as exc:  # no memory or no process slot: this candidate's error, not ours
            obs.report_error = f"the sandbox could not start its process: {exc}"
            self._finish(candidate)
            return
        if request.get("verify"):
            self.verifiers.wanted = True
        self.refill_wanted = True

    def _cold(self, candidate_id: int, frame: bytes, limits: Limits) -> Job:
        """A tree forked for this request (no standby could take it), handed it after the fork
        like a standby: the fork server never sees a request."""
        job = self.trees.spawn(candidate_id, Role.RUN, limits, ahead=True)
        hand(job, candidate_id, limits)
        self.trees.hand_off(job, frame)
        return job

    def _spawn_verifier(self, candidate_id: int, request: VerifyRequest, limits: Limits,
                        spare: bool) -> Job:
        return self.trees.spawn(candidate_id, Role.SPARE if spare else Role.VERIFY, limits,
                                require=request.get("require") or [])

    def _spawn_standby(self) -> Job:
        return self.trees.spawn(NO_CANDIDATE, Role.STANDBY, Limits())  # its request comes at hand-off

    # ------------------------------------------------------------------------------------ events

    def _verify_early(self, job: Job) -> None:
        """The candidate's report is whole: start its verifier now, while the candidate exits and
        its tree is torn down (about 5 ms).  Whether the verdict uses it is decided when the run
        has ended (``_job_ended``); the report cannot change (a third frame ends the candidate)."""
        candidate = self.candidates.get(job.candidate_id)
        if (candidate is None or candidate.job is not job or candidate.verifier is not None
                or job.kill is not None or not self.running):
            return
        _, report, _ = run_report(job)
        if may_need_verification(candidate, report):
            assert report is not None
            candidate.verifier = self.verifiers.start(
                job.candidate_id, _run_of(candidate.request), verify_request(candidate, report),
                candidate.observation.limits)

    def _job_ended_safely(self, job: Job) -> None:
        """A failure while finishing one job (a result we cannot handle) is that candidate's
        internal_error; the zygote and every other candidate carry on."""
        self.trees.enforce_deadlines()  # several jobs can end in one wake: each parse waits its turn
        try:
            self._job_ended(job)
        except Exception as exc:
            traceback.print_exc()
            candidate = self.candidates.get(job.candidate_id)
            if candidate is not None:
                for other in (candidate.job, candidate.verifier):
                    if other is not None and other is not job and not other.reaped:
                        self.trees.kill(other, Kill.CANCEL)  # the result is decided
                candidate.job = None
                result = failed(candidate.observation, f"the zygote could not handle its result: {exc!r}")
                self.candidates.pop(job.candidate_id, None)
                self._write_result(done_frame(job.candidate_id, result), _run_of(candidate.request))

    def _job_ended(self, job: Job) -> None:
        self.trees.release(job)
        self.verifiers.ended(job)
        self.standbys.ended(job)
        candidate = self.candidates.get(job.candidate_id)
        if candidate is None:  # the start-up probe, or a candidate already finished
            self.refill_wanted = True
            return
        if job.role is Role.RUN:
            self._run_ended(candidate, job)
            return
        if candidate.job is not job:  # verified before its run ended: the run's end decides
            return
        if candidate.verifier is job:  # not one discarded by _run_ended
            observe_verification(candidate.observation, job)
        self._finish(candidate)

    def _run_ended(self, candidate: Candidate, job: Job) -> None:
        """Finish the candidate, or wait for its verifier (started early, or now).  A tree that
        died from outside (its init, its fork server) before the candidate began is replaced."""
        if self._started_again(candidate, job):
            return
        observe_run(candidate.observation, job, self.plan.baseline_rss_mb)
        verifier = candidate.verifier
        if self.running and wants_verification(candidate):
            if verifier is None:
                report = candidate.observation.report
                verifier = candidate.verifier = self.verifiers.start(
                    job.candidate_id, _run_of(candidate.request), verify_request(candidate, report),
                    candidate.observation.limits)
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
        self._finish(candidate)

    def _started_again(self, candidate: Candidate, job: Job) -> bool:
        """Its tree died from outside before it wrote its setup frame (a standby killed as it was
        handed the request, a tree its dead fork server took along): no line of it ran, so a
        fresh tree runs it, once."""
        candidate_id = candidate.request["id"]
        if (job.kill is not Kill.DIED or not self.running or candidate_id in self.started_again
                or run_report(job)[0] is not None):
            return False
        self.started_again.add(candidate_id)
        try:
            candidate.job = self._cold(candidate_id, candidate.frame, candidate.observation.limits)
        except OSError:
            return False
        if job.kill_detail.startswith("its init"):  # (a fork server's death is told on its own)
            standby = os.path.basename(job.scratch).startswith(f"{Role.STANDBY}-")  # trees.spawn's label
            self.host.restarted(Role.STANDBY if standby else Role.RUN, job.kill_detail[len("its init "):])
        return True

    def _finish(self, candidate: Candidate) -> None:
        """Send the candidate's result.  Whatever its report held, this ends in one Done message
        for this candidate: a result that cannot be built or sent becomes its internal_error."""
        candidate_id = candidate.request["id"]
        self.candidates.pop(candidate_id, None)
        self.started_again.discard(candidate_id)
        try:
            frame = done_frame(candidate_id, classify(candidate.observation))
        except (ProtocolError, ValueError, TypeError, MemoryError, RecursionError) as exc:
            fallback = failed(candidate.observation,
                               f"its result could not be sent: {type(exc).__name__}: {exc}")
            frame = done_frame(candidate_id, fallback)
        self._write_result(frame, _run_of(candidate.request))
        self.refill_wanted = True

    def _write_result(self, frame: bytes, run: int | None = None) -> None:
        """A candidate's Done frame, sent at once.  After the run's last one its verifiers, which
        have answered everything, exit (verifiers.py ``drain``); the next run waits for them."""
        if run is not None and not any(_run_of(c.request) == run for c in self.candidates.values()):
            self.last_sent.discard(run)
            self.verifiers.drain(run)
        try:
            self.host.write(frame)
        except BrokenPipeError:  # the host is gone; nothing to tell
            self.running = False

    def _alone(self, run: int, candidate_id: int) -> bool:
        """The candidate is its run's last: the host sent the run's last request, and every other
        candidate of the run has ended."""
        return run in self.last_sent and all(
            c.request["id"] == candidate_id for c in self.candidates.values() if _run_of(c.request) == run)

    def _refill_now(self) -> None:
        """Fork the standby candidate and the spare verifier, from the loop's top (nothing of a
        candidate on the stack), unless a killed tree is still dying or a finished run's verifiers
        are exiting: a teardown takes CPU, and the fork server reaps at once rather than after a
        fork (the next event refills).  A fork that fails (no memory, no process slot) is tried
        again at the next event, never fatal."""
        self.refill_wanted = False
        if self.trees.dying() or self.verifiers.draining():
            return
        try:
            busy = self.standbys.refill(self.running, self.trees.busy())
            self.verifiers.refill(self.running, busy)
        except OSError as exc:
            print(f"z3sandbox zygote: could not fork ahead: {exc}", file=sys.stderr)

    def _forget(self) -> None:
        """In a freshly forked child, first thing: drop the zygote's references to every other
        candidate's request, output and report, so that user code cannot reach them from its stack
        or through ``gc`` (it is a fork: this changes only the child's copy)."""
        self.candidates.clear()
        self.last_sent.clear()
        self.started_again.clear()
        self.pending.clear()
        del self.control_buffer[:]
        self.verifiers.forget()
        self.standbys.ready.clear()
        self.trees.forget()

    def _kill_everything(self, reason: Kill = Kill.CANCEL, detail: str = "") -> None:
        self.running = False  # the end: no spare, standby or verifier is forked while we reap
        self.verifiers.accepting = False
        self.trees.kill_all(reason, detail)


def _run_of(request: RunRequest) -> int:
    """The run a request belongs to (the host's number, or a run of its own): the one whose
    verifiers may check its answer (verifiers.py)."""
    return int(request.get("run", -1 - request["id"]))
