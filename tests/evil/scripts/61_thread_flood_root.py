# Tries: 8,300 threads that stay alive, with memory room for all of them (memory_mb=4096, small
# stacks): as root this once started 8,252 (RLIMIT_NPROC does not bind uid 0).
# Must get: a refused thread (blocked or runtime_error, "thread" in the reason) after at most the
# threads limit, for root too: root's candidates run as an unprivileged uid.
import threading
threading.stack_size(64 * 1024)
stop = threading.Event()
started = 0
try:
    for _ in range(8300):
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
except RuntimeError as exc:
    raise RuntimeError(f"{exc} (refused after {started} started)") from None
print("ESCAPED: started", started, "threads")
