"""The evil table: for every script in ``scripts/``, the outcome it must get, per isolation level and,
where the kernel makes them differ, per user (root / a normal user).

Keys of ``Case.expect``: ``"kernel"``, ``"process"``, optionally refined as ``"kernel:root"``,
``"kernel:user"``, ``"process:root"``, ``"process:user"``.  A level that is missing means "not run at
that level" (the attack would really happen there -- e.g. kill(-1) at process level kills the test
run -- and ``isolation="process"`` does not claim to stop it; see SECURITY.md).

Where user and root differ, and why (the kernel, not the sandbox, makes the difference):

* /etc/shadow (13): mode 0640 root:shadow.  At the kernel level it is not in the candidate's view
  at all (and Landlock refuses it where there is no view).  At the process level a normal user is
  refused by the file mode; root owns the file and reads it.
* threads (10, 61): RLIMIT_NPROC never applies to kernel uid 0 (``INIT_USER``); at the kernel level
  root's candidates run as a dedicated unprivileged uid, so the threads limit binds them too.
* At process level root reads what root can read: shadow, any /proc/<pid>/mem of the same user.

``Expect.hole``: a known hole of the sandbox (reported to the lead); the test is then a strict
xfail, so it fails the moment the hole is closed and the marker must go.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from z3sandbox_kernel import Limits

from .world import SCRIPTS

# Small limits keep the suite fast; every evil script is judged against these.
# The solver timeout is well below the CPU limit: CPU time counts from the fork, the solver's
# timeout from check(), so equal values race (and the CPU limit wins).
LIMITS = Limits(timeout_s=1.0, wall_s=8.0, cpu_s=2.0, memory_mb=256, output_kb=64, files=64,
                file_size_mb=16, threads=64)


@dataclass(frozen=True)
class Expect:
    verdicts: tuple[str, ...]
    reason: tuple[str, ...] = ()  # each must appear in ``reason`` (case-insensitive)
    kill: tuple[str | None, ...] | None = None  # None: not checked
    escapes: bool = False  # the attack is NOT stopped at this level (documented weaker guarantee)
    needs: tuple[str, ...] = ()  # kernel layers this outcome relies on (missing: see conftest)
    hole: str | None = None  # a known hole: strict xfail with this reason


@dataclass(frozen=True)
class Case:
    script: str  # file name in scripts/
    expect: dict[str, Expect]
    limits: Limits = LIMITS
    sibling_hold_s: float = 1.0  # how long the well-behaved sibling candidate stays alive
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return SCRIPTS / self.script

    @property
    def name(self) -> str:
        return self.script[:-3]

    def for_(self, level: str, user: str) -> Expect | None:
        return self.expect.get(f"{level}:{user}", self.expect.get(level))


# ------------------------------------------------------------------------------------ shorthands

OK_ANYWHERE = ("kernel", "process")


def same(expect: Expect, levels: tuple[str, ...] = OK_ANYWHERE) -> dict[str, Expect]:
    return {level: expect for level in levels}


def seccomp() -> Expect:
    """Refused by the filter, and the refusal counted by the candidate's init: only that is
    ``blocked`` (an exception alone never is)."""
    return Expect(("blocked",), ("Operation not permitted", "seccomp refused"), (None,), needs=("seccomp",))


def landlock() -> Expect:
    """Refused by Landlock or the read-only view: the sandbox observes no such refusal, so it is
    the script's exception (EACCES or EROFS), a runtime_error."""
    return Expect(("runtime_error",), (), (None,), needs=("landlock",))


def hidden() -> Expect:
    """Not in the candidate's filesystem view (runtime_error, "No such file"), or refused by
    Landlock where there is no view (blocked)."""
    return Expect(("blocked", "runtime_error"), (), (None,), needs=("landlock",))


def audit(event: str) -> Expect:
    """Refused in the candidate by the audit hook: its PermissionError names the event, the
    script's exception (runtime_error); nothing outside the candidate observed it."""
    return Expect(("runtime_error",), ("blocked by the sandbox: " + event,), (None,))


def escapes(*verdicts: str) -> Expect:
    return Expect(verdicts or ("no_check",), escapes=True)


CPU = Expect(("cpu_limit",), ("CPU-time limit",), ("cpu",))
# A script expected to end at the CPU limit gets a wall limit it cannot reach first on a loaded
# machine (the CPU limit is time on a core, however long the wait for one).
CPU_BOUND = LIMITS.replace(wall_s=240.0)
MEMORY = Expect(("memory_limit",), ("memory",), ("memory",))

CASES: list[Case] = [
    Case("01_infinite_loop.py", same(CPU), limits=CPU_BOUND),
    Case("02_sigxcpu_ignored.py", same(Expect(("cpu_limit",), ("CPU-time limit", "SIGKILL"), ("cpu",))),
         limits=CPU_BOUND),
    Case("03_z3_no_timeout.py", same(Expect(("timeout",), ("solver timeout",), ("solver",)))),
    Case("04_z3_raw_check.py", same(Expect(("cpu_limit", "timeout"), (), ("cpu", "wall")))),
    # 8 GiB refused whole by RLIMIT_AS leaves no trace the sandbox can read (rusage saw 30 MB), so
    # it is not believed a memory limit: the candidate could raise MemoryError itself (123).
    Case("05_bytearray_8g.py", same(Expect(("runtime_error",), ("larger than what was left",), (None,)))),
    Case("06_growing_lists.py", same(MEMORY)),
    Case("07_z3_native_oom.py", same(MEMORY), limits=LIMITS.replace(wall_s=30.0, cpu_s=10.0)),  # memory first
    # Kernel level: the audit hook lets fork reach seccomp, whose refusal the init counts.
    Case("08_fork_bomb.py", {"kernel": Expect(("blocked",), ("seccomp refused", "clone"), (None,),
                                              needs=("seccomp",)),
                             "process": audit("os.fork")}),
    Case("09_fork_bomb_ctypes.py", {"kernel": seccomp()}),
    # 3000 threads with room for them in memory: only the threads limit can stop the flood.
    Case("10_threads_3000.py", {
        "kernel:user": Expect(("blocked", "runtime_error"), ("thread",), (None,)),
        "kernel:root": Expect(("blocked", "runtime_error", "memory_limit"), ("thread",)),
        "process": Expect(("blocked", "runtime_error", "memory_limit"), ("thread",)),
    }, limits=LIMITS.replace(memory_mb=2048), extra={"max_threads": LIMITS.threads}),
    Case("11_os_system.py", same(audit("os.system"))),
    Case("12_ctypes_system.py", {"kernel": seccomp()}),
    Case("13_read_shadow.py", {
        "kernel": hidden(),
        "process:root": escapes(),
        "process:user": Expect(("runtime_error",), ("Permission denied",), (None,)),
    }),
    Case("14_read_home_canary.py", {"kernel": hidden(), "process": escapes()}),
    # /proc/<host pid>: not in the candidate's fresh /proc (its own PID namespace's); where there
    # is none the user namespace refuses (no CAP_SYS_PTRACE over the host's namespace), and
    # Landlock grants no /proc at all.
    Case("15_proc_environ.py", {
        "kernel": Expect(("blocked", "runtime_error"), (), (None,), needs=("userns",)),
        "process": escapes()}),
    Case("16_proc_mem.py", {
        "kernel": Expect(("blocked", "runtime_error"), (), (None,), needs=("userns",)),
        "process": escapes("no_check", "runtime_error")}),
    Case("17_env_canary.py", same(Expect(("no_check",), needs=("environment",)))),
    Case("18_append_bashrc.py", {"kernel": hidden()}),
    Case("19_write_tmp.py", {"kernel": landlock()}),
    Case("20_z3_open_log.py", {"kernel": Expect(("sat", "blocked", "runtime_error"),
                                                needs=("landlock",))}),
    Case("21_z3_smtlib2_log.py", {"kernel": Expect(("sat", "blocked", "runtime_error"),
                                                   needs=("landlock",))}),
    Case("22_z3_from_file_passwd.py", {
        "kernel": Expect(("runtime_error", "blocked"), needs=("landlock",)),
        "process": Expect(("runtime_error", "blocked"))}),
    Case("23_tcp_connect.py", same(audit("socket"))),
    Case("24_tcp_connect_nohook.py", {"kernel": seccomp(), "process": escapes()}),
    Case("25_udp_sendto.py", {"kernel": seccomp(), "process": escapes()}),
    Case("26_unix_named.py", {"kernel": seccomp(), "process": escapes()}),
    Case("27_unix_abstract.py", {"kernel": seccomp(), "process": escapes()}),
    Case("28_kill_kernel.py", {"kernel": seccomp()}),
    Case("29_kill_zygote.py", {"kernel": seccomp()}),
    # 50,000 refusals, each a round trip through the init's supervisor: 2.5 s wall quiet, more under load.
    Case("30_kill_sibling.py", {"kernel": seccomp()}, sibling_hold_s=3.0,
         limits=LIMITS.replace(wall_s=60.0, cpu_s=10.0)),
    Case("31_prlimit_parent.py", {"kernel": seccomp()}),
    # At process level the daemon is really forked: the zygote (a subreaper) must still kill it.
    Case("32_setsid_double_fork.py", {"kernel": seccomp(), "process": escapes()}),
    Case("33_open_files.py", same(Expect(("runtime_error",), ("Too many open files",), (None,)))),
    Case("34_file_4g_in_scratch.py",
         same(Expect(("output_limit",), ("file-size limit",), ("file_size",)))),
    Case("35_stdout_10gb.py", same(Expect(("output_limit",), ("stdout",), ("output",)))),
    Case("36_plant_in_scratch.py", same(Expect(("no_check",), needs=("environment",))),
         extra={"follow_up": "planted"}),
    Case("37_plant_in_sys_path.py", {"kernel": landlock()}),
    Case("38_forged_result_stdout.py", same(Expect(("no_check",)))),
    # A frame on fd 3 is the candidate's word about its own outcome (protocol/): it may claim sat
    # for itself, but not change the isolation report, another candidate, or get a verified model.
    Case("39_forged_frame_fd3.py", same(Expect(("sat", "crashed", "internal_error"))),
         extra={"forged": True}),
    Case("40_sys_exit_1.py", same(Expect(("runtime_error",), ("sys.exit(1)",), (None,)))),
    Case("41_os_exit_3.py", same(Expect(("crashed",), ("code 3",), (None,)))),
    Case("42_os_abort.py", same(Expect(("crashed",), ("SIGABRT",), (None,)))),
    Case("43_sigsegv_ctypes.py", same(Expect(("crashed",), ("SIGSEGV",), (None,)))),
    Case("44_deep_recursion.py",
         same(Expect(("crashed", "runtime_error", "memory_limit", "cpu_limit", "timeout")))),
    Case("45_megabyte_exception.py", same(Expect(("runtime_error",), ("ValueError",), (None,))),
         extra={"max_reason": 4000}),
    Case("46_ptrace_parent.py", {"kernel": seccomp()}),
    Case("47_read_sibling_scratch.py", {"kernel": landlock(), "process": escapes()},
         sibling_hold_s=2.0),
    Case("48_mount_unshare.py", {"kernel": seccomp()}),
    Case("49_execve.py", {"kernel": seccomp()}),
    Case("50_z3_threads_still_work.py", same(Expect(("sat",)))),
    Case("51_signal_scope.py", {"kernel": seccomp()}),
]

# Filesystem view, uids, IPC namespace, PIDs, disk (scripts 52-69).
# Kernel level: the candidate's own mount namespace (a read-only view of what Python and z3 need,
# scratch and /dev/shm on a tmpfs of disk_mb), IPC and UTS namespaces, and for root a dedicated
# unprivileged uid.  Not run at the process level where the attack would really change the host
# (a set-uid bit, leftover SysV objects, a 2 GB /tmp, 113,000 folders, 8,300 threads next to the
# test run).
DISK_32 = LIMITS.replace(disk_mb=32)
NOT_THERE = Expect(("runtime_error", "blocked"), needs=("mountns",))
DISK = Expect(("output_limit",), ("disk limit of 32 MB",), ("disk",), needs=("mountns",))
CASES += [
    Case("52_setuid_visible_file.py", {"kernel": Expect(("blocked",), needs=("mountns",))}),
    Case("53_stat_host_paths.py", {"kernel": NOT_THERE,
                                   "process": escapes("runtime_error", "no_check")}),
    Case("54_read_project_root.py", {"kernel": NOT_THERE,
                                     "process": escapes("no_check", "runtime_error")}),
    Case("55_sysv_left_behind.py", {"kernel": Expect(("blocked", "no_check"), needs=("ipcns",))}),
    Case("56_sysv_host_segment.py", {"kernel": Expect(("blocked", "runtime_error"), needs=("ipcns",)),
                                     "process": escapes("no_check", "runtime_error")}),
    Case("57_posix_shm_past_disk.py", {"kernel": DISK}, limits=DISK_32),
    Case("58_fill_scratch_2gb.py", {"kernel": DISK}, limits=DISK_32),
    # Process level: no inode limit, and tens of thousands of folders take minutes to remove on a
    # busy disk (in a helper, off the zygote's loop: 60 shows that with a deep chain instead).
    Case("59_folders_113000.py", {"kernel": DISK}, limits=DISK_32),
    Case("60_folder_chain_1500.py", same(Expect(("no_check",)))),
    Case("61_thread_flood_root.py", {
        "kernel": Expect(("blocked", "runtime_error"), ("thread",), (None,), needs=("userns", "pidns"))},
         limits=LIMITS.replace(memory_mb=4096), extra={"max_threads": LIMITS.threads}),
    Case("62_proc_other_process.py", {"kernel": Expect(("blocked", "runtime_error"), needs=("pidns",)),
                                      "process": escapes("no_check", "runtime_error")}),
    Case("63_sethostname.py", {"kernel": Expect(("blocked",), needs=("utsns",)),
                               "process:root": escapes(),
                               "process:user": Expect(("runtime_error",), ("Operation not permitted",))}),
    Case("64_threadpool_works.py", {"kernel": Expect(("sat",), needs=("mountns",)),
                                    "process": Expect(("sat",))}),
    # EINVAL: uid and gid 0 do not even exist in the candidate's own user namespace
    Case("65_uid_is_not_root.py", {"kernel": Expect(("blocked", "runtime_error"), needs=("userns",)),
                                   "process:root": escapes(),
                                   "process:user": Expect(("runtime_error",))}),
]

# System calls no solver needs: metadata, memfd, SysV IPC, mount queries (scripts 70-79).
# Kernel level: seccomp refuses them with EPERM, with or without the namespaces.  Process level has
# no seccomp (SECURITY.md): the calls go through, except where the kernel itself refuses a normal
# user (a root-owned file's mode or owner, open_by_handle_at without CAP_DAC_READ_SEARCH).
MEMORY_64 = LIMITS.replace(memory_mb=64, files=128)  # room for 57 memfds of 16 MB (file_size_mb)
CASES += [
    Case("70_chmod_outside_scratch.py",
         {"kernel": seccomp(), "process": escapes("no_check", "runtime_error")}),
    Case("71_chown_utime_outside_scratch.py",
         {"kernel": seccomp(), "process": escapes("no_check", "runtime_error")}),
    Case("72_xattr_outside_scratch.py",
         {"kernel": seccomp(), "process": escapes("no_check", "runtime_error")}),
    # Process level: filling and freeing the memory takes 1-3 s of wall time on an idle machine,
    # and copying 900 MB can use up the 2 s of CPU on a loaded one (the kernel's time, counted).
    Case("73_memfd_900mb.py",
         {"kernel": seccomp(), "process": escapes("no_check", "timeout", "cpu_limit")},
         limits=MEMORY_64),
    Case("74_sysv_shm_384mb.py",
         {"kernel": seccomp(), "process": escapes("no_check", "timeout", "cpu_limit")},
         limits=MEMORY_64),
    Case("75_sysv_msgget.py", {"kernel": seccomp(), "process": escapes()}),
    Case("76_sysv_semget.py", {"kernel": seccomp(), "process": escapes()}),
    Case("77_listmount_statmount.py",
         {"kernel": seccomp(), "process": escapes("no_check", "runtime_error")}),
    Case("78_open_by_handle_at.py", {
        "kernel": seccomp(),
        "process:root": escapes(),
        "process:user": Expect(("runtime_error",), ("Operation not permitted",), (None,))}),
    Case("79_normal_script_still_works.py", same(Expect(("sat",)))),
]

# The trust boundary: forged frames, reports, cleanup, the zygote's fairness (scripts 80-99).
# Each forged frame fails its own candidate only: the sibling gets its verdict, the zygote lives.


def forged(*words: str, kill: str | None = None) -> dict[str, Expect]:
    return same(Expect(("internal_error",), ("malformed", *words), (kill,)))


def violation(*words: str) -> dict[str, Expect]:
    return same(Expect(("internal_error",), words, ("report",)))


CASES += [
    Case("80_json_nested_deep.py", forged("nested deeper")),
    Case("81_lone_surrogate.py", forged("lone surrogate")),
    Case("82_byte_constants_wrong_type.py", forged("byte_constants is a str")),
    Case("83_exception_wrong_type.py", forged("exception is a list")),
    Case("84_report_grows_when_reencoded.py",
         same(Expect(("sat", "internal_error"), kill=(None,)))),
    Case("85_fraction_zero_denominator.py", forged("denominator 0")),
    Case("86_core_line_not_numeric.py", forged("unsat_core[0][0] is a str")),
    Case("87_report_62mb.py", violation("over the budget")),
    Case("88_frame_flood.py", violation("protocol violation", "a frame after the result")),
    Case("89_frames_after_result.py", violation("protocol violation")),
    Case("90_length_header_4gb.py", violation("over the budget")),
    Case("91_truncated_frame.py", forged("ends inside a frame")),
    Case("92_report_not_an_object.py", forged("not an object")),
    Case("93_model_value_float.py", forged("not a model value")),
    Case("129_check_then_report_not_an_object.py", forged("not an object")),
]


def check_table() -> None:
    """Every script has exactly one row, and every row a script."""
    listed = {case.script for case in CASES}
    present = {path.name for path in SCRIPTS.glob("[0-9]*_*.py")}
    assert listed == present, (sorted(listed - present), sorted(present - listed))

# Red team (scripts 94-119): classes the hardening of issue 10 missed, found from outside.
# Kernel level as root and as a normal user; the process level keeps its documented weaker
# guarantee (SECURITY.md), so those rows are escapes where the attack goes through.
CASES += [
    Case("94_pipe_buffers_1mb.py", {"kernel": seccomp(), "process": escapes()}),
    # RLIMIT_SIGPENDING is the uid's, not the candidate's: closed by ("RLIMIT_SIGPENDING", 256,
    # 256) in child/layers/rlimits.py (the process level then gets the same runtime_error).
    Case("95_sigpending_quota.py",
         same(Expect(("runtime_error",), ("Resource temporarily unavailable",), (None,)))),
    # z3.parse_smt2_string runs every command of the text it is given (set-option, echo, simplify,
    # eval), and the verifier hands it the candidate's assertions: closed when child/verify.py
    # accepts only declarations, definitions and asserts and names the refused command.
    Case("96_verifier_writes_files.py", same(Expect(("sat",), ("command",), (None,)))),
]

# Kill reasons from what the sandbox observed (issue 20, scripts 120-125): a limit's signal the
# candidate sent itself, an exception it raised itself, a limit it lowered itself.  Kernel level:
# seccomp refuses a limit's signal to itself (EPERM: blocked); everywhere, rusage and the
# scratch measured by the candidate's init decide, and a self-inflicted death says so.
SELF_SENT = Expect(("crashed",), ("sent it to itself",), (None,))
REFUSED_SELF = seccomp()
CASES += [
    Case("120_self_sigxcpu.py", {"kernel": REFUSED_SELF, "process": SELF_SENT}),
    Case("121_self_sigxfsz.py", {"kernel": REFUSED_SELF, "process": SELF_SENT}),
    Case("122_self_sigsys.py", {"kernel": REFUSED_SELF,
                                "process": Expect(("crashed",), ("seccomp is not active",), (None,))}),
    Case("123_raise_memory_error.py",
         same(Expect(("runtime_error",), ("raised by the script itself",), (None,)))),
    Case("124_raise_enospc.py", same(Expect(("runtime_error",), ("No space left",), (None,)))),
    # Lowered to 1 s of a 4 s limit: a quarter, well under what rusage reads at a real limit.
    Case("125_lowered_cpu_limit.py",
         same(Expect(("crashed",), ("lowered its own limit", "SIGXCPU"), (None,))),
         limits=LIMITS.replace(cpu_s=4.0)),
]

# "Verified" means the model shown (issue 20, scripts 126-128): the candidate's own report puts a
# model beside the one the verifier checks; the result holds only what was checked.
CASES += [
    Case("126_forged_model_beside_checked.py", same(Expect(("sat",), kill=(None,))),
         extra={"verified": True, "model": {"x": 5}}),
    Case("127_model_pairs_twice.py",
         same(Expect(("sat",), ("not verified", "more than one value"), (None,))),
         extra={"verified": None, "not_model": {"x": 666}}),
    Case("128_model_smt2_empty.py", same(Expect(("sat",), kill=(None,))),
         extra={"verified": True, "not_model": {"x": 666}}),
]

# No candidate reads another's data (issue 20, script 129): it scans its own memory for what a
# fork inherited.  Every tree is forked from the fork server, which never held a request.
CASES += [
    Case("129_scan_own_memory.py", same(Expect(("no_check",), ("",), (None,))), sibling_hold_s=3.0),
]
