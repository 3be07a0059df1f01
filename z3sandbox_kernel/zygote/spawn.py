"""Forking one sandboxed process tree from the zygote.

With a PID namespace per candidate (kernel isolation), the tree is::

    zygote ──fork──> init (PID 1 of a new PID namespace; runs no user code)
                       └──fork──> child (PID 2: bootstrap, layers, user code)

User code is never PID 1: PID 1 ignores signals it has no handler for (SIGXCPU among them) and must
reap orphans. ``init`` walks the recipe's init steps (recipe.py: the candidate's filesystem view,
its uid, its own user namespace), reaps everything, reports the child's wait status and rusage on a
pipe when the child ends, kills whatever is left in the namespace, and exits. To stop a candidate
the zygote sends init ``KILL_REQUEST`` (init kills the child and reports as usual, so a killed
candidate's CPU and memory are its own) and SIGKILLs init after a short grace whatever it did;
killing ``init`` tears the whole namespace down. Without PID namespaces the zygote forks the child
directly, kills its process group at the end and, as a subreaper, kills the orphans it inherits.
"""

from __future__ import annotations

import dataclasses
import os
import resource
import signal
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..child.bootstrap import ChildJob, become_child
from ..child.layers import report
from ..contracts.oscalls import set_parent_death_signal, set_process_name
from ..protocol import (
    BOOTSTRAP_FAILED_EXIT,
    INIT_STATUS,
    KILL_REQUEST,
    REFUSALS_NOT_SUPERVISED,
    STACK_REQUEST,
    STANDBY_TAKEN,
)
from ..protocol.roles import Role
from . import scratch
from .namespaces import fork_in_new_pid_namespace
from .recipe import set_up_init
from .supervisor import Supervisor

# The processes' names (roles.py), as the tests and bench/kill.py look for them.
ZYGOTE_NAME = Role.ZYGOTE.process_name
SPARE_NAME = Role.SPARE.process_name  # an idle verifier forked ahead (verifiers.py), visible as such
STANDBY_NAME = Role.STANDBY.process_name  # a standby candidate's init and child until handed a request
CANDIDATE_NAME = Role.RUN.process_name

# Builds the ChildJob once its pipe ends exist:
# (stdout_w, stderr_w, result_w, go_r or None, in_pid_namespace).
ChildJobFactory = Callable[[int, int, int, "int | None", bool], ChildJob]


@dataclass
class Spawned:
    pid: int  # the process the zygote waits for: init, or the child itself
    stdout_fd: int
    stderr_fd: int
    result_fd: int
    status_fd: int | None  # init's report of the child's wait status (PID-namespace mode only)
    go_fd: int | None = None  # the write end of the child's go pipe, when asked for


def _go_pipe(ends: list[int]) -> tuple[int, int]:
    """(read end, write end): ours is the write end, non-blocking, so that a hand-off that does
    not fit is refused at once instead of stalling the loop (standby.py)."""
    read_end, write_end = os.pipe()
    ends += [read_end, write_end]
    os.set_blocking(write_end, False)
    return read_end, write_end


def _pipe(ends: list[int]) -> tuple[int, int]:
    """A pipe whose first end (ours) is non-blocking; both ends are listed in ``ends``."""
    read_end, write_end = os.pipe()
    ends += [read_end, write_end]
    os.set_blocking(read_end, False)
    return read_end, write_end


def spawn(job_factory: ChildJobFactory, pid_ns_fd: int | None, ahead: Role | None = None,
          forget: Callable[[], None] = lambda: None, name: str = ZYGOTE_NAME) -> Spawned:
    """Fork the tree for one job; returns the read ends, non-blocking, owned by the caller.
    ``ahead``: the role of a process forked before its request (a spare, a standby, or a run
    handed its request right after); it gets a go pipe (its write end non-blocking) and carries
    the role's process name from its first instant (a name is inherited at fork);
    ``name`` is the forking process's own, taken back after the fork.  ``forget`` runs first in
    the child: it drops the forking process's state."""
    ends: list[int] = []
    try:
        out_r, out_w = _pipe(ends)
        err_r, err_w = _pipe(ends)
        res_r, res_w = _pipe(ends)
        status_r, status_w = _pipe(ends) if pid_ns_fd is not None else (None, None)
        go_r, go_w = _go_pipe(ends) if ahead is not None else (None, None)
        job = job_factory(out_w, err_w, res_w, go_r, pid_ns_fd is not None)
        if ahead is not None:
            set_process_name(ahead.process_name)
        zygote = os.getpid()  # the forking process: the fork server, or the zygote
        pid = fork_in_new_pid_namespace(pid_ns_fd) if pid_ns_fd is not None else os.fork()
    except BaseException:  # no fork (no memory, no process slot): no descriptor left behind
        for fd in ends:
            os.close(fd)
        if ahead is not None:
            set_process_name(name)
        raise
    if ahead is not None and pid != 0:
        set_process_name(name)
    if pid == 0:  # never return into the zygote's code from here
        try:
            if status_w is None:  # no init to take us down: die with the zygote from the start,
                set_parent_death_signal(signal.SIGKILL)  # even if stopped before bootstrap (a
                if os.getppid() != zygote:  # wedged zygote is SIGKILLed with its tree stopped)
                    os._exit(BOOTSTRAP_FAILED_EXIT)
            forget()
            if status_w is not None:
                _run_init(job, status_w)
            become_child(job)
        except BaseException:  # an init that fails says why on the zygote's stderr
            traceback.print_exc()
        finally:
            os._exit(BOOTSTRAP_FAILED_EXIT)
    for child_end in (out_w, err_w, res_w, status_w, go_r):
        if child_end is not None:
            os.close(child_end)
    return Spawned(pid, out_r, err_r, res_r, status_r, go_w)


def _run_init(job: ChildJob, status_w: int) -> None:
    """PID 1 of the candidate's namespace: set up its view, fork the child, reap all, report the
    child's wait status and its own rusage (not ours: a killed candidate's real CPU and memory).

    Its steps and their order are the recipe's (recipe.py, ``Where.INIT``).
    """
    child_box = _init_signals(job, status_w)
    for step, failure in set_up_init(job.policy):  # the init's steps of the recipe
        # reported (the layers show inactive with the reason); fails the candidate only if it
        # required one of them (bootstrap)
        job.preset_reports = [report(r["name"], False, error=failure.message) if r["name"] in step.reports
                              else r for r in job.preset_reports]
    supervisor = Supervisor.start() if any(layer.NAME == "seccomp" for layer in job.layers) else None
    if supervisor is not None:  # the filter's refusals come to us (supervisor.py)
        job.policy = dataclasses.replace(job.policy, supervised=True)
        job.supervisor_fd = supervisor.theirs.fileno()
    child = os.fork()
    if child == 0:
        signal.signal(KILL_REQUEST, signal.SIG_DFL)
        signal.signal(STACK_REQUEST, signal.SIG_IGN)
        os.close(status_w)
        if supervisor is not None:
            supervisor.in_child()
        become_child(job)
    child_box.append(child)
    # init holds no pipe but its status pipe: EOF on the others means the child tree closed them.
    for fd in (job.stdout_fd, job.stderr_fd, job.result_fd, job.go_fd):
        if fd is not None:
            os.close(fd)
    ended = _reap(child, supervisor)
    measured = scratch.usage(job.policy.scratch_dir) if job.policy.ipc_uts else (-1, -1, -1)
    refusals = (supervisor.refused, supervisor.first) if supervisor else (REFUSALS_NOT_SUPERVISED, -1)
    os.write(status_w, INIT_STATUS.pack(*ended, *measured, *refusals))
    os._exit(0)


def _init_signals(job: ChildJob, status_w: int) -> list[int]:
    """The init's signals, descriptors and name; its handlers pass the zygote's requests on to the
    child, whose pid goes into the list returned once it is forked."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _close_all_but({2, status_w, job.stdout_fd, job.stderr_fd, job.result_fd, job.go_fd})
    if job.role is Role.STANDBY:  # named as one until the zygote hands its child a request
        signal.signal(STANDBY_TAKEN, lambda *_: set_process_name(CANDIDATE_NAME))
    else:
        set_process_name(CANDIDATE_NAME)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {STANDBY_TAKEN})  # blocked in the zygote: delivered now
    set_parent_death_signal(signal.SIGKILL)
    child_box: list[int] = []

    def kill_request(*_: object) -> None:  # the zygote's (wall, cancel, output): report as usual
        for pid in child_box:
            _kill_quietly(pid)

    def stack_request(*_: object) -> None:  # the zygote's warning before a kill: the child's to answer
        for pid in child_box:
            try:
                os.kill(pid, STACK_REQUEST)
            except ProcessLookupError:
                pass

    signal.signal(KILL_REQUEST, kill_request)
    signal.signal(STACK_REQUEST, stack_request)
    return child_box


def _reap(child: int, supervisor: Supervisor | None) -> tuple[int, float, float, int]:
    """Wait for the child (its wait status, user and system CPU, peak RSS), then kill and reap
    everything else in the namespace: nothing writes to scratch any more."""
    ended = None
    # Supervised, no orphans need reaping meanwhile: the filter refuses new processes.
    waited = supervisor.wait(child) if supervisor is not None else None
    if waited is not None:
        ended = (waited[0], waited[1].ru_utime, waited[1].ru_stime, waited[1].ru_maxrss)
    while ended is None:
        pid, wait_status, rusage = os.wait4(-1, 0)
        if pid == child:
            ended = (wait_status, rusage.ru_utime, rusage.ru_stime, rusage.ru_maxrss)
    _kill_quietly(-1)
    try:
        while True:
            os.waitpid(-1, 0)
    except ChildProcessError:
        pass
    return ended


def _close_all_but(keep: set[int | None]) -> None:
    """init keeps what it hands the child, its status pipe and stderr: not the host's control
    pipes, nor any other tree's pipe ends, which a candidate that reached its init's descriptors
    could use (a go pipe's write end would hand the next standby a request of its choosing)."""
    low = 0
    for fd in sorted(fd for fd in keep if fd is not None):
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def _kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def decode_status(data: bytes) -> tuple[int, float, float, int, int, int, int, int, int] | None:
    """(wait status, user CPU s, system CPU s, peak RSS in KB, largest scratch file, free scratch
    bytes, free scratch inodes; -1 when not measured; calls seccomp refused, the first one's
    number) of the candidate, from its init."""
    if len(data) < INIT_STATUS.size:
        return None
    status, utime, stime, maxrss, largest, free, inodes, refused, first = INIT_STATUS.unpack(
        data[: INIT_STATUS.size])
    return (int(status), float(utime), float(stime), int(maxrss), int(largest), int(free), int(inodes),
            int(refused), int(first))


def kill_group(pid: int) -> None:
    """SIGKILL ``pid``'s process group, and ``pid`` itself (it may have left its group)."""
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def reap_ready(wake_r: int) -> Iterator[tuple[int, int, resource.struct_rusage]]:
    """Empty the signal wake-up pipe, then (pid, wait status, rusage) of every child that ended."""
    try:
        while os.read(wake_r, 4096):
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
        yield pid, status, rusage
