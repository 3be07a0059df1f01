# Tries: claim the CPU-time limit after 4 ms of CPU by sending itself SIGXCPU (raise -> tgkill).
# Must get: never cpu_limit.  Kernel: the send is refused (seccomp: a limit's signal is the
# kernel's), runtime_error.  Process: crashed, "sent it to itself" (rusage is under the limit).
import signal
import time

time.sleep(0.004)
signal.raise_signal(signal.SIGXCPU)
print("ESCAPED: still alive after SIGXCPU")
