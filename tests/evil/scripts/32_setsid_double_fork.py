# Tries: daemonise (setsid, fork, fork) and sleep, to outlive the candidate; audit hook disarmed.
# Must get: blocked at kernel level (seccomp); at process level the fork works, and the zygote
# (a subreaper) must kill the daemon when the candidate ends.
import ctypes, os, time
import z3sandbox_kernel.child.harness as h
h.DENIED_EVENTS = frozenset()
libc = ctypes.CDLL(None)
try:
    os.setsid()  # already a session leader (the bootstrap's setsid): EPERM, go on
except OSError:
    pass
if os.fork() == 0:
    if os.fork() == 0:
        libc.prctl(15, b"z3sbevil", 0, 0, 0)
        time.sleep(120)
    os._exit(0)
print("ESCAPED: daemon forked")
