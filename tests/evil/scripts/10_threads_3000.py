# Tries: start 3000 threads that all stay alive (the memory limit leaves room for ~250 stacks).
# Must get: a refused thread: blocked or runtime_error with "thread" in the reason, after at most
# the threads limit (RLIMIT_NPROC, for a normal user); for root only the memory limit applies.
import threading
stop = threading.Event()
started = 0
try:
    for _ in range(3000):
        threading.Thread(target=stop.wait, daemon=True).start()
        started += 1
except RuntimeError as exc:
    raise RuntimeError(f"{exc} (refused after {started} started)") from None
print("ESCAPED: started", started, "threads")
