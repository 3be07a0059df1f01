# Tries: hold 900 MB with memory_mb=64 in memfds (anonymous files RLIMIT_AS does not count: each is
# filled with write(), never mapped), 16 MB each to stay under the file-size limit.
# Must get: blocked (seccomp refuses memfd_create with EPERM).
# Process level: the memory is really held, until the candidate ends (no seccomp there).
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
chunk = b"\xa5" * (1 << 20)
held = []
while len(held) * 16 < 900:
    fd = libc.memfd_create(b"z3sbevil", 0)
    if fd < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), f"memfd_create after {len(held) * 16} MB")
    for _ in range(16):
        os.write(fd, chunk)
    held.append(fd)
print("ESCAPED: holding", len(held) * 16, "MB in memfds")
