"""The zygote's event loop: single-threaded, so that forking it is safe.

It reads requests from the host on stdin, forks one sandboxed tree per candidate (spawn.py), drains
their pipes, enforces the wall deadline and the output caps, reaps them with rusage, and sends the
host one finished ``CandidateDict`` per candidate.  Selectors, not threads: a forked copy of a
threaded process can deadlock, and a kernel has threads -- which is why the zygote exists.
"""

from __future__ import annotations

import math
import os
import selectors
import signal
import sys
import time
import traceback
from typing import Any, cast

from ..child.bootstrap import ChildJob
from ..limits import Limits
from ..protocol import (
    KILL_REQUEST,
    STANDBY_TAKEN,
    ProtocolError,
    RunRequest,
    VerifyRequest,
    encode_frame,
    message,
    report_budget,
    split_frames,
)
from . import frames, scratch
from .capture import Stream
from .classify import Observation, classify, failed
from .jobs import (
    Candidate,
    Job,
    close_go_pipe,
    may_need_verification,
    observe_run,
    observe_verification,
    parse_result,
    verify_request,
    wants_verification,
)
from .sandboxing import SandboxPlan
from .spawn import SPARE_NAME, STANDBY_NAME, ZYGOTE_NAME, spawn
from .standby import STANDBY_ID, Standbys
from .verifiers import Verifiers

READ_CHUNK = 1 << 16
KILL_GRACE_S = 0.25  # an init asked to kill its candidate gets this long before it is SIGKILLed


class Zygote:
    def __init__(self, plan: SandboxPlan, scratch_base: str, control_in: int = 0,
                 control_out: int = 1) -> None:
        self.plan = plan
        self.control_in = control_in
        self.control_out = control_out
        self.selector = selectors.DefaultSelector()
        self.candidates: dict[int, Candidate] = {}
        self.verifiers = Verifiers(self._spawn_verifier, self._kill)
        self.standbys = Standbys(self._spawn_standby, self._kill, enabled=plan.pid_ns_fd is not None)
        self.jobs_by_pid: dict[int, Job] = {}
        self.control_buffer = bytearray()
        self.scratch_base = scratch_base
        self.running = True
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_r = wake_r
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(STANDBY_TAKEN, signal.SIG_IGN)  # for a standby's init only (standby.py)
        self.selector.register(wake_r, selectors.EVENT_READ, ("wake", None))
        self.selector.register(control_in, selectors.EVENT_READ, ("control", None))

    # ------------------------------------------------------------------------------ host messages

    def send(self, msg: dict[str, Any]) -> None:
        self._write(encode_frame(msg))

    def _write(self, frame: bytes) -> None:
        data = memoryview(frame)
        while data:
            written = os.write(self.control_out, data)
            data = data[written:]

    def probe_layers(self) -> None:
        """Fork one child that applies every layer and runs nothing: the isolation report is what
        really applied, not what the probes expected (a layer can probe fine and still fail)."""
        job = self._spawn(-1, "probe", {"require": []}, Limits())
        while job.pid in self.jobs_by_pid:
            self.selector.select(1.0)
            self._on_wake()
        setup, _, _ = parse_result(job, "probe")
        self.plan.confirm(setup["layers"] if setup else None)

    def serve(self) -> None:
        self.probe_layers()
        self.send(message("hello", pid=os.getpid(), z3_version=self.plan.z3_version,
                          isolation=self.plan.isolation_report(), scratch=self.scratch_base))
        failure = ""
        try:
            while self.running or self.jobs_by_pid:
                for key, _ in self.selector.select(self._next_timeout()):
                    kind, payload = key.data
                    if kind == "control":
                        self._on_control()
                    elif kind == "wake":
                        self._on_wake()
                    elif payload[1].fd is not None:
                        self._on_stream_safely(*payload)
                    self._enforce_deadlines()  # between events: one job's work delays no deadline
                self._enforce_deadlines()
        except Exception as exc:  # a zygote bug: its candidates are told, never "cancelled"
            failure = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
            raise
        finally:
            # Whatever ends us (the host's shutdown, its death: EOF and SIGTERM can race), the
            # cleanup itself must not be interrupted by a late signal.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            self._kill_everything("died" if failure else "cancel", failure)
            scratch.remove(self.scratch_base)

    def _on_control(self) -> None:
        chunk = os.read(self.control_in, READ_CHUNK)
        if not chunk:  # the host went away: nothing may outlive it
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # its death signal may follow: moot now
            self.running = False
            self.selector.unregister(self.control_in)
            self._kill_everything("cancel")
            return
        self.control_buffer.extend(chunk)
        try:
            requests = split_frames(self.control_buffer)
        except ProtocolError as exc:
            print(f"z3sandbox zygote: bad request from host: {exc}", file=sys.stderr)
            self.running = False
            return
        for request in requests:
            kind = request.get("type")
            if kind == "run":
                self._start(cast(RunRequest, request))  # the host is trusted; candidates are not
            elif kind == "cancel":
                self._cancel(int(request["id"]), str(request.get("reason", "cancel")))
            elif kind == "shutdown":
                self.running = False
                self._kill_everything("cancel")

    # ------------------------------------------------------------------------------- candidates

    def _start(self, request: RunRequest) -> None:
        limits = Limits.from_dict(request["limits"])
        seed_hex = request.get("seed_hex")
        seed = bytes.fromhex(seed_hex) if seed_hex else None
        obs = Observation(index=int(request["index"]), limits=limits, level=self.plan.level,
                          seed=seed, planned_layers=self.plan.isolation_report()["layers"],
                          verify_requested=bool(request.get("verify")))
        candidate = Candidate(request, obs)
        self.candidates[int(request["id"])] = candidate
        missing = self.plan.missing_required(request.get("require") or [])
        if missing:
            obs.report_error = missing
            self._finish(candidate)
            return
        self.send(message("started", id=int(request["id"])))
        candidate.job = (self.standbys.take(int(request["id"]), request, limits)
                         or self._spawn(int(request["id"]), "run", request, limits))
        if request.get("verify"):
            self.verifiers.wanted = True
        self._refill()

    def _spawn(self, candidate_id: int, phase: str, request: RunRequest | VerifyRequest, limits: Limits,
               ahead: str = "") -> Job:
        """Fork one tree.  ``ahead`` (SPARE_NAME, STANDBY_NAME): forked before its request, it
        waits on a go pipe with no deadline (standby.py, verifiers.py)."""
        label = {SPARE_NAME: "spare", STANDBY_NAME: "standby"}.get(ahead, f"{phase}-{candidate_id}")
        folder = scratch.make(self.scratch_base, label)
        layers = self.plan.layers
        required = frozenset(request.get("require") or [])
        if ahead == SPARE_NAME:  # its rlimits come with its request (they can only be lowered once applied)
            layers = [layer for layer in layers if layer.NAME != "rlimits"]
            required = frozenset(layer.NAME for layer in layers)
        kind = "standby" if ahead == STANDBY_NAME else {"run": "candidate"}.get(phase, phase)

        def make_job(out_w: int, err_w: int, res_w: int, go_r: int | None, in_pid_ns: bool) -> ChildJob:
            return ChildJob(
                kind=kind, request=request,
                policy=self.plan.policy(folder, limits, in_pid_ns), stdout_fd=out_w,
                stderr_fd=err_w, result_fd=res_w, layers=layers, required=required,
                in_pid_namespace=in_pid_ns,
                preset_reports=self.plan.namespace_reports, go_fd=go_r,
            )

        started = time.monotonic()
        # Only user code needs a PID namespace of its own (and its init); a verifier or the probe
        # runs none and cannot fork (seccomp), so it saves a fork and a namespace teardown.
        spawned = spawn(make_job, self.plan.pid_ns_fd if phase == "run" else None, ahead=ahead)
        keep = int(limits.output_kb) * 1024
        streams = {
            "stdout": Stream("stdout", spawned.stdout_fd, keep),
            "stderr": Stream("stderr", spawned.stderr_fd, keep),
            "result": Stream("result", spawned.result_fd, 0),
        }
        if spawned.status_fd is not None:
            streams["status"] = Stream("status", spawned.status_fd, 64)
        job = Job(candidate_id, phase, spawned.pid, folder, started,
                  math.inf if ahead else started + float(limits.wall_s), streams,
                  go_fd=spawned.go_fd,
                  result=frames.ResultReader(report_budget(int(limits.payload_max_bytes))),
                  output_cap=int(limits.output_max_mb) << 20)
        for stream in streams.values():
            assert stream.fd is not None
            self.selector.register(stream.fd, selectors.EVENT_READ, ("stream", (job, stream)))
        self.jobs_by_pid[spawned.pid] = job
        return job

    def _spawn_verifier(self, candidate_id: int, request: VerifyRequest, limits: Limits,
                        spare: bool) -> Job:
        return self._spawn(candidate_id, "verify", request, limits, ahead=SPARE_NAME if spare else "")

    def _spawn_standby(self) -> Job:
        # Its request comes at hand-off; the placeholder is never read (bootstrap._stand_by).
        return self._spawn(STANDBY_ID, "run", cast(RunRequest, {}), Limits(), ahead=STANDBY_NAME)

    def _cancel(self, candidate_id: int, reason: str) -> None:
        candidate = self.candidates.get(candidate_id)
        if candidate and candidate.job and not candidate.job.reaped:
            self._kill(candidate.job, reason)

    # ------------------------------------------------------------------------------------ events

    def _on_stream_safely(self, job: Job, stream: Stream) -> None:
        """A failure while taking one job's bytes ends that job, not the zygote."""
        try:
            self._on_stream(job, stream)
        except Exception as exc:
            traceback.print_exc()
            self._close(stream)
            if job.kill is None:
                self._kill(job, "report", f"the zygote could not read its {stream.name}: {exc!r}")

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
        hard cap are checked as bytes arrive (frames.py); parsing waits until the job has ended."""
        if stream.name == "result":
            assert job.result is not None
            job.parsed = None
            violation = job.result.feed(chunk)
            if violation and job.kill is None:
                self._kill(job, "report", violation)
            elif len(job.result.frames) == 2 and job.phase == "run":
                self._verify_early(job)
            return
        stream.take(chunk)
        if stream.name == "status":
            return
        out, err = job.streams["stdout"].total, job.streams["stderr"].total
        if out + err > job.output_cap and job.kill is None:
            self._kill(job, "output", f"stdout and stderr passed the hard cap of {job.output_cap >> 20} "
                                      f"MB together ({out} bytes on stdout, {err} on stderr)")

    def _verify_early(self, job: Job) -> None:
        """The candidate's report is whole: start its verifier now, while the candidate exits and
        its tree is torn down (about 5 ms).  Whether the verdict uses it is decided when the run
        has ended (``_job_ended``); the report cannot change (a third frame ends the candidate)."""
        candidate = self.candidates.get(job.candidate_id)
        if (candidate is None or candidate.job is not job or candidate.verifier is not None
                or job.kill is not None or not self.running):
            return
        _, report, _ = parse_result(job, "run")
        if may_need_verification(candidate, report):
            assert report is not None
            candidate.verifier = self.verifiers.start(
                job.candidate_id, verify_request(candidate, report), candidate.observation.limits)

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

    def _on_wake(self) -> None:
        try:
            while os.read(self.wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        while True:
            try:
                pid, status, rusage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs_by_pid.pop(pid, None)
            if job is not None:  # any other pid is an orphan we inherited as subreaper: now reaped
                job.wait_status, job.rusage, job.ended = status, rusage, time.monotonic()
                self._job_ended_safely(job)

    def _job_ended_safely(self, job: Job) -> None:
        """A failure while finishing one job (a result we cannot handle) is that candidate's
        internal_error; the zygote and every other candidate carry on."""
        self._enforce_deadlines()  # several jobs can end in one wake: each parse waits its turn
        try:
            self._job_ended(job)
        except Exception as exc:
            traceback.print_exc()
            candidate = self.candidates.get(job.candidate_id)
            if candidate is not None:
                for other in (candidate.job, candidate.verifier):
                    if other is not None and other is not job and not other.reaped:
                        self._kill(other, "cancel")  # the result is decided
                candidate.job = None
                result = failed(candidate.observation, f"the zygote could not handle its result: {exc!r}")
                self.candidates.pop(job.candidate_id, None)
                self._write(encode_frame(message("done", id=job.candidate_id, result=result)))

    def _job_ended(self, job: Job) -> None:
        close_go_pipe(job)
        self.verifiers.ended(job)
        self.standbys.ended(job)
        if "status" not in job.streams:  # no PID namespace took the tree down with its init
            _kill_group(job.pid)
            if job.phase == "run":  # only user code can have left processes behind
                self.plan.kill_orphans(set(self.jobs_by_pid))
        self._drain(job)
        scratch.remove_soon(job.scratch, ZYGOTE_NAME)  # a small folder at once, a tree in a helper
        candidate = self.candidates.get(job.candidate_id)
        if candidate is None:  # the start-up probe, or a candidate already finished
            self._refill()
            return
        if job.phase == "run":
            self._run_ended(candidate, job)
            return
        if candidate.job is not job:  # verified before its run ended: the run's end decides
            return
        if candidate.verifier is job:  # not one discarded by _run_ended
            observe_verification(candidate.observation, job)
        self._finish(candidate)

    def _run_ended(self, candidate: Candidate, job: Job) -> None:
        """Finish the candidate, or wait for its verifier (started early, or now)."""
        observe_run(candidate.observation, job, self.plan.baseline_rss_mb)
        verifier = candidate.verifier
        if self.running and wants_verification(candidate):
            if verifier is None:
                report = cast(dict[str, Any], candidate.observation.report)
                verifier = candidate.verifier = self.verifiers.start(
                    job.candidate_id, verify_request(candidate, report), candidate.observation.limits)
            if not verifier.reaped:
                candidate.job = verifier
                return
            observe_verification(candidate.observation, verifier)
        else:
            reported = candidate.observation.report or {}
            if not reported.get("assertions_smt2"):
                candidate.observation.verify_reason = (
                    "no assertions to check it against (over 4 MB as SMT-LIB, or not reported)")
            candidate.verifier = None
            if verifier is not None and not verifier.reaped:  # started early, not needed: the
                candidate.job = verifier  # run was killed or crashed after its report; the
                self._kill(verifier, "cancel", grace=False)  # candidate ends once it is reaped
                return
        self._finish(candidate)

    def _finish(self, candidate: Candidate) -> None:
        """Send the candidate's result.  Whatever its report held, this ends in one Done message
        for this candidate: a result that cannot be built or sent becomes its internal_error."""
        candidate_id = int(candidate.request["id"])
        self.candidates.pop(candidate_id, None)
        try:
            try:
                frame = encode_frame(message("done", id=candidate_id, result=classify(candidate.observation)))
            except (ProtocolError, ValueError, TypeError, MemoryError, RecursionError) as exc:
                fallback = failed(candidate.observation,
                                   f"its result could not be sent: {type(exc).__name__}: {exc}")
                frame = encode_frame(message("done", id=candidate_id, result=fallback))
            self._write(frame)
        except BrokenPipeError:  # the host is gone; nothing to tell
            self.running = False
        self._refill()

    def _refill(self) -> None:
        """Fork the standby candidate and the spare verifier now unless a killed tree is still
        dying: its teardown takes CPU, and its init is reaped at once rather than after a fork
        (the next done frame or start refills)."""
        jobs = self.jobs_by_pid.values()
        if not any(job.kill is not None for job in jobs):
            busy = sum(1 for job in jobs if job.candidate_id >= 0)  # not the idle spare, standbys
            self.standbys.refill(self.running, busy)
            self.verifiers.refill(self.running, busy)

    # ------------------------------------------------------------------------------ deadlines, kills

    def _next_timeout(self) -> float | None:
        # A killed job's deadline is the end of its kill grace (math.inf once SIGKILLed).
        deadlines = [job.deadline for job in self.jobs_by_pid.values() if job.deadline != math.inf]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic())

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for job in list(self.jobs_by_pid.values()):
            if job.kill is None and now >= job.deadline:
                self._kill(job, "wall")
            elif job.kill is not None and now >= job.deadline:  # the init's grace is over
                job.deadline = math.inf
                _kill_group(job.pid)

    def _kill(self, job: Job, reason: str, detail: str = "", grace: bool = True) -> None:
        """End the job's tree.  With an init (a PID namespace), ask it to kill the candidate and
        report the candidate's own status and rusage, and SIGKILL the tree ``KILL_GRACE_S`` later
        whatever it did; otherwise SIGKILL its process group now."""
        job.kill, job.kill_detail = reason, detail
        if grace and "status" in job.streams and not job.reaped:
            try:
                os.kill(job.pid, KILL_REQUEST)
                job.deadline = time.monotonic() + KILL_GRACE_S
                return
            except ProcessLookupError:
                pass
        job.deadline = math.inf
        _kill_group(job.pid)

    def _kill_everything(self, reason: str = "cancel", detail: str = "") -> None:
        self.running = False  # the end: no spare or verifier is forked while we reap
        for job in list(self.jobs_by_pid.values()):
            if job.kill is None:
                self._kill(job, reason, detail, grace=False)  # waited for below: no grace
        while self.jobs_by_pid:
            try:
                pid, status, rusage = os.wait4(-1, 0)
            except ChildProcessError:
                break
            ended = self.jobs_by_pid.pop(pid, None)
            if ended is not None:
                ended.wait_status, ended.rusage, ended.ended = status, rusage, time.monotonic()
                self._job_ended_safely(ended)


def _kill_group(pid: int) -> None:
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
