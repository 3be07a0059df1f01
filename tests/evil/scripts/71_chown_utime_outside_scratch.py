# Tries: change the owner and the times of files outside scratch through libc (chown, lchown,
# fchownat to -1/-1, which keeps the owner but is checked like any chown; fchown on a descriptor of
# a read-only stdlib file; utimensat and utimes to "now"): Landlock has no right for either.
# Must get: blocked (seccomp refuses chown and utime families with EPERM).
# Process level: the calls go through (no seccomp there; SECURITY.md).
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
target = b"{{CANARY_FILE}}"
fd = os.open(json.__file__, os.O_RDONLY)
attempts = {
    "chown": lambda: libc.chown(target, -1, -1),
    "lchown": lambda: libc.lchown(target, -1, -1),
    "fchownat": lambda: libc.fchownat(AT_FDCWD, target, -1, -1, 0),
    "fchown": lambda: libc.fchown(fd, -1, -1),
    "utimensat": lambda: libc.utimensat(AT_FDCWD, target, None, 0),
    "utimes": lambda: libc.utimes(target, None),
}
errors = []
for name, call in attempts.items():
    if call() == 0:
        print("ESCAPED:", name, "went through")
    else:
        e = ctypes.get_errno()
        errors.append(OSError(e, os.strerror(e), name))
if errors:
    raise errors[0]
