# Tries: read the kernel's (test process's) environment through /proc/<pid>/environ, by host pid,
# and the environment of every process visible in /proc.
# Must get: blocked (Landlock grants no /proc; the PID namespace hides the pid from kill, not
# from the host's /proc mount), and no canary in any output.
import os
data = open("/proc/{{KERNEL_PID}}/environ", "rb").read()
print("ESCAPED:", data.replace(b"\0", b"\n").decode(errors="replace"))
