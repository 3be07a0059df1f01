# Tries: daemonise (setsid, fork, fork) and sleep, to outlive the candidate; fork through libc
# (no audit event).
# Must get: blocked at kernel level (seccomp); at process level the fork works, and the zygote
# (a subreaper) must kill the daemon when the candidate ends.
import time
{{RAW_LIBC}}
try:
    os.setsid()  # already a session leader (the bootstrap's setsid): EPERM, go on
except OSError:
    pass
if raw(libc.fork()) == 0:
    if raw(libc.fork()) == 0:
        libc.prctl(15, b"z3sbevil", 0, 0, 0)
        time.sleep(120)
    os._exit(0)
print("ESCAPED: daemon forked")
