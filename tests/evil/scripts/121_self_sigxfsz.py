# Tries: claim the file-size limit without a file of that size: sends itself SIGXFSZ.
# Must get: never output_limit.  Kernel: the send is refused (seccomp), runtime_error.
# Process: crashed, "sent it to itself" (no file of the limit's size in scratch).
import signal

signal.raise_signal(signal.SIGXFSZ)
print("ESCAPED: still alive after SIGXFSZ")
