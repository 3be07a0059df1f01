"""The child's start-up: from a fresh fork of the zygote to user code, step by step.

Runs in the process that will run user code.  Before it, its init has walked the recipe's init
steps (zygote/recipe.py: its mount, IPC and UTS namespaces, its uid, its own user namespace).
``become_child`` then walks the child's part of the recipe (zygote/recipe.py's ``RECIPE`` shows
the whole, each step with why it stands where it stands): its own steps, ``BEFORE_LAYERS``; the
layers, in ``child/steps.py``'s order (``_apply_layers``); then the setup frame on RESULT_FD, which
says which layers are active.  It is written *before* user code, so user code cannot change what
the zygote reports about isolation.

A standby (zygote/standby.py) applies the steps of ``When.PER_CANDIDATE`` before any request
exists, then blocks on its go pipe; handed a request, it applies those of ``When.WITH_REQUEST``
(rlimits: they can only be lowered once set) and checks the layers the request requires, then
writes the setup frame: the same steps in the same order as a cold candidate.  A spare verifier
does the same, its request coming after the setup frame (``_await_request``).

After the setup frame user code runs (the harness).  Its report is the second frame.  We never
return.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import select
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from ..contracts.oscalls import keep_freed_memory, prefault_heap, set_parent_death_signal, set_process_name
from ..protocol import (
    BOOTSTRAP_FAILED_EXIT,
    CANDIDATE_REQUEST,
    GO_FD,
    PROTOCOL_VERSION,
    RESULT_FD,
    SPARE_GO,
    SPARE_REQUEST,
    SPARE_REQUEST_FILE,
    STACK_REQUEST,
    STANDBY_REQUEST_MAX_BYTES,
    STANDBY_TAKEN,
    SUPERVISOR_FD,
    LayerReport,
    ProtocolError,
    RunRequest,
    VerifyRequest,
    encode_frame,
    frame_length,
)
from ..protocol.roles import Role
from . import stack
from .layers import Layer, LayerSetupError, Policy, Step, When

# glibc's malloc: keep freed memory (trim) and serve big blocks from the heap (mmap) instead of
# giving them back to the kernel, whose fresh pages the first check in a new fork would fault in
# again: two thirds of its page faults (bench/PROFILE.md, finding 1).
_TRIM_THRESHOLD = 256 << 20
_MMAP_THRESHOLD = 32 << 20
# A process that waits for its request (a spare verifier, a standby) touches this much heap and frees it
# while it waits: the pages its check will use are then faulted in off the critical path.  A trivial
# check uses less than 4 MB; a larger block is faulted in for nothing by every standby and spare
# (bench/PROFILE.md measures the size).
_PREPARED_HEAP = 4 << 20
# The name a candidate runs under (``ps``, /proc/PID/comm), from a cold fork or a standby.
CANDIDATE_NAME = Role.RUN.process_name


@dataclass
class ChildJob:
    """What the zygote hands a fresh child (in memory: it is a fork, nothing is serialised)."""

    role: Role  # RUN, STANDBY (a candidate awaiting its request on its go pipe), VERIFY, SPARE, PROBE
    # A candidate's request, once handed (from its go pipe, ``_stand_by``); a verifier forked with
    # its request holds it in ``verify`` (a spare reads its own later, ``_await_request``).
    request: RunRequest | None
    verify: VerifyRequest | None
    policy: Policy
    stdout_fd: int
    stderr_fd: int
    result_fd: int
    layers: Sequence[Layer]  # isolation layers in order
    required: frozenset[str] = frozenset()
    in_pid_namespace: bool = False
    preset_reports: list[LayerReport] = field(default_factory=list)  # namespaces, set by the zygote
    go_fd: int | None = None  # a spare's or a standby's "go" pipe, moved to GO_FD
    supervisor_fd: int | None = None  # the socket to its init's seccomp supervisor, to SUPERVISOR_FD


def _write_frame(message: Mapping[str, object]) -> None:
    data = encode_frame({"v": PROTOCOL_VERSION, **message})
    view = memoryview(data)
    while view:
        written = os.write(RESULT_FD, view)
        view = view[written:]


def _redirect_descriptors(job: ChildJob) -> None:
    moves = [(os.open(os.devnull, os.O_RDONLY), 0), (job.stdout_fd, 1), (job.stderr_fd, 2),
             (job.result_fd, RESULT_FD)]
    if job.go_fd is not None:
        moves.append((job.go_fd, GO_FD))
    if job.supervisor_fd is not None:
        moves.append((job.supervisor_fd, SUPERVISOR_FD))
    # Each source is first copied above every target, so no dup2 overwrites a later source.
    moves = [(fcntl.fcntl(source, fcntl.F_DUPFD, SUPERVISOR_FD + 1), target) for source, target in moves]
    for source, target in moves:
        os.dup2(source, target)
    top = max(target for _, target in moves)
    for fd in range(RESULT_FD + 1, top):
        if fd not in (target for _, target in moves):
            os.closerange(fd, fd + 1)
    os.closerange(top + 1, 1 << 16)
    # Fresh text streams on the new descriptors; the zygote's objects may hold buffered state.
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115


def _undo_zygote_signals(job: ChildJob) -> None:
    signal.set_wakeup_fd(-1)
    for signum in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, STANDBY_TAKEN):
        signal.signal(signum, signal.SIG_DFL if signum != signal.SIGINT else signal.default_int_handler)
    signal.signal(STACK_REQUEST, signal.SIG_IGN)  # until the harness answers it (child/stack.py)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())  # the zygote blocks STANDBY_TAKEN


def _own_session(job: ChildJob) -> None:
    os.setsid()


def _parent_death_signal(job: ChildJob) -> None:
    if not job.in_pid_namespace and sys.platform == "linux":
        set_parent_death_signal(signal.SIGKILL)


def _scratch_folder(job: ChildJob) -> None:
    os.chdir(job.policy.scratch_dir)


def _own(name: str, why: str, apply: Callable[[ChildJob], None]) -> Step[ChildJob]:
    """A step of the child's own, before its layers: in every candidate, at both levels."""
    return Step(name, When.PER_CANDIDATE, why, apply, process_level=True)


BEFORE_LAYERS: tuple[Step[ChildJob], ...] = (
    _own("signals", "the zygote's handlers, wake-up descriptor and blocked signals are not the "
         "candidate's: back to Python's defaults first", _undo_zygote_signals),
    _own("session", "its own session and process group: a kill of the group reaches everything "
         "the candidate starts", _own_session),
    _own("descriptors", "stdin from /dev/null, 1 and 2 to the capture pipes, the result pipe on "
         "its number, every other inherited descriptor closed (the zygote's control pipe above all)",
         _redirect_descriptors),
    _own("parent-death signal", "if the zygote dies, so does the child (inside a PID namespace "
         "the kernel does it)", _parent_death_signal),
    _own("scratch folder", "the working directory; the environment layer needs its path",
         _scratch_folder),
)

_EVERY = frozenset(When)
_AHEAD = frozenset({When.PER_CANDIDATE})  # a tree forked before its request (a standby, a spare)
_WITH_REQUEST = frozenset({When.WITH_REQUEST})


def _apply_layers(job: ChildJob, reports: list[LayerReport] | None = None, when: frozenset[When] = _EVERY
                  ) -> tuple[list[LayerReport], str | None]:
    """Apply the layers the zygote hands us (those of ``when``), in order; a required one that
    fails stops the candidate, others degrade."""
    if reports is None:
        reports = list(job.preset_reports)
        for preset in reports:  # namespaces, entered by the zygote and the candidate's init
            if preset["name"] in job.required and not preset.get("active"):
                return reports, f"required layer {preset['name']} is not active: {preset.get('error', '')}"
    for layer in job.layers:  # the active ones, in child/steps.py's order
        if layer.WHEN not in when:
            continue
        try:
            reports.append(layer.apply(job.policy))
        except LayerSetupError as exc:
            reports.append({"name": layer.NAME, "active": False, "error": exc.message})
            if layer.NAME in job.required:
                return reports, f"required layer {layer.NAME} could not be applied: {exc.message}"
        except Exception as exc:  # a layer bug must not run user code unprotected silently
            reports.append({"name": layer.NAME, "active": False, "error": repr(exc)})
            if layer.NAME in job.required:
                return reports, f"required layer {layer.NAME} failed: {exc!r}"
    return reports, None


def _stand_by(job: ChildJob) -> tuple[ChildJob, list[LayerReport], str | None]:
    """A standby's steps 5-6: the steps of ``When.PER_CANDIDATE`` now (none required yet: a layer
    that fails degrades, as in a cold candidate that did not require it), then wait for the
    request; its ``When.WITH_REQUEST`` steps and its ``require`` apply once it is here, exactly as
    in a cold candidate."""
    reports, _ = _apply_layers(dataclasses.replace(job, required=frozenset()), when=_AHEAD)
    _prepare_heap()
    request = _read_request()
    if request is None:
        os._exit(0)  # never handed a request: the zygote is shutting down or discards us
    os.close(GO_FD)
    limits = request["limits"]
    handed = dataclasses.replace(job, role=Role.RUN, request=request,
                                 policy=dataclasses.replace(job.policy, limits=limits),
                                 required=frozenset(request.get("require") or []))
    set_process_name(CANDIDATE_NAME)
    presets = {layer["name"] for layer in job.preset_reports}
    failure = next((f"required layer {r['name']} "
                    f"{'is not active' if r['name'] in presets else 'could not be applied'}: "
                    f"{r.get('error', '')}"
                    for r in reports if r["name"] in handed.required and not r.get("active")), None)
    if failure:
        return handed, reports, failure
    reports, failure = _apply_layers(handed, reports, when=_WITH_REQUEST)
    order = [layer["name"] for layer in job.preset_reports] + [layer.NAME for layer in job.layers]
    reports.sort(key=lambda layer: order.index(layer["name"]))  # as a cold candidate reports them
    return handed, reports, failure


def _read_request() -> RunRequest | None:
    """The standby's one request frame from GO_FD (the zygote wrote it in one piece); None on EOF
    or anything that is not a frame the zygote writes (only the zygote holds the write end)."""
    data = bytearray()
    while True:
        chunk = os.read(GO_FD, STANDBY_REQUEST_MAX_BYTES)
        if not chunk:
            break
        data += chunk
        if len(data) >= 4 and len(data) >= 4 + frame_length(bytes(data[:4])):
            break
    if len(data) < 4 or len(data) != 4 + frame_length(bytes(data[:4])):
        return None
    try:
        return CANDIDATE_REQUEST.decode(bytes(data[4:]))
    except ProtocolError:
        return None


def _keep_freed_memory() -> None:
    """Per process, not in the zygote: the zygote's own heap stays trimmed after a large report."""
    if sys.platform == "linux":
        keep_freed_memory(_TRIM_THRESHOLD, _MMAP_THRESHOLD)


def _prepare_heap() -> None:
    """Fault in a heap block and free it: kept (``_keep_freed_memory``), it serves the check's
    allocations without new page faults (bench/faults.py: verify_model's CPU halved)."""
    if sys.platform == "linux":
        prefault_heap(_PREPARED_HEAP)


def become_child(job: ChildJob) -> NoReturn:
    """Turn this fresh fork into a sandboxed candidate (or verifier), run it, report, exit."""
    try:
        for step in BEFORE_LAYERS:
            step.apply(job)
        _keep_freed_memory()
        if job.role is Role.STANDBY:
            job, reports, failure = _stand_by(job)  # blocked until handed a request
        else:  # a spare verifier's request, and so its limits, come after its setup frame
            reports, failure = _apply_layers(job, when=_AHEAD if job.role is Role.SPARE else _EVERY)
        if job.supervisor_fd is not None:  # its listener handed over (seccomp) or never: ours goes
            os.close(SUPERVISOR_FD)
        _write_frame({"type": "setup", "layers": reports, "error": failure})
        if failure or job.role is Role.PROBE:  # a probe only proves the layers apply
            os._exit(0)
    except BaseException:
        os._exit(BOOTSTRAP_FAILED_EXIT)
    # ------------------------------------------------------------------ user code runs below here
    os._exit(_run_job(job))


def _serve_checks(job: ChildJob) -> int:
    """A verifier, forked before any model existed, confirms one run's answers in turn: the
    zygote writes each request into our scratch folder and then says "go" on GO_FD, one at a time
    (zygote/verifiers.py); EOF: no request will come.  Its first request's limits apply the
    recipe's steps of ``When.WITH_REQUEST`` (they can only be lowered from here); each check then
    gets its own CPU budget and a fresh z3 context (service.py): what one candidate's
    answer left in this process is never what the next is checked in."""
    _prepare_heap()
    from . import service  # imported by the zygote already: a dictionary lookup

    service.rehearse()
    served = 0
    go = os.read(GO_FD, 1)
    while go == SPARE_GO:
        with open(SPARE_REQUEST_FILE, "rb") as handle:
            request = SPARE_REQUEST.decode(handle.read())
        limits = request["limits"]
        if not served:
            ceiling = dataclasses.replace(limits, cpu_s=service.SERVICE_CPU_CEILING_S)
            handed = dataclasses.replace(job, policy=dataclasses.replace(job.policy, limits=ceiling))
            for applied in _apply_layers(handed, [], when=_WITH_REQUEST)[0]:  # never without them
                if not applied.get("active"):
                    raise LayerSetupError(applied["name"], applied.get("error", ""))
        service.serve_one(request, float(limits.cpu_s), _write_frame)
        served += 1
        if select.select([GO_FD], [], [], 0)[0]:
            # EOF (the zygote closed the pipe with the run's last answer: it waits for our exit)
            # or the next request, already there
            go = os.read(GO_FD, 1)
            if go == SPARE_GO:
                service.refresh()
        else:
            service.refresh()  # the next check's fresh z3 state, made while nothing waits for it
            go = os.read(GO_FD, 1)
    return 0


def _run_job(job: ChildJob) -> int:
    if job.role in (Role.VERIFY, Role.SPARE):
        return _serve_checks(job)
    from . import harness

    request = job.request
    assert request is not None  # a candidate runs once handed its request (_stand_by)
    report = harness.run_candidate(
        request["script"],
        language=request["language"],
        timeout_s=float(request["limits"].timeout_s),
        random_seed=request["random_seed"],
        cores=bool(request["cores"]),
        model_count=int(request.get("models") or 1),
        plain=bool(request.get("plain")),
        send=_write_frame,  # each check, as it happens
    )
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    report["type"] = "result"
    stack.quiet()
    try:
        _write_frame(report)
    except Exception:
        return BOOTSTRAP_FAILED_EXIT
    return 0
