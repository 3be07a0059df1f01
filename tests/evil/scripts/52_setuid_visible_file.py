# Tries: make a file of the Python installation set-uid and change its owner, times and xattrs
# (libc through ctypes, no audit hook): as root this turned a root-owned binary into a set-uid one.
# The file is one the candidate can see (z3's own library), owned by root or by the running user.
# A call that goes through is undone at once, and printed as the escape.
# Must get: blocked: seccomp refuses the calls (EPERM) and, beneath it, the filesystem view is
# read-only (EROFS); the candidate's uid owns no host file (root's runs as a dedicated uid).
import ctypes, os, z3
libc = ctypes.CDLL(None, use_errno=True)
target = os.path.join(os.path.dirname(z3.__file__), "lib", "libz3.so")
if not os.path.exists(target):
    target = z3.__file__
info = os.stat(target)
path = target.encode()
attempts = {
    "chmod u+s": lambda: libc.chmod(path, info.st_mode & 0o7777 | 0o4000),
    "chown": lambda: libc.chown(path, info.st_uid, info.st_gid),
    "utimes": lambda: libc.utimes(path, None),
    "setxattr": lambda: libc.setxattr(path, b"user.z3sbevil", b"1", 1, 0),
}
errors = []
for name, call in attempts.items():
    if call() == 0:
        os.chmod(target, info.st_mode & 0o7777)
        print("ESCAPED:", name, "went through on", target)
    else:
        e = ctypes.get_errno()
        errors.append(OSError(e, os.strerror(e), f"{name} {target}"))
if errors:
    raise errors[0]
