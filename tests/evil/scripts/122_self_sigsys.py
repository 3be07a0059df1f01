# Tries: claim that seccomp killed it (blocked, kill "seccomp") by sending itself SIGSYS.
# Must get: never blocked by seccomp.  Kernel: the send is refused (seccomp), runtime_error.
# Process: crashed, "seccomp is not active".
import signal

signal.raise_signal(signal.SIGSYS)
print("ESCAPED: still alive after SIGSYS")
