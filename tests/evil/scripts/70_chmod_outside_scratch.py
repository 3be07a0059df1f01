# Tries: change the mode of files outside scratch through libc (chmod, fchmodat, fchmodat2 by path
# on the home canary; fchmod on a descriptor of a read-only stdlib file), which Landlock cannot
# refuse: it has no right for modes (as root this made a root-owned binary set-uid).  Each call asks
# for the file's current mode (0644 where the mount namespace hides it), so a call that goes
# through changes nothing but is the escape.
# Must get: blocked (seccomp refuses the chmod family with EPERM, before any path lookup).
# Process level: the calls go through (no seccomp there; SECURITY.md).
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, FCHMODAT2 = -100, 452  # fchmodat2: the same number on every architecture
target = b"{{CANARY_FILE}}"
try:
    mode = os.stat(target).st_mode & 0o7777
except OSError:
    mode = 0o644
fd = os.open(json.__file__, os.O_RDONLY)
stdlib_mode = os.fstat(fd).st_mode & 0o7777
attempts = {
    "chmod": lambda: libc.chmod(target, mode),
    "fchmodat": lambda: libc.fchmodat(AT_FDCWD, target, mode, 0),
    "fchmodat2": lambda: libc.syscall(FCHMODAT2, ctypes.c_long(AT_FDCWD), target, mode, 0),
    "fchmod": lambda: libc.fchmod(fd, stdlib_mode),
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
