"""Process roles, kill reasons and isolation levels: one enum each, shared by the zygote, the
child side and the host.

All are ``StrEnum``s (written out on Python 3.10) whose values are the strings the wire, the saved
run documents and the labextension already use: a member compares equal to its value and
serialises as it.
"""

from __future__ import annotations

import enum
import sys

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # Python 3.10 (requires-python): the same behaviour, written out

    class StrEnum(str, enum.Enum):
        """A member is its value: it compares, formats and serialises as that string."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return str(self.value).__format__(spec)


class Level(StrEnum):
    """An isolation level: each member is its wire and JSON string ("kernel", "process")."""

    KERNEL = "kernel"  # namespaces, the filesystem view, capabilities, Landlock, seccomp, rlimits
    PROCESS = "process"  # the environment and rlimits only (no namespaces, no kernel layers)


class Role(StrEnum):
    """What a process of the sandbox is for."""

    ZYGOTE = "zygote"  # the serving zygote (and its thin outer parent)
    FORK_SERVER = "fork server"  # forks every tree, holds no request (zygote/forker.py)
    NEXT_FORK_SERVER = "next fork server"  # the fork server's fork, idle until it takes over
    RUN = "run"  # a candidate's tree: its init and the child that runs user code
    STANDBY = "standby"  # a candidate's tree forked before its request (zygote/standby.py)
    VERIFY = "verify"  # a verification of a candidate's model
    SPARE = "spare"  # a verifier forked before its model (zygote/verifiers.py)
    PROBE = "probe"  # the start-up probe: applies every layer, runs nothing

    @property
    def ahead(self) -> bool:
        """Forked before its request: it waits for it on its go pipe."""
        return self in (Role.STANDBY, Role.SPARE)

    @property
    def process_name(self) -> str:
        """Its name in ``ps`` and /proc/PID/comm (15 bytes at most)."""
        return PROCESS_NAMES[self]

    @property
    def noun(self) -> str:
        """What a run's notes call it: "the verifier process was killed by SIGKILL ..."."""
        return ROLE_NOUNS[self]


PROCESS_NAMES = {
    Role.ZYGOTE: "z3sandbox-zyg",
    Role.FORK_SERVER: "z3sandbox-fork",
    Role.NEXT_FORK_SERVER: "z3sandbox-fnext",
    Role.RUN: "z3sandbox-init",  # a candidate, from a cold fork or a standby
    Role.STANDBY: "z3sandbox-stby",  # a standby's init and child until handed a request
    Role.VERIFY: "z3sandbox-init",
    Role.SPARE: "z3sandbox-spare",
    Role.PROBE: "z3sandbox-init",
}


ROLE_NOUNS = {
    Role.ZYGOTE: "zygote",
    Role.FORK_SERVER: "fork server",
    Role.NEXT_FORK_SERVER: "next fork server",
    Role.RUN: "candidate's init",
    Role.STANDBY: "standby candidate",
    Role.VERIFY: "verifier",
    Role.SPARE: "spare verifier",
    Role.PROBE: "start-up probe",
}


class Kill(StrEnum):
    """Why a candidate was killed, as its result's ``kill`` says.  The zygote's own decisions
    come first; the others are read from what the operating system observed (zygote/classify.py)."""

    WALL = "wall"
    OUTPUT = "output"
    REPORT = "report"
    RACE = "race"
    CANCEL = "cancel"
    INTERRUPT = "interrupt"
    DIED = "died"
    SOLVER = "solver"
    CPU = "cpu"
    MEMORY = "memory"
    FILE_SIZE = "file_size"
    SECCOMP = "seccomp"
    DISK = "disk"

    @property
    def description(self) -> str:
        """What ended the candidate, as the docs and the renderers say it."""
        return KILL_DESCRIPTIONS[self]

    def __repr__(self) -> str:
        return repr(self.value)  # a result's kill shows as the string it always was: 'wall'

    @classmethod
    def read(cls, value: object) -> Kill | None:
        """A kill reason as the wire and saved documents write it; one this version does not
        know (a document from a later version) is read as none rather than failing the load."""
        try:
            return None if value is None else cls(value)
        except ValueError:
            return None


# In the order the docs list them: the limits first, then the protocol and the host.
KILL_DESCRIPTIONS: dict[Kill, str] = {
    Kill.SOLVER: "the solver's own timeout (--timeout) stopped a check()",
    Kill.WALL: "the wall-clock limit (--wall): the sandbox killed it at the deadline",
    Kill.CPU: "the CPU-time limit (--cpu): SIGXCPU, on which the script writes its stack and the "
              "sandbox kills it (SIGKILL at the hard limit, a second later, if it does not)",
    Kill.MEMORY: "the address-space limit (--memory) made an allocation fail",
    Kill.OUTPUT: "stdout and stderr passed their hard cap (--output-max)",
    Kill.FILE_SIZE: "a file passed the file-size limit (--file-size): SIGXFSZ",
    Kill.DISK: "scratch was full (--disk, its files and folders): a write failed with ENOSPC",
    Kill.SECCOMP: "killed by seccomp (SIGSYS): a system call of another ABI (a refused call of its "
                  "own ABI fails with EPERM instead, and the verdict is blocked with no kill)",
    Kill.REPORT: "its report broke the protocol (too big, malformed): the sandbox stopped reading",
    Kill.RACE: "another candidate was decisive first (--race)",
    Kill.CANCEL: "Sandbox.cancel(), Sandbox.close() or the end of the run",
    Kill.INTERRUPT: "Jupyter's Interrupt (or Ctrl-C)",
    Kill.DIED: "a process of the sandbox died under it (the zygote, its fork server, the candidate's "
               "init): shown as internal_error; the reason and the run's notes say which",
}

# The zygote kills a candidate for these; the rest are the operating system's.
ZYGOTE_KILLS = frozenset({Kill.WALL, Kill.OUTPUT, Kill.REPORT, Kill.RACE, Kill.CANCEL, Kill.INTERRUPT,
                          Kill.DIED})
# Kills that end a candidate without a verdict of its own (cancelled).
STOPS = frozenset({Kill.RACE, Kill.CANCEL, Kill.INTERRUPT})
