"""Resource limits: the engine's own hard limits, applied in every candidate at every isolation level.

The kernel enforces them; the zygote reads what happened from the exit status and rusage.
"""

from __future__ import annotations

import math
import resource
import signal

from ...protocol import LayerReport
from . import LayerSetupError, Policy, When, report

NAME = "rlimits"
WHEN = When.WITH_REQUEST
PROCESS_LEVEL = True
WHY = ("the request's limits: they can only be lowered once set, so a standby or a spare applies "
       "them when its request comes; before seccomp, which refuses prlimit on others")
MB = 1 << 20


def limits_table(policy: Policy) -> list[tuple[str, int, int]]:
    """(name, soft, hard) per limit; a table, so adding a limit is one line."""
    limits = policy.limits
    address_space_base = policy.address_space_base
    cpu = max(1, math.ceil(limits.cpu_s))
    memory = int(limits.memory_mb) * MB
    table = [
        # SIGXCPU at the soft limit, SIGKILL one second later (for scripts that ignore SIGXCPU).
        ("RLIMIT_CPU", cpu, cpu + 1),
        # Relative to the zygote's own size: the candidate inherits z3 and Python already mapped.
        ("RLIMIT_AS", address_space_base + memory, address_space_base + memory),
        ("RLIMIT_NOFILE", int(limits.files), int(limits.files)),
        ("RLIMIT_FSIZE", int(limits.file_size_mb) * MB, int(limits.file_size_mb) * MB),
        ("RLIMIT_CORE", 0, 0),
        # No solver needs these; each would let a candidate take something from the machine that
        # the other limits do not count: real-time or raised CPU priority, locked memory, POSIX
        # message queues (seccomp refuses mq_open too; this holds where seccomp is missing).
        ("RLIMIT_RTPRIO", 0, 0),
        ("RLIMIT_NICE", 0, 0),
        ("RLIMIT_MEMLOCK", 0, 0),
        ("RLIMIT_MSGQUEUE", 0, 0),
        # Queued signals and POSIX timers draw on one budget per uid (about 96,000 here): without
        # a cap one candidate takes it all, and siblings or the user's own programs get EAGAIN.
        ("RLIMIT_SIGPENDING", 256, 256),
    ]
    if policy.nproc_effective:
        table.append(("RLIMIT_NPROC", int(limits.threads), int(limits.threads)))
    return table


def probe() -> LayerReport:
    return report(NAME, True, "cpu, address space, open files, file size, core dumps, priority, "
                  "locked memory")


def prepare(read_only_paths: tuple[str, ...] = ()) -> LayerReport:
    return probe()  # nothing to compute ahead: the limits come with the request


def apply(policy: Policy) -> LayerReport:
    applied = []
    for name, soft, hard in limits_table(policy):
        which = getattr(resource, name, None)
        if which is None:  # e.g. RLIMIT_AS on some BSDs
            continue
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError) as exc:
            raise LayerSetupError(NAME, f"setrlimit({name}, {soft}) failed: {exc}") from None
        applied.append(name[len("RLIMIT_"):].lower())
    # Python ignores SIGXFSZ, which turns the file-size limit into an EFBIG the script may swallow;
    # the default action makes the kill visible to the zygote.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    note = policy.nproc_note
    return report(NAME, True, ", ".join(applied) + (f"; {note}" if note else ""))
