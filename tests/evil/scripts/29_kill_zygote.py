# Tries: SIGKILL the zygote by its host pid, and its process group, and PID 1 of our namespace.
# Must get: blocked (seccomp).  The zygote keeps its pid and answers the next run.
import os, signal
errors = []
for target in ({{ZYGOTE_PID}}, -{{ZYGOTE_PID}}, 1, os.getppid()):
    try:
        os.kill(target, signal.SIGKILL)
        print("ESCAPED: kill", target, "succeeded")
    except OSError as exc:
        errors.append(exc)
raise errors[0]
