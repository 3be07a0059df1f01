# Tries: read another process's files in /proc: the candidate's own init (PID 1 of its namespace),
# the test process by its host PID, and list /proc to find more.
# Must get: blocked (Landlock grants no /proc; the init is in a parent user namespace) or
# runtime_error (the host PID does not exist in the candidate's fresh /proc).
import os
first = None
for path in ("/proc/1/environ", "/proc/1/maps", "/proc/{{KERNEL_PID}}/environ", "/proc/{{KERNEL_PID}}/cmdline"):
    try:
        with open(path, "rb") as handle:
            print("ESCAPED:", path, handle.read(200))
    except OSError as exc:
        first = first or exc
try:
    print("ESCAPED: /proc lists", sorted(os.listdir("/proc"))[:10])
except OSError as exc:
    first = first or exc
if first is not None:
    raise first
