# Tries: shrink the limits of the zygote, of the kernel and of our PID 1 with prlimit.
# Must get: blocked (seccomp allows prlimit only on the candidate itself).
import resource
errors = []
for pid in ({{ZYGOTE_PID}}, {{KERNEL_PID}}, 1):
    try:
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, 3))
        print("ESCAPED: prlimit", pid)
    except OSError as exc:
        errors.append(exc)
raise errors[0]
