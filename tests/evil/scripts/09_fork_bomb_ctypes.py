# Tries: a fork bomb through libc's fork() via ctypes, which no Python audit hook sees.
# Must get: blocked (seccomp refuses clone without CLONE_THREAD with EPERM).
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
for _ in range(64):
    pid = libc.fork()
    if pid == 0:
        libc.prctl(15, b"z3sbevil", 0, 0, 0)
        time.sleep(60)
        os._exit(0)
    if pid < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), "fork")
print("ESCAPED: forked 64 processes")
