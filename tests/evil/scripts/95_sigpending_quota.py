# Tries: take the whole RLIMIT_SIGPENDING budget (96,000 here) of the uid candidates run as, by
# queueing a blocked real-time signal to itself until the kernel refuses (POSIX timers draw from
# the same budget): about 13 MB of kernel memory RLIMIT_AS does not count, and while it runs every
# other process of that uid -- a sibling candidate, and for a normal user their own programs
# outside the sandbox -- gets EAGAIN from sigqueue and timer_create.
# Must get: runtime_error, EAGAIN after a small number (RLIMIT_SIGPENDING set low per candidate).
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
queued = 0
while libc.sigqueue(os.getpid(), int(signal.SIGRTMIN), ctypes.c_void_p(0)) == 0:
    queued += 1
err = ctypes.get_errno()
if queued > 4096:
    print(f"ESCAPED: {queued} signals queued from the uid's shared budget")
raise OSError(err, f"{os.strerror(err)} after {queued} queued signals")
