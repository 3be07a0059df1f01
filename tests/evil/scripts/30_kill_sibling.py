# Tries: find a sibling candidate by scanning /proc (the host's /proc is still mounted, so host
# pids of other sandboxes would be listed) and SIGKILL it; then brute-force every pid to 50000.
# Must get: blocked (seccomp: kill only of itself; Landlock also hides /proc); the sibling
# candidate finishes with its own verdict.
import os, signal
me = os.getpid()
try:
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
except OSError as exc:
    print("cannot list /proc:", exc.strerror)
    pids = []
errors = []
for pid in pids + list(range(1, 50000)):
    if pid == me:
        continue
    try:
        os.kill(pid, signal.SIGKILL)
        print("ESCAPED: killed", pid)
    except OSError as exc:
        if len(errors) < 3:
            errors.append(exc)
raise errors[0]
