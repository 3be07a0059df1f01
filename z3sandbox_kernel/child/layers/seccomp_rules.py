"""The seccomp filter's data: which system calls are refused, as classes, and why (seccomp.py
compiles it to BPF).  A table, so refusing one more call is one line in its class."""

from __future__ import annotations

import signal

# Refused with EPERM whatever the arguments: (why, names), one class per entry.  A name this
# architecture lacks (fork, chmod and ipc on aarch64) is left out of its program.
DENIED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("new processes and programs (clone without CLONE_THREAD is below)",
     ("fork", "vfork", "execve", "execveat")),
    ("other processes' memory, handles and signals",
     ("ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "process_mrelease",
      "kcmp", "pidfd_getfd", "pidfd_send_signal", "migrate_pages", "move_pages")),
    ("file metadata: Landlock has no rights for modes, owners, times or xattrs (a set-uid bit!)",
     ("chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
      "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
      "setxattrat", "removexattr", "lremovexattr", "fremovexattr", "removexattrat",
      "file_setattr")),
    ("memory RLIMIT_AS does not count, some of it outliving the candidate: memfds, SysV IPC, POSIX "
     "message queues (POSIX semaphores and shm are files in /dev/shm and stay allowed)",
     ("memfd_create", "memfd_secret", "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd",
      "msgrcv", "msgctl", "semget", "semop", "semtimedop", "semctl", "ipc", "mq_open",
      "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr")),
    ("namespaces: entering, creating, listing",
     ("unshare", "setns", "listns")),
    ("mounts, mount queries, and file handles that bypass path checks",
     ("mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
      "move_mount", "open_tree", "open_tree_attr", "mount_setattr", "listmount", "statmount",
      "name_to_handle_at", "open_by_handle_at", "quotactl", "quotactl_fd")),
    ("watching the host's files",
     ("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark")),
    ("machine-wide state (each needs a capability the candidate no longer has: refused anyway)",
     ("swapon", "swapoff", "acct", "reboot", "kexec_load", "kexec_file_load", "init_module",
      "finit_module", "delete_module", "sethostname", "setdomainname", "settimeofday",
      "clock_settime", "clock_adjtime", "adjtimex", "syslog", "vhangup", "iopl", "ioperm",
      "sync", "syncfs")),  # these two need none, but flush every file system of the host
    ("kernel attack surface nothing here needs",
     ("bpf", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register",
      "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
      "userfaultfd", "keyctl", "add_key", "request_key", "personality", "uselib",
      "lookup_dcookie", "lsm_set_self_attr", "modify_ldt")),  # io_setup: aio-max-nr is host-wide
    ("every socket: z3 and the harness need none (asyncio's socketpair goes too)",
     ("socket", "socketpair")),
    ("machine-wide figures: sysinfo(2) shows the host's uptime, load, memory and task count, a "
     "channel between concurrent candidates (os.sysconf's SC_PHYS_PAGES then fails; z3 and Python "
     "do not call it)", ("sysinfo",)),
    ("POSIX timers: they deliver a signal of the caller's choosing (SIGXCPU, SIGSYS: the kill "
     "reasons of a limit); setitimer and threads remain", ("timer_create",)),
)
# Numbers of system calls newer than libseccomp 2.5.4's table, the same on every architecture
# (the kernel's unified numbering, asm-generic/unistd.h and syscall_64.tbl agree from 424 on).
UNIFIED = {
    "statmount": 457, "listmount": 458, "lsm_get_self_attr": 459, "lsm_set_self_attr": 460,
    "lsm_list_modules": 461, "mseal": 462, "setxattrat": 463, "getxattrat": 464,
    "listxattrat": 465, "removexattrat": 466, "open_tree_attr": 467, "file_getattr": 468,
    "file_setattr": 469, "listns": 470,
}
NEWEST_REVIEWED = 470  # listns (Linux 6.19); anything above answers ENOSYS
# Answered ENOSYS so that glibc falls back to clone(2), whose flags the filter can read.
NOT_IMPLEMENTED = ("clone3",)
# Allowed only when the first argument is the candidate's own PID.
SELF_ONLY = ("pidfd_open",)
# The same, and then only when the signal (the argument at this index) is not one that the
# kernel sends for a limit: a candidate cannot forge its CPU-time, file-size or seccomp kill
# (zygote/classify.py also checks each against what the sandbox measured).
SELF_SIGNALS = (("kill", 1), ("tkill", 1), ("tgkill", 2), ("rt_sigqueueinfo", 1), ("rt_tgsigqueueinfo", 2))
LIMIT_SIGNALS = (signal.SIGXCPU, signal.SIGXFSZ, signal.SIGSYS)
# Allowed only when the first argument is 0 (the caller) or the candidate's own PID.
SELF_OR_ZERO = (
    "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
)
# (name, required first argument): allowed only for that "which" and a second argument 0 or self.
WHICH_WHO = (("setpriority", 0), ("ioprio_set", 1))  # PRIO_PROCESS, IOPRIO_WHO_PROCESS
# (name, why, refused values of the second argument, compared on its low word).
COMMANDS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("ioctl", "typing into the host's terminal: TIOCSTI, TIOCLINUX", (0x5412, 0x541C)),
    ("ioctl", "file attributes (chattr): FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION, "
     "and the 32-bit forms", (0x40086602, 0x40046602, 0x401C5820, 0x40087602, 0x40047602)),
    ("fcntl", "leases and directory notifications on host files: F_SETLEASE, F_NOTIFY; signals "
     "to another process on I/O: F_SETOWN, F_SETOWN_EX", (1024, 1026, 8, 15)),
    ("fcntl", "pipe buffers grown to 1 MB (F_SETPIPE_SZ): memory RLIMIT_AS does not count, drawn "
     "from the user's pipe quota (evil script 94)", (1031,)),
)
# Python functions whose EPERM can only come from this filter: the error says so, and the verdict's
# reason then names what was refused (a call through ctypes gets the plain errno).
EXPLAINED = ("chmod", "fchmod", "chown", "fchown", "lchown", "utime", "setxattr", "removexattr",
             "memfd_create", "chroot")


def all_names() -> list[str]:
    """Every system call the program names."""
    names = [n for _why, group in DENIED for n in group]
    names += [*NOT_IMPLEMENTED, *SELF_ONLY, *(n for n, _ in SELF_SIGNALS), *SELF_OR_ZERO, "clone",
              *(n for n, _ in WHICH_WHO)]
    return names + list(dict.fromkeys(call for call, _why, _values in COMMANDS))
