# Tries: replace the candidate with /bin/sh via os.execv (audit hook disarmed).
# Must get: blocked (seccomp refuses execve).
import os
import z3sandbox_kernel.child.harness as h
h.DENIED_EVENTS = frozenset()
os.execv("/bin/sh", ["/bin/sh", "-c", "echo ESCAPED > {{WATCHED}}/execve.txt"])
